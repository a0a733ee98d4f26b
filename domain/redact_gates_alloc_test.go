package domain

import "testing"

// TestGatesOfStaysOnTheStack: the gates of a short ASCII text are computed
// in gatesOf's stack buffer, with or without a secret word in it (the
// member patterns' regexps get a copy): the buffer escaped to the heap on
// every call while the regexps had it, 256 bytes of every decision.
func TestGatesOfStaysOnTheStack(t *testing.T) {
	for _, s := range []string{"/work/repo/src/main.go", "Read /work/repo/config/app.yaml"} {
		if n := testing.AllocsPerRun(100, func() { gatesOf(s) }); n != 0 {
			t.Errorf("gatesOf(%q): %v allocations, want 0", s, n)
		}
	}
	// Control: a secret word sends a copy to the regexps, which still match.
	if g := gatesOf(`{"password": "hunter2"}`); !g.member {
		t.Errorf("a JSON member named password: the member gate is closed: %+v", g)
	}
}
