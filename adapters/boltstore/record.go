package boltstore

import (
	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

// An event record, the value of the log bucket, is storekit's (see
// storekit.RecordVersion for its layout).

// records reads records; damage is ErrCorrupt.
var records = storekit.Records{Corrupt: ErrCorrupt}

func encodeRecord(stream string, ev eventstore.EventData) []byte {
	return storekit.AppendRecord(make([]byte, 0, storekit.RecordLen(stream, ev)), stream, ev)
}
