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

// HoldsServerData reports whether the directory d holds a file a server
// writes there (ServerFileName): one of DataDirMarks, or, found among its
// entries, its read models' checkpoint or archive, plain or named after a
// store (a server run there with --token-file and --store log:DIR holds no
// mark, only those: the hundred-and-thirty-seventh review), in the forms
// it writes them (a checkpoint's temporary file, an archive moved aside as
// damaged). A directory of more than maxDataDirLinkScan entries, which
// cannot be told from a look at that many, is counted as holding some.
func HoldsServerData(d string) bool {
	for _, n := range DataDirMarks {
		if _, err := os.Lstat(filepath.Join(d, n)); err == nil {
			return true
		}
	}
	// Not os.Open: a FIFO made at the default data directory's name
	// blocked the open for good, and every turn start, spawn and decision
	// that asks with it (the hundred-and-forty-eighth review).
	f, err := openDir(d)
	if err != nil {
		return false
	}
	defer f.Close()
	for seen := 0; seen <= maxDataDirLinkScan; {
		names, err := f.Readdirnames(256)
		for _, n := range names {
			if ServerFileName(n) {
				return true
			}
		}
		if seen += len(names); err != nil {
			return false // the end (or an unreadable directory: nothing found)
		}
	}
	return true // more than maxDataDirLinkScan entries: fail closed
}

// ServerFileName reports whether n is the name of a file a server (or
// `turnstile migrate`) writes in its data directory: DataDirMarks, the
// store being migrated (events.migrating), and the read models' checkpoint
// and archive, plain (trustedNames) or named after a store
// (<hex>.readmodels.checkpoint: cmd/turnstile's checkpointPath and
// archivePath; <bolt file>.readmodels.checkpoint, an earlier version's),
// each also with the suffix of the checkpoint's temporary file (.tmp:
// writeTemp) or of an archive moved aside (.damaged: openArchive).
func ServerFileName(n string) bool {
	if slices.Contains(DataDirMarks, n) || n == "events.migrating" {
		return true
	}
	for _, suffix := range serverFileSuffixes {
		base, ok := strings.CutSuffix(n, suffix)
		if !ok {
			continue
		}
		for _, t := range trustedNames {
			if base == t || strings.HasSuffix(base, "."+t) {
				return true
			}
		}
	}
	return false
}

// serverFileSuffixes are the suffixes a server gives a read model's file
// beside its own name (cmd/turnstile's writeTemp and openArchive), the
// name itself first.
var serverFileSuffixes = []string{"", ".tmp", ".damaged"}

// DataDirSecrets returns the sensitive paths a server's data directory d
// gives every command (absolute; none for ""), as d is at the call (a
// server calls it for another's directory at each spawn: serve's runner):
// when d holds a server's data (HoldsServerData), d itself, where it
// leads, and where each symbolic link in it leads (a DATA/token or
// DATA/events linked into a workspace or a disk: masking the directory
// masks the link, not its target, which a command reached by its real
// path: the hundred-and-thirtieth review), looked for in d and its
// subdirectories' entries, at most maxDataDirLinkScan entries; when d is
// missing, d (and where it leads); when d holds none yet, the paths in it
// of DataDirMarks and of the read models' checkpoint and archive, with
// the forms a server writes them in (serverFileSuffixes): a command that
// makes one (an admin token of its choosing, which the next `serve` there
// would adopt: the same review) has it set aside after the command, while
// a directory that holds workspaces stays theirs.
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
	if !own {
		// Asked first: a decision asks this of the default data directory
		// each time, which a server given --data seldom has, and resolving
		// the missing path's links took as long again.
		if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
			return dirs // nothing lives there yet: one a command makes is set aside
		}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		dirs = append(dirs, real)
	}
	if !own && !HoldsServerData(abs) {
		var out []string
		for _, dir := range dirs {
			for _, n := range DataDirMarks {
				out = append(out, filepath.Join(dir, n))
			}
			// A checkpoint's temporary file too: the next server there
			// writes it through a link a command left (O_TRUNC, not
			// O_NOFOLLOW), then renames the link over the checkpoint.
			// One named after a store is not listed: where one is,
			// the directory holds a server's data (HoldsServerData).
			for _, n := range trustedNames {
				for _, suffix := range serverFileSuffixes {
					out = append(out, filepath.Join(dir, n+suffix))
				}
			}
		}
		return out
	}
	out := append([]string(nil), dirs...)
	scanned := 0
	var scan func(dir string, depth int)
	scan = func(dir string, depth int) {
		// Read at most what is left of the bound (os.ReadDir reads and
		// sorts the whole directory: a server looks at every spawn).
		if scanned >= maxDataDirLinkScan {
			return
		}
		f, err := openDir(dir) // not a FIFO's blocking open (HoldsServerData)
		if err != nil {
			return
		}
		ents, _ := f.ReadDir(maxDataDirLinkScan - scanned)
		f.Close()
		for _, e := range ents {
			if scanned++; scanned > maxDataDirLinkScan {
				return // a subdirectory's entries spent the bound
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
