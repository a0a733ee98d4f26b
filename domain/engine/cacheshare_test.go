package engine_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"turnstile/adapters/logstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestCacheShareKeepsOthersTurns: one principal's turns take at most a
// quarter of the cache when another's need room (twenty-fourth review: the
// agent touching turns of its own evicted every other principal's, whose
// next commands replayed their turns). By count and by bytes, another
// principal's turn, used before the agent's many, stays cached; the
// agent's own turns go first. Control: a principal alone uses the whole
// cache.
func TestCacheShareKeepsOthersTurns(t *testing.T) {
	start := func(eng *engine.Engine, who, id string, profile *domain.ProfileRequest) {
		t.Helper()
		meta := turn.Meta{Actor: domain.Actor{Name: who, Role: domain.RoleRuntime}}
		if _, err := eng.Execute(ctx, id, &turn.StartTurn{Meta: meta, TurnID: id, WorkspaceID: "w", ThreadID: "th-" + id, Profile: profile,
			Inputs: turn.Inputs{WorkspaceRoot: "/w"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Execute(ctx, id, &turn.EndTurn{Meta: meta, Status: turn.StatusCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	open := func(cfg engine.Config) *engine.Engine {
		st, err := logstore.Open(filepath.Join(t.TempDir(), "events"), logstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		cfg.Kernel = kernel
		return engine.New(st, cfg)
	}
	for _, c := range []struct {
		name    string
		cfg     engine.Config
		profile func(int) *domain.ProfileRequest
	}{
		{"count", engine.Config{MaxCachedTurns: 8}, func(int) *domain.ProfileRequest { return nil }},
		{"bytes", engine.Config{MaxCachedBytes: 1 << 20}, bigProfile},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng := open(c.cfg)
			start(eng, "other", "other-1", c.profile(100))
			for i := range 16 {
				start(eng, "agent", fmt.Sprintf("agent-%d", i), c.profile(i))
			}
			if !eng.Cached("other-1") {
				t.Errorf("after the agent's 16 turns, the other principal's turn was evicted (%d turns, %d bytes cached)", eng.CachedTurns(), eng.CachedBytes())
			}
			if !eng.Cached("agent-15") || eng.Cached("agent-0") {
				t.Errorf("the agent's newest turn should stay and its oldest go")
			}
			// Control: the agent alone fills the cache, not a quarter.
			alone := open(c.cfg)
			for i := range 16 {
				start(alone, "agent", fmt.Sprintf("agent-%d", i), c.profile(i))
			}
			if n := alone.CachedTurns(); c.name == "count" && n != 8 || c.name == "bytes" && n < 4 {
				t.Errorf("control: a principal alone has %d turns cached (%d bytes)", n, alone.CachedBytes())
			}
		})
	}
}
