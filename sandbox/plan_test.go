package sandbox

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

var fullKernel = domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}

func TestPlanSpawnRefusals(t *testing.T) {
	ws := tempWorkspace(t)
	base := func() *domain.TurnExecutionSecuritySnapshot {
		return snapshotFor(t, domain.ModeAutoAcceptEdits, ws, fullKernel)
	}
	cases := []struct {
		name   string
		snap   func() *domain.TurnExecutionSecuritySnapshot
		req    SpawnRequest
		code   string
		inside string // the wrapped refusal's code
	}{
		{"missing argv", base, SpawnRequest{}, CodeMissingArgv, ""},
		{"empty argv0", base, SpawnRequest{Argv: []string{""}}, CodeMissingArgv, ""},
		{"nil snapshot", func() *domain.TurnExecutionSecuritySnapshot { return nil }, SpawnRequest{Argv: []string{"true"}}, CodeNoSnapshot, ""},
		{"shell disabled", func() *domain.TurnExecutionSecuritySnapshot {
			s := base()
			s.Process.ShellEnabled = false
			return s
		}, SpawnRequest{Argv: []string{"true"}}, CodeShellDisabled, ""},
		{"shell denied", func() *domain.TurnExecutionSecuritySnapshot {
			s := base()
			s.PermissionProfile.EffectivePolicy.ShellCommand = domain.BehaviorDeny
			return s
		}, SpawnRequest{Argv: []string{"true"}}, CodeShellDenied, ""},
		{"denied command", base, SpawnRequest{Argv: []string{"sudo", "id"}}, CodeCommandDenied, ""},
		{"denied command by basename", base, SpawnRequest{Argv: []string{"/usr/bin/unshare", "-r"}}, CodeCommandDenied, ""},
		{"not in families", func() *domain.TurnExecutionSecuritySnapshot {
			s := base()
			s.Process.AllowedCommandFamilies = []string{"git", "go"}
			return s
		}, SpawnRequest{Argv: []string{"/bin/ls"}}, CodeCommandNotAllowed, ""},
		{"cwd outside", base, SpawnRequest{Argv: []string{"true"}, Cwd: "/root"}, CodeCwdNotReadable, CodeOutsideAllowedRoots},
		{"cwd missing", base, SpawnRequest{Argv: []string{"true"}, Cwd: "nope"}, CodeCwdNotReadable, CodeMissingPath},
		{"cwd is a file", base, SpawnRequest{Argv: []string{"true"}, Cwd: "/etc/passwd"}, CodeCwdNotReadable, ""},
		{"no landlock", func() *domain.TurnExecutionSecuritySnapshot {
			return snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{Seccomp: true})
		}, SpawnRequest{Argv: []string{"true"}}, CodeSandboxUnavailable, ""},
		{"no seccomp", func() *domain.TurnExecutionSecuritySnapshot {
			return snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7})
		}, SpawnRequest{Argv: []string{"true"}}, CodeSandboxUnavailable, ""},
		{"no kernel probe", func() *domain.TurnExecutionSecuritySnapshot {
			s := base()
			s.Backend.Kernel = nil
			return s
		}, SpawnRequest{Argv: []string{"true"}}, CodeSandboxUnavailable, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := PlanSpawn(c.snap(), c.req, nil)
			var r *Refusal
			if !errors.As(err, &r) || r.Code != c.code || p != nil {
				t.Fatalf("got (%v, %v), want %s", p, err, c.code)
			}
			if c.inside != "" && (r.Cause == nil || r.Cause.Code != c.inside) {
				t.Fatalf("cause %v, want %s", r.Cause, c.inside)
			}
		})
	}
}

func TestPlanSpawnEnvAndTimeout(t *testing.T) {
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeSupervised, ws, fullKernel)
	server := []string{"PATH=/usr/bin:/bin", "HOME=/home/u", "MY_API_TOKEN=s3cret", "GITHUB_AUTH=x", "SSH_AUTH_SOCK=/run/agent",
		"AWS_SECRET_ACCESS_KEY=k", "DATABASE_URL=postgres://", "LANG=C", "XDG_CONFIG_HOME=/c", "RANDOM_VAR=1", "NOEQUALS"}
	req := SpawnRequest{Argv: []string{"env"}, Cwd: ".", Env: map[string]string{"LANG": "C.UTF-8", "FOO": "bar", "OPENAI_API_KEY": "k", "GOPATH": "/go"}}
	p, err := PlanSpawn(s, req, server)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GOPATH=/go", "HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=/c"}
	if !slices.Equal(p.Env, want) {
		t.Fatalf("env %q, want %q", p.Env, want)
	}
	if p.Cwd != ws || !p.Sandboxed || !p.IsolatedTmp || p.Timeout != domain.DefaultCommandTimeoutMs*time.Millisecond {
		t.Fatalf("plan %+v", p)
	}
	if !p.Sandbox.RestrictFilesystem || !p.Sandbox.RestrictNetwork || p.Sandbox.LandlockABI != 7 || !p.Sandbox.Seccomp {
		t.Fatalf("sandbox spec %+v", p.Sandbox)
	}
	for _, c := range []struct{ req, want int64 }{{0, domain.DefaultCommandTimeoutMs}, {1000, 1000}, {5_000_000, domain.MaxCommandDurationMs}, {-5, domain.DefaultCommandTimeoutMs}} {
		if got := effectiveTimeoutMs(&s.Process, c.req); got != c.want {
			t.Errorf("timeout(%d) = %d, want %d", c.req, got, c.want)
		}
	}
	narrow := s.Process
	narrow.MaxDurationMs = 500
	if got := effectiveTimeoutMs(&narrow, 0); got != 500 {
		t.Errorf("policy cap: %d", got)
	}

	// full_access: no helper, the whole environment but SSH_AUTH_SOCK.
	fa := snapshotFor(t, domain.ModeFullAccess, ws, fullKernel)
	p, err = PlanSpawn(fa, SpawnRequest{Argv: []string{"env"}}, server)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sandboxed || p.IsolatedTmp || slices.ContainsFunc(p.Env, func(kv string) bool { return strings.HasPrefix(kv, "SSH_AUTH_SOCK=") }) ||
		!slices.Contains(p.Env, "MY_API_TOKEN=s3cret") {
		t.Fatalf("full access plan %+v", p)
	}
}
