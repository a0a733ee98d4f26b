// Package turn is the turn aggregate: its events, its state machine, and the
// pure Decide/Evolve pair that every command goes through. It reads no clock
// and draws no randomness: time arrives in the command, and event ids are
// UUIDv5 over each command's identity, so a retried command produces the same
// events.
package turn

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"turnstile/domain"
)

// Event type names. They are stored: never rename one, only add.
const (
	TypeTurnStarted              = "turn.started"
	TypeProfileSelected          = "permission.profile_selected"
	TypeSecuritySnapshotResolved = "permission.security_snapshot_resolved"
	TypeDecisionAllowed          = "permission.decision_allowed"
	TypeDecisionDenied           = "permission.decision_denied"
	TypeApprovalRequested        = "permission.approval_requested"
	TypeApprovalResolved         = "permission.approval_resolved"
	TypeProfileChanged           = "permission.profile_changed"
	TypeTurnCompleted            = "turn.completed"
	TypeTurnInterrupted          = "turn.interrupted"
	TypeTurnFailed               = "turn.failed"
	TypeToolCompleted            = "tool.completed"
)

// Payload is the body of an event.
type Payload interface {
	// EventType returns the stable type name.
	EventType() string
}

// Inputs are what a turn's snapshot was resolved from (kept so that a
// profile change can resolve a new snapshot from the same inputs).
type Inputs struct {
	Cwd              string                  `json:"cwd,omitempty"`
	WorkspaceRoot    string                  `json:"workspace_root,omitempty"`
	ProjectRoots     []string                `json:"project_roots,omitempty"`
	AppReadRoots     []string                `json:"app_read_roots,omitempty"`
	ExecutionBackend domain.ExecutionBackend `json:"execution_backend,omitempty"`
	// ForeignProjects are the roots of projects the operator's Claude Code
	// configuration gives another workspace that lie inside the turn's
	// root (a hook's turn: its project may hold another workspace's). Every
	// snapshot of the turn denies them as sensitive paths, so that the
	// turn's credential does not act there under its own workspace's label,
	// where the other's approvers and auditors see nothing (the
	// hundred-and-nineteenth review). Set by the server.
	ForeignProjects []string `json:"foreign_projects,omitempty"`
}

// TurnStarted opens a turn.
type TurnStarted struct {
	TurnID       string `json:"turn_id"`
	WorkspaceID  string `json:"workspace_id"`
	ThreadID     string `json:"thread_id"`
	ParentTurnID string `json:"parent_turn_id,omitempty"`
	// RequestHash identifies the start request, so that a repeat is
	// recognised as the same turn and a different one as a conflict.
	RequestHash string          `json:"request_hash"`
	Inputs      Inputs          `json:"inputs"`
	TaskCap     *domain.TaskCap `json:"task_cap,omitempty"`
	// Input is the turn's prompt as the client sent it (the reference's
	// turn/start "input" items, or a Claude Code prompt as one text item).
	Input json.RawMessage `json:"input,omitempty"`
	// Client keeps the rest of what the client sent that turnstile does not
	// act on (the reference's model, capabilities, …; Claude Code's session
	// and permission_mode), by field name, as sent.
	Client map[string]json.RawMessage `json:"client,omitempty"`
	// ProfileCarried, set when a Claude Code session's turn starts with
	// the profile its previous turn was given by another principal than
	// the hook's, names that turn and principal.
	ProfileCarried *ProfileOrigin `json:"profile_carried,omitempty"`
}

// ProfileOrigin names the turn whose profile a turn carried over and the
// principal who gave it that profile.
type ProfileOrigin struct {
	TurnID string       `json:"turn_id"`
	By     domain.Actor `json:"by"`
}

// ToolCompleted records that a tool call ran, as the agent runtime reports
// it afterwards (Claude Code's PostToolUse): what ran, the decision it had
// (none when turnstile was never asked), and a digest of its result — never
// the result itself.
type ToolCompleted struct {
	ToolCallID string       `json:"tool_call_id"`
	Action     ActionRecord `json:"action"`
	// ClientTool is the tool's name in the client (Claude Code's "Bash").
	ClientTool string `json:"client_tool,omitempty"`
	// Decision is the call's recorded decision (allow, ask, deny), or none.
	Decision  string `json:"decision"`
	RequestID string `json:"request_id,omitempty"`
	// Failed is set when the runtime reported the tool as failed.
	Failed       bool   `json:"failed,omitempty"`
	ResultBytes  int    `json:"result_bytes"`
	ResultSHA256 string `json:"result_sha256,omitempty"`
}

// ProfileSelected records the turn's permission profile.
type ProfileSelected struct {
	Profile domain.TurnPermissionProfileSnapshot `json:"profile"`
}

// SecuritySnapshotResolved records the snapshot the turn runs under.
type SecuritySnapshotResolved struct {
	Snapshot domain.TurnExecutionSecuritySnapshot `json:"snapshot"`
}

// ActionRecord is the classified action as recorded: display values are
// redacted (domain.Action.Redacted), the scope hash is exact. Decisions keep
// the summary; approval requests keep the files (to re-evaluate them after a
// profile change) and carry their summary and details in the request.
type ActionRecord struct {
	ToolName string            `json:"tool_name"`
	Kind     domain.ActionKind `json:"action"`
	Also     domain.ActionKind `json:"also,omitempty"`
	// AlsoTool is the second tool name the tool lists judge the action
	// as (domain.Action.AlsoTool: apply_patch for an exec patch), so that
	// a profile change judges an open request by both names. Absent in a
	// record from before it was kept: judged by ToolName alone, as then.
	AlsoTool  string          `json:"also_tool,omitempty"`
	ScopeHash string          `json:"scope_hash"`
	Scope     domain.Scope    `json:"scope"`
	Files     []domain.FileOp `json:"files,omitempty"`
	Summary   string          `json:"summary"`
	Details   []domain.Detail `json:"details,omitempty"`
}

// Judged is the action a profile change judges an open request by, rebuilt
// from the record: its tools, kinds, files and scope hash, and the command
// (the process policy's denied_commands and allowed_command_families judge
// its argv[0]: without it a narrowing that denies the command left its
// request open), and the URL's origin (a network call with a URL is not
// one without: the host rules judge a recorded origin, not the domains of
// a search). What the record does not keep (the rest of the URL, the
// arguments, a search's domains) is not in it.
func (a *ActionRecord) Judged() domain.Action {
	out := domain.Action{ToolName: a.ToolName, AlsoTool: a.AlsoTool, Kind: a.Kind, Also: a.Also, Files: a.Files, ScopeHash: a.ScopeHash}
	if v, ok := a.Scope.Get("argv"); ok {
		_ = json.Unmarshal([]byte(v), &out.Argv)
	}
	if v, ok := a.Scope.Get("allowed_domains"); ok {
		_ = json.Unmarshal([]byte(v), &out.Domains)
	}
	if v, ok := a.Scope.Get("url_origin"); ok {
		if u, err := url.Parse(v); err == nil && u.Host != "" {
			out.URL = u
		}
	}
	return out
}

// DecisionRecord is a domain.Decision as an event records it: its action
// kind and scope hash are the ActionRecord's beside it, not repeated (a
// separate type because the stored JSON omits them).
type DecisionRecord struct {
	Behavior  domain.Behavior `json:"decision"`
	Reason    domain.Reason   `json:"reason"`
	Cached    bool            `json:"cached,omitempty"`
	DecidedBy string          `json:"decided_by"`
}

func decisionRecordOf(d domain.Decision) DecisionRecord {
	return DecisionRecord{Behavior: d.Behavior, Reason: d.Reason, Cached: d.Cached, DecidedBy: d.DecidedBy}
}

// With rebuilds the full decision about a.
func (v DecisionRecord) With(a *ActionRecord) domain.Decision {
	return domain.Decision{Behavior: v.Behavior, Reason: v.Reason, Action: a.Kind, ScopeHash: a.ScopeHash, Cached: v.Cached, DecidedBy: v.DecidedBy}
}

// Decided is the body decision_allowed and decision_denied share (as
// TurnEnded is the body of the three endings).
type Decided struct {
	ToolCallID string         `json:"tool_call_id"`
	ItemID     string         `json:"item_id,omitempty"`
	Action     ActionRecord   `json:"action"`
	Decision   DecisionRecord `json:"decision"`
	// RequestID is set when the decision follows an approval request.
	RequestID string `json:"request_id,omitempty"`
	// Refusal is the sandbox's reason code when it refused (reason sandbox_denied).
	Refusal string `json:"refusal,omitempty"`
	Message string `json:"message,omitempty"`
}

// DecisionAllowed records an allowed tool call.
type DecisionAllowed struct{ Decided }

// DecisionDenied records a denied tool call.
type DecisionDenied struct{ Decided }

// ApprovalRequest is a TurnPermissionApprovalRequest (REFERENCE §3).
type ApprovalRequest struct {
	RequestID        string            `json:"request_id"`
	WorkspaceID      string            `json:"workspace_id"`
	ThreadID         string            `json:"thread_id"`
	TurnID           string            `json:"turn_id"`
	VisibleThreadIDs []string          `json:"visible_thread_ids,omitempty"`
	ToolName         string            `json:"tool_name"`
	Action           domain.ActionKind `json:"action"`
	ScopeHash        string            `json:"scope_hash"`
	Reason           domain.Reason     `json:"reason"`
	Summary          string            `json:"summary"`
	Details          []domain.Detail   `json:"details"`
	// ForThisTurn says in plain words what an allow_for_turn answer covers.
	ForThisTurn string `json:"for_this_turn,omitempty"`
}

// ApprovalRequested opens an approval request.
type ApprovalRequested struct {
	ToolCallID string          `json:"tool_call_id"`
	ItemID     string          `json:"item_id,omitempty"`
	Request    ApprovalRequest `json:"request"`
	Action     ActionRecord    `json:"action_record"`
	Decision   DecisionRecord  `json:"decision"`
	Mode       domain.Mode     `json:"mode"`
	ExpiresAt  time.Time       `json:"expires_at"`
	// RecheckURL is the origin (scheme://host:port) of a network call whose
	// host was not looked up when it asked: the name goes to a DNS server
	// only once a person allows the call, and the allow is recorded as a
	// deny (sandbox_denied) when the lookup refuses it.
	RecheckURL string `json:"recheck_url,omitempty"`
}

// ApprovalResolved closes an approval request.
type ApprovalResolved struct {
	RequestID  string            `json:"request_id"`
	ToolCallID string            `json:"tool_call_id"`
	Resolution domain.Resolution `json:"resolution"`
	Reason     domain.Reason     `json:"reason"`
}

// ProfileChanged replaces the turn's profile and snapshot mid-turn; it
// clears every grant.
type ProfileChanged struct {
	Profile  domain.TurnPermissionProfileSnapshot `json:"profile"`
	Snapshot domain.TurnExecutionSecuritySnapshot `json:"snapshot"`
	// FromParent marks a child turn's change that bounds it by its
	// parent's (the parent's change, carried down): no change of the
	// child's own.
	FromParent bool `json:"from_parent,omitempty"`
	// Confirmed marks a change to the snapshot the turn already had, by a
	// principal who may widen (an admin setting the mode a session's turn
	// is in): it records who asked for the profile, for a Claude Code
	// session's next turn to keep, and changes nothing else (no grant
	// cleared, no snapshot version, no request resolved).
	Confirmed bool `json:"confirmed,omitempty"`
}

// TurnEnded is the body of turn.completed, turn.interrupted and turn.failed.
type TurnEnded struct {
	Reason string `json:"reason,omitempty"`
}

// TurnCompleted ends a turn normally.
type TurnCompleted struct{ TurnEnded }

// TurnInterrupted ends a turn that was stopped.
type TurnInterrupted struct{ TurnEnded }

// TurnFailed ends a turn that failed.
type TurnFailed struct{ TurnEnded }

// EventType implementations.
func (TurnStarted) EventType() string              { return TypeTurnStarted }
func (ProfileSelected) EventType() string          { return TypeProfileSelected }
func (SecuritySnapshotResolved) EventType() string { return TypeSecuritySnapshotResolved }
func (DecisionAllowed) EventType() string          { return TypeDecisionAllowed }
func (DecisionDenied) EventType() string           { return TypeDecisionDenied }
func (ApprovalRequested) EventType() string        { return TypeApprovalRequested }
func (ApprovalResolved) EventType() string         { return TypeApprovalResolved }
func (ProfileChanged) EventType() string           { return TypeProfileChanged }
func (TurnCompleted) EventType() string            { return TypeTurnCompleted }
func (TurnInterrupted) EventType() string          { return TypeTurnInterrupted }
func (TurnFailed) EventType() string               { return TypeTurnFailed }
func (ToolCompleted) EventType() string            { return TypeToolCompleted }

// catalogue lists every event with its schema version and a constructor.
var catalogue = []struct {
	version int
	make    func() Payload
}{
	{1, func() Payload { return &TurnStarted{} }},
	{1, func() Payload { return &ProfileSelected{} }},
	{1, func() Payload { return &SecuritySnapshotResolved{} }},
	{1, func() Payload { return &DecisionAllowed{} }},
	{1, func() Payload { return &DecisionDenied{} }},
	{1, func() Payload { return &ApprovalRequested{} }},
	{1, func() Payload { return &ApprovalResolved{} }},
	{1, func() Payload { return &ProfileChanged{} }},
	{1, func() Payload { return &TurnCompleted{} }},
	{1, func() Payload { return &TurnInterrupted{} }},
	{1, func() Payload { return &TurnFailed{} }},
	{1, func() Payload { return &ExecStarted{} }},
	{1, func() Payload { return &ExecFinished{} }},
	{1, func() Payload { return &ChildTurnStarted{} }},
	{1, func() Payload { return &ToolCompleted{} }},
	{1, func() Payload { return &EgressTraffic{} }},
}

// PromptText is the text of a turn's input: its text items joined by blank
// lines, or, for input that is a plain JSON string, that string.
func PromptText(input json.RawMessage) string {
	if len(input) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(input, &s) == nil {
		return s
	}
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(input, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		if it.Type == "text" && it.Text != "" {
			parts = append(parts, it.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}
