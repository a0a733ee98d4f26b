package domain

import (
	"strings"
	"testing"
)

// TestAttack36CredentialProviderProgramHidden: b86d9ce shows, for profiles
// that pass more than a restricted mode, the values of the CARGO_ variables
// (they choose what runs), "unless the name marks a secret". Cargo's
// CARGO_REGISTRY_CREDENTIAL_PROVIDER (and CARGO_REGISTRIES_<name>_
// CREDENTIAL_PROVIDER) holds no secret: it names the program cargo runs to
// get one (a path to an executable is a provider), yet "credential" marks
// the name a secret and "provider" is no reference suffix, so the request
// shows the bare name while `cargo publish` runs the agent's program.
// Control: the same program under a *_COMMAND name is shown.
func TestAttack36CredentialProviderProgramHidden(t *testing.T) {
	const prog = "/w/.bin/provide"
	ctl := envDetail([]string{"RESTIC_PASSWORD_COMMAND"}, map[string]any{"RESTIC_PASSWORD_COMMAND": prog}, nil)
	if !strings.Contains(ctl, prog) {
		t.Fatalf("control: a password command is not shown: %q", ctl)
	}
	for _, k := range []string{"CARGO_REGISTRY_CREDENTIAL_PROVIDER", "CARGO_REGISTRIES_CORP_CREDENTIAL_PROVIDER"} {
		if got := envDetail([]string{k}, map[string]any{k: prog}, nil); !strings.Contains(got, prog) {
			t.Errorf("the program cargo runs is hidden: the request shows %q", got)
		}
	}
}
