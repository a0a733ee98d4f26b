package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Role is what a credential may do. The zero value is no role, and a
// principal without a role may do nothing.
type Role string

// Roles of credentials (DESIGN "principals and roles").
const (
	// RoleRuntime is the agent runtime: it starts turns, asks for
	// decisions, runs commands, changes its turns' profiles and ends them.
	// It never answers an approval: the agent must not approve itself.
	RoleRuntime Role = "runtime"
	// RoleApprover is a person (or their UI): it lists and answers approval
	// requests and reads turns and timelines.
	RoleApprover Role = "approver"
	// RoleAuditor reads everything and appends nothing.
	RoleAuditor Role = "auditor"
	// RoleAdmin may do everything, including managing credentials.
	RoleAdmin Role = "admin"
)

// Roles lists the roles a credential can hold.
var Roles = []Role{RoleRuntime, RoleApprover, RoleAuditor, RoleAdmin}

// ParseRole parses a role's wire name.
func ParseRole(s string) (Role, error) { return parseEnum("role", s, Roles) }

// UnmarshalText implements encoding.TextUnmarshaler with validation.
func (r *Role) UnmarshalText(b []byte) error {
	v, err := ParseRole(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Operation is one thing a principal may ask the service to do; the HTTP,
// JSON-RPC and SSE edges each name the operation of every request.
type Operation string

// Operations.
const (
	OpTurnStart         Operation = "turn.start"
	OpTurnDecide        Operation = "turn.decide"
	OpTurnExec          Operation = "turn.exec"
	OpTurnChangeProfile Operation = "turn.change_profile"
	// OpTurnWidenProfile is a change of a turn's permissions that grants
	// anything the turn did not have (Widens). No role but admin holds it:
	// a runtime, which holds turn.change_profile, may only narrow its
	// turns, so an agent cannot raise its own permissions (and so approve
	// its own pending requests).
	OpTurnWidenProfile Operation = "turn.widen_profile"
	OpTurnEnd          Operation = "turn.end"
	// OpTurnRead reads a turn, the list of turns and a turn's timeline.
	OpTurnRead Operation = "turn.read"
	// OpTurnHistory reads a turn's raw events and audit rows.
	OpTurnHistory      Operation = "turn.history"
	OpApprovalRead     Operation = "approval.read"
	OpApprovalRespond  Operation = "approval.respond"
	OpEventsSubscribe  Operation = "events.subscribe"
	OpServiceRead      Operation = "service.read"
	OpMetricsRead      Operation = "metrics.read"
	OpCredentialManage Operation = "credential.manage"
)

// roleOperations is the policy: what each role may do. Admin may do
// everything and is not listed.
var roleOperations = map[Role][]Operation{
	RoleRuntime: {OpTurnStart, OpTurnDecide, OpTurnExec, OpTurnChangeProfile, OpTurnEnd, OpTurnRead,
		OpApprovalRead, OpServiceRead},
	RoleApprover: {OpTurnRead, OpApprovalRead, OpApprovalRespond, OpEventsSubscribe, OpServiceRead},
	RoleAuditor: {OpTurnRead, OpTurnHistory, OpApprovalRead, OpEventsSubscribe, OpServiceRead,
		OpMetricsRead},
}

// Allows reports whether the role may perform op.
func (r Role) Allows(op Operation) bool {
	if r == RoleAdmin {
		return true
	}
	return slices.Contains(roleOperations[r], op)
}

// RolesAllowed lists the roles that may perform op, in the order of Roles.
func RolesAllowed(op Operation) []Role {
	var out []Role
	for _, r := range Roles {
		if r.Allows(op) {
			out = append(out, r)
		}
	}
	return out
}

// Actor is who caused an event: the authenticated principal's name and
// role, or the service itself (SystemActor).
type Actor struct {
	Name string `json:"name"`
	Role Role   `json:"role,omitempty"`
}

// SystemActor is the service acting on its own (expiring overdue requests).
var SystemActor = Actor{Name: "turnstile", Role: "system"}

// String renders the actor as "role:name" ("name" without a role).
func (a Actor) String() string {
	if a.Role == "" {
		return a.Name
	}
	return string(a.Role) + ":" + a.Name
}

// IsZero reports whether nobody is named.
func (a Actor) IsZero() bool { return a.Name == "" && a.Role == "" }

// UnmarshalJSON reads {"name","role"} and, for events stored before roles
// existed, a bare string ("agent", "approver"), which becomes the name.
func (a *Actor) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = Actor{Name: s}
		return nil
	}
	var v struct {
		Name string `json:"name"`
		Role string `json:"role"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*a = Actor{Name: v.Name, Role: Role(v.Role)}
	return nil
}

// Principal is an authenticated caller: a named credential with one role
// and, optionally, the workspaces it is limited to.
type Principal struct {
	Name string
	Role Role
	// CredentialID is the id of the named credential it authenticated
	// with ("" for the server's configured admin token): what it was given
	// on that credential's strength (a turn's egress proxy URL) lapses when
	// the credential is revoked.
	CredentialID string
	// Workspaces, when not empty, are the only workspaces the principal may
	// act on or see.
	Workspaces []string
}

// Actor is the principal as events record it.
func (p Principal) Actor() Actor { return Actor{Name: p.Name, Role: p.Role} }

// Scoped reports whether the principal is limited to some workspaces.
func (p Principal) Scoped() bool { return len(p.Workspaces) > 0 }

// InScope reports whether the principal may act on workspace ws.
func (p Principal) InScope(ws string) bool {
	return !p.Scoped() || slices.Contains(p.Workspaces, ws)
}

// ForbiddenError reports a request outside the principal's role or
// workspace scope. It appends nothing.
type ForbiddenError struct {
	Principal string
	Role      Role
	Operation Operation
	// WorkspaceID is the workspace outside the principal's scope when the
	// role allows the operation.
	WorkspaceID string
}

func (e *ForbiddenError) Error() string {
	if e.WorkspaceID == EveryWorkspace && e.Operation == OpMetricsRead {
		return fmt.Sprintf("credential %q (%s) is limited to some workspaces, and /metrics counts every workspace's: it is read with a credential of every workspace", e.Principal, e.Role)
	}
	if e.WorkspaceID == EveryWorkspace {
		return fmt.Sprintf("credential %q (%s) is limited to some workspaces, and may not %s for every workspace: name its workspaces", e.Principal, e.Role, e.Operation)
	}
	if e.WorkspaceID != "" || e.Role.Allows(e.Operation) {
		return fmt.Sprintf("credential %q (%s) may not %s in workspace %q: it is limited to other workspaces", e.Principal, e.Role, e.Operation, e.WorkspaceID)
	}
	allowed := make([]string, 0, len(Roles))
	for _, r := range RolesAllowed(e.Operation) {
		allowed = append(allowed, string(r))
	}
	return fmt.Sprintf("credential %q has role %s, which may not %s (allowed: %s)", e.Principal, e.Role, e.Operation, strings.Join(allowed, ", "))
}

// Authorize checks that p's role may perform op, whatever the workspace
// (listing endpoints then filter what they show with InScope).
func (p Principal) Authorize(op Operation) error {
	if !p.Role.Allows(op) {
		return &ForbiddenError{Principal: p.Name, Role: p.Role, Operation: op}
	}
	return nil
}

// AuthorizeOver checks that p may perform op on a credential limited to
// workspaces (none: every workspace): a principal limited to some
// workspaces manages the credentials of those only, so that it never makes,
// revokes or sees one that reaches beyond its own scope.
func (p Principal) AuthorizeOver(op Operation, workspaces []string) error {
	if err := p.Authorize(op); err != nil {
		return err
	}
	if !p.Scoped() {
		return nil
	}
	if len(workspaces) == 0 {
		return &ForbiddenError{Principal: p.Name, Role: p.Role, Operation: op, WorkspaceID: EveryWorkspace}
	}
	for _, ws := range workspaces {
		if !p.InScope(ws) {
			return &ForbiddenError{Principal: p.Name, Role: p.Role, Operation: op, WorkspaceID: ws}
		}
	}
	return nil
}

// EveryWorkspace names, in a ForbiddenError, a credential that is not
// limited to any workspace.
const EveryWorkspace = "*"

// AuthorizeIn checks that p may perform op on workspace ws. A scoped
// principal may not act on a turn without a workspace.
func (p Principal) AuthorizeIn(op Operation, ws string) error {
	if err := p.Authorize(op); err != nil {
		return err
	}
	if !p.InScope(ws) {
		return &ForbiddenError{Principal: p.Name, Role: p.Role, Operation: op, WorkspaceID: ws}
	}
	return nil
}
