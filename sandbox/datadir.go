package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// DataDirSecrets returns the sensitive paths a server's data directory d
// gives every command (absolute; none for ""): when d holds a server's
// data, d itself, where it leads, and where each symbolic link in it leads
// (a DATA/token or DATA/events linked into a workspace or a disk: masking
// the directory masks the link, not its target, which a command reached by
// its real path: the hundred-and-thirtieth review), looked for in d and
// its subdirectories' entries, at most maxDataDirLinkScan entries; when d
// holds none yet, the paths of DataDirMarks in it (and where d leads): a
// command that makes one (an admin token of its choosing, which the next
// `serve` there would adopt: the same review) has it set aside after the
// command, while a directory that holds workspaces stays theirs.
func DataDirSecrets(d string) []string { return dataDirSecrets(d, false) }

// OwnDataDirSecrets is DataDirSecrets for a server's own data directory,
// which is its data whatever it holds yet (with --token-file or a store
// elsewhere it may hold no mark at the start, and its read models'
// checkpoint and archive later: the hundred-and-thirty-second review).
func OwnDataDirSecrets(d string) []string { return dataDirSecrets(d, true) }

func dataDirSecrets(d string, own bool) []string {
	if d == "" {
		return nil
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return nil
	}
	dirs := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		dirs = append(dirs, real)
	}
	if !own && !HoldsServerData(abs) {
		if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
			return dirs // nothing lives there yet: one a command makes is set aside
		}
		var out []string
		for _, dir := range dirs {
			for _, n := range append(DataDirMarks, trustedNames...) {
				out = append(out, filepath.Join(dir, n))
			}
			// And a server's checkpoint and archive named by a hash of
			// its store (`--store` elsewhere: another server's turns,
			// the hundred-and-thirty-fifth review).
			ents, _ := os.ReadDir(dir)
			for _, e := range ents[:min(len(ents), maxDataDirLinkScan)] {
				if n := e.Name(); strings.HasSuffix(n, ".readmodels.checkpoint") || strings.HasSuffix(n, ".readmodels.archive") {
					out = append(out, filepath.Join(dir, n))
				}
			}
		}
		return out
	}
	out := append([]string(nil), dirs...)
	scanned := 0
	var scan func(dir string, depth int)
	scan = func(dir string, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if scanned++; scanned > maxDataDirLinkScan {
				return
			}
			p := filepath.Join(dir, e.Name())
			switch {
			case e.Type()&os.ModeSymlink != 0:
				if real, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(out, real) {
					out = append(out, real)
				}
			case e.IsDir() && depth < 2:
				scan(p, depth+1)
			}
		}
	}
	scan(abs, 1)
	return out
}

// trustedNames are other names a server reads in its data directory: its
// read models' checkpoint and archive (a forged one would be restored as
// history).
var trustedNames = []string{"readmodels.checkpoint", "readmodels.archive"}

// maxDataDirLinkScan bounds the entries DataDirSecrets looks at for links
// (the log store keeps a few files a segment).
const maxDataDirLinkScan = 4096
