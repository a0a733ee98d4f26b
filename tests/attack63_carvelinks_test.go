package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkSetup63 starts a server with the given profiles (all allowed) on a
// fresh workspace holding ws/<dir>/db.key and ws/app/main.go, the link
// ws/<link> -> <dir>, and the turns (id, profile) on it.
func linkSetup63(t *testing.T, dir, link, profiles string, turns ...[2]string) vaultSetup {
	t.Helper()
	root := workspace(t)
	orig := "s3cret\n"
	secret := filepath.Join(root, dir, "db.key")
	makeFiles(t, orig, secret, filepath.Join(root, "app", "main.go"))
	if err := os.Symlink(dir, filepath.Join(root, link)); err != nil {
		t.Fatal(err)
	}
	d := t.TempDir()
	pf, cf := filepath.Join(d, "profiles.toml"), filepath.Join(d, "constraints.toml")
	if err := os.WriteFile(pf, []byte(profiles), 0o600); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(profiles, "\n") {
		if strings.HasPrefix(l, "[permissions.") && strings.Count(l, ".") == 1 {
			names = append(names, `"`+strings.TrimSuffix(strings.TrimPrefix(l, "[permissions."), "]")+`"`)
		}
	}
	if err := os.WriteFile(cf, []byte("allowed_profiles = ["+strings.Join(names, ", ")+"]\nallowed_roots = [\""+root+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", pf, "--constraints", cf)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	v := vaultSetup{root: root, secret: secret, orig: orig, admin: s, runtime: runtime}
	v.exec = func(turn, id, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/"+turn+"/exec", map[string]any{"tool_call_id": id, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		t.Logf("%s/%s: %d %s", turn, id, st, raw)
		return string(raw)
	}
	v.patch = map[string]any{"patch": "*** Begin Patch\n*** Update File: " + secret + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	for _, tn := range turns {
		startTurn63(v, tn[0], tn[1])
	}
	return v
}

func startTurn63(v vaultSetup, id, profile string) {
	v.runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
		"permission_profile": map[string]any{"profile": profile}, "workspace_root": v.root, "cwd": v.root}, 201, nil)
}
