package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"time"

	"golang.org/x/sys/unix"
)

// helperCheckedArg starts the helper in checked mode, with the fingerprint
// Run expects as the next argument: the helper compares it with its own
// before it reads its plan; on a mismatch it says so on the status pipe and
// exits 126 having done nothing, and on a match it writes helperCheckedOK
// there first and goes on. This is how a lean helper that has not been
// verified yet (`turnstile sandbox`, one command per process) is verified
// by the run that uses it instead of by a run of its own. A helper built
// before this argument existed does not know it: it exits 2 without reading
// its plan, writes no helperCheckedOK, and is refused.
const helperCheckedArg = "__turnstile-sandbox-helper-checked"

// helperCheckedOK is the status pipe's first line from a checked helper
// whose fingerprint matched.
const helperCheckedOK = "fingerprint ok\n"

// helperMismatch starts the status line of a checked helper whose
// fingerprint did not match.
const helperMismatch = "fingerprint mismatch: "

// abandonTimeout bounds the wait for a helper abandoned before its plan.
const abandonTimeout = 10 * time.Second

// spawnHelper returns the helper program Run starts: the located helper as
// it is, possibly a lean one not verified yet (Run then starts it with
// helperArgs' checked mode and settles it from its status: settleChecked).
func spawnHelper() helperProg {
	return probeHelper()
}

// helperArgs is the argument vector Run starts prog with.
func helperArgs(prog helperProg) []string {
	if prog.lean && !prog.verified {
		return []string{prog.argv0, helperCheckedArg, fingerprint()}
	}
	return []string{prog.argv0, HelperArg}
}

// checkedHelperMain runs in a helper started with helperCheckedArg, before
// anything else: it returns when want is this program's fingerprint (after
// writing helperCheckedOK on the status pipe) and exits 126 otherwise.
func checkedHelperMain(want string) {
	if got := fingerprint(); want != got {
		unix.Write(helperStatusFD, []byte(fmt.Sprintf("%shelper %s, caller %s\n", helperMismatch, got, want)))
		os.Exit(ExitSandboxFailure)
	}
	unix.Write(helperStatusFD, []byte(helperCheckedOK))
}

// settleChecked settles the helper setting from the status a helper started
// in checked mode wrote (see settleHelper), and returns the status without
// helperCheckedOK. refused is true when the helper did not confirm its
// fingerprint: it did not run the command (a checked helper refuses before
// it reads its plan; an older one does not know the argument and exits at
// once), and the helper setting now names the running binary, through which
// Run runs the plan again. A helper that Run killed (timeout, cancellation)
// before it confirmed anything settles nothing and is not refused.
func settleChecked(prog helperProg, status []byte, killed bool) (rest []byte, refused bool) {
	if rest, ok := bytes.CutPrefix(status, []byte(helperCheckedOK)); ok {
		settleHelper(prog.path, fingerprint(), nil)
		return rest, false
	}
	if killed && len(status) == 0 {
		return status, false
	}
	var err error
	var fp []byte
	if line, ok := bytes.CutPrefix(status, []byte(helperMismatch+"helper ")); ok {
		fp, _, _ = bytes.Cut(line, []byte(","))
	} else {
		err = fmt.Errorf("started as the helper, it confirmed no fingerprint (status %q)", status)
	}
	settleHelper(prog.path, string(fp), err)
	return nil, true
}

// abandonHelper ends a started helper before it has its plan: the plan pipe
// is closed unwritten (the helper reads end of file and exits 126 without
// doing anything), and the helper is killed if it has not exited within
// abandonTimeout.
func abandonHelper(cmd *exec.Cmd, specW *os.File) {
	specW.Close()
	t := time.AfterFunc(abandonTimeout, func() { cmd.Process.Kill() })
	cmd.Wait()
	t.Stop()
}
