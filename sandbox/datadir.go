package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultDataDir names the data directory a turnstile server keeps by
// default: where `serve` stores its events and admin token when no --data
// is given, where the CLI's client commands read that token, and what
// `turnstile sandbox` denies its commands (cliGatewaySecrets). It is
// $STATE_DIRECTORY's first entry (systemd's), else
// $XDG_STATE_HOME/turnstile, else ~/.local/state/turnstile.
func DefaultDataDir() (string, error) {
	if d := os.Getenv("STATE_DIRECTORY"); d != "" {
		first, _, _ := strings.Cut(d, ":")
		return first, nil
	}
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "turnstile"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no data directory: set --data, XDG_STATE_HOME or HOME (%v)", err)
	}
	return filepath.Join(home, ".local", "state", "turnstile"), nil
}

// DataDirMarks are the names a server's data directory holds once `serve`
// has used it: its admin token and its embedded store (the log store's
// directory, the bolt file: cmd/turnstile's logDirName and boltFileName).
var DataDirMarks = []string{"token", "events", "events.db"}

// HoldsServerData reports whether the directory d holds one of
// DataDirMarks.
func HoldsServerData(d string) bool {
	for _, n := range DataDirMarks {
		if _, err := os.Lstat(filepath.Join(d, n)); err == nil {
			return true
		}
	}
	return false
}
