package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"
)

// An exec's answer carries the command's stdout and stderr, up to 1 MiB
// each, as JSON strings, where a control byte takes six bytes (\u0001):
// encoded whole, a hundred-byte request could make the server hold 12 MiB
// for as long as the client leaves the answer unread. writeExecAnswer
// encodes the output as it writes it, a chunk at a time, each chunk
// within the write timeout: the server holds the output it already had
// and one chunk, and a client that stops reading ends its connection.

// answerChunk is how much output is encoded and written at once.
const answerChunk = 64 << 10

// writeExecAnswer writes resp as writeJSON would, its output streamed.
func (s *Server) writeExecAnswer(w http.ResponseWriter, status int, resp *ExecResponse) {
	if resp.Result == nil || len(resp.Result.Stdout)+len(resp.Result.Stderr) < answerChunk {
		writeJSON(w, status, resp)
		return
	}
	res := *resp.Result
	stdout, stderr := res.Stdout, res.Stderr
	res.Stdout, res.Stderr = "", ""
	shell := *resp
	shell.Result = &res
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&shell); err != nil {
		writeError(w, err)
		return
	}
	// Unescaped quotes occur in JSON only around keys and strings: these
	// are the result's two empty output fields.
	b := buf.Bytes()
	i := bytes.Index(b, []byte(`"stdout":""`))
	j := bytes.Index(b, []byte(`"stderr":""`))
	if i < 0 || j < i {
		writeJSON(w, status, resp)
		return
	}
	i += len(`"stdout":"`)
	j += len(`"stderr":"`)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	aw := &answerWriter{w: w, rc: http.NewResponseController(w), timeout: s.cfg.SSEWriteTimeout}
	parts := []func() error{
		func() error { return aw.write(b[:i]) },
		func() error { return streamJSONString(aw, stdout) },
		func() error { return aw.write(b[i:j]) },
		func() error { return streamJSONString(aw, stderr) },
		func() error { return aw.write(b[j:]) },
	}
	for _, p := range parts {
		if p() != nil {
			return // the client stopped reading: its connection ends
		}
	}
}

// streamJSONString writes the contents of s as a JSON string's (without
// its quotes), a chunk at a time, each cut at a character's start so that
// it encodes as the whole string would.
func streamJSONString(aw *answerWriter, s string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for len(s) > 0 {
		// A valid character has at most three continuation bytes; past
		// them the bytes are invalid, each encoded alone (U+FFFD).
		n := min(len(s), answerChunk)
		for k := 0; k < utf8.UTFMax-1 && n < len(s) && !utf8.RuneStart(s[n]); k++ {
			n--
		}
		buf.Reset()
		if err := enc.Encode(s[:n]); err != nil {
			return err
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if err := aw.write(b[1 : len(b)-1]); err != nil {
			return err
		}
		s = s[n:]
	}
	return nil
}

// answerWriter writes an answer, each write within the timeout.
type answerWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (aw *answerWriter) write(b []byte) error {
	if aw.timeout > 0 {
		_ = aw.rc.SetWriteDeadline(time.Now().Add(aw.timeout))
	}
	_, err := aw.w.Write(b)
	return err
}
