package domain

import (
	"encoding/json"
	"slices"
)

// ToolPermissionPolicySnapshot is a mode compiled into one behaviour per
// action kind, plus optional tool and path lists (REFERENCE §1). Field order
// is the wire order.
//
// List semantics: a restricted empty list denies everything; an unrestricted
// empty list is no limit; a non-empty list is always restricted.
type ToolPermissionPolicySnapshot struct {
	DefaultBehavior   Behavior `json:"default_behavior"`
	FileRead          Behavior `json:"file_read"`
	FileWrite         Behavior `json:"file_write"`
	ShellCommand      Behavior `json:"shell_command"`
	Network           Behavior `json:"network"`
	MCPRead           Behavior `json:"mcp_read"`
	MCPWriteOrUnknown Behavior `json:"mcp_write_or_unknown"`
	DynamicSkillTool  Behavior `json:"dynamic_skill_tool"`
	ComputerUse       Behavior `json:"computer_use"`
	TaskSubagent      Behavior `json:"task_subagent"`

	AllowedTools           []string `json:"allowed_tools,omitempty"`
	AllowedToolsRestricted bool     `json:"allowed_tools_restricted,omitempty"`
	DeniedTools            []string `json:"denied_tools,omitempty"`
	AllowedPaths           []string `json:"allowed_paths,omitempty"`
	AllowedPathsRestricted bool     `json:"allowed_paths_restricted,omitempty"`
}

// CompilePolicy returns the policy table of mode (REFERENCE §1).
func CompilePolicy(mode Mode) ToolPermissionPolicySnapshot {
	switch mode {
	case ModeFullAccess:
		return ToolPermissionPolicySnapshot{
			DefaultBehavior: BehaviorAllow, FileRead: BehaviorAllow, FileWrite: BehaviorAllow,
			ShellCommand: BehaviorAllow, Network: BehaviorAllow, MCPRead: BehaviorAllow,
			MCPWriteOrUnknown: BehaviorAllow, DynamicSkillTool: BehaviorAllow,
			ComputerUse: BehaviorAllow, TaskSubagent: BehaviorAllow,
		}
	case ModeAutoAcceptEdits:
		return ToolPermissionPolicySnapshot{
			DefaultBehavior: BehaviorAsk, FileRead: BehaviorAllow, FileWrite: BehaviorAllow,
			ShellCommand: BehaviorAsk, Network: BehaviorAsk, MCPRead: BehaviorAllow,
			MCPWriteOrUnknown: BehaviorAsk, DynamicSkillTool: BehaviorAsk,
			ComputerUse: BehaviorAsk, TaskSubagent: BehaviorAsk,
		}
	default: // supervised; an unknown mode compiles to the strictest table
		return ToolPermissionPolicySnapshot{
			DefaultBehavior: BehaviorAsk, FileRead: BehaviorAllow, FileWrite: BehaviorAsk,
			ShellCommand: BehaviorAsk, Network: BehaviorAsk, MCPRead: BehaviorAllow,
			MCPWriteOrUnknown: BehaviorAsk, DynamicSkillTool: BehaviorAsk,
			ComputerUse: BehaviorAsk, TaskSubagent: BehaviorAsk,
		}
	}
}

// BehaviorFor returns the behaviour for kind and the policy field that
// decided it. internal is always allowed; unknown falls to default_behavior.
func (p *ToolPermissionPolicySnapshot) BehaviorFor(kind ActionKind) (Behavior, string) {
	switch kind {
	case ActionInternal:
		return BehaviorAllow, "internal"
	case ActionFileRead:
		return p.FileRead, "file_read"
	case ActionFileWrite:
		return p.FileWrite, "file_write"
	case ActionShellCommand:
		return p.ShellCommand, "shell_command"
	case ActionNetwork:
		return p.Network, "network"
	case ActionMCPRead:
		return p.MCPRead, "mcp_read"
	case ActionMCPWriteOrUnknown:
		return p.MCPWriteOrUnknown, "mcp_write_or_unknown"
	case ActionDynamicSkillTool:
		return p.DynamicSkillTool, "dynamic_skill_tool"
	case ActionComputerUse:
		return p.ComputerUse, "computer_use"
	case ActionTaskSubagent:
		return p.TaskSubagent, "task_subagent"
	default:
		return p.DefaultBehavior, "default_behavior"
	}
}

// behaviorFields lists the behaviour fields with their wire names, in wire order.
func (p *ToolPermissionPolicySnapshot) behaviorFields() []struct {
	name string
	ptr  *Behavior
} {
	return []struct {
		name string
		ptr  *Behavior
	}{
		{"default_behavior", &p.DefaultBehavior}, {"file_read", &p.FileRead}, {"file_write", &p.FileWrite},
		{"shell_command", &p.ShellCommand}, {"network", &p.Network}, {"mcp_read", &p.MCPRead},
		{"mcp_write_or_unknown", &p.MCPWriteOrUnknown}, {"dynamic_skill_tool", &p.DynamicSkillTool},
		{"computer_use", &p.ComputerUse}, {"task_subagent", &p.TaskSubagent},
	}
}

// ToolsAllowed reports whether toolName passes the allowed/denied tool lists.
func (p *ToolPermissionPolicySnapshot) ToolsAllowed(toolName string) (ok bool, decidedBy string) {
	if slices.Contains(p.DeniedTools, toolName) {
		return false, "denied_tools"
	}
	if p.AllowedToolsRestricted && !slices.Contains(p.AllowedTools, toolName) {
		return false, "allowed_tools"
	}
	return true, ""
}

// PathAllowed reports whether an absolute, normalised path passes the
// allowed_paths list.
func (p *ToolPermissionPolicySnapshot) PathAllowed(path string) bool {
	if !p.AllowedPathsRestricted {
		return true
	}
	for _, root := range p.AllowedPaths {
		if PathWithin(path, root) {
			return true
		}
	}
	return false
}

// normalizeLists enforces "a non-empty list is restricted" and sorts the
// lists so that equal policies encode equally.
func (p *ToolPermissionPolicySnapshot) normalizeLists() {
	if len(p.AllowedTools) > 0 {
		p.AllowedToolsRestricted = true
	}
	if len(p.AllowedPaths) > 0 {
		p.AllowedPathsRestricted = true
	}
	p.AllowedTools = sortedUnique(p.AllowedTools)
	p.DeniedTools = sortedUnique(p.DeniedTools)
	cleaned := make([]string, 0, len(p.AllowedPaths))
	for _, a := range p.AllowedPaths {
		cleaned = append(cleaned, CleanPath(a))
	}
	p.AllowedPaths = sortedUnique(cleaned)
}

// UnmarshalJSON decodes the wire form: every behaviour field is required and
// validated (an error names the field and the value), and a non-empty list
// without its flag is restricted.
func (p *ToolPermissionPolicySnapshot) UnmarshalJSON(b []byte) error {
	var raw struct {
		DefaultBehavior        *string  `json:"default_behavior"`
		FileRead               *string  `json:"file_read"`
		FileWrite              *string  `json:"file_write"`
		ShellCommand           *string  `json:"shell_command"`
		Network                *string  `json:"network"`
		MCPRead                *string  `json:"mcp_read"`
		MCPWriteOrUnknown      *string  `json:"mcp_write_or_unknown"`
		DynamicSkillTool       *string  `json:"dynamic_skill_tool"`
		ComputerUse            *string  `json:"computer_use"`
		TaskSubagent           *string  `json:"task_subagent"`
		AllowedTools           []string `json:"allowed_tools"`
		AllowedToolsRestricted bool     `json:"allowed_tools_restricted"`
		DeniedTools            []string `json:"denied_tools"`
		AllowedPaths           []string `json:"allowed_paths"`
		AllowedPathsRestricted bool     `json:"allowed_paths_restricted"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	in := []*string{raw.DefaultBehavior, raw.FileRead, raw.FileWrite, raw.ShellCommand, raw.Network, raw.MCPRead,
		raw.MCPWriteOrUnknown, raw.DynamicSkillTool, raw.ComputerUse, raw.TaskSubagent}
	var out ToolPermissionPolicySnapshot
	for i, f := range out.behaviorFields() {
		if in[i] == nil {
			return &FieldError{Field: f.name, Message: "is required: a policy states every behaviour"}
		}
		beh, err := ParseBehavior(*in[i])
		if err != nil {
			return err.(*InvalidEnumError).WithField(f.name)
		}
		*f.ptr = beh
	}
	out.AllowedTools, out.AllowedToolsRestricted = raw.AllowedTools, raw.AllowedToolsRestricted
	out.DeniedTools = raw.DeniedTools
	out.AllowedPaths, out.AllowedPathsRestricted = raw.AllowedPaths, raw.AllowedPathsRestricted
	out.normalizeLists()
	*p = out
	return nil
}

// TurnPermissionProfileSnapshot is the profile a turn runs under.
type TurnPermissionProfileSnapshot struct {
	Mode Mode `json:"mode"`
	// Profile names the permission profile the turn selected ("" for a
	// mode); Mode is then the mode whose behaviour table it uses.
	Profile         string                       `json:"profile,omitempty"`
	Source          ProfileSource                `json:"source"`
	EffectivePolicy ToolPermissionPolicySnapshot `json:"effective_policy"`
}

// ProfileRequest is what a client may send to choose a profile: a mode and
// optional tool and path lists that narrow the compiled policy.
type ProfileRequest struct {
	Mode Mode `json:"mode"`
	// Profile selects a permission profile by name instead of a mode
	// (SelectSnapshot); giving both is refused.
	Profile                string   `json:"profile,omitempty"`
	AllowedTools           []string `json:"allowed_tools,omitempty"`
	AllowedToolsRestricted bool     `json:"allowed_tools_restricted,omitempty"`
	DeniedTools            []string `json:"denied_tools,omitempty"`
	AllowedPaths           []string `json:"allowed_paths,omitempty"`
	AllowedPathsRestricted bool     `json:"allowed_paths_restricted,omitempty"`
}

// ResolveProfile compiles a profile request. A nil request is full_access
// with source defaulted.
func ResolveProfile(req *ProfileRequest, source ProfileSource) TurnPermissionProfileSnapshot {
	if req == nil || req.Mode == "" {
		return TurnPermissionProfileSnapshot{Mode: ModeFullAccess, Source: SourceDefaulted, EffectivePolicy: CompilePolicy(ModeFullAccess)}
	}
	p := CompilePolicy(req.Mode)
	p.AllowedTools, p.AllowedToolsRestricted = slices.Clone(req.AllowedTools), req.AllowedToolsRestricted
	p.DeniedTools = slices.Clone(req.DeniedTools)
	p.AllowedPaths, p.AllowedPathsRestricted = slices.Clone(req.AllowedPaths), req.AllowedPathsRestricted
	p.normalizeLists()
	return TurnPermissionProfileSnapshot{Mode: req.Mode, Source: source, EffectivePolicy: p}
}

// Narrowed reports whether the profile carries tool or path limits beyond its
// mode's table.
func (t *TurnPermissionProfileSnapshot) Narrowed() bool {
	return !t.EffectivePolicy.equalTable(CompilePolicy(t.Mode)) || t.EffectivePolicy.AllowedToolsRestricted ||
		len(t.EffectivePolicy.DeniedTools) > 0 || t.EffectivePolicy.AllowedPathsRestricted
}

func (p *ToolPermissionPolicySnapshot) equalTable(q ToolPermissionPolicySnapshot) bool {
	a, b := p.behaviorFields(), q.behaviorFields()
	for i := range a {
		if *a[i].ptr != *b[i].ptr {
			return false
		}
	}
	return true
}

func sortedUnique(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}
