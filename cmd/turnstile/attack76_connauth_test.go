package main

import (
	"testing"

	esdbc "github.com/EventStore/EventStore-Client-Go/v4/esdb"
)

// TestAttack76ConnAuthenticatesWhatTheClientSends: checkStoreAuth (the
// seventy-fifth review's fix) reads the connection string's text its own way
// (connAuthenticates), while EventStore-Client-Go parses it another: each
// string below passes the check yet leaves the client with no credential it
// sends, so the store is reached anonymously, as the unchecked string would
// have been:
//
//   - tls=false: basic-auth credentials are attached only with TLS
//     (esdb/endpoint.go), a client certificate needs TLS, and a plaintext
//     node is an --insecure one that authenticates nobody
//     (TestAttack76StoreCredentialOverPlaintextIsAnonymous in ./tests);
//   - ?password=…: not a setting of the client ("Unknown setting", ignored);
//   - "admin:@": an empty password (a templated "$PW" left unset); the
//     client sends credentials only when both are non-empty.
//
// Severity: medium on its own (an operator's mistake the check exists to
// catch, not one the agent makes), high with tls=false, which the refusal
// message's own advice produces for an --insecure store.
//
// Fix: decide from the client's own parse (esdb.ParseConnectionString, with
// kurrentdb:// read as esdb://): a credential counts only when TLS is on and
// either Username and Password are both non-empty or UserCertFile and
// UserKeyFile both are. Control: strings the client does authenticate with
// pass the check.
func TestAttack76ConnAuthenticatesWhatTheClientSends(t *testing.T) {
	sends := func(s string) bool {
		cfg, err := esdbc.ParseConnectionString(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if cfg.DisableTLS {
			return false
		}
		return cfg.Username != "" && cfg.Password != "" || cfg.UserCertFile != "" && cfg.UserKeyFile != ""
	}
	for _, s := range []string{
		"esdb://admin:changeit@h:2113?tls=true",
		"esdb://h:2113?tls=true&userCertFile=/c/u.crt&userKeyFile=/c/u.key",
	} {
		if !sends(s) || checkStoreAuth(s, false) != nil {
			t.Fatalf("control: %s authenticates (client: %v) and must pass the check (%v)", s, sends(s), checkStoreAuth(s, false))
		}
	}
	for _, s := range []string{
		"esdb://admin:changeit@h:2113?tls=false",
		"esdb://h:2113?tls=false&userCertFile=/c/u.crt&userKeyFile=/c/u.key",
		"esdb://admin@h:2113?tls=true&password=changeit",
		"esdb://admin:@h:2113?tls=true",
	} {
		if sends(s) {
			t.Fatalf("premise: the client sends a credential for %s", s)
		}
		if checkStoreAuth(s, false) == nil {
			t.Errorf("checkStoreAuth takes %s as naming a client credential, but the client connects with none", s)
		}
	}
}
