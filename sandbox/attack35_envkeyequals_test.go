package sandbox

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack35EnvNameWithEqualsHidesPath: 04191db shows a command request's
// PATH with its value ("Environment: PATH=/w/.bin:/usr/bin"), other names
// alone. Nothing refuses a variable NAME holding '=' (api decode checks
// lengths only). The agent sends
//
//	cmd "ls", env {"PATH=": "w/.bin:/usr/bin:/bin"}
//
// The request's Environment detail shows the name "PATH=" (envShowsValue
// does not match it: the value is not shown), which reads as an empty PATH.
// planEnv joins name and value, "PATH==w/.bin:/usr/bin:/bin", and cuts at
// the first '=': the command's PATH is "=w/.bin:/usr/bin:/bin", whose first
// entry is the directory "=w/.bin" relative to the cwd, where the agent's
// ls is (an auto-accepted edit wrote it). allow_once of "Run /bin/sh -c ls"
// runs the agent's ls. The same with {"HOME=": "h"} gives the command
// HOME "=h", the agent's .gitconfig (the thirty-fourth review's fsmonitor).
//
// Control: env {"PATH": "=w/.bin:/usr/bin:/bin"} shows that value.
// The secure behaviour asserted: what the request shows of the environment
// names the value the command gets for PATH (or such a name is refused /
// does not reach the command).
func TestAttack35EnvNameWithEqualsHidesPath(t *testing.T) {
	policy := &domain.EnvironmentPolicy{AllowedVars: domain.RestrictedEnvAllowList, DeniedPatterns: domain.SecretEnvPatterns}
	shown := func(env map[string]string) string {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"cmd": "ls", "env": env})
		a, err := domain.Classify(domain.Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatalf("classify %v: %v", env, err)
		}
		for _, d := range a.Details {
			if d.Label == "Environment" {
				return d.Value
			}
		}
		t.Fatalf("no Environment detail for %v: %+v", env, a.Details)
		return ""
	}
	// Control: the variable named plainly shows its value.
	if got := shown(map[string]string{"PATH": "=w/.bin:/usr/bin:/bin"}); got != `PATH="=w/.bin:/usr/bin:/bin"` {
		t.Fatalf("control: PATH's value is not shown: %q", got)
	}

	attack := map[string]string{"PATH=": "w/.bin:/usr/bin:/bin"}
	// Fixed: the decision refuses such a name, and the plan never passes
	// one (the kernel would read it as PATH with the value "=w/.bin:…").
	raw, _ := json.Marshal(map[string]any{"cmd": "ls", "env": attack})
	if _, err := domain.Classify(domain.Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil); err == nil {
		t.Errorf("a request whose environment names %q is classified", "PATH=")
	}
	if planned := planEnv(policy, nil, attack); slices.ContainsFunc(planned, func(kv string) bool { return strings.HasPrefix(kv, "PATH=") }) {
		t.Errorf("the command's environment is %v", planned)
	}
}
