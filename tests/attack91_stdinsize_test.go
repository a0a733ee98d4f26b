package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// a91Details reads a request's details (label → value) as an approver's
// GET /v1/approvals/{id} shows them.
func a91Details(t *testing.T, s *Server, requestID string) map[string]string {
	t.Helper()
	var view struct {
		Request struct {
			Summary     string `json:"summary"`
			ForThisTurn string `json:"for_this_turn"`
			Details     []struct {
				Label string `json:"label"`
				Value string `json:"value"`
			} `json:"details"`
		} `json:"request"`
	}
	s.JSON("GET", "/v1/approvals/"+requestID, nil, http.StatusOK, &view)
	out := map[string]string{"(summary)": view.Request.Summary, "(for_this_turn)": view.Request.ForThisTurn}
	for _, d := range view.Request.Details {
		out[d.Label] = d.Value
	}
	return out
}

// TestAttack91_StdinSizeUnbound: the approver of a command is told its
// standard input only as "Standard input: N bytes" (README, "An approval
// binds what runs": "The approver sees the executable, the environment
// names and the stdin size"). On POST /decisions the agent, holding the
// runtime credential, describes stdin itself with stdin_sha256 and
// stdin_bytes (docs/tools.md); the scope binds stdin_sha256 only, and the
// size shown is whatever stdin_bytes says, or nothing at all when it is
// left out. So the agent:
//
//  1. asks POST /decisions exec_command {argv: ["sh"], executable,
//     stdin_sha256: SHA-256 of a script} and no stdin_bytes: the request
//     reads "Run sh" with no standard input at all (a shell with nothing
//     to run: it exits at once);
//  2. the person answers allow_for_turn (or allow_once);
//  3. POST /exec {argv: ["sh"], stdin: the script}, the same call or any
//     later one of the turn: the scope (stdin_sha256 keyed) is the same,
//     the grant matches, and the script runs, never shown and never
//     asked about.
//
// The same with stdin_bytes 0 ("Standard input: 0 bytes") or any other
// size. Wanted: the size shown is bound (stdin_bytes in the scope, or a
// request with stdin_sha256 and no size refused), and a request whose
// stdin is given as a digest says that it has input.
// Control: the same exec asked over /exec, where the server reads stdin
// itself, shows its true size.
func TestAttack91_StdinSizeUnbound(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("st", "ws", "supervised", root)
	script := "echo PWNED-BY-STDIN; id -u\n"
	sum := sha256.Sum256([]byte(script))

	// Control: /exec with the script as stdin asks, and the request shows
	// its size.
	status, honest := agent.exec("st", "", map[string]any{"tool_call_id": "honest", "argv": []string{"sh"}, "stdin": script})
	if status != http.StatusAccepted || honest.Request == nil {
		t.Fatalf("control: exec sh with stdin: %d %+v, want 202 ask", status, honest)
	}
	hd := a91Details(t, s, honest.Request.RequestID)
	if want := "27 bytes"; hd["Standard input"] != want || len(script) != 27 {
		t.Fatalf("control: the honest request shows stdin %q, want %q (%v)", hd["Standard input"], want, hd)
	}
	exe := hd["Executable"]
	if exe == "" {
		t.Fatalf("control: no executable shown: %v", hd)
	}
	s.respond(honest.Request.RequestID, "deny")

	// 1. The same command asked over /decisions, stdin named by its digest
	// alone. A refusal naming stdin_bytes is what is wanted (fix: a 400
	// answer ends this part).
	body := map[string]any{"tool_call_id": "asked", "tool_name": "exec_command", "arguments": map[string]any{"argv": []string{"sh"}, "executable": exe,
		"stdin_sha256": hex.EncodeToString(sum[:])}}
	if status, data := agent.Request("POST", "/v1/turns/st/decisions", body); status == http.StatusBadRequest {
		if !strings.Contains(string(data), "stdin_bytes") {
			t.Errorf("a digest without a size refused without naming stdin_bytes: %s", data)
		}
	} else {
		var d decisionAnswer
		if err := json.Unmarshal(data, &d); status != http.StatusOK || err != nil || d.Decision != "ask" || d.Request == nil {
			t.Fatalf("decide: %d %s, want ask (or a 400 naming stdin_bytes)", status, data)
		}
		shown := a91Details(t, s, d.Request.RequestID)
		raw, _ := json.Marshal(shown)
		// 2. The person, shown that, allows it for the turn.
		s.respond(d.Request.RequestID, "allow_for_turn")
		// 3. A later exec of the turn, with the script as stdin.
		status, run := agent.exec("st", "", map[string]any{"tool_call_id": "later", "argv": []string{"sh"}, "stdin": script})
		ran := status == http.StatusOK && run.Ran && run.Result != nil && strings.Contains(run.Result.Stdout, "PWNED-BY-STDIN")
		if !ran {
			t.Logf("the later exec did not run: %d %+v", status, run)
		}
		if ran && shown["Standard input"] != "27 bytes" {
			t.Errorf("the approver was shown %s (standard input %q), and the grant it gave ran a %d-byte script given as stdin without asking (stdout %q); want the request to show the stdin that runs (its size bound, or a digest without a size refused)",
				raw, shown["Standard input"], len(script), run.Result.Stdout)
		}
	}

	// The same with a size the agent chooses: "0 bytes".
	agent.startTurn("st0", "ws", "supervised", root)
	d := agent.decide("st0", "asked0", "exec_command", map[string]any{"argv": []string{"sh"}, "executable": exe,
		"stdin_sha256": hex.EncodeToString(sum[:]), "stdin_bytes": 0})
	if d.Decision != "ask" || d.Request == nil {
		t.Fatalf("decide: %+v, want ask", d)
	}
	shown0 := a91Details(t, s, d.Request.RequestID)
	s.respond(d.Request.RequestID, "allow_once")
	status, run := agent.exec("st0", "", map[string]any{"tool_call_id": "asked0", "argv": []string{"sh"}, "stdin": script})
	if status == http.StatusOK && run.Ran && run.Result != nil && strings.Contains(run.Result.Stdout, "PWNED-BY-STDIN") && shown0["Standard input"] != "27 bytes" {
		t.Errorf("the approver was shown standard input %q; the call it allowed ran with a %d-byte stdin", shown0["Standard input"], len(script))
	}
}
