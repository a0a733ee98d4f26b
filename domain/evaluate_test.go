package domain

import (
	"encoding/json"
	"fmt"
	"testing"
)

// referenceTable is REFERENCE §1, written out independently of CompilePolicy.
var referenceTable = map[Mode]map[ActionKind]string{
	ModeFullAccess: {
		"default": "allow", ActionFileRead: "allow", ActionFileWrite: "allow", ActionShellCommand: "allow",
		ActionNetwork: "allow", ActionMCPRead: "allow", ActionMCPWriteOrUnknown: "allow",
		ActionDynamicSkillTool: "allow", ActionComputerUse: "allow", ActionTaskSubagent: "allow",
	},
	ModeAutoAcceptEdits: {
		"default": "ask", ActionFileRead: "allow", ActionFileWrite: "allow", ActionShellCommand: "ask",
		ActionNetwork: "ask", ActionMCPRead: "allow", ActionMCPWriteOrUnknown: "ask",
		ActionDynamicSkillTool: "ask", ActionComputerUse: "ask", ActionTaskSubagent: "ask",
	},
	ModeSupervised: {
		"default": "ask", ActionFileRead: "allow", ActionFileWrite: "ask", ActionShellCommand: "ask",
		ActionNetwork: "ask", ActionMCPRead: "allow", ActionMCPWriteOrUnknown: "ask",
		ActionDynamicSkillTool: "ask", ActionComputerUse: "ask", ActionTaskSubagent: "ask",
	},
}

// sampleInvocations gives one invocation per action kind.
var sampleInvocations = map[ActionKind]Invocation{
	ActionFileRead:          {ToolName: "read_file", Arguments: json.RawMessage(`{"path":"src/main.go"}`)},
	ActionFileWrite:         {ToolName: "apply_patch", Arguments: json.RawMessage(`{"patch":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"}`)},
	ActionShellCommand:      {ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":["go","test","./..."]}`)},
	ActionNetwork:           {ToolName: "web_fetch", Arguments: json.RawMessage(`{"url":"https://example.com/docs?q=1"}`)},
	ActionMCPRead:           {ToolName: "mcp__docs__search", Arguments: json.RawMessage(`{"q":"x"}`)},
	ActionMCPWriteOrUnknown: {ToolName: "mcp__github__create_issue", Arguments: json.RawMessage(`{"title":"x"}`)},
	ActionDynamicSkillTool:  {ToolName: "skill__pdf_render", Arguments: json.RawMessage(`{}`)},
	ActionComputerUse:       {ToolName: "computer_use", Arguments: json.RawMessage(`{"action":"click","x":1,"y":2}`)},
	ActionTaskSubagent:      {ToolName: "task_create", Arguments: json.RawMessage(`{"prompt":"do it"}`)},
	ActionInternal:          {ToolName: "task_list"},
	ActionUnknown:           {ToolName: "frobnicate", Arguments: json.RawMessage(`{"level":3}`)},
}

var testTrust = MCPTrust{"docs/search"}

func testSnapshot(t testing.TB, mode Mode) TurnExecutionSecuritySnapshot {
	t.Helper()
	s, err := ResolveSnapshot(SnapshotInputs{
		Profile: ResolveProfile(&ProfileRequest{Mode: mode}, SourceComposer),
		Cwd:     "/work/repo", WorkspaceRoot: "/work/repo", ExecutionBackend: BackendNative,
		Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDecisionMatrix covers 3 modes × every action kind × (no grant, grant).
func TestDecisionMatrix(t *testing.T) {
	for _, mode := range Modes {
		snap := testSnapshot(t, mode)
		for _, kind := range ActionKinds {
			inv, ok := sampleInvocations[kind]
			if !ok {
				t.Fatalf("no sample invocation for %s", kind)
			}
			a, err := Classify(inv, snap.Sandbox.Cwd, testTrust)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if a.Kind != kind {
				t.Fatalf("%s classified as %s", inv.ToolName, a.Kind)
			}
			for _, granted := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/grant=%v", mode, kind, granted), func(t *testing.T) {
					var grants GrantSet
					if granted {
						grants = GrantSet{GrantFor(mode, &a): {}}
					}
					d := Evaluate(&snap, &a, grants)
					wantBeh, wantReason, wantCached := expectedDecision(mode, kind, granted)
					if d.Behavior.String() != wantBeh || d.Reason != wantReason || d.Cached != wantCached {
						t.Fatalf("got %s/%s cached=%v (by %s), want %s/%s cached=%v", d.Behavior, d.Reason, d.Cached, d.DecidedBy, wantBeh, wantReason, wantCached)
					}
					if d.Action != kind || d.ScopeHash != a.ScopeHash || d.DecidedBy == "" {
						t.Fatalf("decision does not explain itself: %+v", d)
					}
				})
			}
		}
	}
}

func expectedDecision(mode Mode, kind ActionKind, granted bool) (string, Reason, bool) {
	if kind == ActionInternal {
		return "allow", ReasonPolicyAllowsAction, false
	}
	key := kind
	if kind == ActionUnknown {
		key = "default"
	}
	switch referenceTable[mode][key] {
	case "allow":
		switch {
		case kind == ActionUnknown:
			return "allow", ReasonUnknownActionDefault, false
		case mode == ModeFullAccess:
			return "allow", ReasonFullAccess, false
		}
		return "allow", ReasonPolicyAllowsAction, false
	case "ask":
		if granted {
			return "allow", ReasonCachedApproval, true
		}
		if kind == ActionUnknown {
			return "ask", ReasonUnknownActionDefault, false
		}
		return "ask", ReasonPolicyRequiresApproval, false
	}
	return "deny", ReasonPolicyDeniesAction, false
}

func TestZeroDecisionDenies(t *testing.T) {
	var d Decision
	if d.Behavior != BehaviorDeny || d.Behavior.String() != "deny" {
		t.Fatalf("zero decision is %s", d.Behavior)
	}
	var p ToolPermissionPolicySnapshot
	for _, k := range ActionKinds {
		if b, _ := p.BehaviorFor(k); k != ActionInternal && b != BehaviorDeny {
			t.Fatalf("zero policy %s → %s", k, b)
		}
	}
}

func TestListsDecideFirst(t *testing.T) {
	mk := func(req ProfileRequest) TurnExecutionSecuritySnapshot {
		s := testSnapshot(t, ModeFullAccess)
		s.PermissionProfile = ResolveProfile(&req, SourceComposer)
		return s
	}
	read := mustClassify(t, sampleInvocations[ActionFileRead], "/work/repo")
	internal := mustClassify(t, sampleInvocations[ActionInternal], "/work/repo")
	cases := []struct {
		name string
		req  ProfileRequest
		a    Action
		want Behavior
		by   string
	}{
		{"denied tool", ProfileRequest{Mode: ModeFullAccess, DeniedTools: []string{"read_file"}}, read, BehaviorDeny, "denied_tools"},
		{"restricted empty allowed tools denies all", ProfileRequest{Mode: ModeFullAccess, AllowedToolsRestricted: true}, read, BehaviorDeny, "allowed_tools"},
		{"unrestricted empty allowed tools is no limit", ProfileRequest{Mode: ModeFullAccess}, read, BehaviorAllow, "file_read"},
		{"allowed tools list", ProfileRequest{Mode: ModeFullAccess, AllowedTools: []string{"read_file"}}, read, BehaviorAllow, "file_read"},
		{"tool outside list", ProfileRequest{Mode: ModeFullAccess, AllowedTools: []string{"grep_files"}}, read, BehaviorDeny, "allowed_tools"},
		{"path inside allowed paths", ProfileRequest{Mode: ModeFullAccess, AllowedPaths: []string{"/work/repo/src"}}, read, BehaviorAllow, "file_read"},
		{"path outside allowed paths", ProfileRequest{Mode: ModeFullAccess, AllowedPaths: []string{"/work/repo/docs"}}, read, BehaviorDeny, "allowed_paths"},
		{"sibling prefix is outside", ProfileRequest{Mode: ModeFullAccess, AllowedPaths: []string{"/work/repo/sr"}}, read, BehaviorDeny, "allowed_paths"},
		{"restricted empty paths denies", ProfileRequest{Mode: ModeFullAccess, AllowedPathsRestricted: true}, read, BehaviorDeny, "allowed_paths"},
		{"internal ignores lists", ProfileRequest{Mode: ModeFullAccess, AllowedToolsRestricted: true}, internal, BehaviorAllow, "internal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mk(c.req)
			d := Evaluate(&s, &c.a, nil)
			if d.Behavior != c.want || d.DecidedBy != c.by {
				t.Fatalf("got %s by %s, want %s by %s", d.Behavior, d.DecidedBy, c.want, c.by)
			}
			if c.want == BehaviorDeny && d.Reason != ReasonPolicyDeniesAction {
				t.Fatalf("reason %s", d.Reason)
			}
		})
	}
}

func mustClassify(t testing.TB, inv Invocation, cwd string) Action {
	t.Helper()
	a, err := Classify(inv, cwd, testTrust)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDownloadNeedsBothChecks: download_url is a network action and a write
// of its destination; the stricter behaviour wins, and a grant covers
// exactly its origin and destination.
func TestDownloadNeedsBothChecks(t *testing.T) {
	s := testSnapshot(t, ModeAutoAcceptEdits)
	s.PermissionProfile.EffectivePolicy.Network = BehaviorAllow
	s.PermissionProfile.EffectivePolicy.FileWrite = BehaviorAsk
	a := mustClassify(t, Invocation{ToolName: "download_url", Arguments: json.RawMessage(`{"url":"https://example.com/a.tgz","destination":"out/a.tgz"}`)}, "/work/repo")
	if a.Kind != ActionNetwork || a.Also != ActionFileWrite {
		t.Fatalf("kinds %s+%s", a.Kind, a.Also)
	}
	if d := Evaluate(&s, &a, nil); d.Behavior != BehaviorAsk || d.DecidedBy != "file_write" {
		t.Fatalf("got %+v", d)
	}
	grants := GrantSet{GrantFor(s.PermissionProfile.Mode, &a): {}}
	if d := Evaluate(&s, &a, grants); d.Behavior != BehaviorAllow || d.Reason != ReasonCachedApproval {
		t.Fatalf("granted: %+v", d)
	}
	for _, other := range []string{
		`{"url":"https://example.com:8443/a.tgz","destination":"out/a.tgz"}`,
		`{"url":"https://example.com/a.tgz","destination":"out/b.tgz"}`,
		`{"url":"https://evil.example.com/a.tgz","destination":"out/a.tgz"}`,
	} {
		b := mustClassify(t, Invocation{ToolName: "download_url", Arguments: json.RawMessage(other)}, "/work/repo")
		if d := Evaluate(&s, &b, grants); d.Behavior != BehaviorAsk {
			t.Fatalf("grant widened to %s: %+v", other, d)
		}
	}
}

// TestGrantNeverCrossesTools: a network grant for web_search does not allow a
// later exec_command, and a grant under one mode does not apply in another.
func TestGrantNeverCrossesTools(t *testing.T) {
	s := testSnapshot(t, ModeSupervised)
	search := mustClassify(t, Invocation{ToolName: "web_search", Arguments: json.RawMessage(`{"query":"x"}`)}, "/work/repo")
	exec := mustClassify(t, sampleInvocations[ActionShellCommand], "/work/repo")
	grants := GrantSet{GrantFor(ModeSupervised, &search): {}}
	if d := Evaluate(&s, &exec, grants); d.Behavior != BehaviorAsk {
		t.Fatalf("exec allowed by a search grant: %+v", d)
	}
	other := GrantSet{GrantFor(ModeAutoAcceptEdits, &exec): {}}
	if d := Evaluate(&s, &exec, other); d.Behavior != BehaviorAsk {
		t.Fatalf("grant crossed modes: %+v", d)
	}
}
