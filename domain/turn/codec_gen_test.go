package turn

import (
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"turnstile/domain"
)

// hostile are pieces of strings an encoder gets wrong: JSON's specials,
// HTML's, control characters, the JavaScript line separators, invalid and
// truncated UTF-8, a surrogate encoded in UTF-8, the replacement
// character itself, and multi-byte runes.
var hostile = []string{
	`"`, `\`, "/", "<", ">", "&", "\x00", "\x01", "\x1f", "\x7f", "\b", "\f", "\n", "\r", "\t",
	"\u2028", "\u2029", "\u2027", "\u202a", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"\ufffd", "é", "日本", "😀", "a", " ", "turn-1", "",
}

// genString draws a string of hostile pieces, arbitrary bytes or
// arbitrary runes.
func genString() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.Custom(func(t *rapid.T) string {
			s := ""
			for _, p := range rapid.SliceOfN(rapid.SampledFrom(hostile), 0, 8).Draw(t, "pieces") {
				s += p
			}
			return s
		}),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 24), func(b []byte) string { return string(b) }),
		rapid.StringN(0, 24, -1),
	)
}

// genTime draws instants across and beyond RFC 3339's years, in UTC and
// in zones with odd offsets (seconds, and hours past 23).
func genTime() *rapid.Generator[time.Time] {
	return rapid.Custom(func(t *rapid.T) time.Time {
		var tm time.Time
		switch rapid.IntRange(0, 3).Draw(t, "range") {
		case 0:
			tm = time.Unix(0, rapid.Int64().Draw(t, "unix_nano"))
		case 1: // years 0 to 9999 and a little beyond
			tm = time.Unix(rapid.Int64Range(-62167219200-86400*400, 253402300799+86400*400).Draw(t, "unix"), rapid.Int64Range(0, 999999999).Draw(t, "nsec"))
		case 2:
			tm = time.Unix(rapid.Int64Range(-1<<62, 1<<62).Draw(t, "unix_far"), 0)
		default: // whole seconds and round fractions, which RFC3339Nano trims
			tm = time.Unix(rapid.Int64Range(0, 4e9).Draw(t, "unix_round"), rapid.SampledFrom([]int64{0, 1e8, 1e6, 120e6, 5e3}).Draw(t, "frac"))
		}
		switch rapid.IntRange(0, 3).Draw(t, "zone") {
		case 0:
			return tm.UTC()
		case 1:
			return tm.In(time.FixedZone("", rapid.IntRange(-30*3600, 30*3600).Draw(t, "offset")))
		case 2:
			return tm.Local()
		}
		return tm
	})
}

// genEnvelope draws an envelope, with zero and hostile fields.
func genEnvelope() *rapid.Generator[Envelope] {
	return rapid.Custom(func(t *rapid.T) Envelope {
		var id uuid.UUID
		copy(id[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "id"))
		return Envelope{
			EventID:       id,
			Type:          genString().Draw(t, "type"),
			SchemaVersion: rapid.OneOf(rapid.IntRange(-2, 3), rapid.Int()).Draw(t, "version"),
			TurnID:        genString().Draw(t, "turn"),
			OccurredAt:    genTime().Draw(t, "at"),
			Actor:         domain.Actor{Name: genString().Draw(t, "actor"), Role: domain.Role(genString().Draw(t, "role"))},
			CorrelationID: genString().Draw(t, "correlation"),
			PrevHash:      genString().Draw(t, "prev"),
		}
	})
}
