package turn

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// contentIDFmt is contentID as first written (with fmt and the uuid
// package), the definition the stored ids were derived by.
func contentIDFmt(identity uuid.UUID, env *Envelope, data []byte) uuid.UUID {
	h := sha256.New()
	h.Write(identity[:])
	fmt.Fprintf(h, "\x00%s\x00%d\x00%s\x00%d\x00%s\x00%s\x00%s\x00%s\x00", env.Type, env.SchemaVersion, env.TurnID,
		env.OccurredAt.UnixNano(), env.Actor.Name, env.Actor.Role, env.CorrelationID, env.PrevHash)
	h.Write(data)
	return uuid.NewSHA1(idNamespace, h.Sum(nil))
}

// TestContentIDMatchesFmt: contentID hashes the same bytes as contentIDFmt,
// so every event id stays what it was.
func TestContentIDMatchesFmt(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		env := genEnvelope().Draw(rt, "envelope")
		var identity uuid.UUID
		copy(identity[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(rt, "identity"))
		data := []byte(genString().Draw(rt, "data"))
		buf := rapid.SliceOfN(rapid.Byte(), 0, 64).Draw(rt, "scratch") // a reused buffer's leftovers
		got, _ := contentID(buf, identity, &env, data)
		if want := contentIDFmt(identity, &env, data); got != want {
			rt.Fatalf("contentID %s, want %s", got, want)
		}
	})
}

// TestEventIDMatchesNewSHA1: eventID gives the id the uuid package did
// (uuid.NewSHA1 of the NUL-joined key), for names on the stack and longer.
func TestEventIDMatchesNewSHA1(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		turnID := genString().Draw(rt, "turn")
		parts := rapid.SliceOfN(rapid.OneOf(genString(), rapid.StringN(100, 300, -1)), 0, 5).Draw(rt, "parts")
		key := turnID
		for _, p := range parts {
			key += "\x00" + p
		}
		if got, want := eventID(turnID, parts...), uuid.NewSHA1(idNamespace, []byte(key)); got != want {
			rt.Fatalf("eventID(%q, %q) = %s, want %s", turnID, parts, got, want)
		}
	})
}

// TestEventIDAllocates nothing for a decision's name.
func TestEventIDAllocates(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = eventID("bench-1234abcd-63", "evaluate", "c123456") }); n != 0 {
		t.Errorf("eventID allocates %v times, want 0", n)
	}
}
