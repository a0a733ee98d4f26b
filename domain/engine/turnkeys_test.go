package engine

import (
	"testing"

	"turnstile/domain"
)

// TestTurnKeysMemo: the memo gives what ForTurn gives, per turn and
// principal, and never another store key's derivation.
func TestTurnKeysMemo(t *testing.T) {
	var m turnKeys
	a, b := domain.RandomDigestKey(), domain.RandomDigestKey()
	digest := func(k domain.DigestKey) string { return k.Sum([]byte("x")) }
	for range 2 { // the second round comes from the memo
		for _, id := range []turnKeyID{{"t1", "alice"}, {"t1", "bob"}, {"t2", "alice"}} {
			if got, want := digest(m.forTurn(a, id.turnID, id.principal)), digest(a.ForTurn(id.turnID, id.principal)); got != want {
				t.Fatalf("%v: %s, want %s", id, got, want)
			}
		}
	}
	if got, want := digest(m.forTurn(b, "t1", "alice")), digest(b.ForTurn("t1", "alice")); got != want {
		t.Fatalf("another store key was given the first one's derivation: %s, want %s", got, want)
	}
	if digest(a.ForTurn("t1", "alice")) == digest(a.ForTurn("t1", "bob")) {
		t.Fatal("control: two principals' keys are the same")
	}
	if z := m.forTurn(domain.DigestKey{}, "t1", "alice"); !z.IsZero() {
		t.Fatal("the zero key derived a key")
	}
}
