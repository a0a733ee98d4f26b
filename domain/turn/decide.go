package turn

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"turnstile/domain"
)

// Decide returns the events cmd produces against s, and the answer for the
// caller, or an error (wrapping ErrIllegalTransition, ErrNotFound,
// ErrConflict, or a *domain.FieldError for bad input). It does not modify s.
func Decide(s *State, cmd Command) ([]Event, Outcome, error) {
	switch c := cmd.(type) {
	case *StartTurn:
		return decideStart(s, c)
	case *EvaluateTool:
		return decideEvaluate(s, c)
	case *RecordDenial:
		return decideDenial(s, c)
	case *RespondApproval:
		return decideRespond(s, c)
	case *StartExec:
		return decideStartExec(s, c)
	case *FinishExec:
		return decideFinishExec(s, c)
	case *RegisterChild:
		return decideRegisterChild(s, c)
	case *ExpireApprovals:
		return decideExpire(s, c)
	case *EndTurn:
		return decideEnd(s, c)
	case *ChangeProfile:
		return decideChange(s, c)
	case *RecordToolRun:
		return decideToolRun(s, c)
	case *RecordEgress:
		return decideEgress(s, c)
	}
	return nil, Outcome{}, fmt.Errorf("turn: unknown command %T", cmd)
}

func (s *State) event(m *Meta, id []string, p Payload) Event {
	return Event{ID: eventID(s.TurnID, id...), TurnID: s.TurnID, OccurredAt: m.Now, Actor: m.Actor, CorrelationID: m.CorrelationID, Payload: p}
}

// InitialSnapshotVersion is the version of the snapshot a turn starts with:
// a start appends turn.started, permission.profile_selected and
// security_snapshot_resolved, in that order. A turn whose SnapshotVersion is
// above it had its permissions changed mid-turn.
const InitialSnapshotVersion = 2

func decideStart(s *State, c *StartTurn) ([]Event, Outcome, error) {
	// The request is validated before it is compared with an existing
	// turn: a malformed request is a 400, whether or not the turn exists.
	if c.Profile != nil && c.Profile.Mode != "" {
		if _, err := domain.ParseMode(string(c.Profile.Mode)); err != nil {
			return nil, Outcome{}, err
		}
	}
	if err := domain.CheckProfileRequest(c.Profile); err != nil {
		return nil, Outcome{}, err
	}
	if err := domain.CheckListBytes("project_roots", c.Inputs.ProjectRoots, c.Inputs.AppReadRoots); err != nil {
		return nil, Outcome{}, err
	}
	if err := domain.CheckTaskCapSize(c.TaskCap); err != nil {
		return nil, Outcome{}, err
	}
	if err := domain.CheckJSONDepth("input", c.Input); err != nil {
		return nil, Outcome{}, err
	}
	for _, k := range slices.Sorted(maps.Keys(c.Client)) {
		if err := domain.CheckJSONDepth(k, c.Client[k]); err != nil {
			return nil, Outcome{}, err
		}
	}
	if c.ParentTurnID == "" && c.TaskCap != nil {
		return nil, Outcome{}, &domain.FieldError{Field: "task_cap", Message: "only a child turn (with parent_turn_id) takes a task cap"}
	}
	// The prompt and the client's settings are recorded redacted, as a
	// command is (a person may paste a token into a prompt), and a retry
	// is compared by the same.
	redacted := *c
	redacted.Input, redacted.Client = domain.RedactJSON(c.Input), domain.RedactJSONMap(c.Client)
	c = &redacted
	hash := c.RequestHash()
	if s.Status != StatusNone && s.RequestHash == hash {
		return nil, Outcome{Replayed: true}, nil
	}
	si := domain.SnapshotInputs{
		Cwd: c.Inputs.Cwd, WorkspaceRoot: c.Inputs.WorkspaceRoot, ProjectRoots: c.Inputs.ProjectRoots,
		AppReadRoots: c.Inputs.AppReadRoots, ExecutionBackend: c.Inputs.ExecutionBackend, Kernel: c.Kernel,
		RootLinks: c.RootLinks,
	}
	var snap domain.TurnExecutionSecuritySnapshot
	var err error
	if c.ParentTurnID != "" {
		if c.Parent == nil {
			return nil, Outcome{}, &NotFoundError{Kind: "turn", ID: c.ParentTurnID}
		}
		if c.Parent.Status.Terminal() {
			return nil, Outcome{}, &IllegalTransitionError{TurnID: c.ParentTurnID, State: c.Parent.Status, Transition: "start a child turn"}
		}
		if c.Parent.WorkspaceID != "" && c.WorkspaceID != c.Parent.WorkspaceID {
			// Another workspace's approvers would answer for this
			// workspace's roots.
			return nil, Outcome{}, &domain.FieldError{Field: "workspace_id", Value: c.WorkspaceID,
				Message: "a child turn runs in its parent's workspace, " + c.Parent.WorkspaceID}
		}
		if err := checkChildProfile(c.Profile); err != nil {
			return nil, Outcome{}, err
		}
		snap, err = domain.ResolveChildSnapshot(domain.ChildInputs{Requested: c.Profile, Cap: c.TaskCap, Parent: &c.Parent.Snapshot, ParentTurnID: c.ParentTurnID, Inputs: si})
	} else {
		if c.TaskCap != nil {
			return nil, Outcome{}, &domain.FieldError{Field: "task_cap", Message: "only a child turn (with parent_turn_id) takes a task cap"}
		}
		snap, err = domain.SelectSnapshot(c.Profile, c.Catalog, domain.SourceComposer, si)
	}
	if err != nil {
		return nil, Outcome{}, err
	}
	domain.AddSensitivePaths(&snap, c.Sensitive)
	domain.AddSensitivePaths(&snap, c.Inputs.ForeignProjects)
	var parentLinks map[string][]string
	if c.Parent != nil {
		parentLinks = domain.CarveLinksOf(&c.Parent.Snapshot)
	}
	bindCarveLinks(&snap, c.ResolveLinks, parentLinks)
	if err := checkSnapshotSize(&snap, "project_roots"); err != nil {
		return nil, Outcome{}, err
	}
	// Whether the id is taken is told last, after the whole request was
	// found good: a start that could never succeed (no such profile, a
	// root too many) is the same answer for a taken id and a free one, so
	// that a credential limited to its workspaces learns no other's turn
	// ids by starting turns it knows will fail (the forty-first review).
	if s.Status != StatusNone {
		return nil, Outcome{}, &ConflictError{Code: "turn_exists", Message: fmt.Sprintf("turn %s already exists with a different request", s.TurnID)}
	}
	if _, err := next(s.TurnID, s.Status, TransStart); err != nil {
		return nil, Outcome{}, err
	}
	started := &TurnStarted{TurnID: s.TurnID, WorkspaceID: c.WorkspaceID, ThreadID: c.ThreadID, ParentTurnID: c.ParentTurnID,
		RequestHash: hash, Inputs: c.Inputs, TaskCap: c.TaskCap, Input: c.Input, Client: c.Client, ProfileCarried: c.ProfileCarried}
	return []Event{
		s.event(&c.Meta, []string{"started", hash}, started),
		s.event(&c.Meta, []string{"profile_selected", hash}, &ProfileSelected{Profile: snap.PermissionProfile}),
		s.event(&c.Meta, []string{"snapshot_resolved", hash}, &SecuritySnapshotResolved{Snapshot: snap}),
	}, Outcome{}, nil
}

// checkChildProfile refuses a child turn naming a profile: a child's
// snapshot is its parent's intersected with its cap (and keeps the parent's
// profile rules), so it selects a mode.
func checkChildProfile(req *domain.ProfileRequest) error {
	if req != nil && req.Profile != "" {
		return &domain.FieldError{Field: "permission_profile.profile", Value: req.Profile,
			Message: "a child turn narrows its parent's permissions with a mode and a task cap; it cannot select a profile"}
	}
	return nil
}

// live checks that the turn exists and is not over.
func (s *State) live(trans string) error {
	if s.Status == StatusNone {
		return &NotFoundError{Kind: "turn", ID: s.TurnID}
	}
	_, err := next(s.TurnID, s.Status, trans)
	return err
}

// record is the action as a decision records it (redacted, with its summary).
func record(a *domain.Action) ActionRecord {
	// What a.Redacted() gives the two display values a record keeps,
	// without redacting the files and details it leaves out.
	scope, summary := a.RedactedRecord()
	return ActionRecord{ToolName: a.ToolName, Kind: a.Kind, Also: a.Also, AlsoTool: a.AlsoTool, ScopeHash: a.ScopeHash, Scope: scope, Summary: summary}
}

// recordRedacted is record(a) for an action whose a.Redacted() is red.
func recordRedacted(a, red *domain.Action) ActionRecord {
	return ActionRecord{ToolName: a.ToolName, Kind: a.Kind, Also: a.Also, AlsoTool: a.AlsoTool, ScopeHash: a.ScopeHash, Scope: red.Scope, Summary: red.Summary}
}

// replayCall answers a retried tool call id, or refuses a different
// invocation under the same id.
func (s *State) replayCall(toolCallID string, a *domain.Action) (Outcome, bool, error) {
	call, ok := s.Calls[toolCallID]
	if !ok {
		// A call reported as run before it was asked is judged as any
		// other, but only as what the report named: a report of another
		// invocation first (the agent's own, of a harmless input) would
		// stand in the audit for what ran, and Claude Code's true report
		// after the decision be dropped as a replay (the eighty-seventh
		// review).
		if r, ran := s.Ran[toolCallID]; ran && (r.ToolName != a.ToolName || r.ScopeHash != a.ScopeHash) {
			return Outcome{}, true, &ConflictError{Code: "tool_call_reused",
				Message: fmt.Sprintf("tool_call_id %s was reported as run for a different invocation", toolCallID)}
		}
		return Outcome{}, false, nil
	}
	if call.ToolName != a.ToolName || call.ScopeHash != a.ScopeHash {
		return Outcome{}, true, &ConflictError{Code: "tool_call_reused",
			Message: fmt.Sprintf("tool_call_id %s was already decided for a different invocation", toolCallID)}
	}
	out := Outcome{Decision: call.Decision, Approval: s.approval(call.RequestID), Replayed: true}
	// A resolved request answers what the runtime should do now.
	if r := s.Approvals[call.RequestID]; r != nil && r.Status == RequestResolved {
		out.Decision = approved(call)
		if !r.Resolution.Allows() {
			out.Decision.Behavior, out.Decision.Reason = domain.BehaviorDeny, r.Resolution.Reason()
		}
		if r.ResolvedReason == domain.ReasonPermissionsChanged {
			out.Decision.Reason, out.Decision.DecidedBy = r.ResolvedReason, ReasonProfileChanged
		}
		if r.ResolvedReason == domain.ReasonSandboxDenied {
			out.Decision.Reason, out.Decision.DecidedBy = r.ResolvedReason, "sandbox"
		}
	}
	return out, true, nil
}

func decideEvaluate(s *State, c *EvaluateTool) ([]Event, Outcome, error) {
	if s.Status == StatusNone {
		return nil, Outcome{}, &NotFoundError{Kind: "turn", ID: s.TurnID}
	}
	if c.ToolCallID == "" {
		return nil, Outcome{}, &domain.FieldError{Field: "tool_call_id", Message: "required"}
	}
	a, err := s.classified(c.Classified, c.Invocation, c.Trust)
	if err != nil {
		return nil, Outcome{}, err
	}
	if err := foreignCall(s.Calls[c.ToolCallID], &c.Meta, c.ToolCallID); err != nil {
		return nil, Outcome{}, err
	}
	if out, seen, err := s.replayCall(c.ToolCallID, &a); seen {
		call := s.Calls[c.ToolCallID]
		switch {
		case err != nil:
		case call.Denial != nil:
			out.Decision, out.Refusal = *call.Denial, call.Refusal
		case out.Decision.Behavior == domain.BehaviorAllow && !call.Started && !call.Consumed && s.live(TransDecide) == nil:
			// The runtime asks again (a retry, a restart) about a call:
			// like /exec, the snapshot in force now decides again, so that
			// a narrowing since the allow (or the approval) holds it back.
			// Also when the call was reported as run: the report is the
			// runtime's word, and the agent holds the runtime's credential
			// (a Claude Code hook's): it reported its next call as run
			// before Claude Code asked about it, and the narrowing of that
			// question never judged it (the fiftieth review).
			var r *Approval
			if call.RequestID != "" {
				r = s.Approvals[call.RequestID]
			}
			if why := s.revoked(r, call, &a); why != "" {
				ev, d := s.revocation(&c.Meta, c.ToolCallID, c.ItemID, &a, call.RequestID, why)
				return []Event{ev}, Outcome{Decision: d, Refusal: ReasonProfileChanged, Approval: out.Approval}, nil
			}
		}
		return nil, out, err
	}
	// A known call is answered even after the turn ended (its request was
	// cancelled); a new one needs a live turn.
	if err := s.live(TransDecide); err != nil {
		return nil, Outcome{}, err
	}
	d := domain.Evaluate(&s.Snapshot, &a, s.Grants)
	id := []string{"decision", c.ToolCallID, a.ScopeHash}
	switch d.Behavior {
	case domain.BehaviorAllow:
		rec := Decided{ToolCallID: c.ToolCallID, ItemID: c.ItemID, Action: record(&a), Decision: decisionRecordOf(d)}
		return []Event{s.event(&c.Meta, id, &DecisionAllowed{rec})}, Outcome{Decision: d}, nil
	case domain.BehaviorAsk:
		if _, err := next(s.TurnID, s.Status, TransOpenRequest); err != nil {
			return nil, Outcome{}, err
		}
		if limit := cmp.Or(c.MaxOpen, domain.DefaultMaxOpenRequests); s.Open >= limit {
			return nil, Outcome{}, &domain.QuotaError{Quota: domain.QuotaOpenRequests, Limit: limit, Of: s.TurnID}
		}
		red := a.Redacted() // the record's display values are red's: each long text is redacted once
		r := recordRedacted(&a, &red)
		r.Summary, r.Files = "", red.Files
		req := ApprovalRequest{
			RequestID: RequestID(s.TurnID, c.ToolCallID), WorkspaceID: s.WorkspaceID, ThreadID: s.ThreadID, TurnID: s.TurnID,
			ToolName: a.ToolName, Action: a.Kind, ScopeHash: a.ScopeHash, Reason: d.Reason, Summary: red.Summary, Details: red.Details,
			ForThisTurn: domain.ForThisTurn(&red, s.TurnID),
		}
		if req.Details == nil {
			req.Details = []domain.Detail{}
		}
		if d, ok := domain.NonASCIIDetail(req.Summary, req.Details); ok {
			req.Details = append(req.Details, d)
		}
		ev := &ApprovalRequested{ToolCallID: c.ToolCallID, ItemID: c.ItemID, Request: req, Action: r, Decision: decisionRecordOf(d),
			Mode: s.Snapshot.PermissionProfile.Mode, ExpiresAt: c.Now.Add(c.TTL), RecheckURL: c.RecheckURL}
		opened, _ := RequestMove(RequestNone, ev)
		return []Event{s.event(&c.Meta, id, ev)}, Outcome{Decision: d, Approval: s.openApproval(ev, c.Now, opened)}, nil
	default:
		rec := Decided{ToolCallID: c.ToolCallID, ItemID: c.ItemID, Action: record(&a), Decision: decisionRecordOf(d)}
		return []Event{s.event(&c.Meta, id, &DecisionDenied{rec})}, Outcome{Decision: d}, nil
	}
}

func decideDenial(s *State, c *RecordDenial) ([]Event, Outcome, error) {
	if err := s.live(TransDecide); err != nil {
		return nil, Outcome{}, err
	}
	a, err := s.classified(c.Classified, c.Invocation, nil)
	if err != nil {
		return nil, Outcome{}, err
	}
	d := domain.Decision{Behavior: domain.BehaviorDeny, Reason: domain.ReasonSandboxDenied, Action: a.Kind, ScopeHash: a.ScopeHash, DecidedBy: "sandbox"}
	rec := Decided{ToolCallID: c.ToolCallID, ItemID: c.ItemID, Action: record(&a), Decision: decisionRecordOf(d),
		Refusal: c.Refusal, Message: domain.RedactText(c.Message)}
	if call := s.Calls[c.ToolCallID]; call != nil {
		if err := foreignCall(call, &c.Meta, c.ToolCallID); err != nil {
			return nil, Outcome{}, err
		}
		if call.ToolName != a.ToolName || call.ScopeHash != a.ScopeHash {
			return nil, Outcome{}, &ConflictError{Code: "tool_call_reused",
				Message: fmt.Sprintf("tool_call_id %s was already decided for a different invocation", c.ToolCallID)}
		}
		if call.Denial != nil {
			return nil, Outcome{Decision: *call.Denial, Refusal: call.Refusal, Approval: s.approval(call.RequestID), Replayed: true}, nil
		}
		rec.RequestID = call.RequestID
	}
	ev := s.event(&c.Meta, []string{"sandbox_denied", c.ToolCallID, a.ScopeHash, c.Refusal}, &DecisionDenied{rec})
	return []Event{ev}, Outcome{Decision: d, Refusal: c.Refusal}, nil
}

// classified is the action classified, when the engine classified it
// (with the paths resolved), else inv classified against the turn's cwd.
func (s *State) classified(classified *domain.Action, inv domain.Invocation, trust domain.MCPTrust) (domain.Action, error) {
	if classified != nil {
		return *classified, nil
	}
	return domain.Classify(inv, s.Snapshot.Sandbox.Cwd, trust)
}

// approval returns a copy of a approval (nil when there is none), so that an
// Outcome never shares what Evolve later changes.
func (s *State) approval(id string) *Approval {
	r, ok := s.Approvals[id]
	if !ok || r == nil {
		return nil
	}
	c := *r
	return &c
}

func decideRespond(s *State, c *RespondApproval) ([]Event, Outcome, error) {
	if c.Resolution == domain.ResolutionExpired {
		return nil, Outcome{}, &domain.FieldError{Field: "resolution", Value: string(c.Resolution), Message: "only the server expires requests"}
	}
	if _, err := domain.ParseResolution(string(c.Resolution)); err != nil {
		return nil, Outcome{}, err
	}
	if s.Status == StatusNone {
		return nil, Outcome{}, &NotFoundError{Kind: "request", ID: c.RequestID}
	}
	r := s.Approvals[c.RequestID]
	if r == nil {
		return nil, Outcome{}, &NotFoundError{Kind: "request", ID: c.RequestID}
	}
	if r.Status == RequestResolved {
		if r.Resolution == c.Resolution {
			return nil, Outcome{Approval: s.approval(r.Request.RequestID), Replayed: true}, nil
		}
		return nil, Outcome{}, &AlreadyResolvedError{RequestID: r.Request.RequestID, Stored: r.Resolution}
	}
	if c.Resolution.Allows() && !slices.Contains(s.Snapshot.Approval.AllowedScopes, c.Resolution) {
		return nil, Outcome{}, &domain.FieldError{Field: "resolution", Value: string(c.Resolution), Message: "not an approval scope this turn allows"}
	}
	res, why := c.Resolution, c.Resolution.Reason()
	if c.Refusal != "" && res.Allows() {
		// The host, looked up at last, is one the network policy refuses.
		res, why = domain.ResolutionDeny, domain.ReasonSandboxDenied
	}
	ev, err := s.resolveFor(&c.Meta, r, res, why, s.Open)
	if err != nil {
		return nil, Outcome{}, err
	}
	// The answer is the approval as Evolve will keep it: its state from
	// the request table.
	resolved := *r
	resolved.Status, _ = RequestMove(r.Status, ev.Payload)
	resolved.Resolution, resolved.ResolvedReason = res, why
	return []Event{ev}, Outcome{Approval: &resolved}, nil
}

// resolve builds the approval_resolved event of r; open is how many requests
// are open before it.
func (s *State) resolve(m *Meta, r *Approval, res domain.Resolution, open int) (Event, error) {
	trans := TransResolve
	if open == 1 {
		trans = TransResolveLast
	}
	if _, err := next(s.TurnID, s.Status, trans); err != nil {
		return Event{}, err
	}
	p := &ApprovalResolved{RequestID: r.Request.RequestID, ToolCallID: r.ToolCallID, Resolution: res, Reason: res.Reason()}
	return s.event(m, []string{"resolved", r.Request.RequestID, string(res)}, p), nil
}

// resolveFor is resolve with a reason other than the resolution's own (a
// permission change resolving a request).
func (s *State) resolveFor(m *Meta, r *Approval, res domain.Resolution, why domain.Reason, open int) (Event, error) {
	ev, err := s.resolve(m, r, res, open)
	if err == nil {
		ev.Payload.(*ApprovalResolved).Reason = why
	}
	return ev, err
}

func decideExpire(s *State, c *ExpireApprovals) ([]Event, Outcome, error) {
	var evs []Event
	var out Outcome
	open := s.Open
	for _, r := range s.OpenApprovals() {
		if r.ExpiresAt.After(c.Now) {
			continue
		}
		ev, err := s.resolve(&c.Meta, r, domain.ResolutionExpired, open)
		if err != nil {
			return nil, Outcome{}, err
		}
		open--
		evs = append(evs, ev)
		out.Expired = append(out.Expired, r.Request.RequestID)
	}
	return evs, out, nil
}

func decideEnd(s *State, c *EndTurn) ([]Event, Outcome, error) {
	var trans string
	var ended Payload
	te := TurnEnded{Reason: c.Reason}
	switch c.Status {
	case StatusCompleted:
		trans, ended = TransComplete, &TurnCompleted{te}
	case StatusInterrupted:
		trans, ended = TransInterrupt, &TurnInterrupted{te}
	case StatusFailed:
		trans, ended = TransFail, &TurnFailed{te}
	default:
		return nil, Outcome{}, &domain.FieldError{Field: "status", Value: string(c.Status), Message: "must be completed, interrupted or failed"}
	}
	if err := s.live(trans); err != nil {
		return nil, Outcome{}, err
	}
	var evs []Event
	open := s.Open
	for _, r := range s.OpenApprovals() {
		ev, err := s.resolve(&c.Meta, r, domain.ResolutionCancelled, open)
		if err != nil {
			return nil, Outcome{}, err
		}
		open--
		evs = append(evs, ev)
	}
	return append(evs, s.event(&c.Meta, []string{"ended"}, ended)), Outcome{}, nil
}

func decideChange(s *State, c *ChangeProfile) ([]Event, Outcome, error) {
	if err := s.live(TransChange); err != nil {
		return nil, Outcome{}, err
	}
	if c.FromParent {
		if s.ParentTurnID == "" || c.Parent == nil || c.Parent.TurnID != s.ParentTurnID {
			return nil, Outcome{}, &NotFoundError{Kind: "turn", ID: s.ParentTurnID}
		}
		snap := domain.NarrowToParent(&s.Snapshot, &c.Parent.Snapshot, s.ParentTurnID)
		if !domain.Widens(&snap, &s.Snapshot) {
			return nil, Outcome{Replayed: true}, nil // nothing narrower
		}
		return changeTo(s, c, snap)
	}
	if err := domain.CheckProfileRequest(c.Profile); err != nil {
		return nil, Outcome{}, err
	}
	if c.Profile == nil || (c.Profile.Mode == "" && c.Profile.Profile == "") {
		return nil, Outcome{}, &domain.FieldError{Field: "permission_profile", Message: "required: a mode or a profile"}
	}
	if s.ParentTurnID != "" {
		if err := checkChildProfile(c.Profile); err != nil {
			return nil, Outcome{}, err
		}
	}
	si := domain.SnapshotInputs{
		Cwd: s.Inputs.Cwd, WorkspaceRoot: s.Inputs.WorkspaceRoot, ProjectRoots: s.Inputs.ProjectRoots,
		AppReadRoots: s.Inputs.AppReadRoots, ExecutionBackend: s.Inputs.ExecutionBackend, Kernel: c.Kernel,
		RootLinks: domain.RootLinksOf(&s.Snapshot), // where the roots led at the start, kept
	}
	for p, canon := range c.AddedRootLinks {
		// The new profile's own roots, where they lead now (the
		// hundred-and-eighty-second review): not the turn's, kept above.
		if _, kept := si.RootLinks[p]; !kept {
			if si.RootLinks == nil {
				si.RootLinks = map[string]string{}
			}
			si.RootLinks[p] = canon
		}
	}
	if c.WorkspaceRoot != "" || c.Cwd != "" {
		if !c.NarrowOnly || c.WorkspaceRoot == "" || c.Cwd == "" {
			return nil, Outcome{}, &domain.FieldError{Field: "workspace_root", Message: "another root is only selected to narrow the turn, with its cwd"}
		}
		si.Cwd, si.WorkspaceRoot = c.Cwd, c.WorkspaceRoot
		// The new root lies in one the turn started with (narrow only):
		// bound where that one led (the hundred-and-fourteenth review).
		root := c.WorkspaceRoot
		if !strings.HasPrefix(root, "/") && strings.HasPrefix(c.Cwd, "/") {
			root = domain.ResolvePath(c.Cwd, root) // as resolveRoots reads it
		}
		si.RootLinks = domain.BoundWithin(si.RootLinks, root)
	}
	var snap domain.TurnExecutionSecuritySnapshot
	var err error
	if s.ParentTurnID != "" {
		if c.Parent == nil {
			return nil, Outcome{}, &NotFoundError{Kind: "turn", ID: s.ParentTurnID}
		}
		snap, err = domain.ResolveChildSnapshot(domain.ChildInputs{Requested: c.Profile, Cap: s.TaskCap, Parent: &c.Parent.Snapshot, ParentTurnID: s.ParentTurnID, Inputs: si, Started: true})
	} else {
		snap, err = domain.SelectSnapshot(c.Profile, c.Catalog, domain.SourceComposer, si)
	}
	if err != nil {
		return nil, Outcome{}, err
	}
	domain.AddSensitivePaths(&snap, c.Sensitive)
	domain.AddSensitivePaths(&snap, s.Inputs.ForeignProjects)
	// Where the carve-outs led in the turn's snapshots so far (and its
	// parent's) is kept (the sixty-third review).
	carried := s.CarveLinks // every snapshot's, the current one's too (State.CarveLinks)
	if c.Parent != nil {
		carried = domain.MergeCarveLinks(carried, domain.CarveLinksOf(&c.Parent.Snapshot))
	}
	bindCarveLinks(&snap, c.ResolveLinks, carried)
	cur, _ := json.Marshal(s.Snapshot)
	nxt, _ := json.Marshal(snap)
	if bytes.Equal(cur, nxt) {
		if !confirms(s, c.Meta.Actor) {
			return nil, Outcome{Replayed: true}, nil
		}
		// A principal who may widen sets the profile the turn already has
		// (an admin narrowing a session the agent, or a plan-mode start,
		// had narrowed already): recorded, so that the change is theirs
		// (State.ProfileChangedBy) and a Claude Code session's next turn
		// keeps it; as a replay it was carried nowhere (the eighty-seventh
		// review). Only that: a grant, an allowed call and an open request
		// stand (the ninetieth).
		sum := sha256.Sum256(nxt)
		key := []string{"profile_confirmed", strconv.FormatInt(s.SnapshotVersion, 10), c.Meta.Actor.Name, hex.EncodeToString(sum[:])}
		return []Event{s.event(&c.Meta, key, &ProfileChanged{Profile: snap.PermissionProfile, Snapshot: snap, Confirmed: true})}, Outcome{}, nil
	}
	if c.NarrowOnly && domain.Widens(&s.Snapshot, &snap) {
		if domain.Widens(&snap, &s.Snapshot) {
			return nil, Outcome{}, &ConflictError{Code: "permissions_not_narrower",
				Message: fmt.Sprintf("permission profile %s would widen turn %s as well as narrow it; it is not changed", profileName(c.Profile), s.TurnID)}
		}
		return nil, Outcome{Replayed: true}, nil // the turn already lies within it
	}
	// Widening is not the runtime's to do: the principal who asks for a
	// wider snapshot must hold turn.widen_profile (an empty role is the
	// service itself, or a caller without principals).
	if a := c.Meta.Actor; a.Role != "" && !a.Role.Allows(domain.OpTurnWidenProfile) && domain.Widens(&s.Snapshot, &snap) {
		return nil, Outcome{}, &domain.ForbiddenError{Principal: a.Name, Role: a.Role, Operation: domain.OpTurnWidenProfile}
	}
	return changeTo(s, c, snap)
}

// confirms reports whether a change to the snapshot the turn has, asked
// by a, is recorded: a is not who last changed it (else a retry) and may
// widen (a change of whoever may not leaves State.ProfileChangedBy as it
// is).
func confirms(s *State, a domain.Actor) bool {
	return a.Name != "" && a.Name != s.ProfileChangedBy.Name && a.Role.Allows(domain.OpTurnWidenProfile)
}

// profileName names a profile request as a person reads it.
func profileName(p *domain.ProfileRequest) string {
	if p.Profile != "" {
		return p.Profile
	}
	return string(p.Mode)
}

// changeTo records the change to snap: the profile_changed event and, in
// the same append, the open requests it resolves.
func changeTo(s *State, c *ChangeProfile, snap domain.TurnExecutionSecuritySnapshot) ([]Event, Outcome, error) {
	nxt, _ := json.Marshal(snap)
	if len(nxt) > MaxSnapshotBytes {
		return nil, Outcome{}, snapshotTooLarge(len(nxt), "permission_profile")
	}
	sum := sha256.Sum256(nxt)
	key := []string{"profile_changed", strconv.FormatInt(s.SnapshotVersion, 10), hex.EncodeToString(sum[:])}
	evs := []Event{s.event(&c.Meta, key, &ProfileChanged{Profile: snap.PermissionProfile, Snapshot: snap, FromParent: c.FromParent})}
	// In the same append: narrowing cancels the open requests the new
	// snapshot denies; widening allows (once) those it now allows, so a
	// runtime waiting on them unblocks at once. Both are resolved by the
	// principal who changed the permissions, for the reason
	// permissions_changed.
	open := s.Open
	for _, r := range s.OpenApprovals() {
		a := r.Action.Judged()
		var refused, unjudged bool
		if c.Judge != nil {
			refused, unjudged = c.Judge(&snap, &r.Action)
		}
		var res domain.Resolution
		switch b := domain.Evaluate(&snap, &a, nil).Behavior; {
		case b == domain.BehaviorDeny || refused:
			res = domain.ResolutionCancelled
		case unjudged && b == domain.BehaviorAllow:
			// The file rules cannot be checked on the record: a person
			// answers it.
			continue
		case unjudged:
			// Nor can a narrowing's: the runtime asks again, judged anew.
			res = domain.ResolutionCancelled
		case b == domain.BehaviorAllow:
			if r.RecheckURL != "" {
				// A network call asked without a look-up of its host
				// (RecheckURL): only an allow that looks it up lets it
				// through, so it stays open for a person's answer.
				continue
			}
			res = domain.ResolutionAllowOnce
		default:
			continue
		}
		ev, err := s.resolveFor(&c.Meta, r, res, domain.ReasonPermissionsChanged, open)
		if err != nil {
			return nil, Outcome{}, err
		}
		open--
		evs = append(evs, ev)
	}
	return evs, Outcome{}, nil
}

// decideToolRun records a tool call the runtime reports as run, once per
// tool call id, with the decision the call had (none when turnstile was
// never asked: the audit shows a tool that ran unasked). A report of a
// decided call must name the invocation that was decided.
func decideToolRun(s *State, c *RecordToolRun) ([]Event, Outcome, error) {
	if err := s.live(TransDecide); err != nil {
		return nil, Outcome{}, err
	}
	if c.ToolCallID == "" {
		return nil, Outcome{}, &domain.FieldError{Field: "tool_call_id", Message: "required"}
	}
	if s.ran(c.ToolCallID) {
		return nil, Outcome{Replayed: true}, nil
	}
	a, err := s.classified(c.Classified, c.Invocation, nil)
	if err != nil {
		return nil, Outcome{}, err
	}
	ev := &ToolCompleted{ToolCallID: c.ToolCallID, Action: record(&a), ClientTool: c.ClientTool, Decision: "none",
		Failed: c.Failed, ResultBytes: c.ResultBytes, ResultSHA256: c.Invocation.Key.SumHex(c.ResultSHA256)}
	if err := foreignCall(s.Calls[c.ToolCallID], &c.Meta, c.ToolCallID); err != nil {
		return nil, Outcome{}, err
	}
	if call := s.Calls[c.ToolCallID]; call != nil && (call.ToolName != a.ToolName || call.ScopeHash != a.ScopeHash) {
		// A report of another invocation under a decided call's id is not
		// recorded (it would stand in the audit for what ran, and drop the
		// true report as a replay), as a decision is not.
		return nil, Outcome{}, &ConflictError{Code: "tool_call_reused",
			Message: fmt.Sprintf("tool_call_id %s was decided for a different invocation than the one reported as run", c.ToolCallID)}
	}
	if call := s.Calls[c.ToolCallID]; call != nil {
		ev.Decision, ev.RequestID = call.Decision.Behavior.String(), call.RequestID
		if r := s.Approvals[call.RequestID]; r != nil && r.Status == RequestResolved {
			ev.Decision = string(r.Resolution)
		}
		if call.Denial != nil {
			// A later denial (a revoked approval, a sandbox refusal) is
			// the call's final answer, over the person's (the
			// hundred-and-twenty-first review).
			ev.Decision = call.Denial.Behavior.String()
		}
	}
	return []Event{s.event(&c.Meta, []string{"tool_completed", c.ToolCallID}, ev)}, Outcome{}, nil
}

// ran reports whether the runtime reported the tool call as run.
func (s *State) ran(toolCallID string) bool {
	_, ok := s.Ran[toolCallID]
	return ok
}

// MaxSnapshotBytes bounds a turn's security snapshot, encoded. Every
// writable root adds the protected list (40 to 80 KB in auto_accept_edits, as the root's path is short or long),
// and 256 project roots made a snapshot event of 6.2 MB, which the server
// holds with the turn's state and its recent turns: an agent starting and
// ending such turns took its memory. (3 MiB since the list grew by a
// quarter in reviews 163–167: 30 writable roots of long paths passed 2.)
const MaxSnapshotBytes = 3 << 20

// checkSnapshotSize refuses a snapshot longer than MaxSnapshotBytes
// encoded, naming field as what made it so.
func checkSnapshotSize(snap *domain.TurnExecutionSecuritySnapshot, field string) error {
	b, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	if len(b) > MaxSnapshotBytes {
		return snapshotTooLarge(len(b), field)
	}
	return nil
}

func snapshotTooLarge(n int, field string) error {
	return &domain.FieldError{Field: field, Message: fmt.Sprintf("the turn's security snapshot would be %d bytes encoded, past the limit of %d: each writable root adds the protected list (40 to 80 KB); name fewer roots", n, MaxSnapshotBytes)}
}

// bindCarveLinks binds snap's carve-outs where their symlinks lead now
// (resolve, the engine's) and where they led before (carried: the turn's
// own start, its parent's): domain.BindCarveLinks.
func bindCarveLinks(snap *domain.TurnExecutionSecuritySnapshot, resolve func([]string) map[string][]string, carried map[string][]string) {
	var links map[string][]string
	// Every path is resolved again, a carried one too: a link the person
	// re-pointed (a rotated secret) binds its new place as well as the
	// old, which another turn's command could open by removing the link
	// (the sixty-ninth review). A link another turn re-points for a
	// moment binds where it led then for the rest of the turn: a false
	// deny, where the other way lost a deny.
	if resolve != nil {
		if paths := domain.CarveLinkPaths(snap); len(paths) > 0 {
			links = resolve(paths)
		}
	}
	domain.BindCarveLinks(snap, domain.MergeCarveLinks(links, carried))
}
