package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack149_RspDistributedLogger: MSBuild's -distributedLogger
// (-dl) switch gives a central and a forwarding logger joined by "*"
// (`-dl:Central,central.dll*Forwarding,fwd.dll`, MSBuild's documented
// form); the central logger's assembly is loaded by the build's main node.
// launcherBareRefsOf (launcherbare.go) splits Directory.Build.rsp's line
// on "," and then drops every word holding a "*" as a pattern, so the word
// "central.dll*Forwarding" is dropped whole and central.dll, a bare name
// that exists, stays writable; the person's next dotnet build in the
// directory loads the agent's assembly. Likewise a quoted assembly name
// with a space (-logger:L,"My Logger.dll") is split on the blank, into
// "My" and "Logger.dll" (the .envrc form of this was fixed in review 146,
// the option files' was not). Control in the same test: the same file
// named by -logger (no "*") stays read-only to a file tool and a command,
// and an ordinary file beside it is written.
func TestAttack149_RspDistributedLogger(t *testing.T) {
	for _, c := range []struct {
		name, data, target string
		control            bool
	}{
		{"control_logger", "-logger:CentralLogger,central.dll\n", "central.dll", true},
		{"distributedLogger", "-dl:CentralLogger,central.dll*ForwardingLogger,fwd.dll\n", "central.dll", false},
		{"quotedSpace", "-logger:L,\"My Logger.dll\"\n", "My Logger.dll", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{"Directory.Build.rsp": c.data, c.target: "MZ original\n", "fwd.dll": "MZ\n", "other.txt": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, "Directory.Build.rsp", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: Directory.Build.rsp itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "other.txt", domain.AccessWrite, false); err != nil {
				t.Fatalf("premise: a write of other.txt: %v", err)
			}
			if r := sh(t, s, "echo x >> other.txt && echo wrote"); !strings.Contains(string(r.Stdout), "wrote") {
				t.Fatalf("premise: a command could not write other.txt: %s", r.Stderr)
			}
			report := t.Errorf
			if c.control {
				report = t.Fatalf
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				report("ESCAPED (decision): a write of %s, the logger assembly the protected Directory.Build.rsp %q names (loaded by every dotnet build there), was allowed", c.target, strings.TrimSpace(c.data))
			}
			r := sh(t, s, "echo 'evil' >> '"+c.target+"' && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") && exists(filepath.Join(f.ws, c.target)) {
				report("ESCAPED (command): a command wrote %s, the logger assembly the protected Directory.Build.rsp %q names, and it stayed after the check", c.target, strings.TrimSpace(c.data))
			}
		})
	}
}
