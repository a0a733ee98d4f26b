package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCompilePolicyMatchesReference(t *testing.T) {
	for mode, row := range referenceTable {
		p := CompilePolicy(mode)
		for kind, want := range row {
			k := kind
			if kind == "default" {
				k = ActionUnknown
			}
			if got, _ := p.BehaviorFor(k); got.String() != want {
				t.Errorf("%s.%s = %s, want %s", mode, kind, got, want)
			}
		}
	}
}

func TestPolicyWireOrderAndOmissions(t *testing.T) {
	b, err := json.Marshal(CompilePolicy(ModeSupervised))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"default_behavior":"ask","file_read":"allow","file_write":"ask","shell_command":"ask","network":"ask",` +
		`"mcp_read":"allow","mcp_write_or_unknown":"ask","dynamic_skill_tool":"ask","computer_use":"ask","task_subagent":"ask"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	p := ResolveProfile(&ProfileRequest{Mode: ModeSupervised, AllowedToolsRestricted: true, DeniedTools: []string{"web_fetch"}}, SourceComposer)
	b, _ = json.Marshal(p.EffectivePolicy)
	if !strings.Contains(string(b), `"allowed_tools_restricted":true`) || strings.Contains(string(b), `"allowed_tools":`) ||
		!strings.Contains(string(b), `"denied_tools":["web_fetch"]`) || strings.Contains(string(b), "allowed_paths") {
		t.Fatalf("lists encoded wrongly: %s", b)
	}
}

func TestPolicyDecodeRules(t *testing.T) {
	base := `"default_behavior":"ask","file_read":"allow","file_write":"ask","shell_command":"ask","network":"ask","mcp_read":"allow","mcp_write_or_unknown":"ask","dynamic_skill_tool":"ask","computer_use":"ask","task_subagent":"ask"`
	var p ToolPermissionPolicySnapshot
	if err := json.Unmarshal([]byte(`{`+base+`,"allowed_tools":["read_file"],"allowed_paths":["/w/./a/"]}`), &p); err != nil {
		t.Fatal(err)
	}
	if !p.AllowedToolsRestricted || !p.AllowedPathsRestricted || p.AllowedPaths[0] != "/w/a" {
		t.Fatalf("non-empty lists must decode restricted and normalised: %+v", p)
	}
	if err := json.Unmarshal([]byte(`{`+base+`,"allowed_tools_restricted":true}`), &p); err != nil || !p.AllowedToolsRestricted || len(p.AllowedTools) != 0 {
		t.Fatalf("restricted empty list: %+v %v", p, err)
	}
	if ok, by := p.ToolsAllowed("read_file"); ok || by != "allowed_tools" {
		t.Fatal("restricted empty list must deny all tools")
	}
	err := json.Unmarshal([]byte(`{`+strings.Replace(base, `"network":"ask"`, `"network":"sometimes"`, 1)+`}`), &p)
	var ie *InvalidEnumError
	if !errors.As(err, &ie) || ie.Field != "network" || ie.Value != "sometimes" {
		t.Fatalf("unknown behaviour must name field and value, got %v", err)
	}
	if !strings.Contains(err.Error(), "network") || !strings.Contains(err.Error(), "sometimes") {
		t.Fatalf("message %q", err)
	}
}

func TestUnknownModeNamesFieldAndValue(t *testing.T) {
	var req ProfileRequest
	err := json.Unmarshal([]byte(`{"mode":"yolo"}`), &req)
	var ie *InvalidEnumError
	if !errors.As(err, &ie) || ie.Field != "mode" || ie.Value != "yolo" {
		t.Fatalf("got %v", err)
	}
}

func TestNoProfileDefaultsToFullAccess(t *testing.T) {
	p := ResolveProfile(nil, SourceComposer)
	if p.Mode != ModeFullAccess || p.Source != SourceDefaulted {
		t.Fatalf("got %s/%s", p.Mode, p.Source)
	}
	if PermissionsPrompt(p) != "" {
		t.Fatal("default full_access must render no prompt section")
	}
}

func TestPermissionsPrompt(t *testing.T) {
	sup := ResolveProfile(&ProfileRequest{Mode: ModeSupervised}, SourceComposer)
	text := PermissionsPrompt(sup)
	for _, want := range []string{"Current Permissions", "supervised", "writing or editing files", "running shell commands", "allowed alternatives"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "reading files") {
		t.Errorf("reading files is allowed in supervised mode:\n%s", text)
	}
	narrowed := ResolveProfile(&ProfileRequest{Mode: ModeFullAccess, DeniedTools: []string{"web_fetch"}}, SourceComposer)
	if text := PermissionsPrompt(narrowed); !strings.Contains(text, "web_fetch") {
		t.Errorf("a narrowed full_access profile must render its limits:\n%s", text)
	}
}

func TestRuntimeMappings(t *testing.T) {
	cases := []struct {
		b       ExecutionBackend
		m       Mode
		value   string
		quality MappingQuality
	}{
		{BackendCodexCLI, ModeFullAccess, "never", MappingExact},
		{BackendCodexCLI, ModeAutoAcceptEdits, "on-request", MappingStricterFallback},
		{BackendCodexCLI, ModeSupervised, "on-request", MappingExact},
		{BackendClaudeCLI, ModeFullAccess, "bypassPermissions", MappingExact},
		{BackendClaudeCLI, ModeAutoAcceptEdits, "acceptEdits", MappingExact},
		{BackendClaudeCLI, ModeSupervised, "default", MappingExact},
	}
	for _, c := range cases {
		got := MapToRuntime(c.b, c.m)
		if got == nil || got.Value != c.value || got.Quality != c.quality {
			t.Errorf("%s/%s: got %+v", c.b, c.m, got)
		}
	}
	if MapToRuntime(BackendNative, ModeSupervised) != nil {
		t.Error("native backend has no runtime mapping")
	}
}

func TestEnvironmentFilter(t *testing.T) {
	s := testSnapshot(t, ModeSupervised)
	env := []string{"PATH=/usr/bin", "HOME=/root", "GITHUB_TOKEN=x", "XDG_CONFIG_HOME=/c", "SSH_AUTH_SOCK=/s",
		"AWS_SECRET_ACCESS_KEY=y", "LANG=C", "RANDOM_VAR=1", "TERM_AUTH=1", "noequals"}
	got := s.Process.Environment.FilterEnv(env)
	want := []string{"PATH=/usr/bin", "HOME=/root", "XDG_CONFIG_HOME=/c", "LANG=C"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", got, want)
	}
	full := testSnapshot(t, ModeFullAccess)
	if got := full.Process.Environment.FilterEnv(env); len(got) != 8 {
		t.Fatalf("full_access inherits the environment but SSH_AUTH_SOCK: %v", got)
	}
}
