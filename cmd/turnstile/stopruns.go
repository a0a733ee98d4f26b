package main

import (
	"context"
	"log/slog"

	"turnstile/domain/engine"
	"turnstile/projections"
)

// stopEndedRuns kills the commands this instance runs for a turn that has
// ended anywhere: the engine stops its own when it appends the end; an end
// appended by another instance sharing the store reaches this one through
// the read models, which wake this loop on every change. It returns when
// ctx ends.
func stopEndedRuns(ctx context.Context, eng *engine.Engine, proj *projections.Projector, log *slog.Logger) {
	for {
		changed := proj.Changed()
		for _, id := range eng.RunningTurns() {
			if t, ok := proj.Turn(id); ok && t.Status.Terminal() {
				if n := eng.StopRuns(id, string(t.Status)); n > 0 {
					log.Info("stopped the commands of an ended turn", "turn_id", id, "status", t.Status, "commands", n)
				}
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}
