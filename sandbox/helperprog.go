package sandbox

import (
	_ "unsafe" // go:linkname: earlyFingerprint

	"bytes"
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// HelperProgram is the file name of the lean sandbox helper
// (cmd/turnstile-sandbox). When a verified copy sits next to the running
// binary, Run and Probe start it instead of re-executing the running binary:
// it links only this package, domain and x/sys, so it starts in about a
// millisecond instead of paying for the server's packages (gRPC, protobuf,
// Prometheus, net/http and the cgo resolver) on every spawn.
const HelperProgram = "turnstile-sandbox"

// fingerprintArg makes the helper print its fingerprint (see fingerprint).
const fingerprintArg = "__turnstile-sandbox-fingerprint"

// selfExe is the program started when no lean helper is used.
const selfExe = "/proc/self/exe"

// pinnedFDMin is the lowest descriptor a verified helper is pinned at: above
// the descriptors a child receives (ExtraFiles start at 3), which the child
// overwrites before its execve resolves /proc/self/fd/N.
const pinnedFDMin = 100

// sandboxSource holds this package's Go files for the fingerprint.
//
//go:embed *.go
var sandboxSource embed.FS

// helperProg is the program Run and Probe start as the helper.
type helperProg struct {
	// path is what the child executes: /proc/self/fd/N (the lean helper,
	// pinned by descriptor so that the file checked is the file run) or
	// /proc/self/exe.
	path string
	// argv0 is the child's argv[0].
	argv0 string
	// file is the helper's file name, for doctor.
	file string
	// lean is true for the lean helper.
	lean bool
	// verified is true once the helper's fingerprint matched this binary's
	// (always true for the running binary itself).
	verified bool
	// note says why the lean helper is not used (empty when it is).
	note string
	// fd is the pinned descriptor of the lean helper, or -1.
	fd int
	// dynamic is true unless the program is a static ELF executable (no
	// interpreter), and linkage says how it is linked (helperstatic.go).
	dynamic bool
	linkage string
	// candidate is the lean helper file this process looked at, used or
	// refused (""): the file the next start pins, kept read-only and
	// watched for other links like the server's own files (ownprogs.go).
	candidate string
}

var (
	helperMu sync.Mutex
	// helperCur is the located helper, nil until first needed; a lean one
	// is used by Run only once verified. Guarded by helperMu.
	helperCur *helperProg
)

// currentHelper returns the helper program Run starts: the lean helper once
// its fingerprint matched (verifying it with one run when Probe has not
// already done so), else the running binary.
func currentHelper() *helperProg {
	helperMu.Lock()
	defer helperMu.Unlock()
	if helperCur == nil {
		helperCur = locateHelper(siblingHelperPath())
	}
	if !helperCur.verified {
		got, err := runFingerprint(helperCur.path)
		settleHelperLocked(got, err)
	} else if helperCur.lean {
		// Checked again at every spawn: a link made since the file was
		// pinned would let it be rewritten between two spawns.
		if reason := helperFileProblem(helperCur.fd); reason != "" {
			unix.Close(helperCur.fd)
			candidate := helperCur.candidate
			helperCur = selfHelper(fmt.Sprintf("%s refused: %s", helperCur.file, reason))
			helperCur.candidate = candidate
		}
	}
	return helperCur
}

// probeHelper returns the helper the namespace probe starts: possibly a lean
// helper not yet verified; the probe child reports its fingerprint and
// Probe settles it (settleHelper), so that verification costs no extra run.
func probeHelper() helperProg {
	helperMu.Lock()
	defer helperMu.Unlock()
	if helperCur == nil {
		helperCur = locateHelper(siblingHelperPath())
	}
	return *helperCur
}

// settleHelper records the fingerprint the lean helper at path reported
// (or the error that kept it from reporting one) and returns whether that
// helper is now used: a mismatch or an error falls back to the running
// binary for the rest of the process (and returns false).
func settleHelper(path, got string, err error) bool {
	helperMu.Lock()
	defer helperMu.Unlock()
	if helperCur == nil || helperCur.path != path || helperCur.verified {
		return helperCur != nil && helperCur.path == path && helperCur.verified
	}
	settleHelperLocked(got, err)
	return helperCur.path == path // still the lean helper: it matched
}

func settleHelperLocked(got string, err error) {
	h := helperCur
	switch {
	case err != nil:
		h.note = fmt.Sprintf("%s refused: it did not report a fingerprint: %v", h.file, err)
	case got != fingerprint():
		h.note = fmt.Sprintf("%s refused: built from other sandbox or domain code (fingerprint %.12s, this binary %.12s)", h.file, got, fingerprint())
	default:
		h.verified = true
		return
	}
	unix.Close(h.fd)
	helperCur = selfHelper(h.note)
	helperCur.candidate = h.candidate
}

// HelperDescription says which helper program this process starts and, when
// it is not the lean one, why (doctor prints it).
func HelperDescription() string {
	h := currentHelper()
	if h.lean {
		return "lean helper " + h.file + " (same sandbox and domain code, owned by root or this user, not writable by group or others, " + h.linkage + ")"
	}
	return "this binary re-executed (" + h.file + "): " + h.note + "; it is " + h.linkage
}

// siblingHelperPath is HelperProgram in the directory of the running
// binary (symlinks resolved), or "" when the binary cannot be found.
func siblingHelperPath() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if e, err := filepath.EvalSymlinks(exe); err == nil {
		exe = e
	}
	return filepath.Join(filepath.Dir(exe), HelperProgram)
}

// selfHelper is the fallback: the running binary re-executed.
func selfHelper(note string) *helperProg {
	file, err := os.Executable()
	if err != nil {
		file = selfExe
	}
	dynamic, linkage := fileLinkage(selfExe)
	return &helperProg{path: selfExe, argv0: os.Args[0], file: file, verified: true, note: note, fd: -1, dynamic: dynamic, linkage: linkage}
}

// locateHelper opens candidate without following a symlink, checks that it
// is a regular executable file owned by root or by this process's user and
// not writable by group or others, and pins it at a descriptor. The result
// is not verified yet: its fingerprint is compared before Run uses it. Any
// failure falls back to the running binary (slower, never weaker) and says
// why. The result names candidate, used or not.
func locateHelper(candidate string) *helperProg {
	h := locateHelperFile(candidate)
	h.candidate = candidate
	return h
}

// locateHelperFile is locateHelper without the candidate's name.
func locateHelperFile(candidate string) *helperProg {
	const hint = "; build it next to this binary (go build -o DIR ./cmd/turnstile ./cmd/turnstile-sandbox) for faster spawns"
	if candidate == "" {
		return selfHelper("the running binary's path is unknown" + hint)
	}
	fd, err := unix.Open(candidate, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT {
			return selfHelper("no " + candidate + hint)
		}
		return selfHelper(fmt.Sprintf("%s cannot be opened: %v%s", candidate, err, hint))
	}
	if reason := helperFileProblem(fd); reason != "" {
		unix.Close(fd)
		return selfHelper(fmt.Sprintf("%s refused: %s", candidate, reason))
	}
	pinned, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, pinnedFDMin)
	unix.Close(fd)
	if err != nil {
		return selfHelper(fmt.Sprintf("%s cannot be pinned: %v", candidate, err))
	}
	path := "/proc/self/fd/" + strconv.Itoa(pinned)
	dynamic, linkage := fileLinkage(path) // the pinned file: what runs
	return &helperProg{path: path, argv0: HelperProgram, file: candidate, lean: true, fd: pinned, dynamic: dynamic, linkage: linkage}
}

// helperFileProblem says what is wrong with the opened helper file, or "".
func helperFileProblem(fd int) string {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err.Error()
	}
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return "it is a symlink"
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "not a regular file"
	case st.Mode&0o111 == 0:
		return "not executable"
	case st.Uid != 0 && int(st.Uid) != os.Geteuid():
		return fmt.Sprintf("owned by uid %d, neither root nor this process's user", st.Uid)
	case st.Mode&0o022 != 0:
		return fmt.Sprintf("writable by group or others (mode %#o)", st.Mode&0o7777)
	case st.Nlink > 1:
		// The file, not its path, is what runs: its other names are not
		// kept read-only (withOwnPrograms, protectOwnProgram guard this
		// one), and a command that can write one rewrites the helper.
		return fmt.Sprintf("it has %d hard links, and the file could be written through another", st.Nlink)
	}
	return ""
}

// fingerprintRuns counts runFingerprint calls (runs of a helper only to read
// its fingerprint), for tests.
var fingerprintRuns atomic.Int64

// runFingerprint runs the helper at path with fingerprintArg.
func runFingerprint(path string) (string, error) {
	fingerprintRuns.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, fingerprintArg)
	cmd.Args[0] = HelperProgram
	cmd.Env = []string{}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// fingerprint identifies the enforcement code linked into this binary (see
// computeFingerprint), computed once.
var fingerprint = sync.OnceValue(computeFingerprint)

// computeFingerprint identifies the enforcement code linked into this
// binary: the Go version and architecture and this package's and domain's
// Go files (tests left out), each by its name, length and the content hash
// the compiler stored with it (embedsum.go), hashed with xxHash64. A
// helper program is used only when its fingerprint equals the server's. It
// tells builds apart; it is not a security boundary (a program that could be
// planted as the helper could print any fingerprint: the helper file's
// owner and mode are what keep a planted one out). Hashing the 530 KB of
// source itself cost 0.3-0.8 ms of every `turnstile sandbox` run, twice.
// golang.org/x/sys is not part of it: its version is fixed by go.mod, and
// test binaries carry no dependency list to compare.
//
// The turnstile binary's early entry (cmd/turnstile/early) calls it,
// through earlyFingerprint, before this package is initialised: it must use
// only embedded files, constants and functions that need no initialisation
// (runtime's Version, xxhash, writeGoFiles in embedsum.go), and no
// package-level variable set by initialisation code.
// TestSandboxCLIRunsInTheLeanProgram fails when the two fingerprints differ.
func computeFingerprint() string {
	h := xxhash.New()
	h.WriteString("turnstile sandbox helper\x00" + runtime.Version() + "\x00" + runtime.GOOS + "/" + runtime.GOARCH + "\x00domain\x00")
	domainSources := domain.Sources()
	writeGoFiles(h, &domainSources)
	h.WriteString("\x00sandbox\x00")
	writeGoFiles(h, &sandboxSource)
	return hex16(h.Sum64())
}

// hex16 is v as 16 lower-case hexadecimal digits (no package state: it
// runs before initialisation, through earlyFingerprint).
func hex16(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// earlyFingerprint is computeFingerprint for the turnstile binary's early
// entry, which calls it before any of this module's packages is
// initialised; "" when this build's fingerprint needs initialisation
// (embedHashesKnown), and the entry then leaves the command line to the
// turnstile binary.
//
//go:linkname earlyFingerprint
func earlyFingerprint() string {
	if !embedHashesKnown {
		return ""
	}
	return computeFingerprint()
}
