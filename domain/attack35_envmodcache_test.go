package domain

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAttack35GoModCacheChoosesWhatRunsUnseen: 04191db made a command's
// request show the values of "the environment variables that choose what
// runs, where a program finds its configuration or what it loads" (README,
// "An approval binds what runs"), by a list of names. The restricted
// environment allow-list (every restricted mode: :read-only, :workspace)
// passes, from the request, GOMODCACHE and GOCACHE, whose values the list
// misses: they are shown as names only ("Environment: GOMODCACHE").
//
// GOMODCACHE chooses the source of every dependency the go command
// compiles: the go command checks go.sum against the cache's
// cache/download/…/vX.ziphash, never the extracted files. The agent writes
// (an auto-accepted edit) a copy of a dependency's extracted directory
// with its own code, the honest .mod and a .ziphash holding the h1 from the
// workspace's go.sum, and sends
//
//	cmd "go run ." (or "go test ./..."), env {"GOMODCACHE": "<workspace>/.m"}
//
// The person sees "Run /bin/sh -c go run ." and "Environment: GOMODCACHE",
// and allow_once runs the agent's code in place of the dependency's, with
// go.sum unchanged. GOCACHE is the same (README: "the go command reuses a
// cache entry whose output has the size the entry records", the agent's
// compiled object is linked). The premise is shown here with the real go
// command (skipped where there is none): the same workspace, the same
// go.sum, only GOMODCACHE differs, and the agent's code runs.
//
// The secure behaviour asserted: the request shows the value of a variable
// the restricted policy passes and that chooses what runs (GOMODCACHE,
// GOCACHE), as it shows GOPATH's (the control).
func TestAttack35GoModCacheChoosesWhatRunsUnseen(t *testing.T) {
	// The variables reach the command in every restricted mode.
	core := CompiledEnvironment{Inherit: InheritCore, Exclude: secretExcludes()}
	for _, name := range []string{"GOMODCACHE", "GOCACHE", "GOPATH"} {
		kv := name + "=/w/.m"
		if got := core.Apply([]string{kv}); !slices.Contains(got, kv) {
			t.Fatalf("premise: the restricted environment drops %s (%v)", name, got)
		}
	}

	if goBin, err := exec.LookPath("go"); err == nil {
		honest, agent := goModCacheRun(t, goBin)
		if !strings.Contains(honest, "honest dependency") || !strings.Contains(agent, "AGENT CODE RAN") {
			t.Fatalf("premise: GOMODCACHE did not choose the code that ran: honest %q, agent's cache %q", honest, agent)
		}
		t.Logf("same workspace and go.sum: default cache printed %q, the request's GOMODCACHE printed %q", strings.TrimSpace(honest), strings.TrimSpace(agent))
	} else {
		t.Log("no go command: the premise is not run")
	}

	env := map[string]any{"GOMODCACHE": "/w/.m", "GOCACHE": "/w/.c", "GOPATH": "/w/gopath", "A": "plain-value-1"}
	keys := []string{"A", "GOCACHE", "GOMODCACHE", "GOPATH"}
	got := envDetail(keys, env, nil)
	// Control: GOPATH's value is shown, another variable's is not.
	if !strings.Contains(got, `GOPATH="/w/gopath"`) || strings.Contains(got, "plain-value-1") {
		t.Fatalf("control: %s", got)
	}
	for _, want := range []string{`GOMODCACHE="/w/.m"`, `GOCACHE="/w/.c"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the request's Environment detail hides the value of a variable that chooses what runs: want %q, shown %q", want, got)
		}
	}
}

// goModCacheRun builds a workspace module that depends on example.com/dep
// and two module caches holding it (written as the go command writes
// them): the honest one and the agent's, whose extracted source differs.
// It returns what "go run ." prints with each.
func goModCacheRun(t *testing.T, goBin string) (honest, agent string) {
	t.Helper()
	dir := t.TempDir()
	modFile := "module example.com/dep\n\ngo 1.21\n"
	honestSrc := "package dep\n\nfunc Hello() string { return \"honest dependency\" }\n"
	agentSrc := "package dep\n\nfunc Hello() string { return \"AGENT CODE RAN\" }\n"
	hash1 := func(files map[string]string) string {
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		slices.Sort(names)
		h := sha256.New()
		for _, n := range names {
			fmt.Fprintf(h, "%x  %s\n", sha256.Sum256([]byte(files[n])), n)
		}
		return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil))
	}
	zipHash := hash1(map[string]string{"example.com/dep@v1.0.0/go.mod": modFile, "example.com/dep@v1.0.0/dep.go": honestSrc})
	modHash := hash1(map[string]string{"go.mod": modFile})
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := func(name, src string) string {
		c := filepath.Join(dir, name)
		write(filepath.Join(c, "example.com/dep@v1.0.0/go.mod"), modFile)
		write(filepath.Join(c, "example.com/dep@v1.0.0/dep.go"), src)
		write(filepath.Join(c, "cache/download/example.com/dep/@v/v1.0.0.mod"), modFile)
		write(filepath.Join(c, "cache/download/example.com/dep/@v/v1.0.0.ziphash"), zipHash)
		return c
	}
	honestCache, agentCache := cache("honest", honestSrc), cache("agent", agentSrc)
	ws := filepath.Join(dir, "ws")
	write(filepath.Join(ws, "go.mod"), "module ws\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n")
	write(filepath.Join(ws, "go.sum"), "example.com/dep v1.0.0 "+zipHash+"\nexample.com/dep v1.0.0/go.mod "+modHash+"\n")
	write(filepath.Join(ws, "main.go"), "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/dep\"\n)\n\nfunc main() { fmt.Println(dep.Hello()) }\n")
	run := func(modCache string) string {
		t.Helper()
		cmd := exec.Command(goBin, "run", ".")
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GOMODCACHE="+modCache, "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local", "GOWORK=off", "GOSUMDB=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go run with GOMODCACHE=%s: %v\n%s", modCache, err, out)
		}
		return string(out)
	}
	return run(honestCache), run(agentCache)
}
