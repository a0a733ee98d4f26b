package main

import (
	"context"
	"log/slog"
	"time"

	"turnstile/domain/eventstore"
)

// watchStore pings the event store at start and every interval until ctx
// ends: an unreachable store is logged as an error at start and at each
// check while the outage lasts (the server answers 503 meanwhile), and its
// return is logged once.
func watchStore(ctx context.Context, log *slog.Logger, store eventstore.Store, desc string, interval, timeout time.Duration) {
	if interval <= 0 {
		interval = 30 * time.Second
	}
	down := time.Time{}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, timeout)
		err := store.Ping(pctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if down.IsZero() {
				down = time.Now()
			}
			log.Error("the event store is unreachable: decisions and approvals fail with 503 until it returns",
				"store", desc, "err", err, "down_for", time.Since(down).Round(time.Second).String())
		case !down.IsZero():
			log.Info("the event store is reachable again", "store", desc, "down_for", time.Since(down).Round(time.Second).String())
			down = time.Time{}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
