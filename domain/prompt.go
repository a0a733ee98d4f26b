package domain

import (
	"fmt"
	"strings"
)

// kindPhrases name each action kind for the model, in policy field order.
var kindPhrases = []struct {
	kind   ActionKind
	phrase string
}{
	{ActionFileRead, "reading files"}, {ActionFileWrite, "writing or editing files"},
	{ActionShellCommand, "running shell commands"}, {ActionNetwork, "network access (web search, fetch, download)"},
	{ActionMCPRead, "read-only MCP tools"}, {ActionMCPWriteOrUnknown, "other MCP tools"},
	{ActionDynamicSkillTool, "skill tools"}, {ActionComputerUse, "computer use"},
	{ActionTaskSubagent, "creating tasks and sub-agents"}, {ActionUnknown, "any other tool"},
}

// PermissionsPrompt renders the "Current Permissions" section the model sees
// (REFERENCE §8). The default full_access profile, not narrowed, renders
// nothing.
func PermissionsPrompt(p TurnPermissionProfileSnapshot) string {
	if p.Mode == ModeFullAccess && !p.Narrowed() && (p.Profile == "" || p.Profile == BuiltinDangerFullAccess) {
		return ""
	}
	pol := &p.EffectivePolicy
	var ask, deny []string
	for _, k := range kindPhrases {
		switch b, _ := pol.BehaviorFor(k.kind); b {
		case BehaviorAsk:
			ask = append(ask, k.phrase)
		case BehaviorDeny:
			deny = append(deny, k.phrase)
		}
	}
	var b strings.Builder
	b.WriteString("## Current Permissions\n\n")
	if p.Profile != "" {
		fmt.Fprintf(&b, "Permission profile: %s (approvals as in mode %s); its file and network rules are enforced, and a refusal names the rule.\n", p.Profile, p.Mode)
	} else {
		fmt.Fprintf(&b, "Permission mode: %s.\n", p.Mode)
	}
	if len(ask) > 0 {
		fmt.Fprintf(&b, "Needs a person's approval before it runs: %s.\n", strings.Join(ask, "; "))
	}
	if len(deny) > 0 {
		fmt.Fprintf(&b, "Denied: %s.\n", strings.Join(deny, "; "))
	}
	if pol.AllowedToolsRestricted {
		if len(pol.AllowedTools) == 0 {
			b.WriteString("No tools are available in this turn.\n")
		} else {
			fmt.Fprintf(&b, "Only these tools are available: %s.\n", strings.Join(pol.AllowedTools, ", "))
		}
	}
	if len(pol.DeniedTools) > 0 {
		fmt.Fprintf(&b, "These tools are denied: %s.\n", strings.Join(pol.DeniedTools, ", "))
	}
	if pol.AllowedPathsRestricted {
		if len(pol.AllowedPaths) == 0 {
			b.WriteString("No file paths are accessible in this turn.\n")
		} else {
			fmt.Fprintf(&b, "File access is limited to: %s.\n", strings.Join(pol.AllowedPaths, ", "))
		}
	}
	b.WriteString("When an action is denied, do not retry it: continue with the allowed alternatives, or say what you could not do.\n")
	return b.String()
}

// PermissionsPromptAt is PermissionsPrompt for a turn whose snapshot came
// from version. When changed (a mid-turn change replaced the permissions the
// turn started with) it says so and from which version, so the model drops
// what it was told before, and it renders the section even for the default
// full_access profile (a widening must reach the model too).
func PermissionsPromptAt(p TurnPermissionProfileSnapshot, version int64, changed bool) string {
	body := PermissionsPrompt(p)
	if !changed {
		return body
	}
	const head = "## Current Permissions\n\n"
	if body == "" {
		body = head + fmt.Sprintf("Permission mode: %s.\n", p.Mode)
	}
	note := fmt.Sprintf("These permissions were changed during this turn (turn version %d) and replace any stated earlier in it.\n", version)
	return head + note + strings.TrimPrefix(body, head)
}
