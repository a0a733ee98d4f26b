package domain

import (
	"strings"
	"testing"
)

// TestAttack194_EnvironWordShowsCredentials: readsIndirectly (this
// session's change) takes "environ", "getenv" and "ENV." as a program's
// reading of the environment wherever they stand in the command's text,
// and then every secret-named variable's value is shown (exposedAll).
// They are also plain words of ordinary commands: an "environments" API
// path (gh api repos/o/r/environments), a variable or label named
// environment (terraform -var environment=prod, kubectl -l
// environment=prod), a file or key named ENV.something, a program named
// getenvoy. Such a command, run with a password or a token that is not
// token-shaped in its environment (DB_PASSWORD, GH_TOKEN), has them shown
// in clear in the approval request and its recorded event, though nothing
// in it reads the environment by name or uses the value as a host, a path
// or a program. (Token-shaped values, ghp_…, stay hidden on other
// grounds.) Controls: the same environment with a command of no such word
// keeps both hidden; a program that does read the environment
// (os.environ) still has them shown.
func TestAttack194_EnvironWordShowsCredentials(t *testing.T) {
	const v = "s3cretPassw0rdQ9x7"
	env := map[string]any{"GH_TOKEN": v, "DB_PASSWORD": v}
	// Controls.
	if s := shownExec(t, map[string]any{"argv": []string{"gh", "api", "repos/o/r/actions/secrets"}, "env": env}); strings.Contains(s, v) {
		t.Fatalf("control: the credentials are shown for a command that reads no environment:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"argv": []string{"python3", "-c", "import os; print(os.environ)"}, "env": env}); !strings.Contains(s, v) {
		t.Fatalf("control: a program reading os.environ has the values hidden (the judgement changed):\n%s", s)
	}
	for _, argv := range [][]string{
		{"gh", "api", "repos/o/r/environments"},
		{"terraform", "plan", "-var", "environment=prod"},
		{"kubectl", "get", "pods", "-l", "environment=prod"},
		{"make", "deploy", "ENV.name=staging"},
		{"getenvoy", "run", "standard:1.17.0"},
	} {
		if s := shownExec(t, map[string]any{"argv": argv, "env": env}); strings.Contains(s, v) {
			t.Errorf("%q reads no environment by name, and its credentials are shown in clear:\n%s", argv, s)
		}
	}
	// The same as a Bash tool's command.
	cmd := "export DB_PASSWORD=" + v + `; psql "postgres://app:$DB_PASSWORD@db.internal/app" -c 'select * from environments'`
	ctl := "export DB_PASSWORD=" + v + `; psql "postgres://app:$DB_PASSWORD@db.internal/app" -c 'select * from deployments'`
	if s := attack42ShownBash(t, ctl); strings.Contains(s, v) {
		t.Fatalf("control: the password is shown:\n%s", s)
	}
	if s := attack42ShownBash(t, cmd); strings.Contains(s, v) {
		t.Errorf("a query of a table named environments shows the password in clear:\n%s", s)
	}
}
