package profilefile

import (
	"errors"
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// ReadmeExample returns the first ```toml block of the README's
// "Permission profiles" section.
func readmeExample(t testing.TB) []byte {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(raw), "\n## Permission profiles\n")
	if !ok {
		t.Fatal("README has no Permission profiles section")
	}
	_, block, ok := strings.Cut(sec, "```toml\n")
	if !ok {
		t.Fatal("the section has no toml block")
	}
	block, _, _ = strings.Cut(block, "```")
	return []byte(block)
}

// TestReadmeExample loads the README's example file and checks what it
// promises, so that the example cannot rot.
func TestReadmeExample(t *testing.T) {
	f, err := Parse("README.md", readmeExample(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Profiles) != 2 || len(f.Warnings) != 0 {
		t.Fatalf("profiles %v, warnings %v", f.Profiles.Names(), f.Warnings)
	}
	env := domain.ProfileEnv{Home: "/home/me", Cwd: "/home/me/code/app", TmpDir: "/tmp/t1"}
	cp, err := domain.CompileProfile(f.Profiles, "dev", env, nil)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]domain.Access{
		"web/.env": domain.AccessDeny, "main.go": domain.AccessWrite, ".devcontainer/x": domain.AccessRead,
		"build/cache/a": domain.AccessDeny, "build/cache/keep/b": domain.AccessWrite, ".git/config": domain.AccessRead,
		"/home/me/.ssh/id_rsa": domain.AccessDeny, "/home/me/code/shared/lib.go": domain.AccessWrite,
		"/home/me/scratch/x": domain.AccessWrite, "/home/me/.bashrc": domain.AccessDeny, "/usr/bin/env": domain.AccessRead,
		"/tmp/t1/a": domain.AccessWrite, "/tmp/other": domain.AccessRead,
	} {
		if d := cp.Explain(p); d.Access != want {
			t.Errorf("%s: %s by %+v, want %s", p, d.Access, d.Rule, want)
		}
	}
	for u, want := range map[[2]string]bool{
		{"GET", "https://pypi.org/simple/"}: true, {"POST", "https://pypi.org/"}: false,
		{"GET", "https://files.pythonhosted.org/x"}: true, {"GET", "https://pythonhosted.org/"}: false,
		{"GET", "https://github.com/"}: true, {"GET", "https://tracking.github.com/"}: false,
		{"GET", "http://localhost:8080/"}: true, {"GET", "http://10.0.0.1/"}: false, {"GET", "https://example.com/"}: false,
	} {
		if d := cp.Network.DecideURL(u[0], u[1]); d.Allowed != want {
			t.Errorf("%v: %+v", u, d)
		}
	}
	got := cp.Environment.Apply([]string{"PATH=/bin", "HOME=/h", "GOPATH=/go", "GITHUB_TOKEN=x", "AWS_REGION=r", "TERM=xterm", "CI=0"})
	if strings.Join(got, " ") != "PATH=/bin HOME=/h GOPATH=/go CI=1" {
		t.Errorf("environment %v", got)
	}
	if cp.Process.TimeoutCapMs != 600000 || cp.Policy.Network != domain.BehaviorDeny || cp.Policy.ShellCommand != domain.BehaviorAsk {
		t.Errorf("process %+v policy %+v", cp.Process, cp.Policy)
	}
	if _, err := domain.CompileProfile(f.Profiles, "reviewer", env, nil); err != nil {
		t.Fatal(err)
	}
}

func parseErr(t *testing.T, src string) Errors {
	t.Helper()
	_, err := Parse("profiles.toml", []byte(src))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("want Errors, got %v", err)
	}
	return es
}

func wantErr(t *testing.T, src string, want ...string) {
	t.Helper()
	es := parseErr(t, src)
	msg := es.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
}

// TestErrorsNameFileLineProfileKey: each bad file is refused with the
// file, the line, the profile, the key and the rule it broke.
func TestErrorsNameFileLineProfileKey(t *testing.T) {
	wantErr(t, "[permissions.dev]\nextends = \":workspace\"\n[permissions.dev.filesystem]\n\"/ok\" = \"read\"\n\"**/*.env\" = \"write\"\n",
		`profiles.toml:5: profile "dev": filesystem."**/*.env": a glob is allowed only with deny`)
	wantErr(t, "[permissions.dev]\n[permissions.dev.filesystem.\":workspace_roots\"]\n\".\" = \"write\"\n\"src/*.go\" = \"read\"\n",
		`profiles.toml:4: profile "dev": filesystem.":workspace_roots/src/*.go": a glob is allowed only with deny`)
	wantErr(t, "[permissions.dev]\nextends = \"base\"\n", `profiles.toml:2: profile "dev": extends: unknown parent profile "base"`)
	wantErr(t, "[permissions.a]\nextends = \"b\"\n[permissions.b]\nextends = \"a\"\n", `profile "a": extends: cycle: a -> b -> a`, `profiles.toml:2:`)
	wantErr(t, "[permissions.dev.filesystem]\n\"/x\" = \"rw\"\n", `profiles.toml:2: profile "dev": filesystem."/x": "rw" is not read, write, overlay, deny or none`)
	wantErr(t, "[permissions.dev.network.domains]\n\"*\" = \"deny\"\n", `profiles.toml:2: profile "dev": network.domains."*": "*" is allowed only in the allow-list`)
	wantErr(t, "[permissions.dev.process]\ntimeout_cap_ms = 0\n", `profiles.toml:2: profile "dev": process.timeout_cap_ms: must be between 1 and 1800000`)
	wantErr(t, "[permissions.dev]\nglob_scan_max_depth = 0\n", `profiles.toml:2: profile "dev": glob_scan_max_depth: must be between 1`)
	wantErr(t, "[permissions.dev.approvals]\npolicy = \"yolo\"\n", `profiles.toml:2: profile "dev": approvals.policy: "yolo" is not one of`)
	wantErr(t, "[permissions.dev.filesystem]\n\"relative\" = \"read\"\n", `profiles.toml:2: profile "dev": filesystem.relative: a relative key is not allowed`)
	wantErr(t, "[permissions.dev.filesystem]\n\"/a/\" = \"read\"\n\"/a\" = \"write\"\n", `profile "dev": filesystem."/a/": the same key as "/a"`)
	wantErr(t, "[permissions.dev.filesystem]\n\"/a\" = 1\n", `profiles.toml:2: profile "dev": filesystem."/a": must be a string, not an integer`)
	wantErr(t, "[permissions.dev]\nfilesystem = { \"/a\" = \"read\", \"/b\" = \"up\" }\n", `profiles.toml:2: profile "dev": filesystem."/b": "up" is not`)
	// Syntax errors carry the library's line.
	wantErr(t, "[permissions.dev]\nextends = \n", "profiles.toml:2:")
	wantErr(t, "", `profiles.toml: permissions: no [permissions.<name>] table`)
	// A built-in's name is reserved.
	wantErr(t, "[permissions.\":workspace\"]\n", `profile ":workspace": a profile name may not start with ':'`)
	// Every error is reported, not only the first, in file order.
	es := parseErr(t, "[permissions.a.filesystem]\n\"x\" = \"read\"\n[permissions.b.network]\nmode = \"fast\"\n")
	if len(es) != 2 || es[0].Line != 2 || es[1].Line != 4 || es[0].Profile != "a" || es[1].Key != "network.mode" {
		t.Fatalf("got %v", es)
	}
}

// TestUnknownKeysAreErrors: a misspelt key anywhere is refused by name.
func TestUnknownKeysAreErrors(t *testing.T) {
	wantErr(t, "model = \"x\"\n[permissions.dev]\n", `profiles.toml:1: model: unknown key`)
	wantErr(t, "[permissions.dev]\nextend = \":workspace\"\n", `profiles.toml:2: profile "dev": extend: unknown key (known here: extends,`)
	wantErr(t, "[permissions.dev.network]\nenable = true\n", `profiles.toml:2: profile "dev": network.enable: unknown key`)
	wantErr(t, "[permissions.dev.environment]\ninherits = \"all\"\n", `profiles.toml:2: profile "dev": environment.inherits: unknown key`)
	wantErr(t, "[permissions.dev.process]\ntimeout = 5\n", `profiles.toml:2: profile "dev": process.timeout: unknown key`)
	wantErr(t, "[permissions.dev.approvals]\nauto_rejects = []\n", `profiles.toml:2: profile "dev": approvals.auto_rejects: unknown key`)
	// Control: the same tables with the right keys are accepted.
	if _, err := Parse("p.toml", []byte("[permissions.dev]\nextends = \":workspace\"\n[permissions.dev.network]\nenabled = true\n[permissions.dev.environment]\ninherit = \"all\"\n[permissions.dev.process]\ntimeout_cap_ms = 5\n[permissions.dev.approvals]\nauto_reject = []\n")); err != nil {
		t.Fatal(err)
	}
}

func TestNestedTokensNoneAndWarnings(t *testing.T) {
	f, err := Parse("p.toml", []byte(`[permissions.dev]
[permissions.dev.filesystem]
":minimal" = "read"
":home" = "write"
"/srv/data" = "none"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"docs" = "read"
`))
	if err != nil {
		t.Fatal(err)
	}
	fs := f.Profiles["dev"].Filesystem
	if fs[":workspace_roots"] != domain.AccessWrite || fs[":workspace_roots/docs"] != domain.AccessRead || fs["/srv/data"] != domain.AccessDeny {
		t.Fatalf("filesystem %v", fs)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], ":home") {
		t.Fatalf("warnings %v", f.Warnings)
	}
	cp, _ := domain.CompileProfile(f.Profiles, "dev", domain.ProfileEnv{Cwd: "/w"}, nil)
	// The unknown token grants nothing: /home stays denied.
	if d := cp.Explain("/home/u/x"); d.Access != domain.AccessDeny {
		t.Fatalf("unknown token widened: %+v", d)
	}
	if cp.Explain("/w/docs/a").Access != domain.AccessRead || cp.Explain("/w/a").Access != domain.AccessWrite {
		t.Fatal("nested workspace roots table not applied")
	}
	// A table under a key that is not a token is refused.
	wantErr(t, "[permissions.dev.filesystem.\"/srv\"]\n\".\" = \"read\"\n", `profiles.toml:1: profile "dev": filesystem."/srv": only a special token`)
	wantErr(t, "[permissions.dev.filesystem.\":workspace_roots\"]\n\"/abs\" = \"read\"\n", `a subpath must be relative`)
}

func TestConstraintsFile(t *testing.T) {
	set := domain.ProfileSet{"dev": {Name: "dev"}}
	c, err := ParseConstraints("c.toml", []byte("allowed_profiles = [\"dev\", \":read-only\"]\nrequired_deny = [\"~/.ssh\"]\nallowed_roots = [\"~/code\", \"/srv\"]\n"), set)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.AllowedProfiles) != 2 || c.RequiredDeny[0] != "~/.ssh" || len(c.AllowedRoots) != 2 || c.AllowedRoots[1] != "/srv" {
		t.Fatalf("%+v", c)
	}
	for src, want := range map[string]string{
		"allowed_profiles = [\"dve\"]\n":                    `c.toml:1: allowed_profiles: no profile "dve"`,
		"required_deny = [\"relative\"]\n":                  `c.toml:1: required_deny:`,
		"allowed = []\n":                                    `c.toml:1: allowed: unknown key`,
		"required_deny = \"/x\"\n":                          `must be an array of strings`,
		"allowed_profiles = [\"dev\"]\nrequired_deny = [\n": `c.toml:`,
		"allowed_roots = [\"code\"]\n":                      `c.toml:1: allowed_roots: allowed_roots "code": an absolute or ~/ path`,
		"allowed_roots = [\"/srv/*\"]\n":                    `without glob characters`,
	} {
		_, err := ParseConstraints("c.toml", []byte(src), set)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}

// FuzzParse: the decoder never panics; it returns a file or errors, and a
// file it accepts compiles and explains without panicking.
func FuzzParse(f *testing.F) {
	f.Add(readmeExample(f))
	f.Add([]byte("[permissions.dev]\nextends = \":workspace\"\n[permissions.dev.filesystem]\n\"**/*.env\" = \"deny\"\n"))
	f.Add([]byte("[permissions.a]\nextends = \"b\"\n[permissions.b]\nextends = \"a\"\n"))
	f.Add([]byte("[permissions.x.filesystem.\":workspace_roots\"]\n\".\" = \"write\"\n\"a/**/b\" = \"deny\"\n"))
	f.Add([]byte("permissions = { x = { network = { domains = { \"*.a.b\" = \"allow\" } } } }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.toml", data)
		if err != nil {
			if file != nil {
				t.Fatal("both a file and an error")
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, name := range file.Profiles.Names() {
			cp, err := domain.CompileProfile(file.Profiles, name, domain.ProfileEnv{Home: "/h", Cwd: "/w", TmpDir: "/t"}, nil)
			if err != nil {
				t.Fatalf("accepted file fails to compile %s: %v", name, err)
			}
			for _, p := range []string{"/", "/w/a/.env", "/h/.ssh/x", "/t/y"} {
				if d := cp.Explain(p); d.Access == "" {
					t.Fatalf("empty decision for %s", p)
				}
			}
			cp.Network.DecideURL("GET", "https://a.b/")
		}
	})
}

// TestSubpathsCannotLeaveTheirRoot: a subpath under a special token is
// relative and may not climb out with "..", however it is spelt; the same
// table with a plain subpath is accepted.
func TestSubpathsCannotLeaveTheirRoot(t *testing.T) {
	for _, sub := range []string{"../etc", "a/../../etc", "./../x", "a/..", ".."} {
		wantErr(t, "[permissions.dev.filesystem.\":workspace_roots\"]\n\""+sub+"\" = \"write\"\n", `profiles.toml:2: profile "dev"`, `".." is not allowed`)
	}
	for _, key := range []string{":workspace_roots/../etc", ":tmpdir/../../root", "~/../other"} {
		wantErr(t, "[permissions.dev.filesystem]\n\""+key+"\" = \"write\"\n", `profiles.toml:2: profile "dev"`, `".." is not allowed`)
	}
	f, err := Parse("p.toml", []byte("[permissions.dev.filesystem.\":workspace_roots\"]\n\"./a//b/\" = \"write\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := domain.CompileProfile(f.Profiles, "dev", domain.ProfileEnv{Cwd: "/w"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Explain("/w/a/b/c").Access != domain.AccessWrite || cp.Explain("/w/a/c").Access != domain.AccessDeny || cp.Explain("/etc/x").Access != domain.AccessDeny {
		t.Fatalf("rules %+v", cp.Rules)
	}
}

// TestDuplicateAndSmuggledKeys: TOML's own duplicate-key rule holds, a key
// spelt twice after normalisation is refused, and dotted or inline forms
// are judged like tables.
func TestDuplicateAndSmuggledKeys(t *testing.T) {
	wantErr(t, "[permissions.dev.filesystem]\n\"/a\" = \"read\"\n\"/a\" = \"write\"\n", "profiles.toml:3:")
	wantErr(t, "[permissions.dev]\nfilesystem.\"**/*.env\" = \"write\"\n", `profiles.toml:2: profile "dev": filesystem."**/*.env": a glob is allowed only with deny`)
	wantErr(t, "[permissions.dev.filesystem]\n\":workspace_roots/b\" = \"read\"\n[permissions.dev.filesystem.\":workspace_roots\"]\n\"b\" = \"write\"\n", `":workspace_roots/b" is given twice`)
	wantErr(t, "[permissions.dev.filesystem]\n\"/a\\u0000b\" = \"read\"\n", `profile "dev"`, "NUL")
}
