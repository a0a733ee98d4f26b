package engine

import (
	"context"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// Sweep resolves overdue approval requests as expired, through the same
// append path as a person's answer, every interval until ctx ends. due lists
// the turns with an open request expiring at or before a time (a read-model
// query). Several instances may sweep at once: the deterministic event ids
// and expected versions make the second sweep a no-op.
func (e *Engine) Sweep(ctx context.Context, interval time.Duration, due func(now time.Time) []string, onErr func(turnID string, err error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, id := range due(e.cfg.Now()) {
			if _, err := e.Execute(ctx, id, &turn.ExpireApprovals{Meta: turn.Meta{Actor: domain.SystemActor}}); err != nil && onErr != nil && ctx.Err() == nil {
				onErr(id, err)
			}
		}
	}
}
