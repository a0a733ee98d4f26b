package domain

import (
	"strings"
	"testing"
)

// TestOldLandlockABIDegrades: a restricted snapshot on a Landlock ABI older
// than FullLandlockABI names each loss the helper's namespaces do not make
// up for and, its backend being required, is then unavailable; at
// FullLandlockABI it is active; full_access never degrades.
func TestOldLandlockABIDegrades(t *testing.T) {
	resolve := func(m Mode, abi int, ns bool) TurnExecutionSecuritySnapshot {
		s, err := ResolveSnapshot(SnapshotInputs{
			Profile:       ResolveProfile(&ProfileRequest{Mode: m}, SourceComposer),
			WorkspaceRoot: "/ws",
			Kernel:        KernelFeatures{LandlockABI: abi, Seccomp: true, UserNamespaces: ns},
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	names := func(e Enforcement) string {
		var b strings.Builder
		for _, d := range e.Degradations {
			b.WriteString(d.Dimension + ": " + d.Reason + "\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		abi         int
		ns          bool
		want, never []string
	}{
		{2, true, []string{"ioctl"}, []string{"truncate", "no scoping"}},
		{2, false, []string{"truncate", "ioctl", "no scoping", "no mount namespace"}, nil},
		{4, true, []string{"ioctl"}, []string{"no scoping"}},
		{5, false, []string{"no scoping", "no PID namespace"}, []string{"ioctl"}},
	} {
		e := resolve(ModeSupervised, c.abi, c.ns).Enforcement
		got := names(e)
		if e.Status != EnforcementUnavailable {
			t.Errorf("ABI %d ns %v: %s %s", c.abi, c.ns, e.Status, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("ABI %d ns %v does not name %q: %s", c.abi, c.ns, w, got)
			}
		}
		for _, w := range c.never {
			if strings.Contains(got, w) {
				t.Errorf("ABI %d ns %v names %q, which the namespaces make up for: %s", c.abi, c.ns, w, got)
			}
		}
	}
	for _, abi := range []int{5, FullLandlockABI, 7} {
		if e := resolve(ModeAutoAcceptEdits, abi, true).Enforcement; e.Status != EnforcementActive {
			t.Errorf("ABI %d with namespaces: %+v", abi, e)
		}
	}
	// With the network enabled the helper makes no network namespace of its
	// own: below ABI 6 host abstract sockets are then reachable.
	s := resolve(ModeAutoAcceptEdits, 5, true)
	s.Network.Mode = NetworkEnabled
	if e := ComputeEnforcement(&s); e.Status != EnforcementUnavailable || !strings.Contains(names(e), "network: Landlock ABI 5 < 6 with the network enabled") {
		t.Errorf("ABI 5, network enabled: %+v", e)
	}
	s.Network.AllowUnixSockets = true
	if e := ComputeEnforcement(&s); e.Status != EnforcementActive {
		t.Errorf("ABI 5, network enabled, unix sockets allowed: %+v", e)
	}
	if e := resolve(ModeFullAccess, 2, false).Enforcement; e.Status != EnforcementActive {
		t.Errorf("full_access at ABI 2: %+v", e)
	}
}
