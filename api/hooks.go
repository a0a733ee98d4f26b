package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// MaxHookBodyBytes bounds a hook's body: a PostToolUse carries the tool's
// whole result (a Read of a large file), so it is larger than MaxBodyBytes.
// Only the result's hash is kept; every other event, whose prompt or tool
// input is stored and shown, is bounded by MaxBodyBytes like any other body.
const MaxHookBodyBytes = 16 << 20

// claudeCodeHook is the JSON Claude Code sends a hook (REFERENCE §11). It is
// decoded leniently: Claude Code adds fields over time, and a hook that
// refused an unknown one would block every tool call after an upgrade.
type claudeCodeHook struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	Source         string          `json:"source"`
	Prompt         string          `json:"prompt"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	Reason         string          `json:"reason"`
}

// HookAnswer is the JSON a hook answers with (a command hook prints it on
// stdout; an http hook's 200 body is read the same way).
type HookAnswer struct {
	HookSpecificOutput *HookDecision `json:"hookSpecificOutput,omitempty"`
}

// HookDecision is a PreToolUse answer.
type HookDecision struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// claudeCodeHookHandler serves POST /v1/hooks/claude-code.
func (s *Server) claudeCodeHookHandler(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxHookBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		var busy *BodyBudgetError
		if errors.As(err, &tooLarge) || errors.As(err, &busy) || errors.Is(err, errRevoked) {
			// Its event cannot be read (or its credential was revoked
			// while it came: reauthBody): the answer is a PreToolUse's
			// deny, since an http hook lets the call run on any other
			// answer (a Write of 17 MB would have run unchecked); the
			// hooks of other events ignore it.
			writeJSON(w, http.StatusOK, preToolUse("deny", "turnstile refused this call: "+mapError(err).Message))
			return
		}
		writeError(w, err)
		return
	}
	var h claudeCodeHook
	if len(bytes.TrimSpace(body)) == 0 {
		writeError(w, fmt.Errorf("%w: empty body", errMalformed))
		return
	}
	if err := json.Unmarshal(body, &h); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			err = fmt.Errorf("%w: %v", errMalformed, err)
		}
		if hookEventIsPreToolUse(body) {
			// A PreToolUse whose body cannot be read whole (a tool input
			// the agent nested past the levels encoding/json reads) is
			// denied: any answer but 200 lets an http hook's call run.
			writeJSON(w, http.StatusOK, preToolUse("deny", "turnstile refused this call: "+mapError(err).Message))
			return
		}
		writeError(w, err)
		return
	}
	if s.cfg.ClaudeCode == nil {
		err := errorf(http.StatusNotFound, "not_configured", nil, "the Claude Code hook is not configured on this server (serve --claude-code-config)")
		if h.HookEventName == "PreToolUse" {
			writeJSON(w, http.StatusOK, preToolUse("deny", "turnstile refused this call: "+err.Message))
			return
		}
		writeError(w, err)
		return
	}
	if len(body) > MaxBodyBytes && h.HookEventName != "PostToolUse" && h.HookEventName != "PostToolUseFailure" {
		err := &http.MaxBytesError{Limit: MaxBodyBytes}
		if h.HookEventName == "PreToolUse" {
			writeJSON(w, http.StatusOK, preToolUse("deny", "turnstile refused this call: "+mapError(err).Message))
			return
		}
		writeError(w, err)
		return
	}
	var pos eventstore.Position
	ctx := context.WithValue(context.WithValue(r.Context(), hookPosKey{}, &pos), hookArrivalKey{}, arrived)
	if h.HookEventName == "PreToolUse" {
		// Claude Code runs the call at its hook's timeout, which the
		// operator keeps above hold_wait: every step of the answer (the
		// turn's reads and commands, which the agent's own calls in the
		// session can keep waiting, and a hold) ends by then, and the
		// call is denied.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, arrived.Add(s.cfg.ClaudeCode.HoldWait+hookAnswerGrace))
		defer cancel()
	}
	r = r.WithContext(ctx)
	answer, err := s.claudeCodeHook(r, &h)
	if pos != eventstore.Start {
		w.Header().Set(PositionHeader, pos.String())
	}
	if err != nil {
		if h.HookEventName == "PreToolUse" {
			// The call is malformed or unplaceable, or the server cannot
			// record it (its store unavailable or full): deny it, and say
			// why. Any other answer lets an http hook's call run.
			writeJSON(w, http.StatusOK, preToolUse("deny", "turnstile refused this call: "+mapError(err).Message))
			return
		}
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, answer)
}

// hookAnswerGrace is how long past hold_wait from its arrival a
// PreToolUse may take to be answered: its deny after a hold that ran out.
const hookAnswerGrace = time.Second

// hookArrivalKey keys the time a hook request reached its handler (a
// time.Time), from which a held call's hold_wait runs.
type hookArrivalKey struct{}

// hookEventPeekBytes is how much of an unauthenticated hook body is read
// for its event: Claude Code names it after the common fields, before the
// tool's input.
const hookEventPeekBytes = 16 << 10

// hookPreToolUseRefused answers a Claude Code PreToolUse that cannot be
// authenticated (a revoked credential, a store that cannot say) 200 deny,
// and reports whether it did: an http hook runs the call on any other
// answer, so an admin's revocation of a misbehaving agent's credential
// would let every call after it run unchecked. Only the start of the body
// is read for its event; other events keep their error status. A body
// whose start names no event (the common fields before hook_event_name
// take more than the peek, as a cwd of control characters does, each
// written \u00XX, or the read was refused) is answered as a PreToolUse:
// the hooks of other events ignore the deny, as they do the error.
// hookRefusedUnread answers a hook call refused past a bound of requests
// in flight deny, whatever its event, without reading its body: reading
// it is what held the connection (a call asking to continue and sending
// no body held it for the read timeout, and enough of them, each past the
// bound, every connection: the sixty-fourth review). A PreToolUse among
// them fails closed; another event takes the answer as an error.
func hookRefusedUnread(w http.ResponseWriter, r *http.Request, err error) bool {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/hooks/claude-code" {
		return false
	}
	writeJSON(w, http.StatusOK, preToolUse("deny", "turnstile refused this call: "+mapError(err).Message))
	return true
}

func hookPreToolUseRefused(w http.ResponseWriter, r *http.Request, err error) bool {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/hooks/claude-code" || r.Body == nil {
		return false
	}
	head, readErr := io.ReadAll(io.LimitReader(r.Body, hookEventPeekBytes))
	pre, named := hookEventOf(head)
	if !pre && (named || (readErr == nil && len(head) < hookEventPeekBytes)) {
		return false
	}
	writeJSON(w, http.StatusOK, preToolUse("deny", "turnstile refused this call: "+mapError(err).Message))
	return true
}

// hookEventIsPreToolUse reads, token by token (no depth bound), whether a
// hook body json.Unmarshal refused names the event PreToolUse at its top
// level, as the field's decoding would (the key in any case).
func hookEventIsPreToolUse(body []byte) bool {
	pre, _ := hookEventOf(body)
	return pre
}

// hookEventOf reads a hook body's top level token by token: whether a
// hook_event_name there (the key in any case) is PreToolUse, and whether
// one was found before the body, or the part of it read, ended.
func hookEventOf(body []byte) (pre, named bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false, named
		}
		v, err := dec.Token()
		if err != nil {
			return false, named
		}
		if key, _ := k.(string); strings.EqualFold(key, "hook_event_name") {
			if name, ok := v.(string); ok {
				if name == "PreToolUse" {
					return true, true
				}
				named = true
			}
		}
		if v != json.Delim('[') && v != json.Delim('{') {
			continue
		}
		for depth := 1; depth > 0; { // skip the rest of the value
			t, err := dec.Token()
			if err != nil {
				return false, named
			}
			switch t {
			case json.Delim('['), json.Delim('{'):
				depth++
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
	}
	return false, named
}

func preToolUse(decision, reason string) HookAnswer {
	return HookAnswer{HookSpecificOutput: &HookDecision{HookEventName: "PreToolUse", PermissionDecision: decision, PermissionDecisionReason: reason}}
}

// claudeCodeHook handles one hook event.
func (s *Server) claudeCodeHook(r *http.Request, h *claudeCodeHook) (HookAnswer, error) {
	switch h.HookEventName {
	case "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "SessionEnd":
	case "":
		return HookAnswer{}, &domain.FieldError{Field: "hook_event_name", Message: "required"}
	default:
		// SessionStart, PermissionRequest, Notification, PreCompact…: nothing
		// to decide or record; no opinion.
		return HookAnswer{}, nil
	}
	var l limits // ids, names and paths are bounded as on the REST API
	l.str("session_id", h.SessionID, maxTextLen)
	l.id("tool_use_id", h.ToolUseID, maxIDLen)
	l.str("tool_name", h.ToolName, maxNameLen)
	l.str("cwd", h.Cwd, maxPathLen)
	l.str("transcript_path", h.TranscriptPath, maxPathLen)
	l.str("permission_mode", h.PermissionMode, maxNameLen)
	l.str("source", h.Source, maxNameLen)
	l.str("reason", h.Reason, maxTextLen)
	if l.err != nil {
		return HookAnswer{}, l.err
	}
	cs, err := s.ccSession(h)
	if err != nil {
		return HookAnswer{}, err
	}
	// A workspace-scoped credential reaches the sessions of its workspaces'
	// projects only.
	if p := principalOf(r); p.Scoped() && (!cs.configured || !p.InScope(cs.project.WorkspaceID)) {
		return HookAnswer{}, &domain.ForbiddenError{Principal: p.Name, Role: p.Role, Operation: domain.OpTurnDecide, WorkspaceID: cs.project.WorkspaceID}
	}
	switch h.HookEventName {
	case "UserPromptSubmit":
		return HookAnswer{}, s.ccPrompt(r, cs)
	case "PreToolUse":
		return s.ccPreToolUse(r, cs)
	case "PostToolUse", "PostToolUseFailure":
		return HookAnswer{}, s.ccPostToolUse(r, cs)
	case "Stop", "SessionEnd":
		id, err := s.ccOpenTurn(r, cs, false)
		if err != nil || id == "" {
			return HookAnswer{}, err
		}
		reason := h.HookEventName
		if h.Reason != "" {
			reason += ": " + h.Reason
		}
		return HookAnswer{}, s.ccEnd(r, id, turn.StatusCompleted, reason)
	default: // SubagentStop: the oldest open child turn ends.
		id, err := s.ccOpenTurn(r, cs, false)
		if err != nil || id == "" {
			return HookAnswer{}, err
		}
		kids, err := s.ccOpenChildren(r.Context(), id)
		if err != nil || len(kids) == 0 {
			return HookAnswer{}, err
		}
		return HookAnswer{}, s.ccEndOne(r, kids[0].id, turn.StatusCompleted, "SubagentStop")
	}
}

// ccPrompt starts the session's next turn; a turn still open (Claude Code
// sends no Stop when a person interrupts it) is interrupted first.
func (s *Server) ccPrompt(r *http.Request, cs *ccSession) error {
	if err := cs.checkProject(); err != nil {
		return err
	}
	n, err := s.latestTurn(r.Context(), cs.thread)
	if err != nil {
		return err
	}
	if n > 0 {
		if err := s.ccEnd(r, ccTurnID(cs.thread, n), turn.StatusInterrupted, "a new prompt arrived before Stop"); err != nil {
			return err
		}
	}
	_, err = s.ccStartTurn(r, cs, n+1, cs.hook.Prompt)
	return err
}

// ccTarget is the turn a tool call belongs to: the newest open child turn
// (a sub-agent's calls), else the session's turn (started when there is
// none: the hook was installed mid-session). A Task call always belongs to
// the session's turn.
func (s *Server) ccTarget(r *http.Request, cs *ccSession) (parent, target string, err error) {
	parent, err = s.ccOpenTurn(r, cs, true)
	if err != nil || domain.ClaudeCodeSubagentTool(cs.hook.ToolName) {
		return parent, parent, err
	}
	kids, err := s.ccOpenChildren(r.Context(), parent)
	if err != nil || len(kids) == 0 {
		return parent, parent, err
	}
	return parent, kids[len(kids)-1].id, nil
}

func (s *Server) ccPreToolUse(r *http.Request, cs *ccSession) (HookAnswer, error) {
	h := cs.hook
	if h.ToolUseID == "" {
		return HookAnswer{}, &domain.FieldError{Field: "tool_use_id", Message: "required"}
	}
	inv, err := domain.ClaudeCodeInvocation(h.ToolName, h.ToolInput, h.Cwd)
	if err != nil {
		return HookAnswer{}, err
	}
	parent, target, err := s.ccTarget(r, cs)
	if err != nil {
		return HookAnswer{}, err
	}
	if err := s.ccNarrowToMode(r, cs, parent); err != nil {
		return HookAnswer{}, err
	}
	if err := s.admitCall(r, target, h.ToolUseID); err != nil {
		return HookAnswer{}, err
	}
	// The protected list holds at the call's own cwd too, where its
	// symlinks lead, as the snapshot's roots are.
	callCwd := h.Cwd
	if c, err := filepath.EvalSymlinks(h.Cwd); err == nil && filepath.IsAbs(h.Cwd) {
		callCwd = c
	}
	// Claude Code's own prompt answers an ask, unseen here: its host is
	// looked up before it asks (with ask = "hold", once someone allows it).
	ask := func() (engine.Result, error) {
		return s.hookExec(r, target, &turn.EvaluateTool{Meta: hookMeta(r), ToolCallID: h.ToolUseID, Invocation: inv,
			LookUpAsks: s.cfg.ClaudeCode.Ask == domain.ClaudeCodeAskPrompt, CallCwd: callCwd})
	}
	res, err := ask()
	if err != nil {
		return HookAnswer{}, err
	}
	if !res.Replayed {
		s.metrics.Decision(res.Decision.Behavior.String(), string(res.Decision.Reason))
	}
	d := res.Decision
	// The summary and the tool's name come from the agent, and Claude Code
	// shows the answer's reason to the person in its prompt: escape
	// sequences and line breaks are shown as escapes (domain.TerminalSafe).
	summary := h.ToolName
	if res.Approval != nil {
		summary = res.Approval.Request.Summary
	}
	summary = domain.TerminalSafe(summary)
	switch {
	case res.Approval != nil:
		return s.ccAsk(r, cs, parent, target, res, summary, ask)
	case d.Behavior == domain.BehaviorAllow:
		if domain.ClaudeCodeSubagentTool(h.ToolName) {
			if err := s.ccStartChild(r, cs, parent, h); err != nil {
				return HookAnswer{}, err
			}
		}
		return preToolUse("allow", fmt.Sprintf("turnstile allowed this call (%s)", d.Reason)), nil
	}
	why := string(d.Reason)
	if res.Refusal != "" {
		why += ": " + res.Refusal
	}
	return preToolUse("deny", fmt.Sprintf("turnstile denied this %s call (%s). Do not retry it; continue with an allowed alternative or ask the user.", domain.TerminalSafe(h.ToolName), domain.TerminalSafe(why))), nil
}

// ccNarrowToMode narrows the session's turn to what the call's own
// permission_mode selects, in the turn's project and in the project of the
// call's cwd, where that is narrower. A turn takes its mode from the event
// that started it, and the agent, which holds the hook's credential, can
// send that event itself, naming the permission_mode the operator mapped
// to the widest mode, or a cwd in a project whose mode is wider; a tool
// call's PreToolUse comes from Claude Code, with the mode the person chose
// and the session's cwd. A wider selection changes nothing (it takes effect
// at the next prompt); one that would widen the turn as well as narrow it
// is a conflict, and the call is denied. Children are narrowed with the
// turn.
func (s *Server) ccNarrowToMode(r *http.Request, cs *ccSession, turnID string) error {
	var prof domain.TurnPermissionProfileSnapshot
	var root string
	var kids childChanges // what ccChildCarried needs, read with the rest
	read := func(st *turn.State) error {
		prof, root, kids = st.Profile, st.Inputs.WorkspaceRoot, childChangesOf(st, principalOf(r).Name)
		return nil
	}
	err := s.cfg.Engine.View(r.Context(), turnID, read)
	if err != nil {
		return err
	}
	var projects []domain.ClaudeCodeProject
	if p, ok := s.cfg.ClaudeCode.Project(root); ok {
		projects = append(projects, p)
	}
	if cs.configured && (len(projects) == 0 || cs.project.Root != projects[0].Root) {
		projects = append(projects, cs.project)
	}
	changed := false
	for _, p := range projects {
		want := p.Request(cs.hook.PermissionMode)
		change := &turn.ChangeProfile{Meta: hookMeta(r), Profile: want, NarrowOnly: true}
		if p.Root != root {
			// The call's project is not the turn's: its selection is made
			// for its own root (the same mode or profile over an enclosing
			// project's root is wider), whatever its name. Its cwd is the
			// project's root: the same change for every call of the
			// project, whichever directory in it each runs in.
			change.Cwd, change.WorkspaceRoot = p.Root, p.Root
		} else if want.Profile == prof.Profile && (want.Profile != "" || want.Mode == prof.Mode) {
			continue
		}
		res, err := s.hookExec(r, turnID, change)
		if err != nil {
			return err
		}
		prof, changed = res.Turn.Profile, true
	}
	if changed {
		// The hook's change may have made it the turn's changer (an
		// admin's credential in the hook): read the turn again.
		if err := s.cfg.Engine.View(r.Context(), turnID, read); err != nil {
			return err
		}
	}
	// A child turn another principal changed (an admin narrowing a
	// sub-agent, or the turn the calls went to) binds the session's turn
	// too: the agent, holding the hook's credential, can end the child (a
	// SubagentStop of its own, or over REST), and the calls it sent there
	// then go to this turn.
	if req, _, err := s.ccChildCarried(r, kids); err != nil || req == nil {
		return err
	} else if _, err := s.hookExec(r, turnID, &turn.ChangeProfile{Meta: hookMeta(r), Profile: req, NarrowOnly: true}); err != nil {
		return err
	}
	return nil
}

// ccAsk answers a call that needs a person: Claude Code's own prompt, or a
// hold until someone answers the approval request (bounded).
func (s *Server) ccAsk(r *http.Request, cs *ccSession, parent, target string, res engine.Result, summary string, ask func() (engine.Result, error)) (HookAnswer, error) {
	cfg, q := s.cfg.ClaudeCode, res.Approval
	if q.Status != turn.RequestResolved && cfg.PromptsFor(cs.hook.PermissionMode) {
		return preToolUse("ask", fmt.Sprintf("turnstile: %s (approval request %s)", summary, q.Request.RequestID)), nil
	}
	// The hold watches the request in the read models, so it waits for them
	// to include it first: the one command answer that waits for them, as
	// part of a wait for a person (bounded by the same hold). The hold
	// ends hold_wait after the hook arrived, not after its call was
	// decided: the agent can make the decision wait (its own calls hold
	// the turn meanwhile), and Claude Code runs the call at its hook's
	// timeout, which hold_wait is set below.
	start, ok := r.Context().Value(hookArrivalKey{}).(time.Time)
	if !ok {
		start = time.Now()
	}
	hold, cancel := context.WithTimeout(r.Context(), max(cfg.HoldWait-time.Since(start), 0))
	err := s.cfg.Projector.WaitFor(hold, res.Position)
	cancel()
	if err != nil && r.Context().Err() != nil {
		return HookAnswer{}, r.Context().Err()
	}
	a := projections.ApprovalView{Status: projections.ApprovalPending} // unseen within the hold: unanswered
	if err == nil {
		if a, err = s.awaitApproval(r.Context(), q.Request.RequestID, max(cfg.HoldWait-time.Since(start), 0), nil); err != nil {
			return HookAnswer{}, err
		}
	}
	if a.Status == projections.ApprovalPending {
		return preToolUse("deny", fmt.Sprintf("turnstile: no answer from an approver within %s for \"%s\" (request %s); do not retry it unless the user asks", cfg.HoldWait, summary, q.Request.RequestID)), nil
	}
	if !a.Resolution.Allows() {
		return preToolUse("deny", fmt.Sprintf("turnstile: the approval request for \"%s\" was resolved %s; continue with an allowed alternative", summary, a.Resolution)), nil
	}
	// The hold may have outlived the hook's credential: a revoked one is
	// not answered allow.
	if err := s.stillAuthenticated(r.Context(), r); err != nil {
		return HookAnswer{}, err
	}
	// The call is decided again, as a runtime asking again about an
	// approved call is, so that the snapshot in force now holds it back:
	// a change since the request (a narrowing whose file rules deny it, a
	// widening that allowed it itself) is judged with the resource checks
	// (the twenty-seventh review).
	again, err := ask()
	if err != nil {
		return HookAnswer{}, err
	}
	if d := again.Decision; d.Behavior != domain.BehaviorAllow {
		why := string(d.Reason)
		if again.Refusal != "" {
			why += ": " + again.Refusal
		}
		return preToolUse("deny", fmt.Sprintf("turnstile: \"%s\" was approved (%s by %s) but the turn's permissions now deny it (%s); continue with an allowed alternative", summary, a.Resolution, a.ResolvedBy, domain.TerminalSafe(why))), nil
	}
	if domain.ClaudeCodeSubagentTool(cs.hook.ToolName) {
		if err := s.ccStartChild(r, cs, parent, cs.hook); err != nil {
			return HookAnswer{}, err
		}
	}
	return preToolUse("allow", fmt.Sprintf("turnstile: approved (%s by %s)", a.Resolution, a.ResolvedBy)), nil
}

// ccPostToolUse records what ran. A call turnstile answered with Claude
// Code's prompt and that ran was allowed by the person there: that is
// recorded first, as an allow_once by the hook's principal — only when that
// principal may answer approvals (an admin). A runtime credential never
// answers one (separation of duties): it withdraws its request (cancelled,
// as ending the turn would; no allow, no grant), which a person answered in
// Claude Code's prompt, and its call is recorded as run. Left open, the
// request would wait for an approver until it expired, counted against the
// turn's pending-request quota all that while.
func (s *Server) ccPostToolUse(r *http.Request, cs *ccSession) error {
	h := cs.hook
	if h.ToolUseID == "" {
		return &domain.FieldError{Field: "tool_use_id", Message: "required"}
	}
	inv, err := domain.ClaudeCodeInvocation(h.ToolName, h.ToolInput, h.Cwd)
	if err != nil {
		return err
	}
	parent, target, err := s.ccTarget(r, cs)
	if err != nil {
		return err
	}
	var reqID string
	var open, found bool
	if inv.Key, err = s.cfg.Engine.DigestKey(r.Context()); err != nil {
		return err
	}
	// decided is the report classified as its call was decided (paths
	// resolved), in the turn that decided it: RecordToolRun takes it
	// rather than resolve the paths again.
	var decided *domain.Action
	// The call is looked for in the newest open child turn, then in the
	// session's turn, and taken from the first that decided it with this
	// input: the agent, which holds the hook's credential, can decide its
	// own call under the same tool_use_id in a child turn it opened, and
	// Claude Code's true report was refused there as another input and
	// never recorded (the fiftieth review). Where every turn that holds
	// the id decided another input, the first one is taken, and
	// RecordToolRun refuses the report there.
	type match struct {
		id, reqID  string
		open, same bool
		decided    *domain.Action
	}
	var first, got *match
	for _, id := range []string{target, parent} {
		var m *match
		err = s.cfg.Engine.View(r.Context(), id, func(st *turn.State) error {
			c := st.Calls[h.ToolUseID]
			if c == nil {
				return nil
			}
			m = &match{id: id}
			a, err := s.cfg.Engine.ClassifyAsDecided(st, inv, hookMeta(r).Actor)
			if err != nil {
				return nil // RecordToolRun reports the bad input
			}
			m.decided, m.same = &a, a.ToolName == c.ToolName && a.ScopeHash == c.ScopeHash
			if c.RequestID != "" {
				// A report of another input than the call was decided
				// with resolves nothing: RecordToolRun refuses it (409
				// tool_call_reused) and nothing is recorded.
				m.reqID = c.RequestID
				m.open = st.OpenRequest(m.reqID) && m.same
			}
			return nil
		})
		if err != nil {
			return err
		}
		if m != nil && first == nil {
			first = m
		}
		if m != nil && m.same {
			got = m
			break
		}
	}
	if got == nil {
		got = first
	}
	if found = got != nil; found {
		target, reqID, open, decided = got.id, got.reqID, got.open, got.decided // where the call was decided
	}
	// A report of a call no PreToolUse decided is a new record in the
	// turn, held as a decision is: past the byte quota it is refused as a
	// new call is (the agent, which holds the hook's credential, could
	// otherwise report calls of 128 KiB each without end).
	if !found {
		if err := s.admitCall(r, target, h.ToolUseID); err != nil {
			return err
		}
	}
	// Only an ask answered with Claude Code's prompt can have been allowed
	// there; a held call that ran was never allowed (it ran despite a deny,
	// e.g. through a failed-open http hook), and is recorded as such.
	if open && s.cfg.ClaudeCode.Ask == domain.ClaudeCodeAskPrompt {
		res := domain.ResolutionAllowOnce
		if principalOf(r).Authorize(domain.OpApprovalRespond) != nil {
			res = domain.ResolutionCancelled
		}
		if _, err := s.hookExec(r, target, &turn.RespondApproval{Meta: hookMeta(r), RequestID: reqID, Resolution: res}); err != nil {
			var done *turn.AlreadyResolvedError
			if !errors.As(err, &done) {
				return err
			}
		}
	}
	resp := bytes.TrimSpace(h.ToolResponse)
	sum := sha256.Sum256(resp)
	_, err = s.hookExec(r, target, &turn.RecordToolRun{Meta: hookMeta(r), ToolCallID: h.ToolUseID, Invocation: inv, Classified: decided, ClientTool: h.ToolName,
		Failed: h.HookEventName == "PostToolUseFailure" || toolFailed(resp), ResultBytes: len(resp), ResultSHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return err
	}
	if domain.ClaudeCodeSubagentTool(h.ToolName) {
		// The sub-agent is done when its Task returns.
		return s.ccEndOne(r, ccChildID(parent, h.ToolUseID), turn.StatusCompleted, "its Task returned")
	}
	return nil
}

// toolFailed reads Claude Code's tool_response for a failure it reports.
func toolFailed(resp []byte) bool {
	var v struct {
		Success *bool `json:"success"`
		IsError bool  `json:"is_error"`
	}
	if json.Unmarshal(resp, &v) != nil {
		return false
	}
	return v.IsError || (v.Success != nil && !*v.Success)
}
