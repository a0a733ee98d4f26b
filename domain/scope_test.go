package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// referenceHash is REFERENCE §3 done the obvious way: encoding/json of a
// map (which sorts keys), HTML escaping off, SHA-256, lowercase hex.
func referenceHash(t interface{ Fatal(...any) }, m map[string]string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return hex.EncodeToString(sum[:])
}

func TestScopeHashIsCanonicalJSONSHA256(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := rapid.MapOf(rapid.String(), rapid.String()).Draw(t, "entries")
		var es []ScopeEntry
		for k, v := range m {
			es = append(es, ScopeEntry{k, v})
		}
		perm := rapid.Permutation(es).Draw(t, "order")
		got := NewScope(perm...).Hash()
		if want := referenceHash(t, m); got != want {
			t.Fatalf("hash %s, want %s for %q", got, want, m)
		}
		if NewScope(es...).Hash() != got {
			t.Fatal("hash depends on entry order")
		}
	})
}

func TestScopeNeverHoldsSecrets(t *testing.T) {
	a := mustClassify(t, Invocation{ToolName: "web_fetch", Arguments: json.RawMessage(
		`{"url":"https://alice:hunter2@Example.COM./a/b?token=s3cret#frag","method":"post"}`)}, "/w")
	js := string(a.Scope.CanonicalJSON())
	for _, secret := range []string{"alice", "hunter2", "s3cret", "token", "frag"} {
		if strings.Contains(js, secret) {
			t.Fatalf("scope holds %q: %s", secret, js)
		}
	}
	for k, want := range map[string]string{"method": "POST", "scheme": "https", "domain": "example.com",
		"url_origin": "https://example.com", "url_path": "/a/b"} {
		if got, _ := a.Scope.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if h, _ := a.Scope.Get("url_full_hash"); len(h) != 64 {
		t.Errorf("url_full_hash %q", h)
	}
	port := mustClassify(t, Invocation{ToolName: "web_fetch", Arguments: json.RawMessage(`{"url":"https://example.com:8443/"}`)}, "/w")
	if o, _ := port.Scope.Get("url_origin"); o != "https://example.com:8443" {
		t.Errorf("origin with written port: %q", o)
	}
	e := mustClassify(t, Invocation{ToolName: "exec_command", Arguments: json.RawMessage(
		`{"cmd":"make deploy","workdir":"../x/./y","env":{"DEPLOY_KEY":"v4lue","A":"b"},"timeout_ms":5000,"tty":true}`)}, "/w/repo")
	js = string(e.Scope.CanonicalJSON())
	if strings.Contains(js, "v4lue") {
		t.Fatalf("env value hashed in clear: %s", js)
	}
	for k, want := range map[string]string{"env_keys": `["A","DEPLOY_KEY"]`, "cwd": "/w/x/y", "tty": "true",
		"timeout_ms": "5000", "command": "make deploy", "argv": `["/bin/sh","-c","make deploy"]`} {
		if got, _ := e.Scope.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	p := mustClassify(t, sampleInvocations[ActionFileWrite], "/w")
	if strings.Contains(string(p.Scope.CanonicalJSON()), "+y") {
		t.Fatal("patch content in the scope")
	}
}

func TestPayloadHashIgnoresKeyOrder(t *testing.T) {
	a := mustClassify(t, Invocation{ToolName: "task_create", Arguments: json.RawMessage(`{"a":1,"b":[1,2]}`)}, "/")
	b := mustClassify(t, Invocation{ToolName: "task_create", Arguments: json.RawMessage(`{ "b":[1,2], "a":1 }`)}, "/")
	c := mustClassify(t, Invocation{ToolName: "task_create", Arguments: json.RawMessage(`{"a":2,"b":[1,2]}`)}, "/")
	if a.ScopeHash != b.ScopeHash || a.ScopeHash == c.ScopeHash {
		t.Fatal("payload hash must follow the value, not the formatting")
	}
}

// TestGrantNeverAllowsAnotherScope: for random pairs of invocations, a
// grant for one allows the other only when their scopes are identical.
func TestGrantNeverAllowsAnotherScope(t *testing.T) {
	s := testSnapshot(t, ModeSupervised)
	tools := []string{"read_file", "apply_patch", "exec_command", "web_fetch", "download_url", "web_search", "mcp__gh__push", "task_create", "frobnicate"}
	gen := rapid.Custom(func(t *rapid.T) Invocation {
		tool := rapid.SampledFrom(tools).Draw(t, "tool")
		path := rapid.SampledFrom([]string{"a", "b", "../a", "/etc/x"}).Draw(t, "path")
		host := rapid.SampledFrom([]string{"example.com", "example.com:8443", "badexample.com", "sub.example.com"}).Draw(t, "host")
		args := map[string]any{
			"path": path, "patch": "*** Update File: " + path + "\n", "cmd": []string{"ls", path},
			"url": "https://" + host + "/" + path, "destination": path, "query": path, "x": path,
		}
		raw, _ := json.Marshal(args)
		return Invocation{ToolName: tool, Arguments: raw}
	})
	rapid.Check(t, func(rt *rapid.T) {
		x, y := gen.Draw(rt, "x"), gen.Draw(rt, "y")
		ax, err1 := Classify(x, "/w", nil)
		ay, err2 := Classify(y, "/w", nil)
		if err1 != nil || err2 != nil {
			rt.Skip("invalid")
		}
		grants := GrantSet{GrantFor(s.PermissionProfile.Mode, &ax): {}}
		d := Evaluate(&s, &ay, grants)
		same := ax.ToolName == ay.ToolName && bytes.Equal(ax.Scope.CanonicalJSON(), ay.Scope.CanonicalJSON())
		if d.Cached && !same {
			rt.Fatalf("grant for %s %s allowed %s %s", ax.ToolName, ax.Scope.CanonicalJSON(), ay.ToolName, ay.Scope.CanonicalJSON())
		}
		if same && ay.Kind != ActionFileRead && !d.Cached {
			rt.Fatalf("identical scope not matched by its grant: %+v", d)
		}
	})
}

func TestCleanPath(t *testing.T) {
	cases := map[string]string{
		"/": "/", "": "/", "/a/b": "/a/b", "/a/./b/": "/a/b", "/a/../../..": "/", "//a//b": "/a/b",
		"/a/b/../c": "/a/c", "/..": "/", "/a/..b": "/a/..b", "/a/.b/.": "/a/.b", "a/b": "/a/b",
	}
	for in, want := range cases {
		if got := CleanPath(in); got != want {
			t.Errorf("CleanPath(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ResolvePath("/w/repo", "../../../../etc/passwd"); got != "/etc/passwd" {
		t.Errorf("ResolvePath climbs: %q", got)
	}
	if PathWithin("/w/repository", "/w/repo") || !PathWithin("/w/repo/x", "/w/repo") || !PathWithin("/x", "/") {
		t.Error("PathWithin boundary")
	}
}

func FuzzResolvePath(f *testing.F) {
	for _, s := range []string{"", ".", "..", "../../..", "a/./b", "/etc/../..", "//x//", "a/..b/...", "\x00/.."} {
		f.Add("/w/repo", s)
	}
	f.Fuzz(func(t *testing.T, cwd, p string) {
		got := ResolvePath(CleanPath(cwd), p)
		if !strings.HasPrefix(got, "/") {
			t.Fatalf("not absolute: %q", got)
		}
		for seg := range strings.SplitSeq(got, "/") {
			if seg == ".." || seg == "." {
				t.Fatalf("not normalised: %q", got)
			}
		}
		if got != "/" && (strings.HasSuffix(got, "/") || strings.Contains(got, "//")) {
			t.Fatalf("not clean: %q", got)
		}
		if CleanPath(got) != got {
			t.Fatalf("not idempotent: %q", got)
		}
	})
}

func FuzzClassify(f *testing.F) {
	for _, inv := range sampleInvocations {
		f.Add(inv.ToolName, string(inv.Arguments))
	}
	f.Add("download_url", `{"url":"http://[::1]:80/x","destination":"../../.."}`)
	f.Add("exec_command", `{"cmd":[1,2]}`)
	f.Add("web_fetch", `{"url":"%zz"}`)
	f.Add("apply_patch", `{"patch":"*** Add File: ../../../../x\n"}`)
	f.Add("apply_patch", `{"patch":"--- a/x\n+++ b/../y\n@@ -1,2 +1 @@\n--- a/z\n-q\n"}`)
	f.Fuzz(func(t *testing.T, tool, args string) {
		a, err := Classify(Invocation{ToolName: tool, Arguments: json.RawMessage(args)}, "/w/repo", nil)
		if err != nil {
			return
		}
		if len(a.ScopeHash) != 64 {
			t.Fatalf("scope hash %q", a.ScopeHash)
		}
		for _, f := range a.Files {
			if !strings.HasPrefix(f.Path, "/") || CleanPath(f.Path) != f.Path {
				t.Fatalf("unnormalised path %q", f.Path)
			}
		}
	})
}

func TestRedaction(t *testing.T) {
	cases := map[string]bool{
		"/root/.ssh/id_ed25519": true, "/home/a/.aws/credentials": true, "/w/repo/.env": true, "/w/repo/.env.local": true,
		"/w/repo/src/env.go": false, "/w/repo/.environment/x": false, "/w/sshd/config": false,
	}
	for p, secret := range cases {
		got := RedactPath(p)
		if secret && (got == p || strings.Contains(got, "id_ed25519") || strings.Contains(got, "credentials") || strings.HasSuffix(got, ".env.local")) {
			t.Errorf("RedactPath(%q) = %q", p, got)
		}
		if !secret && got != p {
			t.Errorf("RedactPath(%q) = %q, want unchanged", p, got)
		}
	}
	a := mustClassify(t, Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":"cat /root/.ssh/id_rsa > out.txt"}`)}, "/w")
	r := a.Redacted()
	if strings.Contains(string(r.Scope.CanonicalJSON()), "id_rsa") || strings.Contains(r.Summary, "id_rsa") || r.ScopeHash != a.ScopeHash {
		t.Fatalf("redacted action leaks: %s %q", r.Scope.CanonicalJSON(), r.Summary)
	}
	f := mustClassify(t, Invocation{ToolName: "read_file", Arguments: json.RawMessage(`{"path":".ssh/config"}`)}, "/root")
	if fr := f.Redacted(); strings.Contains(fr.Files[0].Path, "config") || strings.Contains(fr.Details[0].Value, "config") {
		t.Fatalf("file path leaks: %+v", fr)
	}
}

func TestScopeJSONIsCanonicalObject(t *testing.T) {
	a := mustClassify(t, sampleInvocations[ActionShellCommand], "/w")
	b, err := json.Marshal(a.Scope)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != a.ScopeHash {
		t.Fatalf("stored scope %s does not hash to the scope hash", b)
	}
	var back Scope
	if err := json.Unmarshal(b, &back); err != nil || back.Hash() != a.ScopeHash {
		t.Fatalf("round trip: %v %v", back, err)
	}
}
