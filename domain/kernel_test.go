package domain

import (
	"strings"
	"testing"
)

// TestOldLandlockABIDegrades: a restricted snapshot on a Landlock ABI older
// than FullLandlockABI names each loss and, its backend being required, is
// unavailable; at FullLandlockABI it is active; full_access never degrades.
func TestOldLandlockABIDegrades(t *testing.T) {
	resolve := func(m Mode, abi int) TurnExecutionSecuritySnapshot {
		s, err := ResolveSnapshot(SnapshotInputs{
			Profile:       ResolveProfile(&ProfileRequest{Mode: m}, SourceComposer),
			WorkspaceRoot: "/ws",
			Kernel:        KernelFeatures{LandlockABI: abi, Seccomp: true, UserNamespaces: true},
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
	for abi, want := range map[int][]string{2: {"truncate", "ioctl", "no scoping"}, 4: {"ioctl", "no scoping"}, 5: {"no scoping"}} {
		e := resolve(ModeSupervised, abi).Enforcement
		got := names(e)
		if e.Status != EnforcementUnavailable || len(e.Degradations) != len(want) {
			t.Errorf("ABI %d: %s %s", abi, e.Status, got)
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("ABI %d does not name %q: %s", abi, w, got)
			}
		}
	}
	for _, abi := range []int{FullLandlockABI, 7} {
		if e := resolve(ModeAutoAcceptEdits, abi).Enforcement; e.Status != EnforcementActive {
			t.Errorf("ABI %d: %+v", abi, e)
		}
	}
	if e := resolve(ModeFullAccess, 2).Enforcement; e.Status != EnforcementActive {
		t.Errorf("full_access at ABI 2: %+v", e)
	}
}
