package domain

import (
	"fmt"
	"slices"
	"strings"
)

// MaxCommandDurationMs caps every command's run time (REFERENCE §4).
const MaxCommandDurationMs = 1_800_000

// DefaultCommandTimeoutMs applies when a command asks for no timeout.
const DefaultCommandTimeoutMs = 120_000

// SystemReadRoots are read-only in restricted snapshots so that ordinary
// programs can load and run.
var SystemReadRoots = []string{"/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys"}

// DeviceFiles are writable devices every sandboxed command may use.
var DeviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// RestrictedDeniedCommands are refused in restricted snapshots.
var RestrictedDeniedCommands = []string{
	"chroot", "doas", "insmod", "modprobe", "mount", "nsenter", "pkexec", "poweroff", "reboot",
	"rmmod", "setcap", "shutdown", "su", "sudo", "umount", "unshare",
}

// SnapshotInputs is everything a snapshot is resolved from.
type SnapshotInputs struct {
	Profile          TurnPermissionProfileSnapshot
	Cwd              string
	WorkspaceRoot    string
	ProjectRoots     []string
	AppReadRoots     []string
	ExecutionBackend ExecutionBackend
	// Kernel is what the capability probe found (native backend only).
	Kernel KernelFeatures
	// SensitivePaths are denied to a restricted turn beyond the built-in
	// list (SensitivePaths): the server's data directory, a home directory
	// elsewhere than /root or /home.
	SensitivePaths []string
	// ProtectedPaths replaces DefaultProtectedPaths when not nil (an empty
	// non-nil list protects nothing).
	ProtectedPaths []ProtectedPath
	// RootLinks maps a root (clean, absolute) to where its symlinks led
	// when the turn started (itself when it passed none): a profile's
	// rules judge a root there too (capRoots), and the snapshot grants it
	// only while it still leads there (FilesystemEntry.LedTo). Set by the
	// server; not part of the request.
	RootLinks map[string]string
}

// FieldError reports bad input, naming the field.
type FieldError struct {
	Field   string
	Value   string
	Message string
}

func (e *FieldError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Message)
	}
	return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Message)
}

func checkAbs(field, p string) error {
	if !strings.HasPrefix(p, "/") {
		return &FieldError{Field: field, Value: p, Message: "must be an absolute path"}
	}
	return nil
}

// ResolveSnapshot builds the execution security snapshot of REFERENCE §4
// from a compiled profile and the turn's inputs.
func ResolveSnapshot(in SnapshotInputs) (TurnExecutionSecuritySnapshot, error) {
	if in.ExecutionBackend == "" {
		in.ExecutionBackend = BackendNative
	}
	if _, err := parseEnum("execution_backend", string(in.ExecutionBackend), ExecutionBackends); err != nil {
		return TurnExecutionSecuritySnapshot{}, err
	}
	if err := resolveRoots(&in); err != nil {
		return TurnExecutionSecuritySnapshot{}, err
	}
	mode := in.Profile.Mode
	s := TurnExecutionSecuritySnapshot{
		PermissionProfile: in.Profile,
		Sandbox:           resolveSandbox(mode, in),
		Network:           resolveNetwork(mode),
		Process:           resolveProcess(mode),
		Approval:          ApprovalPolicy{AllowedScopes: []Resolution{ResolutionAllowOnce, ResolutionAllowForTurn}},
		Backend:           resolveBackend(in),
	}
	s.Enforcement = ComputeEnforcement(&s)
	return s, nil
}

// resolveRoots makes the inputs' paths absolute: a relative cwd resolves
// from an absolute workspace root, a relative workspace root from an
// absolute cwd, relative project and app read roots from the cwd. Only what
// cannot be resolved is refused, naming the field.
func resolveRoots(in *SnapshotInputs) error {
	if in.WorkspaceRoot == "" {
		in.WorkspaceRoot = in.Cwd
	}
	if in.WorkspaceRoot == "" {
		return &FieldError{Field: "workspace_root", Message: "required (or give cwd)"}
	}
	if in.Cwd == "" {
		in.Cwd = in.WorkspaceRoot
	}
	switch cwdAbs, wsAbs := strings.HasPrefix(in.Cwd, "/"), strings.HasPrefix(in.WorkspaceRoot, "/"); {
	case !cwdAbs && !wsAbs:
		return &FieldError{Field: "cwd", Value: in.Cwd, Message: "must be an absolute path (or relative to an absolute workspace_root)"}
	case !cwdAbs:
		in.Cwd = ResolvePath(in.WorkspaceRoot, in.Cwd)
	case !wsAbs:
		in.WorkspaceRoot = ResolvePath(in.Cwd, in.WorkspaceRoot)
	}
	resolve := func(field string, ps []string) ([]string, error) {
		out := make([]string, len(ps))
		for i, p := range ps {
			if strings.TrimSpace(p) == "" || strings.IndexByte(p, 0) >= 0 {
				return nil, &FieldError{Field: fmt.Sprintf("%s[%d]", field, i), Value: p, Message: "must be a path"}
			}
			out[i] = ResolvePath(in.Cwd, p)
			if err := CheckRootDepth(fmt.Sprintf("%s[%d]", field, i), p, out[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if err := CheckRootDepth("cwd", in.Cwd, CleanPath(in.Cwd)); err != nil {
		return err
	}
	if err := CheckRootDepth("workspace_root", in.WorkspaceRoot, CleanPath(in.WorkspaceRoot)); err != nil {
		return err
	}
	var err error
	if in.ProjectRoots, err = resolve("project_roots", in.ProjectRoots); err != nil {
		return err
	}
	in.AppReadRoots, err = resolve("app_read_roots", in.AppReadRoots)
	return err
}

// MaxRootDepth bounds how many directories deep a turn's root or cwd may
// lie, as written and where its links lead: a view looks each of its
// rules up from "/", one element at a time, and each lookup is a walk of
// the path by the kernel, so a root 300 levels deep (a directory the
// agent's command made inside its workspace) cost seconds of the server's
// time a check (the hundred-and-seventy-second review).
const MaxRootDepth = 64

// CheckRootDepth refuses the root p (clean, absolute; raw as the request
// wrote it, for field) deeper than MaxRootDepth.
func CheckRootDepth(field, raw, p string) error {
	if n := strings.Count(p, "/"); n > MaxRootDepth && p != "/" {
		return &FieldError{Field: field, Value: raw, Message: fmt.Sprintf("lies %d directories deep, deeper than the %d a turn's root or cwd may (where its links lead too)", n, MaxRootDepth)}
	}
	return nil
}

func entry(kind PathKind, p string, access Access, prov Provenance) FilesystemEntry {
	return FilesystemEntry{Kind: kind, Path: p, Access: access, Provenance: prov, ResolvedPath: CleanPath(p)}
}

func resolveSandbox(mode Mode, in SnapshotInputs) SandboxPolicy {
	sb := SandboxPolicy{
		Cwd:                CleanPath(in.Cwd),
		Tmp:                TmpIsolated,
		BackendRequirement: BackendRequired,
		BackendPreference:  preferredSandboxBackend(in.ExecutionBackend),
	}
	rootAccess := AccessWrite
	switch mode {
	case ModeFullAccess:
		sb.Mode, sb.Tmp, sb.BackendRequirement = SandboxUnrestricted, TmpHost, BackendOptional
		sb.Filesystem.Unrestricted = true
	case ModeAutoAcceptEdits:
		sb.Mode = SandboxWorkspaceWrite
	default:
		sb.Mode, rootAccess = SandboxReadOnly, AccessRead
	}
	var es []FilesystemEntry
	es = append(es, entry(PathWorkspaceRoot, in.WorkspaceRoot, rootAccess, ProvenanceWorkspace))
	for _, p := range in.ProjectRoots {
		es = append(es, entry(PathProjectRoot, p, rootAccess, ProvenanceProject))
	}
	for _, p := range in.AppReadRoots {
		es = append(es, entry(PathAppReadRoot, p, AccessRead, ProvenanceRuntime))
	}
	if mode != ModeFullAccess {
		for _, p := range SystemReadRoots {
			es = append(es, entry(PathSystemRoot, p, AccessRead, ProvenanceSystem))
		}
		for _, p := range DeviceFiles {
			es = append(es, entry(PathDevice, p, AccessWrite, ProvenanceSystem))
		}
		es = append(es, SensitiveEntries(in.SensitivePaths...)...)
	}
	if rootAccess == AccessWrite && mode != ModeFullAccess {
		es = append(es, protectedEntries(protectedList(in.ProtectedPaths), es, sb.Cwd)...)
	}
	sb.Filesystem.Entries = es
	return sb
}

func preferredSandboxBackend(b ExecutionBackend) string {
	if b == BackendNative {
		return "landlock"
	}
	return string(b)
}

func resolveNetwork(mode Mode) NetworkPolicy {
	if mode == ModeFullAccess {
		return NetworkPolicy{Mode: NetworkEnabled, AllowLocalhost: true, AllowUnixSockets: true, AllowPrivateNetworks: true}
	}
	// Unix sockets created outside the sandbox (ssh-agent, docker, D-Bus)
	// are host daemons: unreachable unless a profile allows them.
	return NetworkPolicy{Mode: NetworkDisabled, AllowUnixSockets: false}
}

func resolveProcess(mode Mode) ProcessPolicy {
	p := ProcessPolicy{
		ShellEnabled:     true,
		DefaultTimeoutMs: DefaultCommandTimeoutMs,
		MaxDurationMs:    MaxCommandDurationMs,
	}
	if mode == ModeFullAccess {
		p.InheritStdin, p.InheritSession = true, true
		p.Environment = EnvironmentPolicy{Inherit: true}
		return p
	}
	p.Environment = EnvironmentPolicy{
		AllowedVars:    append([]string(nil), RestrictedEnvAllowList...),
		DeniedPatterns: append([]string(nil), SecretEnvPatterns...),
	}
	p.DeniedCommands = append([]string(nil), RestrictedDeniedCommands...)
	return p
}

// NativeCapabilities derives what the native Linux backend can enforce from
// the kernel probe: Landlock confines the filesystem; seccomp refuses IP,
// netlink, vsock and io_uring sockets; process limits (environment, timeout,
// process group, no_new_privs, dropped capabilities) need no kernel feature;
// approvals are turnstile's own.
func NativeCapabilities(k KernelFeatures) BackendCapabilities {
	return BackendCapabilities{Filesystem: k.LandlockABI >= 1, Network: k.Seccomp, Process: true, Approval: true}
}

func resolveBackend(in SnapshotInputs) BackendSnapshot {
	b := BackendSnapshot{ExecutionBackend: in.ExecutionBackend, RuntimeMapping: MapToRuntime(in.ExecutionBackend, in.Profile.Mode)}
	if in.ExecutionBackend != BackendNative {
		// A CLI runtime enforces its own mapped policy.
		b.SandboxBackend = string(in.ExecutionBackend)
		b.Capabilities = BackendCapabilities{Filesystem: true, Network: true, Process: true, Approval: true}
		return b
	}
	k := in.Kernel
	b.Kernel = &k
	b.Capabilities = NativeCapabilities(k)
	b.SandboxBackend = "none"
	if k.LandlockABI >= 1 {
		b.SandboxBackend = "landlock"
	}
	return b
}

// ComputeEnforcement applies the rule of REFERENCE §4: an unrestricted
// sandbox is active; each missing capability a restricted snapshot needs is a
// degradation; degradations with a required backend make it unavailable.
func ComputeEnforcement(s *TurnExecutionSecuritySnapshot) Enforcement {
	if s.Sandbox.Mode == SandboxUnrestricted && s.Network.Mode == NetworkEnabled {
		if k := s.Backend.Kernel; k != nil && k.FullAccessUnisolated && !k.UserNamespaces {
			return Enforcement{Status: EnforcementPartiallyActive, Degradations: []Degradation{{Dimension: "gateway_secrets",
				Reason: "no user namespaces and serve --full-access-unisolated: full_access commands run unisolated and can read the gateway's data directory and credential files"}}}
		}
		return Enforcement{Status: EnforcementActive}
	}
	caps := s.Backend.Capabilities
	var ds []Degradation
	if s.Backend.SandboxBackend == "none" {
		ds = append(ds, Degradation{Dimension: "sandbox_backend", Reason: "no kernel sandbox is available (Landlock not supported or disabled)"})
	}
	if !caps.Filesystem && s.Sandbox.Mode != SandboxUnrestricted {
		ds = append(ds, Degradation{Dimension: "filesystem", Reason: "Landlock is unavailable: filesystem roots cannot be enforced"})
	}
	ds = append(ds, landlockDegradations(s)...)
	if !caps.Network && s.Network.Mode != NetworkEnabled {
		ds = append(ds, Degradation{Dimension: "network", Reason: "seccomp is unavailable: IP sockets cannot be refused"})
	}
	if !caps.Process {
		ds = append(ds, Degradation{Dimension: "process", Reason: "process limits cannot be enforced by this backend"})
	}
	ds = append(ds, namespaceDegradations(s)...)
	if slashWritable(s) {
		ds = append(ds, Degradation{Dimension: "filesystem", Residual: true, Reason: `"/" is granted for writing: commands keep the server's uid (an unprivileged uid cannot be mapped onto "/") and that uid's access to every file; the gateway's secrets stay masked, the kernel's controls read-only and no device but the harmless ones; as root, whom RLIMIT_NPROC does not bound, the command's tasks are bounded only where the kernel keeps pid_max per PID namespace (Linux 6.14 and later)`})
	}
	if !caps.Approval {
		ds = append(ds, Degradation{Dimension: "approval", Reason: "this backend cannot pause for approvals"})
	}
	var names []string
	for _, d := range ds {
		if !d.Residual {
			names = append(names, d.Dimension)
		}
	}
	switch {
	case len(ds) == 0:
		return Enforcement{Status: EnforcementActive}
	case s.Sandbox.BackendRequirement == BackendRequired && len(names) > 0:
		return Enforcement{Status: EnforcementUnavailable, Degradations: ds,
			Reason: "the sandbox backend is required but cannot enforce: " + strings.Join(names, ", ")}
	default:
		return Enforcement{Status: EnforcementPartiallyActive, Degradations: ds}
	}
}

// slashWritable reports a restricted native snapshot that grants "/"
// itself for writing (a turn rooted at "/", a profile's "/" = "write").
func slashWritable(s *TurnExecutionSecuritySnapshot) bool {
	if s.Backend.ExecutionBackend != BackendNative || s.Sandbox.Filesystem.Unrestricted {
		return false
	}
	return slices.ContainsFunc(s.Sandbox.Filesystem.Entries, func(e FilesystemEntry) bool {
		return e.Access == AccessWrite && e.ResolvedPath == "/"
	})
}

// namespaceDegradations names what a restricted native snapshot loses when
// the helper cannot run in its own mount and PID namespaces (the probe's
// UserNamespaces): the read-only root view, host-socket masking, the private
// /proc and the kill of the whole namespace.
func namespaceDegradations(s *TurnExecutionSecuritySnapshot) []Degradation {
	k := s.Backend.Kernel
	if k == nil || k.UserNamespaces || s.Backend.ExecutionBackend != BackendNative {
		return nil
	}
	var ds []Degradation
	if s.Sandbox.Mode != SandboxUnrestricted {
		ds = append(ds, Degradation{Dimension: "filesystem", Reason: "no mount namespace: metadata changes (chmod, chown, utimes, xattrs) outside the writable roots are not refused, unix sockets created outside the sandbox stay reachable, and a root server's commands keep root's file access"})
	}
	ds = append(ds, Degradation{Dimension: "process", Reason: "no PID namespace: host processes and their command lines are visible, and a setsid daemon survives the command's timeout"})
	return ds
}

// Approvable is the snapshot as it stands for a tool call a person may still
// approve: what the policy asks about must not be refused by restrictions
// that only hold "until granted". A read-only sandbox's workspace and project
// roots become writable (their protected carve-outs stay read-only) and a
// disabled network is enabled unless it is Locked (restricted to the allowed
// domains it keeps, when it keeps any); everything else (other roots, denied
// and allowed domains, localhost and private ranges) stays. Decision-time
// resource checks use it: a write outside the workspace is still refused,
// a write inside it is left to the policy (ask, in supervised mode).
func (s *TurnExecutionSecuritySnapshot) Approvable() TurnExecutionSecuritySnapshot {
	c := *s
	c.Network = untilGranted(c.Network)
	if c.Sandbox.Mode != SandboxReadOnly {
		return c
	}
	c.Sandbox.Mode = SandboxWorkspaceWrite
	es := make([]FilesystemEntry, 0, len(s.Sandbox.Filesystem.Entries))
	var opened []FilesystemEntry
	for _, e := range s.Sandbox.Filesystem.Entries {
		if (e.Kind == PathWorkspaceRoot || e.Kind == PathProjectRoot) && e.Access == AccessRead {
			e.Access = AccessWrite
			opened = append(opened, e)
		}
		es = append(es, e)
	}
	var protected []FilesystemEntry
	for _, p := range protectedEntries(DefaultProtectedPaths, opened, c.Sandbox.Cwd) {
		if !slices.ContainsFunc(es, func(e FilesystemEntry) bool { return e.Kind == PathProtected && e.ResolvedPath == p.ResolvedPath }) {
			protected = append(protected, p)
		}
	}
	c.Sandbox.Filesystem.Entries = append(es, protected...)
	c.Sandbox.Filesystem.Rules = approvableRules(s.Sandbox.Filesystem.Rules, c.Sandbox.Cwd)
	return c
}

// untilGranted is n as a call a person may approve sees it: a network
// disabled until granted (not Locked) is opened to the rules it keeps, its
// allow-list if it has one (IntersectNetwork, profileNetworkOff), its
// denied domains and methods; any other network is itself.
func untilGranted(n NetworkPolicy) NetworkPolicy {
	if n.Mode == NetworkDisabled && !n.Locked {
		n.Mode = NetworkEnabled
		if len(n.AllowedDomains) > 0 {
			n.Mode = NetworkRestricted
		}
	}
	return n
}

// protectedList is the list a snapshot protects: the profile's, or the
// built-in one.
func protectedList(l []ProtectedPath) []ProtectedPath {
	if l == nil {
		return DefaultProtectedPaths
	}
	return l
}
