package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// helperCheckedArg starts the helper in checked mode: before it reads its
// plan it writes "fingerprint FP\n" on the status pipe, and Run sends the
// plan only when FP is its own (checkHelper). This is how a lean helper that
// has not been verified yet (`turnstile sandbox`, one command per process)
// is verified by the run that uses it instead of by a run of its own. A
// helper built before this argument existed does not know it: it exits 2
// without reading anything, reports no fingerprint, and is refused.
const helperCheckedArg = "__turnstile-sandbox-helper-checked"

// helperCheckTimeout bounds the wait for a checked helper's fingerprint.
const helperCheckTimeout = 10 * time.Second

// errHelperRefused: the started lean helper did not report this binary's
// fingerprint; it was killed before it received its plan, and the helper
// setting now names the running binary (startProcess starts that instead).
var errHelperRefused = errors.New("sandbox: the lean helper was refused")

// spawnHelper returns the helper program Run starts: the located helper as
// it is, possibly a lean one not verified yet (Run then starts it with
// helperCheckedArg and checks its fingerprint before it sends the plan).
func spawnHelper() helperProg {
	return probeHelper()
}

// helperArgs is the argument vector Run starts prog with.
func helperArgs(prog helperProg) []string {
	if prog.lean && !prog.verified {
		return []string{prog.argv0, helperCheckedArg}
	}
	return []string{prog.argv0, HelperArg}
}

// checkHelper reads the fingerprint line a helper started with
// helperCheckedArg writes on statusR and settles the helper setting with it
// (settleHelper). It returns errHelperRefused when the fingerprint is not
// this binary's or none came (the program exited, or said nothing within
// helperCheckTimeout); the caller must then kill the helper without sending
// the plan. On success nothing but the line was read: the helper writes
// nothing else before it has its plan.
func checkHelper(prog helperProg, statusR *os.File) error {
	statusR.SetReadDeadline(time.Now().Add(helperCheckTimeout))
	defer statusR.SetReadDeadline(time.Time{})
	var line []byte
	buf := make([]byte, 128)
	var err error
	for !bytes.Contains(line, []byte("\n")) && len(line) < 256 {
		var n int
		n, err = statusR.Read(buf)
		line = append(line, buf[:n]...)
		if err != nil {
			break
		}
	}
	got, rest, complete := bytes.Cut(line, []byte("\n"))
	fp, ok := bytes.CutPrefix(got, []byte("fingerprint "))
	var ferr error
	if !complete || !ok || len(rest) > 0 {
		if err == nil {
			err = errors.New("no fingerprint line")
		}
		ferr = fmt.Errorf("started as the helper, it reported %q: %v", line, err)
	}
	if settleHelper(prog.path, string(fp), ferr) {
		return nil
	}
	return errHelperRefused
}

// refuseHelper ends a started helper that checkHelper refused: its plan
// pipe is closed unwritten (a helper reads end of file and exits 126 without
// doing anything), and it is killed if it has not exited within
// helperCheckTimeout.
func refuseHelper(cmd *exec.Cmd, specW *os.File) {
	specW.Close()
	t := time.AfterFunc(helperCheckTimeout, func() { cmd.Process.Kill() })
	cmd.Wait()
	t.Stop()
}
