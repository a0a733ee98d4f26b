package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConnPassword: a password in a connection string's userinfo or as a
// parameter is found; a user alone, hosts and other parameters are not
// one.
func TestConnPassword(t *testing.T) {
	for s, want := range map[string]bool{
		"esdb://u:p@h:2113?tls=false":                true,
		"esdb+discover://u:p@a:2113,b:2113":          true,
		"kurrentdb://h:2113?Password=x":              true,
		"esdb://u@h:2113?tls=false":                  false,
		"esdb://h:2113?tls=true&tlsCAFile=/c/ca.pem": false,
		"esdb://h:2113/?userKeyFile=/k@x:y":          false,
		"bolt:/var/lib/x:y@z":                        false,
	} {
		if got := connPassword(s); got != want {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
	sec, trusted := connFiles("esdb://h:2113?tls=true&tlsCAFile=/c/ca.pem&userCertFile=/c/u.crt&UserKeyFile=/c/u.key")
	slices.Sort(sec)
	if !slices.Equal(sec, []string{"/c/u.crt", "/c/u.key"}) || !slices.Equal(trusted, []string{"/c/ca.pem"}) {
		t.Fatalf("connFiles: %v %v", sec, trusted)
	}
}

// TestResolveStore: --store-file (mode 0600) and TURNSTILE_STORE give the
// string; a --store with a password, both flags, a loose or empty file
// are refused with a message that does not show the password.
func TestResolveStore(t *testing.T) {
	dir := t.TempDir()
	conn := "esdb://u:pw-secret@h:2113?tls=false"
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := func(string) string { return conn }
	none := func(string) string { return "" }
	f := serveFlags{storeFile: write("ok", conn+"\n", 0o600)}
	if err := resolveStore(&f, none); err != nil || f.store != conn {
		t.Fatalf("store file: %v %q", err, f.store)
	}
	f = serveFlags{}
	if err := resolveStore(&f, env); err != nil || f.store != conn {
		t.Fatalf("env: %v %q", err, f.store)
	}
	f = serveFlags{store: "esdb://h:2113?tls=false"}
	if err := resolveStore(&f, env); err != nil || f.store != "esdb://h:2113?tls=false" {
		t.Fatalf("a --store without a password is kept (and wins over the environment): %v %q", err, f.store)
	}
	for what, f := range map[string]serveFlags{
		"password":   {store: conn},
		"both":       {store: "bolt:/x", storeFile: write("b", conn, 0o600)},
		"loose file": {storeFile: write("l", conn, 0o644)},
		"empty file": {storeFile: write("e", "\n", 0o600)},
		"two lines":  {storeFile: write("t", conn+"\nx\n", 0o600)},
	} {
		err := resolveStore(&f, none)
		if err == nil || strings.Contains(err.Error(), "pw-secret") {
			t.Errorf("%s: %v", what, err)
		}
	}
}

// TestCheckStoreAuth: a remote store whose client, as it parses the
// connection string, sends no credential is refused unless
// --store-unauthenticated (the seventy-fifth and seventy-sixth reviews);
// one the client authenticates to over TLS, and the embedded stores, are
// taken.
func TestCheckStoreAuth(t *testing.T) {
	for conn, refused := range map[string]bool{
		"esdb://h:2113?tls=false":                                           true,
		"kurrentdb+discover://c.example:2113":                               true,
		"esdb://u@h:2113?tls=true":                                          true,
		"esdb://h:2113?tls=true&userCertFile=/c/u.crt":                      true,
		"esdb://u:p@h:2113?tls=false":                                       true,
		"esdb://h:2113?username=u&password=p":                               true,
		"esdb://u:p@h:2113?tls=true":                                        false,
		"kurrentdb://u:p@h:2113":                                            false,
		"esdb://h:2113?tls=true&userCertFile=/c/u.crt&UserKeyFile=/c/u.key": false,
		"":              false,
		"log:/x/events": false,
		"bolt:/x/e.db":  false,
	} {
		err := checkStoreAuth(conn, false)
		if (err != nil) != refused {
			t.Errorf("checkStoreAuth(%q) = %v, want refused %v", conn, err, refused)
		}
		if err != nil && (strings.Contains(err.Error(), ":p@") || !strings.Contains(err.Error(), "--store-unauthenticated")) {
			t.Errorf("checkStoreAuth(%q): %v", conn, err)
		}
		if err := checkStoreAuth(conn, true); err != nil {
			t.Errorf("checkStoreAuth(%q, unauthenticated) = %v, want taken", conn, err)
		}
	}
}
