package domain

import "testing"

// TestAttack14ProfileClassNegationDeny: a profile's glob keys are matched
// with path.Match, whose negated class is "[^…]"; in the shells' and
// .gitignore's glob it is "[!…]", which path.Match reads as a class
// holding '!': "**/[!.]*.key" = "deny", every key file but hidden ones,
// denied only files whose names start with '!' or '.', so the agent read
// ws/certs/server.key. A class that starts with '!' is now a configuration
// error naming it. The control: "[^.]" denies the file, and a '!' elsewhere
// in a class ("[a!]") is a literal as before.
func TestAttack14ProfileClassNegationDeny(t *testing.T) {
	denied := func(key, p string) (bool, error) {
		return profileDenies(map[string]Access{key: AccessDeny}, p)
	}
	if d, err := denied("**/[!.]*.key", "/ws/certs/server.key"); err == nil && !d {
		t.Errorf(`"**/[!.]*.key" = deny compiled, and /ws/certs/server.key is not denied`)
	}
	// control
	if d, err := denied("**/[^.]*.key", "/ws/certs/server.key"); err != nil || !d {
		t.Errorf("control [^.]: %v %v", d, err)
	}
	if d, err := denied("**/x[a!]", "/ws/x!"); err != nil || !d {
		t.Errorf("control [a!]: %v %v", d, err)
	}
}
