package sandbox

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestRunNamespaceStartFailsClosed: when the namespaces cannot be created at
// spawn time (here: an invalid id map), Run refuses with sandbox_failed and
// exit 126 instead of running the command with less than the snapshot
// claims. Control: the same plan runs when the namespaces can be made.
func TestRunNamespaceStartFailsClosed(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	if r := sh(t, s, "touch ran-control"); r.ExitCode != 0 || !exists(ws+"/ran-control") {
		t.Fatalf("control: %+v %s", r, r.Stderr)
	}
	saved := newNamespaceAttr
	t.Cleanup(func() { newNamespaceAttr = saved })
	newNamespaceAttr = func() *syscall.SysProcAttr {
		a := namespaceAttr()
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 0}} // refused by the kernel
		return a
	}
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "touch ran"}}, nil)
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Code != CodeSandboxFailed || r == nil || r.ExitCode != ExitSandboxFailure ||
		!strings.Contains(r.SandboxError, "namespaces") {
		t.Fatalf("got %+v, %v", r, err)
	}
	if exists(ws + "/ran") {
		t.Fatal("the command ran without its namespaces")
	}
}
