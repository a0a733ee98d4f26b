package domain

import (
	"path"
	"slices"
)

// Decision is the answer to one tool invocation. The zero value denies.
type Decision struct {
	Behavior  Behavior   `json:"decision"`
	Reason    Reason     `json:"reason"`
	Action    ActionKind `json:"action"`
	ScopeHash string     `json:"scope_hash"`
	// Cached is set when an allow_for_turn grant turned an ask into allow.
	Cached bool `json:"cached"`
	// DecidedBy names what decided: a policy field ("file_write",
	// "default_behavior"), a list ("denied_tools", "allowed_tools",
	// "allowed_paths"), a process policy field ("process.shell_enabled",
	// "process.denied_commands", "process.allowed_command_families"),
	// "grant", or "internal".
	DecidedBy string `json:"decided_by"`
}

// GrantKey identifies an allow_for_turn grant within one turn: a later
// request matches only with the same mode, tool, action and scope hash.
type GrantKey struct {
	Mode      Mode
	ToolName  string
	Action    ActionKind
	ScopeHash string
}

// GrantSet is a turn's allow_for_turn grants. A nil set holds nothing.
type GrantSet map[GrantKey]struct{}

// Has reports whether k was granted.
func (g GrantSet) Has(k GrantKey) bool {
	_, ok := g[k]
	return ok
}

// Evaluate decides a classified action under a snapshot and the turn's
// grants (REFERENCE §1–3): internal is always allowed; denied_tools, a
// restricted allowed_tools and a restricted allowed_paths deny first, and
// a shell command the process policy refuses (commandRefused); then
// the behaviour of the action kind (and of its second kind); an ask with a
// matching grant becomes allow with cached_approval.
func Evaluate(s *TurnExecutionSecuritySnapshot, a *Action, grants GrantSet) Decision {
	d := Decision{Action: a.Kind, ScopeHash: a.ScopeHash}
	if a.Kind == ActionInternal {
		d.Behavior, d.Reason, d.DecidedBy = BehaviorAllow, ReasonPolicyAllowsAction, "internal"
		return d
	}
	p := &s.PermissionProfile.EffectivePolicy
	for _, tool := range []string{a.ToolName, a.AlsoTool} {
		if tool == "" {
			continue
		}
		if ok, by := p.ToolsAllowed(tool); !ok {
			d.Behavior, d.Reason, d.DecidedBy = BehaviorDeny, ReasonPolicyDeniesAction, by
			return d
		}
	}
	if p.AllowedPathsRestricted {
		for i := range a.Files {
			if !p.PathAllowed(a.Files[i].Path) {
				d.Behavior, d.Reason, d.DecidedBy = BehaviorDeny, ReasonPolicyDeniesAction, "allowed_paths"
				return d
			}
		}
	}
	if a.Kind == ActionShellCommand {
		if by := commandRefused(&s.Process, a.Argv); by != "" {
			d.Behavior, d.Reason, d.DecidedBy = BehaviorDeny, ReasonPolicyDeniesAction, by
			return d
		}
	}
	beh, by := p.BehaviorFor(a.Kind)
	if a.Also != "" {
		if b2, by2 := p.BehaviorFor(a.Also); b2 < beh {
			beh, by = b2, by2
		}
	}
	d.DecidedBy = by
	if beh == BehaviorAllow && a.Kind == ActionShellCommand && p.AllowedPathsRestricted {
		// allowed_paths binds the files a call names, and a command's are
		// not known (nor does the kernel sandbox read the list): one the
		// table allows outright would reach past it unasked (the
		// hundred-and-nineteenth review). Asked, a person sees it.
		d.Behavior, d.Reason, d.DecidedBy = BehaviorDeny, ReasonPolicyDeniesAction, "allowed_paths"
		return d
	}
	switch beh {
	case BehaviorAllow:
		d.Behavior, d.Reason = BehaviorAllow, ReasonPolicyAllowsAction
		if a.Kind == ActionUnknown {
			d.Reason = ReasonUnknownActionDefault
		} else if s.PermissionProfile.Mode == ModeFullAccess {
			d.Reason = ReasonFullAccess
		}
	case BehaviorAsk:
		if grants.Has(GrantKey{Mode: s.PermissionProfile.Mode, ToolName: a.ToolName, Action: a.Kind, ScopeHash: a.ScopeHash}) {
			d.Behavior, d.Reason, d.Cached, d.DecidedBy = BehaviorAllow, ReasonCachedApproval, true, "grant"
			return d
		}
		d.Behavior, d.Reason = BehaviorAsk, ReasonPolicyRequiresApproval
		if a.Kind == ActionUnknown {
			d.Reason = ReasonUnknownActionDefault
		}
	default:
		d.Behavior, d.Reason = BehaviorDeny, ReasonPolicyDeniesAction
		if a.Kind == ActionUnknown {
			d.Reason = ReasonUnknownActionDefault
		}
	}
	return d
}

// GrantFor returns the grant key an allow_for_turn resolution of a request
// for a would create.
func GrantFor(mode Mode, a *Action) GrantKey {
	return GrantKey{Mode: mode, ToolName: a.ToolName, Action: a.Kind, ScopeHash: a.ScopeHash}
}

// commandRefused judges a command against the process policy as the spawn
// does (sandbox.PlanSpawn), for a runtime that runs its commands itself:
// a shell turned off refuses every shell command; denied commands and
// allowed command families are matched on argv[0] or its basename (a shell
// string's argv[0] is /bin/sh). It returns the policy field that refuses,
// or "".
func commandRefused(p *ProcessPolicy, argv []string) string {
	if !p.ShellEnabled {
		return "process.shell_enabled"
	}
	if len(argv) == 0 {
		return ""
	}
	name, base := argv[0], path.Base(argv[0])
	if slices.Contains(p.DeniedCommands, name) || slices.Contains(p.DeniedCommands, base) {
		return "process.denied_commands"
	}
	if fam := p.AllowedCommandFamilies; len(fam) > 0 && !slices.Contains(fam, name) && !slices.Contains(fam, base) {
		return "process.allowed_command_families"
	}
	return ""
}
