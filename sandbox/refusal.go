package sandbox

import "fmt"

// Refusal codes. They are wire values: keep them stable.
const (
	// File policy.
	CodeEmptyPath                = "empty_path"
	CodeInvalidPath              = "invalid_path"
	CodeMissingPath              = "missing_path"
	CodeSymlinkEscape            = "symlink_escape"
	CodeWriteRequiresWritable    = "write_requires_writable_root"
	CodeOutsideAllowedRoots      = "outside_allowed_roots"
	CodeProtectedPathIsSymlink   = "protected_path_symlink"
	CodeSensitivePath            = "sensitive_path"
	CodeUnsupportedAccess        = "unsupported_access"
	CodeNetworkInvalidURL        = "invalid_url"
	CodeNetworkUnsupportedScheme = "unsupported_scheme"
	CodeHostDenied               = "host_denied"
	CodeNetworkDisabled          = "network_disabled"
	CodeHostNotAllowed           = "host_not_allowed"
	CodeLocalhostNotAllowed      = "localhost_not_allowed"
	CodePrivateAddress           = "private_address"
	// CodeGatewayAddress: the egress proxy refuses the server's own
	// listeners (its API, console and shared egress listener) whatever the
	// rules: a command carried there would leave its sandbox through the
	// gateway.
	CodeGatewayAddress = "gateway_address"
	// CodeHostUnresolved: a URL host could not be resolved in time at
	// decision time (fail closed: its addresses cannot be judged).
	CodeHostUnresolved = "host_unresolved"

	// Spawn plan.
	CodeMissingArgv        = "missing_argv"
	CodeNoSnapshot         = "no_snapshot"
	CodeShellDisabled      = "shell_disabled"
	CodeShellDenied        = "shell_denied"
	CodeCommandDenied      = "command_denied"
	CodeCommandNotAllowed  = "command_not_allowed"
	CodeCwdNotReadable     = "cwd_not_readable"
	CodeInvalidRequest     = "invalid_request"
	CodeSandboxUnavailable = "sandbox_unavailable"
)

// Refusal is why a check or a spawn plan refused. Code is one of the Code*
// constants; Path (or the URL, for network checks) names the resource.
type Refusal struct {
	Code    string
	Message string
	Path    string
	// Cause is the refusal that caused this one (cwd_not_readable wraps the
	// file check's refusal), or nil.
	Cause *Refusal
}

// Error returns "code: message (path)".
func (r *Refusal) Error() string {
	if r.Path == "" {
		return r.Code + ": " + r.Message
	}
	return fmt.Sprintf("%s: %s (%s)", r.Code, r.Message, r.Path)
}

// Unwrap returns the cause, so errors.As finds the inner refusal too.
func (r *Refusal) Unwrap() error {
	if r.Cause == nil {
		return nil
	}
	return r.Cause
}

func refuse(code, path, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Path: path, Message: fmt.Sprintf(format, args...)}
}
