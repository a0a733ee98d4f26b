package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestExecAnswerStreamedAsWhole: an exec's answer whose output is encoded
// a chunk at a time is byte for byte the answer encoded whole, whatever
// the output: control bytes, characters cut by a chunk's end, invalid
// UTF-8, HTML's special characters, quotes that look like the fields'.
func TestExecAnswerStreamedAsWhole(t *testing.T) {
	s := &Server{}
	piece := rapid.SampledFrom([]string{"\x01", "é", "€", "😀", "\xff", "\xe2\x82", "\x80", "<&>", `"stdout":""`, "\\", "\n", "a"})
	rapid.Check(t, func(rt *rapid.T) {
		out := func(label string) string {
			n := rapid.IntRange(0, 3*answerChunk).Draw(rt, label+"-n")
			var b strings.Builder
			for b.Len() < n {
				b.WriteString(piece.Draw(rt, label+"-piece"))
				if b.Len() < n-answerChunk/2 && rapid.Bool().Draw(rt, label+"-skip") {
					b.WriteString(strings.Repeat("x", answerChunk/2-rapid.IntRange(0, 5).Draw(rt, label+"-k")))
				}
			}
			return b.String()
		}
		resp := &ExecResponse{Ran: true, Result: &ExecResult{ExitCode: 3, Stdout: out("stdout"), Stderr: out("stderr")}, Message: `"stderr":""`}
		whole := httptest.NewRecorder()
		writeJSON(whole, http.StatusOK, resp)
		streamed := httptest.NewRecorder()
		s.writeExecAnswer(streamed, http.StatusOK, resp)
		if !bytes.Equal(whole.Body.Bytes(), streamed.Body.Bytes()) {
			a, b := whole.Body.Bytes(), streamed.Body.Bytes()
			i := 0
			for i < min(len(a), len(b)) && a[i] == b[i] {
				i++
			}
			rt.Fatalf("streamed answer differs at byte %d of %d/%d: %q vs %q", i, len(a), len(b), a[i:min(len(a), i+40)], b[i:min(len(b), i+40)])
		}
		if whole.Code != streamed.Code || whole.Header().Get("Content-Type") != streamed.Header().Get("Content-Type") {
			rt.Fatalf("status or type differ: %d %q vs %d %q", whole.Code, whole.Header().Get("Content-Type"), streamed.Code, streamed.Header().Get("Content-Type"))
		}
	})
}
