package domain

import (
	"strings"
	"testing"
)

// TestAttack44SecretShownInCommonUses: exposedVars shows a secret-named
// value wherever the text expands it other than where credentialAt sees
// a credential's place. Common, honest uses of a credential are none of
// those places, and the real secret is written to the approval request
// (and the audit record) in clear:
//
//	echo "$DOCKER_PASSWORD" | docker login -u me --password-stdin registry.example
//	printf %s "$API_TOKEN" | gh auth login --with-token
//	mysql -u app -p"$DB_PASSWORD" -h db.example
//	curl -sS "https://api.example/v1?key=$API_KEY"
//	test -n "$API_TOKEN" && curl -H "Authorization: Bearer $API_TOKEN" …
//
// with the value in the exec_command's env (the Environment detail shows
// it), or assigned in the text. Over-showing is the lesser failure (the
// command's effect is in view), but each leaks a live credential.
//
// Control: the value still decides where it writes in view
// (cp .env "$API_TOKEN"). The behaviour asserted: the secret is hidden.
func TestAttack44SecretShownInCommonUses(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := shownExec(t, map[string]any{"cmd": `cp .env "$API_TOKEN"`, "env": map[string]any{"API_TOKEN": v}}); !strings.Contains(s, v) {
		t.Fatalf("control: a destination is hidden:\n%s", s)
	}
	for _, c := range []map[string]any{
		{"cmd": `echo "$DOCKER_PASSWORD" | docker login -u me --password-stdin registry.example`, "env": map[string]any{"DOCKER_PASSWORD": v}},
		{"cmd": `DOCKER_PASSWORD=` + v + `; echo "$DOCKER_PASSWORD" | docker login -u me --password-stdin registry.example`},
		{"cmd": `printf %s "$API_TOKEN" | gh auth login --with-token`, "env": map[string]any{"API_TOKEN": v}},
		// mysql -p"$PW" is shown since the forty-sixth review: curl -p"$T" reads -po… as -p -o ….
		{"cmd": `curl -sS "https://api.example/v1?key=$API_KEY"`, "env": map[string]any{"API_KEY": v}},
		{"cmd": `test -n "$API_TOKEN" && curl -sS -H "Authorization: Bearer $API_TOKEN" https://api.example/`, "env": map[string]any{"API_TOKEN": v}},
	} {
		if s := shownExec(t, c); strings.Contains(s, v) {
			t.Errorf("%s\nuses the secret as a credential, and the approval request shows it:\n%s", c["cmd"], s)
		}
	}
}
