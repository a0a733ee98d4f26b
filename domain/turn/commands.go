package turn

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"time"

	"turnstile/domain"
)

// Meta is what every command carries: the time it happens at, who causes
// it, and what it correlates with.
type Meta struct {
	Now time.Time
	// Actor is the authenticated principal (set at the edge, never from
	// a client's header) or domain.SystemActor.
	Actor         domain.Actor
	CorrelationID string
}

// Command is anything Decide accepts.
type Command interface{ meta() *Meta }

func (m *Meta) meta() *Meta { return m }

// Parent is what a child turn needs of its parent.
type Parent struct {
	TurnID   string
	Status   Status
	Snapshot domain.TurnExecutionSecuritySnapshot
	// WorkspaceID is the parent's workspace: a child turn runs in it.
	WorkspaceID string
}

// StartTurn starts a turn; a repeat of the same request is answered with the
// existing turn, a different one for the same id is a conflict.
type StartTurn struct {
	Meta
	TurnID      string
	WorkspaceID string
	ThreadID    string
	Profile     *domain.ProfileRequest
	Inputs      Inputs
	// Kernel is what the capability probe found (not part of the request's
	// identity).
	Kernel domain.KernelFeatures
	// Sensitive are the service's own secrets (data directory, credential
	// files), denied to the turn in every mode (not part of the request's
	// identity).
	Sensitive []string
	// RootLinks: domain.SnapshotInputs.RootLinks, filled by the engine
	// (not part of the request's identity).
	RootLinks map[string]string
	// ResolveLinks, when set (the engine's), returns where each path's
	// symlinks lead now (domain.BindCarveLinks); not part of the
	// request's identity.
	ResolveLinks func(paths []string) map[string][]string
	ParentTurnID string
	TaskCap      *domain.TaskCap
	// Parent is loaded by the engine when ParentTurnID is set.
	Parent *Parent
	// Input is the turn's prompt; Client what else the client sent (kept in
	// the turn-start event, see TurnStarted).
	Input  json.RawMessage
	Client map[string]json.RawMessage
	// Catalog is the server's profiles and operator constraints (filled by
	// the engine; not part of the request's identity).
	Catalog *domain.ProfileCatalog
	// ProfileCarried, when set, says Profile is the one another principal
	// gave the session's previous turn (TurnStarted.ProfileCarried).
	ProfileCarried *ProfileOrigin
}

// RequestHash identifies the client's request (not the kernel, time or actor).
func (c *StartTurn) RequestHash() string {
	b, _ := json.Marshal(struct {
		WorkspaceID  string                 `json:"workspace_id"`
		ThreadID     string                 `json:"thread_id"`
		Profile      *domain.ProfileRequest `json:"profile"`
		Inputs       Inputs                 `json:"inputs"`
		ParentTurnID string                 `json:"parent_turn_id"`
		TaskCap      *domain.TaskCap        `json:"task_cap"`
		// Omitted when empty, so that the hash of a request without them
		// is what it was before they existed.
		Input  json.RawMessage            `json:"input,omitempty"`
		Client map[string]json.RawMessage `json:"client,omitempty"`
	}{c.WorkspaceID, c.ThreadID, c.Profile, c.Inputs, c.ParentTurnID, c.TaskCap, c.Input, c.Client})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// EvaluateTool decides one tool invocation, keyed by its tool call id: a
// retry returns the first decision and appends nothing.
type EvaluateTool struct {
	Meta
	// Looked (the engine's) is the lookup of the call's host made without
	// the turn's lock, for this call alone: the check under the lock
	// judges its answer (not part of the request's identity).
	Looked     *LookupAnswer
	ToolCallID string
	ItemID     string
	Invocation domain.Invocation
	Trust      domain.MCPTrust
	// TTL is how long an approval request stays open.
	TTL time.Duration
	// LookUpAsks has a network call that asks looked up before it asks,
	// as one the policy allows: for a caller that never sees the person's
	// answer (Claude Code's own prompt answers it), so that nothing could
	// look the host up before the call runs.
	LookUpAsks bool
	// RecheckURL, set by the engine, is the origin of a call whose host it
	// did not look up because the call asks (ApprovalRequested.RecheckURL).
	RecheckURL string
	// MaxOpen bounds the approval requests open at once in the turn
	// (domain.DefaultMaxOpenRequests when 0): a decision that would open
	// one more is refused with a *domain.QuotaError and appends nothing.
	MaxOpen int
	// Classified, when set, is Invocation already classified against this
	// state's cwd with Trust (the engine's resource check does it), so the
	// hot path classifies once.
	Classified *domain.Action
	// CallCwd is the directory the runtime runs the call in, when it says
	// (a Claude Code hook's cwd): the engine's file checks hold the
	// protected list there too (domain AlsoProtectedAt). Not part of the
	// request's identity.
	CallCwd string
}

// RecordDenial records a refusal made outside the policy (the sandbox's
// checks before a side effect) as a decision_denied with reason
// sandbox_denied.
type RecordDenial struct {
	Meta
	ToolCallID string
	ItemID     string
	Invocation domain.Invocation
	Refusal    string
	Message    string
	// Classified, when set, is Invocation classified against this state's
	// cwd with the paths resolved (the engine's check, which refused it).
	Classified *domain.Action
}

// RespondApproval resolves an approval request. The first resolution wins;
// the same one again is answered with the stored result.
type RespondApproval struct {
	Meta
	RequestID  string
	Resolution domain.Resolution
	// Refusal, set by the engine, is the code of the resource check that
	// refused an allowed request's host when it was looked up at last
	// (RecheckURL): the allow is then recorded as a deny, sandbox_denied.
	Refusal string
}

// RecordToolRun records that a tool call ran (the runtime's report after
// the fact), once per tool call id.
type RecordToolRun struct {
	Meta
	ToolCallID string
	Invocation domain.Invocation
	ClientTool string
	Failed     bool
	// ResultBytes and ResultSHA256 digest the tool's result.
	ResultBytes  int
	ResultSHA256 string
	// Classified, when set, is Invocation classified against this state's
	// cwd with the paths resolved, as its decision was.
	Classified *domain.Action
}

// ExpireApprovals resolves every open request past its expiry as expired.
type ExpireApprovals struct{ Meta }

// EndTurn completes, interrupts or fails a turn, cancelling open requests.
type EndTurn struct {
	Meta
	Status Status // StatusCompleted, StatusInterrupted or StatusFailed
	Reason string
}

// ChangeProfile replaces the profile mid-turn: it takes effect from the next
// decision, clears every grant, and cancels open requests the new profile
// would deny.
type ChangeProfile struct {
	Meta
	Profile *domain.ProfileRequest
	Kernel  domain.KernelFeatures
	// Sensitive: as StartTurn's.
	Sensitive []string
	Parent    *Parent
	// Catalog is the server's profiles and operator constraints (filled by
	// the engine).
	Catalog *domain.ProfileCatalog
	// AddedRootLinks are where the roots Profile adds (its
	// workspace_roots table) lead now (filled by the engine): the
	// change's snapshot judges a root below one of them there, as a
	// start with Profile does (StartTurn.RootLinks).
	AddedRootLinks map[string]string
	// FromParent bounds a child turn again by its parent's current
	// snapshot (Parent) instead of selecting Profile: the engine sends it
	// to each child of a turn whose profile changed. It only narrows.
	FromParent bool
	// NarrowOnly makes the change only where it narrows the turn: a
	// Profile the turn's snapshot already lies within changes nothing, and
	// one that would also widen it (neither lies within the other) is a
	// conflict, permissions_not_narrower. The Claude Code hook sends it
	// with the profile each tool call's own permission_mode selects.
	NarrowOnly bool
	// Cwd and WorkspaceRoot, with NarrowOnly, select Profile for another
	// root than the turn's: the Claude Code hook sends the project of the
	// call's own cwd (a turn started from an enclosing project is narrowed
	// to the call's; one started from a sibling project is a conflict).
	Cwd, WorkspaceRoot string
	// Judge, when set (the engine's resource checks), judges an open
	// request's recorded action against the new snapshot: refused, or
	// unjudged when what the checks need is not in the record (a path
	// redacted from its credential store down). A refused request is
	// cancelled by the change, an unjudged one never allowed by it.
	Judge func(snap *domain.TurnExecutionSecuritySnapshot, a *ActionRecord) (refused, unjudged bool)
	// ResolveLinks: StartTurn's.
	ResolveLinks func(paths []string) map[string][]string
}

// Outcome is what a command answered, for the caller.
type Outcome struct {
	// Decision answers EvaluateTool.
	Decision domain.Decision
	// Approval is the approval request EvaluateTool opened (or found) or
	// RespondApproval resolved.
	Approval *Approval
	// Refusal is the sandbox's reason code when it refused the call.
	Refusal string
	// Expired lists the requests ExpireApprovals resolved.
	Expired []string
	// Replayed is set when nothing was appended because the command had
	// already been applied; the answer is the stored one.
	Replayed bool
	// Exec is what StartExec asks the caller to do.
	Exec ExecStep
	// Finished is the recorded result of a started command, if any.
	Finished *ExecFinished
}

// LookupAnswer is what a host name was looked up to (EvaluateTool.Looked).
type LookupAnswer struct {
	Host  string
	Addrs []netip.Addr
	Err   error
}
