package main

import (
	"os/user"
	"testing"
)

// TestServerHome: "~" is $HOME; where HOME is not set, the server's
// user's passwd home (a system service without User=), never "" while
// one is known (an empty home made "~/.ssh" = "none" deny nothing: the
// hundred-and-fifty-first review).
func TestServerHome(t *testing.T) {
	t.Setenv("HOME", "/srv/home-of-test")
	if got := serverHome(); got != "/srv/home-of-test" {
		t.Errorf("with HOME set, serverHome() = %q", got)
	}
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skipf("no passwd home for this user: %v", err)
	}
	t.Setenv("HOME", "")
	if got := serverHome(); got != u.HomeDir {
		t.Errorf("with HOME unset, serverHome() = %q, want the passwd home %q", got, u.HomeDir)
	}
}
