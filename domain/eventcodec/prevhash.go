package eventcodec

import "turnstile/domain/turn"

// PrevHash reads the prev_hash of stored metadata without decoding the
// payload: fast when the metadata is as the codec writes it, else through
// encoding/json (the same answer either way).
func PrevHash(metadata []byte) (string, error) {
	var env turn.Envelope
	if err := decodeEnvelope(metadata, &env); err != nil {
		return "", err
	}
	return env.PrevHash, nil
}
