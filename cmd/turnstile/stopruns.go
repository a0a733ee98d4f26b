package main

import (
	"context"
	"log/slog"

	"turnstile/domain/engine"
	"turnstile/projections"
)

// stopEndedRuns kills the commands this instance runs for a turn that has
// ended anywhere, or whose permissions a change anywhere narrowed below the
// snapshot they run under: the engine stops its own when it appends the end
// or the change; one appended by another instance sharing the store reaches
// this one through the read models, which wake this loop on every change.
// The kills are sent without waiting for the commands to end (KillRuns:
// one slow to end held the next turn's kill: review 195). It returns when
// ctx ends.
func stopEndedRuns(ctx context.Context, eng *engine.Engine, proj *projections.Projector, log *slog.Logger) {
	for {
		changed := proj.Changed()
		for _, id := range eng.RunningTurns() {
			t, ok := proj.Turn(id)
			switch {
			case !ok:
			case t.Status.Terminal():
				if n := eng.KillRuns(id, string(t.Status)); n > 0 {
					log.Info("stopped the commands of an ended turn", "turn_id", id, "status", t.Status, "commands", n)
				}
			default:
				if n := eng.KillNarrowedRuns(id, &t.Snapshot, t.SnapshotVersion); n > 0 {
					log.Info("stopped the commands a permission change narrowed", "turn_id", id, "snapshot_version", t.SnapshotVersion, "commands", n)
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
