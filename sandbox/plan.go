package sandbox

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"turnstile/domain"
)

// SupportedLandlockABI is the highest Landlock ABI this package knows how to
// apply strictly. A plan never asks for more, whatever the kernel offers.
const SupportedLandlockABI = 7

// SpawnRequest is one command a turn wants to run.
type SpawnRequest struct {
	// Argv is the command and its arguments; Argv[0] is looked up in the
	// planned PATH when it has no slash.
	Argv []string
	// Cwd is the working directory: absolute, or relative to the snapshot's
	// sandbox cwd; empty means the sandbox cwd.
	Cwd string
	// Env adds variables on top of the filtered server environment; it is
	// filtered by the same policy.
	Env map[string]string
	// TimeoutMs is the requested timeout; 0 means the policy's default.
	TimeoutMs int64
	// Stdin, when not nil, is the command's standard input (otherwise
	// /dev/null).
	Stdin io.Reader
}

// SandboxSpec is what the helper enforces. PlanSpawn fills it from the
// snapshot and the kernel features recorded in it; it travels to the helper
// as JSON on a pipe. Paths are canonicalised again by the helper.
type SandboxSpec struct {
	// Entries are the snapshot's filesystem entries (grants and carve-outs).
	Entries []domain.FilesystemEntry `json:"entries,omitempty"`
	// RestrictFilesystem confines the filesystem to Entries (and TmpDir).
	RestrictFilesystem bool `json:"restrict_filesystem"`
	// RestrictNetwork refuses IP sockets (seccomp) and TCP bind/connect
	// (Landlock, ABI 4+).
	RestrictNetwork bool `json:"restrict_network"`
	// AllowUnixSockets lets the command connect to unix sockets created
	// outside the sandbox. When false (the restricted default) the root view
	// masks the host's pathname sockets and hides /tmp, and Landlock scoping
	// (or, below ABI 6, a network namespace) refuses abstract ones.
	// socketpair and the command's own sockets work either way.
	AllowUnixSockets bool `json:"allow_unix_sockets"`
	// LandlockABI is the ABI the ruleset is built for; 0 applies no
	// Landlock. The helper refuses (exit 126) an ABI above the kernel's or
	// above SupportedLandlockABI: Landlock is never applied best-effort.
	LandlockABI int `json:"landlock_abi"`
	// Seccomp installs the seccomp filter (foreign architectures, io_uring,
	// and, with RestrictNetwork, non-unix sockets).
	Seccomp bool `json:"seccomp"`
	// UserNamespaces records that the probe could start the helper in its
	// namespaces (user, when not root, + mount + PID): Run then always does,
	// and the helper builds the root view (rootview.go). Without it the
	// helper grants sibling entries for carve-outs (narrower) and the
	// snapshot names what is not enforced.
	UserNamespaces bool `json:"user_namespaces"`
	// TmpDir is the isolated temp dir (set by Run), granted read-write.
	TmpDir string `json:"tmp_dir,omitempty"`
	// GlobRules are the snapshot's profile rules when they hold a glob
	// deny, and GlobScanMaxDepth its scan bound: Run masks the matches
	// that exist at spawn (adding deny entries) and clears them.
	GlobRules        []domain.PathRule `json:"glob_rules,omitempty"`
	GlobScanMaxDepth int               `json:"glob_scan_max_depth,omitempty"`
	// InNamespace tells the helper it was started in new mount and PID
	// namespaces (and a user namespace unless the server is root) (set by
	// Run).
	InNamespace bool `json:"in_namespace"`
	// Walked tells the helper that Run walked the writable roots for nested
	// repositories and added the ".git" entries it found to Entries: the
	// helper does not walk again.
	Walked bool `json:"walked"`
	// UID and GID, when not 0, are the ids the command runs as (set by Run
	// when the server is root: SandboxUID).
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// MaxTasks, when not 0, is the RLIMIT_NPROC the helper sets before it
	// switches to UID (set by Run with InNamespace: commandTaskLimit).
	MaxTasks int `json:"max_tasks,omitempty"`
	// plant is the check Run makes of the writable roots once the command
	// has ended (set by prepareSpec; not sent to the helper).
	plant *plantCheck
	// view, when set, is the view of Entries PlanSpawn built afresh for
	// this plan (one-command processes only), made when Entries had
	// viewEntries entries; prepareSpec uses it when nothing was appended
	// since (Entries only ever grow after the plan).
	view        *fsView
	viewEntries int
	// catchUp (set by Run: a command over these roots was killed before
	// its check ran) is checked by prepareSpec before this command starts
	// (catchupfirst.go); caught are what that set aside, with its limits.
	catchUp catchUpFirst
	// HostSockets are the pathname unix sockets bound on the host when Run
	// started the command (set by Run unless AllowUnixSockets): the helper
	// masks each one in the root view.
	HostSockets []string `json:"host_sockets,omitempty"`
	// Idmaps are the owners whose idmap user namespaces Run passes the
	// helper, from descriptor helperIdmapFD on (set by Run with UID).
	Idmaps []IdmapOwner `json:"idmaps,omitempty"`
	// ProxyPort, when not 0 (with RestrictNetwork), is the egress proxy's
	// port on 127.0.0.1 inside the command's own network namespace (set by
	// UseEgress): seccomp lets AF_INET stream sockets through and Landlock
	// lets TCP connect reach this port only (egress.go).
	ProxyPort int `json:"proxy_port,omitempty"`
	// FullAccess runs an unrestricted command in its own user, mount and
	// PID namespaces with the gateway's secrets (Entries, all of kind
	// sensitive_path) masked wherever they are mounted (fullaccess.go).
	FullAccess bool `json:"full_access,omitempty"`
	// HeldSecrets is how many descriptors of those secrets Run passes the
	// helper from helperIdmapFD on (set by Run with FullAccess).
	HeldSecrets int `json:"held_secrets,omitempty"`
}

// Plan is a checked command, ready for Run.
type Plan struct {
	// Argv is the command as requested.
	Argv []string
	// Cwd is the canonical working directory (passed the read check).
	Cwd string
	// Env is the filtered environment ("NAME=value", sorted by name).
	Env []string
	// Timeout is min(requested or default, cap).
	Timeout time.Duration
	// Stdin is the request's standard input, or nil.
	Stdin io.Reader
	// Sandboxed is false only for an unrestricted snapshot (filesystem
	// unrestricted and network enabled) that runs unisolated (no gateway
	// secrets to hide, or no user namespaces and the operator's opt-out):
	// the command is then run directly, without the helper.
	Sandboxed bool
	// IsolatedTmp makes Run create a private temp dir (0700), point TMPDIR,
	// TEMP and TMP at it and remove it afterwards.
	IsolatedTmp bool
	// Sandbox is what the helper enforces.
	Sandbox SandboxSpec
	// Degradations are the snapshot's accepted degradations (a partially
	// active snapshot): dimensions the helper will not enforce.
	Degradations []domain.Degradation

	// egress serves the proxy on the listener Run opens in the command's
	// network namespace (set by UseEgress).
	egress EgressAttach

	// resolvedPath is argv[0] looked up in the planned PATH (unsandboxed
	// runs only; the helper looks it up itself).
	resolvedPath string

	// rootLock, set by HoldRoots, is the lock on the writable roots taken
	// before the plan was made (rootlock.go); Run releases it.
	rootLock *RootLock

	// registerKill, set by KillWith, is given the function that kills
	// the command's processes once they started.
	registerKill func(kill, wait func()) (unregister func())
	// stop is the running command's ownerStop (runLocked), nil without
	// KillWith.
	stop *ownerStop
}

// KillWith has Run give register, as soon as the command's processes
// started (before the helper is given its plan: a command stopped before
// then runs nothing), the function that kills them at once (a SIGKILL to
// the process group, and the cgroup) and the one that then waits, bounded,
// until they can act no more (the leader exited, and with a PID
// namespace's init every process of the namespace); Run calls the
// unregister register returns before it returns (the kill does nothing
// once the leader has exited, so that a pid used again is not reached).
// The engine calls them when it stops the command (engine.OnStop), by the
// call that stops it rather than from a goroutine that watches the
// context afterwards.
func (p *Plan) KillWith(register func(kill, wait func()) (unregister func())) {
	p.registerKill = register
}

// HoldRoots gives the plan the lock LockWritableRoots took for its snapshot
// before PlanSpawn: Run then uses the plan's view of the filesystem as it
// is, and releases the lock once the command's check has run and its held
// names are released. A caller that does not reach Run releases it.
func (p *Plan) HoldRoots(l *RootLock) { p.rootLock = l }

// PlanSpawn checks a command request against a snapshot, in the reference's
// order (REFERENCE §5): argv present (missing_argv); snapshot present
// (no_snapshot); shell enabled (shell_disabled); the policy's shell_command
// behaviour not deny (shell_denied); denied commands (command_denied) and
// allowed families (command_not_allowed) on argv[0] or its basename; the cwd
// passes the file read check (cwd_not_readable, wrapping the file refusal);
// the environment is the server's plus the request's, both filtered by the
// snapshot's EnvironmentPolicy (request wins on a name clash); the timeout is
// min(requested or default, cap); finally the native sandbox is prepared,
// and an unavailable one refuses (sandbox_unavailable): nothing is spawned.
func PlanSpawn(s *domain.TurnExecutionSecuritySnapshot, req SpawnRequest, serverEnv []string) (*Plan, error) {
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return nil, refuse(CodeMissingArgv, "", "the command has no argv")
	}
	for _, a := range req.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, refuse(CodeInvalidRequest, "", "an argument contains a NUL byte")
		}
	}
	if s == nil {
		return nil, refuse(CodeNoSnapshot, "", "no security snapshot: commands are refused")
	}
	if !s.Process.ShellEnabled {
		return nil, refuse(CodeShellDisabled, "", "shell commands are disabled for this turn")
	}
	if s.PermissionProfile.EffectivePolicy.ShellCommand == domain.BehaviorDeny {
		return nil, refuse(CodeShellDenied, "", "the policy denies shell commands")
	}
	name, base := req.Argv[0], filepath.Base(req.Argv[0])
	if slices.Contains(s.Process.DeniedCommands, name) || slices.Contains(s.Process.DeniedCommands, base) {
		return nil, refuse(CodeCommandDenied, name, "the command %q is denied", base)
	}
	if fam := s.Process.AllowedCommandFamilies; len(fam) > 0 && !slices.Contains(fam, name) && !slices.Contains(fam, base) {
		return nil, refuse(CodeCommandNotAllowed, name, "the command %q is not in the allowed command families", base)
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = s.Sandbox.Cwd
	}
	// A process that checks one command and exits (noViewCache) builds
	// the view of the snapshot's roots once, here, and the spawn holds its
	// names from the same view (prepareSpec): two views built a few
	// milliseconds apart cost 2-3 ms of lstats, and the helper
	// canonicalises everything again where it mounts.
	var view *fsView
	if !s.Sandbox.Filesystem.Unrestricted && noViewCache.Load() {
		view = newFSView(&s.Sandbox.Filesystem)
	}
	resolvedCwd, err := checkSnapshotFile(s, view, cwd, domain.AccessRead)
	if err != nil {
		inner, _ := err.(*Refusal)
		return nil, &Refusal{Code: CodeCwdNotReadable, Path: cwd, Message: "the working directory fails the read check: " + err.Error(), Cause: inner}
	}
	if fi, err := os.Stat(resolvedCwd); err != nil || !fi.IsDir() {
		return nil, refuse(CodeCwdNotReadable, resolvedCwd, "the working directory is not a directory")
	}
	p := &Plan{
		Argv:    slices.Clone(req.Argv),
		Cwd:     resolvedCwd,
		Env:     planEnv(&s.Process.Environment, serverEnv, req.Env),
		Timeout: time.Duration(effectiveTimeoutMs(&s.Process, req.TimeoutMs)) * time.Millisecond,
		Stdin:   req.Stdin,
	}
	if err := prepareSandbox(s, p); err != nil {
		return nil, err
	}
	if view != nil && p.Sandbox.RestrictFilesystem && len(p.Sandbox.Entries) == len(s.Sandbox.Filesystem.Entries) {
		p.Sandbox.view, p.Sandbox.viewEntries = view, len(p.Sandbox.Entries)
	}
	return p, nil
}

// turnstileEnvPrefix starts the names of turnstile's own variables (its
// token, store, data directory): no command ever inherits them.
const turnstileEnvPrefix = "TURNSTILE_"

// planEnv filters the server's and the request's environment with env and
// merges them (request wins), sorted by name.
func planEnv(env *domain.EnvironmentPolicy, serverEnv []string, reqEnv map[string]string) []string {
	merged := map[string]string{}
	for _, kv := range env.FilterEnv(serverEnv) {
		k, v, _ := strings.Cut(kv, "=")
		merged[k] = v
	}
	extra := make([]string, 0, len(reqEnv))
	for k, v := range reqEnv {
		// A name with "=" would pass as another variable (PATH= with a
		// value "w/…" is PATH "=w/…"); the decision refuses one too.
		if k != "" && strings.IndexByte(k, 0) < 0 && strings.IndexByte(k, '=') < 0 && strings.IndexByte(v, 0) < 0 {
			extra = append(extra, k+"="+v)
		}
	}
	for _, kv := range env.FilterEnv(extra) {
		k, v, _ := strings.Cut(kv, "=")
		merged[k] = v
	}
	out := make([]string, 0, len(merged))
	for k, v := range merged {
		if strings.HasPrefix(k, turnstileEnvPrefix) {
			continue // turnstile's own settings and credentials, in every mode
		}
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// effectiveTimeoutMs is min(requested or default, cap); the cap is the
// policy's (at most domain.MaxCommandDurationMs).
func effectiveTimeoutMs(pp *domain.ProcessPolicy, requested int64) int64 {
	limit := int64(domain.MaxCommandDurationMs)
	if pp.MaxDurationMs > 0 {
		limit = min(limit, pp.MaxDurationMs)
	}
	t := requested
	if t <= 0 {
		t = pp.DefaultTimeoutMs
	}
	if t <= 0 {
		t = domain.DefaultCommandTimeoutMs
	}
	return min(t, limit)
}

// prepareSandbox fills p.Sandbox from the snapshot and its kernel features,
// refusing when the snapshot cannot spawn or a required dimension cannot be
// enforced.
func prepareSandbox(s *domain.TurnExecutionSecuritySnapshot, p *Plan) error {
	if !s.CanSpawn() {
		return refuse(CodeSandboxUnavailable, "", "the sandbox is unavailable: %s", s.Enforcement.Reason)
	}
	needFS := !s.Sandbox.Filesystem.Unrestricted
	needNet := s.Network.Mode != domain.NetworkEnabled
	p.IsolatedTmp = s.Sandbox.Tmp == domain.TmpIsolated
	p.Degradations = slices.Clone(s.Enforcement.Degradations)
	if !needFS && !needNet {
		return prepareFullAccess(s, p)
	}
	p.Sandboxed = true
	k := s.Backend.Kernel
	if k == nil {
		return refuse(CodeSandboxUnavailable, "", "the snapshot carries no kernel probe (execution backend %q): the native sandbox cannot be prepared", s.Backend.ExecutionBackend)
	}
	required := s.Sandbox.BackendRequirement != domain.BackendOptional
	abi := min(k.LandlockABI, SupportedLandlockABI)
	if needFS && abi < 1 && required {
		return refuse(CodeSandboxUnavailable, "", "Landlock is unavailable: the filesystem cannot be confined")
	}
	if needNet && !k.Seccomp && required {
		return refuse(CodeSandboxUnavailable, "", "seccomp is unavailable: IP sockets cannot be refused")
	}
	p.Sandbox = SandboxSpec{
		Entries:            append(slices.Clone(s.Sandbox.Filesystem.Entries), reservedAtCwd(s.Sandbox.Filesystem.Entries, p.Cwd)...),
		RestrictFilesystem: needFS && abi >= 1,
		RestrictNetwork:    needNet,
		AllowUnixSockets:   s.Network.AllowUnixSockets,
		LandlockABI:        max(abi, 0),
		Seccomp:            k.Seccomp,
		UserNamespaces:     k.UserNamespaces,
	}
	if d := s.Sandbox.Filesystem.GlobScanMaxDepth; d > 0 && p.Sandbox.RestrictFilesystem {
		p.Sandbox.GlobRules, p.Sandbox.GlobScanMaxDepth = slices.Clone(s.Sandbox.Filesystem.Rules), d
	}
	return nil
}

// reservedAtCwd returns, for a command run in cwd inside a writable root
// (not the root itself), the reserved protected names the snapshot holds at
// that root (.git, .agents, .codex, .claude by default) at cwd too: the
// snapshot holds them at the turn's cwd, and a command run in another
// directory could otherwise create them there (an attack review planted
// sub/.claude/settings.json, whose hooks Claude Code runs when started in
// sub/). Names already listed are not repeated.
func reservedAtCwd(es []domain.FilesystemEntry, cwd string) []domain.FilesystemEntry {
	have := map[string]bool{}
	for _, e := range es {
		have[e.ResolvedPath] = true
	}
	var out []domain.FilesystemEntry
	for _, root := range es {
		if root.Access != domain.AccessWrite || root.Kind == domain.PathDevice || root.Kind == domain.PathProtected ||
			cwd == root.ResolvedPath || !domain.PathWithin(cwd, root.ResolvedPath) {
			continue
		}
		for _, e := range es {
			if e.Kind != domain.PathProtected || !e.Reserved || path.Dir(e.ResolvedPath) != root.ResolvedPath {
				continue
			}
			p := domain.CleanPath(cwd + "/" + path.Base(e.ResolvedPath))
			if have[p] {
				continue
			}
			have[p] = true
			n := e
			n.Path, n.ResolvedPath = p, p
			out = append(out, n)
		}
	}
	return out
}
