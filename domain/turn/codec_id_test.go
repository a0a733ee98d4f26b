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
