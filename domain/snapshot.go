package domain

// TurnExecutionSecuritySnapshot is everything that binds a turn's side
// effects (REFERENCE §4). It is resolved once per profile selection and is
// immutable afterwards; every decision and every spawned command of the turn
// runs under it.
type TurnExecutionSecuritySnapshot struct {
	PermissionProfile TurnPermissionProfileSnapshot `json:"permission_profile"`
	Sandbox           SandboxPolicy                 `json:"sandbox"`
	Network           NetworkPolicy                 `json:"network"`
	Process           ProcessPolicy                 `json:"process"`
	Approval          ApprovalPolicy                `json:"approval"`
	Backend           BackendSnapshot               `json:"backend"`
	Enforcement       Enforcement                   `json:"enforcement"`
	ParentCap         *ParentCap                    `json:"parent_cap,omitempty"`
}

// PathKind says what a filesystem entry is.
type PathKind string

// Filesystem entry kinds.
const (
	PathWorkspaceRoot PathKind = "workspace_root"
	PathProjectRoot   PathKind = "project_root"
	PathAppReadRoot   PathKind = "app_read_root"
	PathExplicit      PathKind = "explicit_path"
	PathSystemRoot    PathKind = "system_root"
	PathDevice        PathKind = "device"
	PathProtected     PathKind = "protected_path"
	// PathSensitive is a path denied, read and write, to every command and
	// decision of a restricted turn: credential stores, process memory and
	// environments, shadow files, the server's own data directory. Its
	// Access is always AccessDeny; Provenance says whose list put it there
	// (system for the built-in lists and the data directory).
	PathSensitive PathKind = "sensitive_path"
)

// Provenance says who put a filesystem entry into the snapshot.
type Provenance string

// Provenances.
const (
	ProvenanceWorkspace Provenance = "workspace"
	ProvenanceProject   Provenance = "project"
	ProvenanceRuntime   Provenance = "runtime"
	ProvenanceTaskCap   Provenance = "task_cap"
	ProvenanceSystem    Provenance = "system"
	ProvenanceComposer  Provenance = "composer"
	// ProvenanceProfile and ProvenanceBuiltin mark entries compiled from a
	// permission profile of the profiles file or a built-in; Origin names it.
	ProvenanceProfile Provenance = "profile"
	ProvenanceBuiltin Provenance = "built_in"
)

// FilesystemEntry is one path the sandbox grants, or narrows: a protected
// path inside a writable root (immovable; read-only unless Access is write),
// a deny entry (hidden, read and write; a more specific grant may reopen a
// subtree, see AccessAt) or a sensitive path.
type FilesystemEntry struct {
	Kind       PathKind   `json:"kind"`
	Path       string     `json:"path"`
	Access     Access     `json:"access"`
	Provenance Provenance `json:"provenance"`
	// ResolvedPath is Path made absolute and normalised lexically. The
	// sandbox canonicalises it again (symlinks) when it enforces.
	ResolvedPath string `json:"resolved_path"`
	// Origin names the profile (or list) an entry compiled from a permission
	// profile came from, and Key the rule's key as written.
	Origin string `json:"origin,omitempty"`
	Key    string `json:"key,omitempty"`
	// Reserved (protected entries only): when the path does not exist at
	// spawn, the sandbox holds the name read-only so that it cannot be
	// created.
	Reserved bool `json:"reserved,omitempty"`
	// Within (roots only) is the operator's allowed root (constraints'
	// allowed_roots, its symlinks resolved) the root lay in when the turn
	// started: the sandbox grants the root only while it still leads
	// there, so a directory on its path replaced by a symlink later does
	// not take the grant elsewhere.
	Within string `json:"within,omitempty"`
	// LedTo (roots only) is where the root led, its symlinks resolved,
	// when the turn started: the sandbox grants the root only while it
	// still leads there. A root whose link the agent points elsewhere
	// later (into a directory its profile denies only where the root was
	// judged at the start: an anchor's or an operator's deny, a glob's),
	// or a directory on its path swapped for a link, is no root there.
	LedTo string `json:"led_to,omitempty"`
	// Overlay (a read root compiled from a profile's "overlay" rule): the
	// sandbox mounts the directory for the command as an overlay whose
	// upper layer is the command's own (a tmpfs that goes with it), so the
	// command writes there and the directory itself is never written.
	// Where no mount namespace can be made it stays read-only.
	Overlay bool `json:"overlay,omitempty"`
	// LinkedFrom (a copy) is the carve-out's path, written through a
	// symlink, that this entry copies where the link led when the snapshot
	// was selected (BindCarveLinks): another turn's command that removes
	// the link later does not open what it led to.
	LinkedFrom string `json:"linked_from,omitempty"`
}

// FilesystemPolicy lists the granted paths. Unrestricted means the sandbox
// does not confine the filesystem at all (full_access); Entries are then
// informational.
type FilesystemPolicy struct {
	Unrestricted bool              `json:"unrestricted"`
	Entries      []FilesystemEntry `json:"entries"`
	// Rules, set for a turn that selected a permission profile, are the
	// profile's compiled rules, globs included: decisions resolve paths with
	// them (ResolvePathRules); Entries are what the kernel is given.
	Rules []PathRule `json:"rules,omitempty"`
	// GlobScanMaxDepth, set when Rules hold a glob deny, bounds how many
	// levels below each granted root the sandbox looks, at spawn, for the
	// existing matches it masks.
	GlobScanMaxDepth int `json:"glob_scan_max_depth,omitempty"`
}

// TmpPolicy says where temporary files go.
type TmpPolicy string

// Temp policies: the host's temp dir, or a private one per command (TMPDIR,
// TEMP and TMP pointed at it; removed afterwards).
const (
	TmpHost     TmpPolicy = "host"
	TmpIsolated TmpPolicy = "isolated"
)

// BackendRequirement says whether a kernel sandbox must be active for the
// snapshot's commands to run.
type BackendRequirement string

// Backend requirements.
const (
	BackendRequired BackendRequirement = "required"
	BackendOptional BackendRequirement = "optional"
)

// SandboxPolicy is the filesystem side of a snapshot.
type SandboxPolicy struct {
	Mode               SandboxMode        `json:"mode"`
	Cwd                string             `json:"cwd"`
	Filesystem         FilesystemPolicy   `json:"filesystem"`
	Tmp                TmpPolicy          `json:"tmp"`
	BackendRequirement BackendRequirement `json:"backend_requirement"`
	BackendPreference  string             `json:"backend_preference"`
}

// NetworkPolicy is the network side of a snapshot. Domain rules (ParseNetRule):
// "example.com" and "**.example.com" match it and its subdomains,
// "*.example.com" its subdomains only, "=example.com" that host only,
// "=https://example.com:8443" that scheme, host and port only.
type NetworkPolicy struct {
	Mode             NetworkMode `json:"mode"`
	AllowedDomains   []string    `json:"allowed_domains,omitempty"`
	DeniedDomains    []string    `json:"denied_domains,omitempty"`
	AllowLocalhost   bool        `json:"allow_localhost"`
	AllowUnixSockets bool        `json:"allow_unix_sockets"`
	// AllowPrivateNetworks lets connections reach private, link-local and
	// cloud-metadata addresses (beyond the reference; off unless asked).
	AllowPrivateNetworks bool `json:"allow_private_networks"`
	// Locked marks a disabled network that no approval can enable: a task
	// cap (or a parent's) disabled it. Without it a disabled network is the
	// restricted modes' "disabled until granted", which may ask.
	Locked bool `json:"locked,omitempty"`
	// AllowedMethods, when set, are the only HTTP methods a network action
	// may use (a permission profile's "limited" mode: GET, HEAD, OPTIONS).
	AllowedMethods []string `json:"allowed_methods,omitempty"`
	// AllowNamedLoopback lets a restricted network reach a loopback
	// address an exact allow rule names, asked for by that literal (a
	// permission profile that names "127.0.0.1"; REFERENCE §10): neither
	// another loopback address nor a name resolving to one, which need
	// AllowLocalhost.
	AllowNamedLoopback bool `json:"allow_named_loopback,omitempty"`
}

// MethodAllowed reports whether an upper-case HTTP method passes
// AllowedMethods.
func (n *NetworkPolicy) MethodAllowed(method string) bool {
	if len(n.AllowedMethods) == 0 {
		return true
	}
	if method == "" {
		method = "GET"
	}
	for _, m := range n.AllowedMethods {
		if m == method {
			return true
		}
	}
	return false
}

// EnvironmentPolicy filters a command's environment. With Inherit the whole
// environment passes (minus DeniedPatterns); otherwise only AllowedVars do,
// and never a name matching a denied pattern.
type EnvironmentPolicy struct {
	Inherit        bool     `json:"inherit"`
	AllowedVars    []string `json:"allowed_vars,omitempty"`
	DeniedPatterns []string `json:"denied_patterns,omitempty"`
	// Profile, set for a turn that selected a permission profile, is its
	// environment filter (inherit, exclude globs, set, include_only); it
	// replaces the fields above in FilterEnv.
	Profile *CompiledEnvironment `json:"profile,omitempty"`
}

// ProcessPolicy is the process side of a snapshot.
type ProcessPolicy struct {
	ShellEnabled   bool              `json:"shell_enabled"`
	InheritStdin   bool              `json:"inherit_stdin"`
	InheritSession bool              `json:"inherit_session"`
	Environment    EnvironmentPolicy `json:"environment"`
	// DefaultTimeoutMs applies when a command asks for no timeout.
	DefaultTimeoutMs int64 `json:"default_timeout_ms"`
	// MaxDurationMs caps every command: effective = min(requested or default, cap).
	MaxDurationMs int64 `json:"max_duration_ms"`
	// DeniedCommands match argv[0] or its basename.
	DeniedCommands []string `json:"denied_commands,omitempty"`
	// AllowedCommandFamilies, when non-empty, is the only set of argv[0]
	// basenames allowed to run.
	AllowedCommandFamilies []string `json:"allowed_command_families,omitempty"`
}

// ApprovalPolicy lists the approval scopes a person may grant.
type ApprovalPolicy struct {
	AllowedScopes []Resolution `json:"allowed_scopes"`
}

// KernelFeatures is what the capability probe found on this machine.
type KernelFeatures struct {
	LandlockABI    int  `json:"landlock_abi"`
	Seccomp        bool `json:"seccomp"`
	UserNamespaces bool `json:"user_namespaces"`
	// EgressProxy is set when the server runs the egress proxy and can
	// give a command a network namespace whose only way out is the proxy:
	// domain rules (a restricted network) are then enforced on commands.
	EgressProxy bool `json:"egress_proxy,omitempty"`
	// FullAccessUnisolated is set when the operator accepted (serve
	// --full-access-unisolated) that, without user namespaces, full_access
	// commands run unisolated: they can then read the gateway's own
	// secrets, and the snapshot names it as a degradation.
	FullAccessUnisolated bool `json:"full_access_unisolated,omitempty"`
}

// BackendCapabilities says which dimensions the backend can enforce.
type BackendCapabilities struct {
	Filesystem bool `json:"filesystem"`
	Network    bool `json:"network"`
	Process    bool `json:"process"`
	Approval   bool `json:"approval"`
}

// BackendSnapshot names the execution and sandbox backends and what they can
// enforce.
type BackendSnapshot struct {
	ExecutionBackend ExecutionBackend    `json:"execution_backend"`
	SandboxBackend   string              `json:"sandbox_backend"`
	Capabilities     BackendCapabilities `json:"capabilities"`
	Kernel           *KernelFeatures     `json:"kernel,omitempty"`
	RuntimeMapping   *RuntimeMapping     `json:"runtime_mapping,omitempty"`
}

// EnforcementStatus says how much of a snapshot the backend enforces.
type EnforcementStatus string

// Enforcement statuses.
const (
	EnforcementActive          EnforcementStatus = "active"
	EnforcementPartiallyActive EnforcementStatus = "partially_active"
	EnforcementUnavailable     EnforcementStatus = "unavailable"
)

// Degradation names one dimension the backend cannot enforce and why.
// Dimension is one of filesystem, network, process, approval, sandbox_backend.
type Degradation struct {
	Dimension string `json:"dimension"`
	Reason    string `json:"reason"`
	// Residual marks what remains of a rule the kernel enforces as far as
	// it can (glob matches existing at spawn are masked; files created
	// after it are not): named, but it does not stop a required backend
	// from spawning.
	Residual bool `json:"residual,omitempty"`
}

// Enforcement is the truth about what the kernel (or runtime) will enforce.
type Enforcement struct {
	Status       EnforcementStatus `json:"status"`
	Degradations []Degradation     `json:"degradations,omitempty"`
	Reason       string            `json:"reason,omitempty"`
}

// CanSpawn reports whether commands may run under the snapshot: a required
// backend that is unavailable spawns nothing.
func (s *TurnExecutionSecuritySnapshot) CanSpawn() bool {
	return s.Enforcement.Status != EnforcementUnavailable
}

// ParentCap records the parent turn and task cap a child snapshot was
// intersected with.
type ParentCap struct {
	ParentTurnID string   `json:"parent_turn_id"`
	ParentMode   Mode     `json:"parent_mode"`
	TaskCap      *TaskCap `json:"task_cap,omitempty"`
}
