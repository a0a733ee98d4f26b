package eventcodec

import (
	"bytes"
	"encoding/json"
)

// PrevHash reads the prev_hash of stored metadata without decoding the rest
// of the envelope or the payload: the scanner skips every other member.
// Input the scanner does not expect (a number with a fraction, a key that
// matches prev_hash only case-insensitively, …) goes through encoding/json,
// so the answer is always encoding/json's (TestPrevHashMatchesJSON).
func PrevHash(metadata []byte) (string, error) {
	s := scanner{b: metadata}
	var prev string
	for it := s.open('{'); s.next('}', &it); {
		switch k := s.key(); {
		case string(k) == "prev_hash":
			prev = s.str()
		case bytes.EqualFold(k, []byte("prev_hash")):
			s.fail() // encoding/json matches keys case-insensitively
		default:
			s.skip()
		}
	}
	if s.done() == nil {
		return prev, nil
	}
	var env struct {
		PrevHash string `json:"prev_hash"`
	}
	err := json.Unmarshal(metadata, &env)
	return env.PrevHash, err
}

// skip passes over one value.
func (s *scanner) skip() {
	switch s.peek() {
	case '"':
		s.strBytes()
	case '{':
		for it := s.open('{'); s.next('}', &it); {
			s.key()
			s.skip()
		}
	case '[':
		for it := s.open('['); s.next(']', &it); {
			s.skip()
		}
	case 't', 'f':
		s.boolean()
	case 'n':
		if !s.null() {
			s.fail()
		}
	default:
		s.integer()
	}
}
