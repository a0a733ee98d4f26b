package engine_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/adapters/logstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// bigProfile is a full_access profile of 64 allowed paths of about 1 KB
// each (a turn of about 130 KiB stored), distinct for each i.
func bigProfile(i int) *domain.ProfileRequest {
	var paths []string
	for j := range 64 {
		paths = append(paths, fmt.Sprintf("/w/%03d-%03d-", i, j)+strings.Repeat("p", 950))
	}
	return &domain.ProfileRequest{Mode: domain.ModeFullAccess, AllowedPaths: paths}
}

// TestAttack18TurnCacheBoundedInBytes: the engine's cache of turn states
// was bounded by a count alone (--turn-cache, 4,096), and a runtime
// credential starts and ends as many turns as it likes, each as large as
// its lists allow: the states of ended turns filled the server's memory
// (5.7 MB a turn at a megabyte of allowed_paths), and a server killed for
// its memory lets a Claude Code http hook's calls run. The cache is now
// bounded by the stored bytes its states were folded from too
// (MaxCachedBytes), the most recently used turn kept. The attack: turns of
// about 64 KiB each against a bound of 256 KiB leave at most the bound
// (and the newest turn) cached. The controls: a turn evicted is decided
// again as before (it is loaded from the store), and under the default
// bound every turn stays cached.
func TestAttack18TurnCacheBoundedInBytes(t *testing.T) {
	big := bigProfile
	run := func(maxBytes int64) *engine.Engine {
		st, err := logstore.Open(filepath.Join(t.TempDir(), "events"), logstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		eng := engine.New(st, engine.Config{Kernel: kernel, MaxCachedBytes: maxBytes})
		for i := range 20 {
			id := fmt.Sprintf("t%d", i)
			if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "w", ThreadID: "th", Profile: big(i),
				Inputs: turn.Inputs{WorkspaceRoot: "/w"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Execute(ctx, id, &turn.EndTurn{Status: turn.StatusCompleted}); err != nil {
				t.Fatal(err)
			}
		}
		return eng
	}
	const bound = 256 << 10
	eng := run(bound)
	n, b := eng.CachedTurns(), eng.CachedBytes()
	t.Logf("%d turns, %d bytes cached", n, b)
	if n >= 20 || b > bound+200<<10 {
		t.Errorf("after 20 turns of ~130 KiB stored each under a bound of %d: %d turns of %d bytes cached", bound, n, b)
	}
	// Control: an evicted turn answers from the store as before.
	if res, err := eng.Execute(ctx, "t0", &turn.StartTurn{TurnID: "t0", WorkspaceID: "w", ThreadID: "th", Profile: big(0),
		Inputs: turn.Inputs{WorkspaceRoot: "/w"}}); err != nil || !res.Replayed {
		t.Errorf("control: the evicted turn t0's start, repeated, is not replayed from the store: %v %+v", err, res.Outcome)
	}
	// Control: under the default bound, all of them stay.
	if eng := run(0); eng.CachedTurns() != 20 {
		t.Errorf("control: under the default bound %d of 20 turns cached (%d bytes)", eng.CachedTurns(), eng.CachedBytes())
	}
}
