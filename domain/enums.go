// Package domain is turnstile's pure core: the permission model, policy
// evaluation, cap intersection, scope hashing and execution security snapshot
// resolution. It performs no I/O, reads no clock and draws no randomness:
// everything it needs arrives as values.
package domain

import (
	"fmt"
	"strings"
)

// InvalidEnumError reports a value that is not one of an enum's wire names.
// Field names the JSON field (or the enum kind when the field is not known).
type InvalidEnumError struct {
	Field   string
	Value   string
	Allowed []string
}

func (e *InvalidEnumError) Error() string {
	return fmt.Sprintf("invalid %s %q (allowed: %s)", e.Field, e.Value, strings.Join(e.Allowed, ", "))
}

// WithField returns a copy of e naming field instead of the enum kind.
func (e *InvalidEnumError) WithField(field string) *InvalidEnumError {
	c := *e
	c.Field = field
	return &c
}

// parseEnum returns v when it is one of allowed, else an *InvalidEnumError.
func parseEnum[T ~string](kind, v string, allowed []T) (T, error) {
	for _, a := range allowed {
		if string(a) == v {
			return a, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return "", &InvalidEnumError{Field: kind, Value: v, Allowed: names}
}

// Mode is a permission profile mode.
type Mode string

// Permission profile modes, least to most restrictive.
const (
	ModeFullAccess      Mode = "full_access"
	ModeAutoAcceptEdits Mode = "auto_accept_edits"
	ModeSupervised      Mode = "supervised"
)

// Modes lists every mode, least restrictive first.
var Modes = []Mode{ModeFullAccess, ModeAutoAcceptEdits, ModeSupervised}

// ParseMode parses a mode's wire name.
func ParseMode(s string) (Mode, error) { return parseEnum("mode", s, Modes) }

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// rank orders modes by restrictiveness (higher is more restrictive).
func (m Mode) rank() int {
	switch m {
	case ModeFullAccess:
		return 0
	case ModeAutoAcceptEdits:
		return 1
	default:
		return 2 // supervised, and any unknown value, count as the strictest
	}
}

// StricterMode returns the more restrictive of a and b.
func StricterMode(a, b Mode) Mode {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// ProfileSource says where a turn's permission profile came from.
type ProfileSource string

// Profile sources.
const (
	SourceComposer                ProfileSource = "composer"
	SourceDefaulted               ProfileSource = "defaulted"
	SourceInheritedFromParentTurn ProfileSource = "inherited_from_parent_turn"
	SourceTaskPermissionCap       ProfileSource = "task_permission_cap"
	SourceSystem                  ProfileSource = "system"
)

// ProfileSources lists every profile source.
var ProfileSources = []ProfileSource{SourceComposer, SourceDefaulted, SourceInheritedFromParentTurn, SourceTaskPermissionCap, SourceSystem}

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (s *ProfileSource) UnmarshalText(b []byte) error {
	v, err := parseEnum("source", string(b), ProfileSources)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Behavior is what a policy does with an action. The zero value is
// BehaviorDeny, so a forgotten field fails closed.
type Behavior uint8

// Behaviors, most restrictive first.
const (
	BehaviorDeny  Behavior = iota // reject before execution
	BehaviorAsk                   // open an approval request and wait
	BehaviorAllow                 // run without a prompt
)

var behaviorNames = [...]string{"deny", "ask", "allow"}

// String returns the wire name.
func (b Behavior) String() string {
	if int(b) < len(behaviorNames) {
		return behaviorNames[b]
	}
	return "deny"
}

// ParseBehavior parses a behaviour's wire name.
func ParseBehavior(s string) (Behavior, error) {
	for i, n := range behaviorNames {
		if n == s {
			return Behavior(i), nil
		}
	}
	return BehaviorDeny, &InvalidEnumError{Field: "behavior", Value: s, Allowed: []string{"allow", "ask", "deny"}}
}

// MarshalText implements encoding.TextMarshaler.
func (b Behavior) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (b *Behavior) UnmarshalText(t []byte) error {
	v, err := ParseBehavior(string(t))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// StricterBehavior returns the more restrictive of a and b (deny > ask > allow).
func StricterBehavior(a, b Behavior) Behavior { return min(a, b) }

// ActionKind classifies a tool invocation.
type ActionKind string

// Action kinds.
const (
	ActionFileRead          ActionKind = "file_read"
	ActionFileWrite         ActionKind = "file_write"
	ActionShellCommand      ActionKind = "shell_command"
	ActionNetwork           ActionKind = "network"
	ActionMCPRead           ActionKind = "mcp_read"
	ActionMCPWriteOrUnknown ActionKind = "mcp_write_or_unknown"
	ActionDynamicSkillTool  ActionKind = "dynamic_skill_tool"
	ActionComputerUse       ActionKind = "computer_use"
	ActionTaskSubagent      ActionKind = "task_subagent"
	ActionInternal          ActionKind = "internal"
	ActionUnknown           ActionKind = "unknown"
)

// ActionKinds lists every action kind.
var ActionKinds = []ActionKind{ActionFileRead, ActionFileWrite, ActionShellCommand, ActionNetwork, ActionMCPRead,
	ActionMCPWriteOrUnknown, ActionDynamicSkillTool, ActionComputerUse, ActionTaskSubagent, ActionInternal, ActionUnknown}

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (k *ActionKind) UnmarshalText(b []byte) error {
	v, err := parseEnum("action", string(b), ActionKinds)
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Reason is a decision's reason code.
type Reason string

// Decision reasons.
const (
	ReasonFullAccess             Reason = "full_access"
	ReasonPolicyAllowsAction     Reason = "policy_allows_action"
	ReasonPolicyRequiresApproval Reason = "policy_requires_approval"
	ReasonPolicyDeniesAction     Reason = "policy_denies_action"
	ReasonCachedApproval         Reason = "cached_approval"
	ReasonUserApproved           Reason = "user_approved"
	ReasonUserDenied             Reason = "user_denied"
	ReasonCancelled              Reason = "cancelled"
	ReasonExpired                Reason = "expired"
	ReasonUnknownActionDefault   Reason = "unknown_action_default"
	ReasonSandboxDenied          Reason = "sandbox_denied"
	// ReasonPermissionsChanged: a mid-turn permission change resolved the
	// request (allowed once when the new snapshot allows it, cancelled when
	// it denies it).
	ReasonPermissionsChanged Reason = "permissions_changed"
)

// Reasons lists every reason code.
var Reasons = []Reason{ReasonFullAccess, ReasonPolicyAllowsAction, ReasonPolicyRequiresApproval, ReasonPolicyDeniesAction,
	ReasonCachedApproval, ReasonUserApproved, ReasonUserDenied, ReasonCancelled, ReasonExpired, ReasonUnknownActionDefault, ReasonSandboxDenied,
	ReasonPermissionsChanged}

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (r *Reason) UnmarshalText(b []byte) error {
	v, err := parseEnum("reason", string(b), Reasons)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Resolution is how an approval request ended.
type Resolution string

// Resolutions.
const (
	ResolutionAllowOnce    Resolution = "allow_once"
	ResolutionAllowForTurn Resolution = "allow_for_turn"
	ResolutionDeny         Resolution = "deny"
	ResolutionCancelled    Resolution = "cancelled"
	ResolutionExpired      Resolution = "expired"
)

// Resolutions lists every resolution.
var Resolutions = []Resolution{ResolutionAllowOnce, ResolutionAllowForTurn, ResolutionDeny, ResolutionCancelled, ResolutionExpired}

// ClientResolutions lists the resolutions a person (or client) may give;
// only the server expires a request.
var ClientResolutions = []ClientResolution{ClientResolution(ResolutionAllowOnce), ClientResolution(ResolutionAllowForTurn),
	ClientResolution(ResolutionDeny), ClientResolution(ResolutionCancelled)}

// ClientResolution is a resolution a client may give: any but expired.
type ClientResolution Resolution

// UnmarshalText implements encoding.TextUnmarshaler, refusing expired
// and naming the resolutions a client may give.
func (r *ClientResolution) UnmarshalText(b []byte) error {
	v, err := parseEnum("resolution", string(b), ClientResolutions)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ParseResolution parses a resolution's wire name.
func ParseResolution(s string) (Resolution, error) { return parseEnum("resolution", s, Resolutions) }

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (r *Resolution) UnmarshalText(b []byte) error {
	v, err := ParseResolution(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Allows reports whether r lets the action run.
func (r Resolution) Allows() bool { return r == ResolutionAllowOnce || r == ResolutionAllowForTurn }

// Reason returns the decision reason a resolution stands for.
func (r Resolution) Reason() Reason {
	switch r {
	case ResolutionAllowOnce, ResolutionAllowForTurn:
		return ReasonUserApproved
	case ResolutionCancelled:
		return ReasonCancelled
	case ResolutionExpired:
		return ReasonExpired
	default:
		return ReasonUserDenied
	}
}

// ExecutionBackend is what runs a turn's commands.
type ExecutionBackend string

// Execution backends.
const (
	BackendNative    ExecutionBackend = "native"
	BackendCodexCLI  ExecutionBackend = "codex_cli"
	BackendClaudeCLI ExecutionBackend = "claude_cli"
)

// ExecutionBackends lists every execution backend.
var ExecutionBackends = []ExecutionBackend{BackendNative, BackendCodexCLI, BackendClaudeCLI}

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (e *ExecutionBackend) UnmarshalText(b []byte) error {
	v, err := parseEnum("execution_backend", string(b), ExecutionBackends)
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// SandboxMode is the filesystem confinement of a snapshot.
type SandboxMode string

// Sandbox modes, least to most restrictive.
const (
	SandboxUnrestricted   SandboxMode = "unrestricted"
	SandboxWorkspaceWrite SandboxMode = "workspace_write"
	SandboxReadOnly       SandboxMode = "read_only"
)

// SandboxModes lists every sandbox mode.
var SandboxModes = []SandboxMode{SandboxUnrestricted, SandboxWorkspaceWrite, SandboxReadOnly}

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (s *SandboxMode) UnmarshalText(b []byte) error {
	v, err := parseEnum("sandbox_mode", string(b), SandboxModes)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

func (s SandboxMode) rank() int {
	switch s {
	case SandboxUnrestricted:
		return 0
	case SandboxWorkspaceWrite:
		return 1
	default:
		return 2
	}
}

// StricterSandbox returns the more restrictive of a and b.
func StricterSandbox(a, b SandboxMode) SandboxMode {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// NetworkMode is the network confinement of a snapshot.
type NetworkMode string

// Network modes, least to most restrictive.
const (
	NetworkEnabled    NetworkMode = "enabled"
	NetworkRestricted NetworkMode = "restricted"
	NetworkDisabled   NetworkMode = "disabled"
)

// NetworkModes lists every network mode.
var NetworkModes = []NetworkMode{NetworkEnabled, NetworkRestricted, NetworkDisabled}

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (n *NetworkMode) UnmarshalText(b []byte) error {
	v, err := parseEnum("network_mode", string(b), NetworkModes)
	if err != nil {
		return err
	}
	*n = v
	return nil
}

func (n NetworkMode) rank() int {
	switch n {
	case NetworkEnabled:
		return 0
	case NetworkRestricted:
		return 1
	default:
		return 2
	}
}

// StricterNetwork returns the more restrictive of a and b.
func StricterNetwork(a, b NetworkMode) NetworkMode {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Access is what a filesystem entry grants.
type Access string

// Filesystem access levels. AccessDeny is beyond the reference: a per-path
// rule that removes access under a granted root.
const (
	AccessRead  Access = "read"
	AccessWrite Access = "write"
	AccessDeny  Access = "deny"
	// AccessOverlay is a profile's value only, never an entry's: the
	// command reads the directory and writes a copy of it that lives as
	// long as the command (an overlay whose upper layer is the command's
	// own); nothing it writes reaches the directory. Compiled, it is a
	// read rule and entry with Overlay set: decisions, which judge what
	// the runtime itself does on the host, see read.
	AccessOverlay Access = "overlay"
)

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (a *Access) UnmarshalText(b []byte) error {
	v, err := parseEnum("access", string(b), []Access{AccessRead, AccessWrite, AccessDeny})
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Covers reports whether a grants what op needs (write covers read).
func (a Access) Covers(op Access) bool {
	switch a {
	case AccessWrite:
		return op == AccessRead || op == AccessWrite
	case AccessRead:
		return op == AccessRead
	default:
		return false
	}
}

// weaker returns the narrower of two accesses (deny < read < write).
func weakerAccess(a, b Access) Access {
	rank := func(x Access) int {
		switch x {
		case AccessWrite:
			return 2
		case AccessRead:
			return 1
		default:
			return 0
		}
	}
	if rank(b) < rank(a) {
		return b
	}
	return a
}
