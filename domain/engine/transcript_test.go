package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
	"turnstile/projections"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

// TestTranscripts runs every testdata/*.txt script: commands against a real
// store, with the events they append and the read models after them.
func TestTranscripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runTranscript(t, file) })
	}
}

type block struct {
	head     []string // comments and the command line
	cmd      string
	expected string
}

func parseTranscript(t *testing.T, text string) []block {
	var blocks []block
	var cur block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "" && cur.cmd == "":
			continue
		case strings.HasPrefix(l, "#"):
			cur.head = append(cur.head, l)
		case l == "----":
			var out []string
			for i+1 < len(lines) && lines[i+1] != "" {
				i++
				out = append(out, lines[i])
			}
			cur.expected = strings.Join(out, "\n")
			blocks = append(blocks, cur)
			cur = block{}
		default:
			if cur.cmd != "" {
				t.Fatalf("line %d: command %q has no ---- separator", i+1, cur.cmd)
			}
			cur.cmd = l
			cur.head = append(cur.head, l)
		}
	}
	if cur.cmd != "" {
		t.Fatalf("command %q has no ---- separator", cur.cmd)
	}
	return blocks
}

func runTranscript(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blocks := parseTranscript(t, string(raw))
	r := &runner{t: t, f: newFixture(t), names: map[string]string{}}
	var out strings.Builder
	for i, b := range blocks {
		got := r.run(t, b.cmd)
		if !*update && got != b.expected {
			t.Errorf("%s: block %d %q\n--- got\n%s\n--- want\n%s", file, i+1, b.cmd, got, b.expected)
		}
		out.WriteString(strings.Join(b.head, "\n") + "\n----\n" + got + "\n\n")
	}
	if *update {
		if err := os.WriteFile(file, []byte(strings.TrimSuffix(out.String(), "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type runner struct {
	t     testing.TB
	f     *fixture
	names map[string]string // request id → "request(turn/call)"
}

func args(cmd string) (string, map[string]string) {
	verb, rest, _ := strings.Cut(cmd, " ")
	kv := map[string]string{}
	for rest != "" {
		rest = strings.TrimSpace(rest)
		if a, ok := strings.CutPrefix(rest, "args="); ok {
			kv["args"] = a
			break
		}
		var tok string
		tok, rest, _ = strings.Cut(rest, " ")
		k, v, _ := strings.Cut(tok, "=")
		kv[k] = v
	}
	return verb, kv
}

func (r *runner) run(t *testing.T, cmd string) string {
	ctx := context.Background()
	verb, kv := args(cmd)
	meta := turn.Meta{Actor: domain.Actor{Name: "agent"}, CorrelationID: kv["call"]}
	var res engine.Result
	var err error
	exec := func(c turn.Command) { res, err = r.f.eng.Execute(ctx, kv["turn"], c) }
	switch verb {
	case "start":
		c := &turn.StartTurn{Meta: meta, TurnID: kv["turn"], WorkspaceID: "ws1", ThreadID: "th1", ParentTurnID: kv["parent"],
			Inputs: turn.Inputs{Cwd: "/work/repo", WorkspaceRoot: "/work/repo"}}
		if m := kv["mode"]; m != "" {
			c.Profile = &domain.ProfileRequest{Mode: domain.Mode(m)}
		}
		if cp := kv["args"]; cp != "" {
			c.TaskCap = &domain.TaskCap{}
			if err := json.Unmarshal([]byte(cp), c.TaskCap); err != nil {
				return "bad cap: " + err.Error()
			}
		}
		exec(c)
	case "decide":
		exec(&turn.EvaluateTool{Meta: meta, ToolCallID: kv["call"], Invocation: domain.Invocation{ToolName: kv["tool"], Arguments: json.RawMessage(kv["args"])}})
	case "respond":
		meta.Actor = domain.Actor{Name: "alice", Role: domain.RoleApprover}
		exec(&turn.RespondApproval{Meta: meta, RequestID: turn.RequestID(kv["turn"], kv["call"]), Resolution: domain.Resolution(kv["resolution"])})
	case "expire":
		meta.Actor = domain.Actor{Name: "system"}
		exec(&turn.ExpireApprovals{Meta: meta})
	case "end":
		exec(&turn.EndTurn{Meta: meta, Status: turn.Status(kv["status"]), Reason: kv["reason"]})
	case "change":
		meta.Actor = domain.Actor{Name: "user"}
		p := &domain.ProfileRequest{Mode: domain.Mode(kv["mode"])}
		if a := kv["args"]; a != "" {
			if err := json.Unmarshal([]byte(a), p); err != nil {
				return "bad profile: " + err.Error()
			}
		}
		exec(&turn.ChangeProfile{Meta: meta, Profile: p})
	case "advance":
		d, perr := time.ParseDuration(kv["by"])
		if perr != nil {
			t.Fatal(perr)
		}
		r.f.clock.Advance(d)
		return "clock " + r.f.clock.Now().Format(time.RFC3339)
	case "turn", "pending", "grants", "audit", "timeline":
		return r.query(verb, kv["turn"])
	default:
		t.Fatalf("unknown command %q", verb)
	}
	if err != nil {
		return "error: " + errorKind(err) + ": " + err.Error()
	}
	r.f.sync(res.Position)
	var b strings.Builder
	fmt.Fprintf(&b, "ok version=%d status=%s", res.Turn.Version, res.Turn.Status)
	if verb == "decide" {
		d := res.Decision
		fmt.Fprintf(&b, " decision=%s reason=%s action=%s cached=%v by=%s", d.Behavior, d.Reason, d.Action, d.Cached, d.DecidedBy)
	}
	if res.Approval != nil {
		r.names[res.Approval.Request.RequestID] = "request(" + kv["turn"] + "/" + res.Approval.ToolCallID + ")"
		fmt.Fprintf(&b, " %s=%s", r.names[res.Approval.Request.RequestID], requestState(res.Approval))
	}
	if res.Replayed {
		b.WriteString(" replayed")
	}
	for _, e := range res.Events {
		b.WriteString("\n  " + r.describe(&e))
	}
	return b.String()
}

func requestState(q *turn.Approval) string {
	if q.Status == turn.RequestResolved {
		return string(q.Resolution)
	}
	return string(q.Status)
}

func errorKind(err error) string {
	var fe *domain.FieldError
	var ce *domain.CapExceedsParentError
	switch {
	case errors.Is(err, turn.ErrIllegalTransition):
		return "illegal_transition"
	case errors.Is(err, turn.ErrNotFound):
		return "not_found"
	case errors.Is(err, turn.ErrConflict):
		return "conflict"
	case errors.As(err, &fe):
		return "invalid_input"
	case errors.As(err, &ce):
		return "cap_exceeds_parent"
	}
	return "error"
}

func (r *runner) describe(e *turn.Event) string {
	s := fmt.Sprintf("v%d %s", e.Version, e.Type)
	switch p := e.Payload.(type) {
	case *turn.ProfileSelected:
		s += fmt.Sprintf(" mode=%s source=%s", p.Profile.Mode, p.Profile.Source)
	case *turn.SecuritySnapshotResolved:
		s += fmt.Sprintf(" sandbox=%s network=%s enforcement=%s", p.Snapshot.Sandbox.Mode, p.Snapshot.Network.Mode, p.Snapshot.Enforcement.Status)
		if p.Snapshot.ParentCap != nil {
			s += " parent=" + p.Snapshot.ParentCap.ParentTurnID
		}
	case *turn.ProfileChanged:
		s += fmt.Sprintf(" mode=%s sandbox=%s", p.Profile.Mode, p.Snapshot.Sandbox.Mode)
	case *turn.DecisionAllowed:
		s += fmt.Sprintf(" call=%s tool=%s reason=%s cached=%v", p.ToolCallID, p.Action.ToolName, p.Decision.Reason, p.Decision.Cached)
	case *turn.DecisionDenied:
		s += fmt.Sprintf(" call=%s tool=%s reason=%s", p.ToolCallID, p.Action.ToolName, p.Decision.Reason)
	case *turn.ApprovalRequested:
		s += fmt.Sprintf(" call=%s tool=%s action=%s summary=%q", p.ToolCallID, p.Action.ToolName, p.Action.Kind, p.Request.Summary)
	case *turn.ApprovalResolved:
		s += fmt.Sprintf(" call=%s resolution=%s reason=%s actor=%s", p.ToolCallID, p.Resolution, p.Reason, e.Actor)
	}
	return s
}

func (r *runner) query(verb, turnID string) string {
	p := r.f.proj
	var lines []string
	switch verb {
	case "turn":
		v, ok := p.Turn(turnID)
		if !ok {
			return "not found"
		}
		return fmt.Sprintf("status=%s version=%d mode=%s source=%s snapshot_version=%d sandbox=%s pending=%d",
			v.Status, v.Version, v.Profile.Mode, v.Profile.Source, v.SnapshotVersion, v.Snapshot.Sandbox.Mode, v.Open)
	case "pending":
		for _, a := range p.Approvals(projections.ApprovalFilter{TurnID: turnID, Status: projections.ApprovalPending}) {
			lines = append(lines, fmt.Sprintf("%s tool=%s action=%s expires=%s", r.names[a.Request.RequestID], a.Request.ToolName, a.Request.Action, a.ExpiresAt.Format(time.Kitchen)))
		}
	case "grants":
		// The grants in force are the engine's fold (turn.Evolve), the one
		// place that knows them; the read models keep none of their own.
		s, _ := replay(r.t, r.f, turnID)
		reqs := slices.Collect(maps.Values(s.Approvals))
		slices.SortFunc(reqs, func(a, b *turn.Approval) int { return a.Seq - b.Seq })
		for _, req := range reqs {
			if _, inForce := s.Grants[req.Grant]; inForce && req.Resolution == domain.ResolutionAllowForTurn {
				lines = append(lines, fmt.Sprintf("mode=%s tool=%s action=%s from=%s", req.Grant.Mode, req.Grant.ToolName, req.Grant.Action, r.names[req.Request.RequestID]))
			}
		}
	case "audit":
		for _, a := range p.Audit(turnID, 0, 0) {
			l := fmt.Sprintf("v%d %s mode=%s", a.Version, a.Kind, a.ProfileMode)
			if a.ToolName != "" {
				l += fmt.Sprintf(" tool=%s action=%s decision=%s reason=%s cached=%v", a.ToolName, a.ActionKind, a.Decision, a.Reason, a.Cached)
			}
			lines = append(lines, l)
		}
	case "timeline":
		for _, row := range p.Timeline(turnID) {
			lines = append(lines, fmt.Sprintf("v%d %s %q %s", row.Version, row.Kind, row.Title, row.Detail))
		}
	}
	if len(lines) == 0 {
		return "(none)"
	}
	return strings.Join(lines, "\n")
}
