package domain

import (
	"errors"
	"slices"
	"testing"
)

// TestCapDisabledNetworkIsLocked: a cap that disables the network under a
// full_access parent leaves it disabled for every decision, approvals
// included, and for the child's own children; the modes' "disabled until
// granted" stays approvable.
func TestCapDisabledNetworkIsLocked(t *testing.T) {
	parent := testSnapshot(t, ModeFullAccess)
	child, err := ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{Network: &NetworkPolicy{Mode: NetworkDisabled}}, Parent: &parent, ParentTurnID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if child.Network.Mode != NetworkDisabled || !child.Network.Locked {
		t.Fatalf("child network %+v", child.Network)
	}
	if a := child.Approvable(); a.Network.Mode != NetworkDisabled {
		t.Fatalf("a cap-disabled network became %s for an approvable call", a.Network.Mode)
	}
	grandchild, err := ResolveChildSnapshot(ChildInputs{Parent: &child, ParentTurnID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if a := grandchild.Approvable(); !grandchild.Network.Locked || a.Network.Mode != NetworkDisabled {
		t.Fatalf("grandchild network %+v, approvable %s", grandchild.Network, a.Network.Mode)
	}
	// A child cap cannot unlock what its parent locked.
	if _, err := ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{Network: &NetworkPolicy{Mode: NetworkDisabled, Locked: false}}, Parent: &child, ParentTurnID: "c"}); err != nil {
		t.Fatalf("an equal cap refused: %v", err)
	}
	// Control: supervised's own disabled network is approvable.
	sup := testSnapshot(t, ModeSupervised)
	if a := sup.Approvable(); sup.Network.Locked || a.Network.Mode != NetworkEnabled {
		t.Fatalf("supervised network %+v, approvable %s", sup.Network, a.Network.Mode)
	}
	subChild, err := ResolveChildSnapshot(ChildInputs{Parent: &sup, ParentTurnID: "s"})
	if err != nil || subChild.Network.Locked {
		t.Fatalf("a supervised parent's child: %+v %v", subChild.Network, err)
	}
}

// TestCapPolicyNarrowsAndRefusesWidening: a policy-only cap equal to or
// narrower than the parent's table is accepted (its omitted mode is the
// parent's, not full_access); a policy broader than the parent or than the
// cap's own mode is refused naming the field.
func TestCapPolicyNarrowsAndRefusesWidening(t *testing.T) {
	parent := testSnapshot(t, ModeSupervised)
	same := parent.PermissionProfile.EffectivePolicy
	child, err := ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{Policy: &same}, Parent: &parent, ParentTurnID: "p"})
	if err != nil {
		t.Fatalf("a policy-only cap equal to the parent's table: %v", err)
	}
	if child.PermissionProfile.Mode != ModeSupervised || child.PermissionProfile.EffectivePolicy.ShellCommand != BehaviorAsk {
		t.Fatalf("child profile %+v", child.PermissionProfile)
	}
	narrower := same
	narrower.ShellCommand = BehaviorDeny
	child, err = ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{Policy: &narrower}, Parent: &parent, ParentTurnID: "p"})
	if err != nil || child.PermissionProfile.EffectivePolicy.ShellCommand != BehaviorDeny {
		t.Fatalf("narrower policy-only cap: %+v %v", child.PermissionProfile, err)
	}
	wider := same
	wider.ShellCommand = BehaviorAllow
	_, err = ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{Policy: &wider}, Parent: &parent, ParentTurnID: "p"})
	var ce *CapExceedsParentError
	if !errors.As(err, &ce) || !slices.Equal(ce.Fields, []string{"task_cap.policy.shell_command"}) {
		t.Fatalf("a widening policy-only cap: %v", err)
	}
	// Broader than its own mode, under a parent that allows everything.
	full := testSnapshot(t, ModeFullAccess)
	widen := CompilePolicy(ModeSupervised)
	widen.ShellCommand = BehaviorAllow
	_, err = ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{Mode: ModeSupervised, Policy: &widen}, Parent: &full, ParentTurnID: "f"})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "task_cap.policy.shell_command" {
		t.Fatalf("mode supervised + shell_command allow: %v", err)
	}
	// Control: the same mode with its own table is accepted.
	table := CompilePolicy(ModeSupervised)
	if _, err := ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{Mode: ModeSupervised, Policy: &table}, Parent: &full, ParentTurnID: "f"}); err != nil {
		t.Fatalf("mode supervised + its own table: %v", err)
	}
}

// TestCapRulesMustParse: a cap's domain rules are read by the one parser; a
// rule it refuses is a 400 naming it, not a rule that silently matches
// nothing.
func TestCapRulesMustParse(t *testing.T) {
	parent := testSnapshot(t, ModeFullAccess)
	_, err := ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{Network: &NetworkPolicy{Mode: NetworkRestricted, AllowedDomains: []string{"example.com", "*.1.2.3.4"}}}, Parent: &parent, ParentTurnID: "p"})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "task_cap.network.allowed_domains[1]" {
		t.Fatalf("got %v", err)
	}
}

// TestChildKeepsSensitivePaths: a restricted child turn keeps the built-in
// sensitive paths and its parent's, whatever the intersection of roots did;
// an unrestricted child has none to keep.
func TestChildKeepsSensitivePaths(t *testing.T) {
	count := func(s TurnExecutionSecuritySnapshot) (n int, extra bool) {
		for _, e := range s.Sandbox.Filesystem.Entries {
			if e.Kind == PathSensitive && e.Access == AccessDeny {
				n++
				extra = extra || e.Path == "/srv/turnstile-data"
			}
		}
		return n, extra
	}
	in := goldenInputs(ModeSupervised)
	in.SensitivePaths = []string{"/srv/turnstile-data"}
	parent, err := ResolveSnapshot(in)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := count(parent)
	child, err := ResolveChildSnapshot(ChildInputs{Parent: &parent, ParentTurnID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if n, extra := count(child); n != want || !extra {
		t.Fatalf("child of a supervised parent has %d sensitive entries (data dir %v), want %d", n, extra, want)
	}
	full := testSnapshot(t, ModeFullAccess)
	ro, err := ResolveChildSnapshot(ChildInputs{Cap: &TaskCap{SandboxMode: SandboxReadOnly}, Parent: &full, ParentTurnID: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := count(ro); n != len(SensitivePaths()) {
		t.Fatalf("a read-only child of a full_access parent has %d sensitive entries, want %d", n, len(SensitivePaths()))
	}
	if open, err := ResolveChildSnapshot(ChildInputs{Parent: &full, ParentTurnID: "f"}); err != nil || !open.Sandbox.Filesystem.Unrestricted {
		t.Fatalf("unrestricted child: %v", err)
	} else if n, _ := count(open); n != 0 {
		t.Fatalf("an unrestricted child lists %d sensitive entries", n)
	}
}
