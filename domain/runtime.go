package domain

// MappingQuality says how faithfully a CLI runtime's own policy expresses a
// mode.
type MappingQuality string

// Mapping qualities.
const (
	MappingExact            MappingQuality = "exact"
	MappingStricterFallback MappingQuality = "stricter_fallback"
)

// RuntimeMapping is a mode translated to a CLI runtime's own policy.
type RuntimeMapping struct {
	Runtime ExecutionBackend `json:"runtime"`
	// Setting is the runtime's option: Codex's approval policy or Claude's
	// permission mode.
	Setting string         `json:"setting"`
	Value   string         `json:"value"`
	Quality MappingQuality `json:"quality"`
}

// MapToRuntime translates mode for a CLI-backed turn (REFERENCE §8). It
// returns nil for the native backend.
func MapToRuntime(backend ExecutionBackend, mode Mode) *RuntimeMapping {
	switch backend {
	case BackendCodexCLI:
		m := &RuntimeMapping{Runtime: backend, Setting: "approval_policy", Value: "on-request", Quality: MappingExact}
		switch mode {
		case ModeFullAccess:
			m.Value = "never"
		case ModeAutoAcceptEdits:
			m.Quality = MappingStricterFallback
		}
		return m
	case BackendClaudeCLI:
		m := &RuntimeMapping{Runtime: backend, Setting: "permission_mode", Value: "default", Quality: MappingExact}
		switch mode {
		case ModeFullAccess:
			m.Value = "bypassPermissions"
		case ModeAutoAcceptEdits:
			m.Value = "acceptEdits"
		}
		return m
	default:
		return nil
	}
}
