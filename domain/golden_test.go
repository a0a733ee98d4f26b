package domain

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// golden compares v's indented JSON with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./domain -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the golden file; run with -update if the change is intended\ngot:\n%s", path, got)
	}
}

func goldenInputs(mode Mode) SnapshotInputs {
	return SnapshotInputs{
		Profile:          ResolveProfile(&ProfileRequest{Mode: mode}, SourceComposer),
		Cwd:              "/work/repo/service",
		WorkspaceRoot:    "/work/repo",
		ProjectRoots:     []string{"/work/shared-lib"},
		AppReadRoots:     []string{"/opt/toolchain"},
		ExecutionBackend: BackendNative,
		Kernel:           KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	}
}

func TestGoldenSnapshots(t *testing.T) {
	for _, mode := range Modes {
		s, err := ResolveSnapshot(goldenInputs(mode))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "snapshot_"+string(mode)+".json", s)
	}
}

func TestGoldenChildUnderCap(t *testing.T) {
	parent, err := ResolveSnapshot(goldenInputs(ModeAutoAcceptEdits))
	if err != nil {
		t.Fatal(err)
	}
	cap := TaskCap{
		Mode:            ModeSupervised,
		Network:         &NetworkPolicy{Mode: NetworkDisabled},
		Process:         &ProcessPolicy{ShellEnabled: true, MaxDurationMs: 60_000, Environment: EnvironmentPolicy{AllowedVars: []string{"PATH", "HOME", "LANG"}}},
		FilesystemRoots: []CapRoot{{Path: "/work/repo/service", Access: AccessWrite}, {Path: "/usr", Access: AccessRead}},
	}
	child, err := ResolveChildSnapshot(ChildInputs{
		Requested: &ProfileRequest{Mode: ModeAutoAcceptEdits}, Cap: &cap, Parent: &parent, ParentTurnID: "turn-parent-1",
		Inputs: SnapshotInputs{Cwd: "/work/repo/service"},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "child_under_cap.json", child)
}

func TestDegradedKernelFailsClosed(t *testing.T) {
	in := goldenInputs(ModeSupervised)
	in.Kernel = KernelFeatures{}
	s, err := ResolveSnapshot(in)
	if err != nil {
		t.Fatal(err)
	}
	if s.Enforcement.Status != EnforcementUnavailable || s.CanSpawn() || len(s.Enforcement.Degradations) != 5 {
		t.Fatalf("no kernel sandbox must make a required backend unavailable: %+v", s.Enforcement)
	}
	in = goldenInputs(ModeFullAccess)
	in.Kernel = KernelFeatures{}
	if s, _ = ResolveSnapshot(in); s.Enforcement.Status != EnforcementActive {
		t.Fatalf("full_access is unrestricted and stays active: %+v", s.Enforcement)
	}
	in = goldenInputs(ModeAutoAcceptEdits)
	in.Kernel = KernelFeatures{LandlockABI: 7}
	s, _ = ResolveSnapshot(in)
	if s.Enforcement.Status != EnforcementUnavailable || s.Enforcement.Degradations[0].Dimension != "network" {
		t.Fatalf("without seccomp the network cannot be refused: %+v", s.Enforcement)
	}
	s.Sandbox.BackendRequirement = BackendOptional
	if e := ComputeEnforcement(&s); e.Status != EnforcementPartiallyActive {
		t.Fatalf("optional backend with degradations is partially active: %+v", e)
	}
	in = goldenInputs(ModeSupervised)
	in.Kernel = KernelFeatures{LandlockABI: 7, Seccomp: true}
	s, _ = ResolveSnapshot(in)
	if s.Enforcement.Status != EnforcementUnavailable || len(s.Enforcement.Degradations) != 2 ||
		s.Enforcement.Degradations[0].Dimension != "filesystem" || s.Enforcement.Degradations[1].Dimension != "process" {
		t.Fatalf("without the helper's namespaces the view and the PID namespace are named: %+v", s.Enforcement)
	}
}

func TestSnapshotInputErrors(t *testing.T) {
	in := goldenInputs(ModeSupervised)
	in.WorkspaceRoot, in.Cwd = "", ""
	if _, err := ResolveSnapshot(in); err == nil {
		t.Fatal("missing workspace root accepted")
	}
	in = goldenInputs(ModeSupervised)
	in.ProjectRoots = []string{"/abs", ""}
	var fe *FieldError
	if _, err := ResolveSnapshot(in); !asFieldError(err, &fe) || fe.Field != "project_roots[1]" {
		t.Fatalf("got %v", err)
	}
	in = goldenInputs(ModeSupervised)
	in.Cwd, in.WorkspaceRoot = "rel", "also/rel"
	if _, err := ResolveSnapshot(in); !asFieldError(err, &fe) || fe.Field != "cwd" {
		t.Fatalf("got %v", err)
	}
}

// TestRelativeRootsResolveFromCwd: relative project and app read roots
// resolve from the turn's cwd; a relative cwd from the workspace root.
func TestRelativeRootsResolveFromCwd(t *testing.T) {
	in := goldenInputs(ModeAutoAcceptEdits)
	in.Cwd, in.WorkspaceRoot = "/w/repo/sub", "/w/repo"
	in.ProjectRoots, in.AppReadRoots = []string{"rel-root", "../sibling"}, []string{"./tools"}
	s, err := ResolveSnapshot(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]PathKind{"/w/repo/sub/rel-root": PathProjectRoot, "/w/repo/sibling": PathProjectRoot, "/w/repo/sub/tools": PathAppReadRoot}
	for _, e := range s.Sandbox.Filesystem.Entries {
		if k, ok := want[e.ResolvedPath]; ok && k == e.Kind && e.Path == e.ResolvedPath {
			delete(want, e.ResolvedPath)
		}
	}
	if len(want) > 0 {
		t.Fatalf("not resolved from the cwd: %v in %+v", want, s.Sandbox.Filesystem.Entries)
	}
	in.Cwd = "sub"
	if s, err = ResolveSnapshot(in); err != nil || s.Sandbox.Cwd != "/w/repo/sub" {
		t.Fatalf("relative cwd: %q %v", s.Sandbox.Cwd, err)
	}
}

func asFieldError(err error, fe **FieldError) bool {
	e, ok := err.(*FieldError)
	*fe = e
	return ok
}

func TestApprovable(t *testing.T) {
	s, err := ResolveSnapshot(goldenInputs(ModeSupervised))
	if err != nil {
		t.Fatal(err)
	}
	a := s.Approvable()
	writable := map[string]bool{}
	for _, e := range a.Sandbox.Filesystem.Entries {
		if e.Access == AccessWrite && e.Kind != PathDevice {
			writable[e.ResolvedPath] = true
		}
	}
	if !writable["/work/repo"] || !writable["/work/shared-lib"] || writable["/opt/toolchain"] || writable["/etc"] || a.Network.Mode != NetworkEnabled {
		t.Fatalf("approvable snapshot: %v %s", writable, a.Network.Mode)
	}
	if s.Sandbox.Mode != SandboxReadOnly || s.Network.Mode != NetworkDisabled || s.Sandbox.Filesystem.Entries[0].Access != AccessRead {
		t.Fatal("Approvable changed the original snapshot")
	}
	// Every entry of the built-in list for both roots and for the cwd
	// (/work/repo/service lies inside the workspace root).
	want := 3 * len(DefaultProtectedPaths)
	var protected int
	for _, e := range a.Sandbox.Filesystem.Entries {
		if e.Kind == PathProtected {
			protected++
			if e.Provenance != ProvenanceSystem {
				t.Errorf("%s: provenance %s", e.Path, e.Provenance)
			}
		}
	}
	if protected != want {
		t.Fatalf("%d protected carve-outs, want %d", protected, want)
	}
}

// TestProtectedPathsAreAValue: the resolver takes the protected list as an
// input (a profile may replace it); nil means the built-in list.
func TestProtectedPathsAreAValue(t *testing.T) {
	in := goldenInputs(ModeAutoAcceptEdits)
	in.ProtectedPaths = []ProtectedPath{{Path: "secrets.txt", Access: AccessDeny}}
	s, err := ResolveSnapshot(in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.Kind == PathProtected {
			got = append(got, e.ResolvedPath+":"+string(e.Access))
		}
	}
	want := []string{"/work/repo/secrets.txt:deny", "/work/shared-lib/secrets.txt:deny", "/work/repo/service/secrets.txt:deny"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("protected entries %v, want %v", got, want)
	}
	in.ProtectedPaths = nil
	if s, _ = ResolveSnapshot(in); !slices.ContainsFunc(s.Sandbox.Filesystem.Entries, func(e FilesystemEntry) bool {
		return e.ResolvedPath == "/work/repo/.bashrc" && e.Access == AccessRead && e.Provenance == ProvenanceSystem
	}) {
		t.Fatal("the built-in list is not applied by default")
	}
}
