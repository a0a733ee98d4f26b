package domain

import (
	"slices"
	"testing"
)

// A child turn's bounds keep what its parent's profile narrowed beyond the
// plain fields (sixth and seventh attack reviews): the environment filter,
// the HTTP methods of a limited network, the depth of the glob-deny scan.

func TestIntersectKeepsProfileEnvironment(t *testing.T) {
	profile := EnvironmentPolicy{Profile: &CompiledEnvironment{Inherit: InheritAll, IncludeOnly: []string{"PATH"}, IncludeOnlySet: true}}
	environ := []string{"PATH=/bin", "HOME=/root", "SECRET=s"}
	for _, plain := range []EnvironmentPolicy{{AllowedVars: []string{"HOME", "PATH", "SECRET"}}, {Inherit: true}} {
		for _, got := range []EnvironmentPolicy{
			IntersectProcess(ProcessPolicy{Environment: profile}, ProcessPolicy{Environment: plain}).Environment,
			IntersectProcess(ProcessPolicy{Environment: plain}, ProcessPolicy{Environment: profile}).Environment,
		} {
			if env := got.FilterEnv(environ); !slices.Equal(env, []string{"PATH=/bin"}) {
				t.Errorf("profile include_only [PATH] ∩ %+v passes %v", plain, env)
			}
		}
	}
	// The plain side bounds the profile too: its allowed names only.
	narrow := EnvironmentPolicy{AllowedVars: []string{"HOME"}}
	wide := EnvironmentPolicy{Profile: &CompiledEnvironment{Inherit: InheritAll}}
	got := IntersectProcess(ProcessPolicy{Environment: wide}, ProcessPolicy{Environment: narrow}).Environment
	if env := got.FilterEnv(environ); !slices.Equal(env, []string{"HOME=/root"}) {
		t.Errorf("a profile inheriting all ∩ allowed [HOME] passes %v", env)
	}
	// Set: kept from either side, dropped where both set it differently.
	sa := EnvironmentPolicy{Profile: &CompiledEnvironment{Inherit: InheritNone, Set: map[string]string{"A": "1", "B": "1", "C": "1"}}}
	sb := EnvironmentPolicy{Profile: &CompiledEnvironment{Inherit: InheritNone, Set: map[string]string{"B": "1", "C": "2", "D": "1"}}}
	set := IntersectProcess(ProcessPolicy{Environment: sa}, ProcessPolicy{Environment: sb}).Environment
	if env := set.FilterEnv(nil); !slices.Equal(env, []string{"A=1", "B=1", "D=1"}) {
		t.Errorf("set A,B,C ∩ set B,C(other),D gives %v", env)
	}
	// Control: two plain policies intersect as before.
	plain := IntersectProcess(ProcessPolicy{Environment: EnvironmentPolicy{AllowedVars: []string{"HOME", "PATH"}}},
		ProcessPolicy{Environment: EnvironmentPolicy{Inherit: true}}).Environment
	if env := plain.FilterEnv(environ); !slices.Equal(env, []string{"PATH=/bin", "HOME=/root"}) {
		t.Errorf("plain ∩ inherit passes %v", env)
	}
}

func TestIntersectKeepsAllowedMethods(t *testing.T) {
	limited := NetworkPolicy{Mode: NetworkEnabled, AllowedMethods: []string{"GET", "HEAD", "OPTIONS"}}
	open := NetworkPolicy{Mode: NetworkEnabled}
	for _, got := range []NetworkPolicy{IntersectNetwork(limited, open), IntersectNetwork(open, limited)} {
		if got.MethodAllowed("POST") || !got.MethodAllowed("GET") {
			t.Errorf("limited ∩ open: %+v", got)
		}
	}
	if got := IntersectNetwork(NetworkPolicy{Mode: NetworkEnabled, AllowedMethods: []string{"GET"}}, NetworkPolicy{Mode: NetworkEnabled, AllowedMethods: []string{"POST"}}); got.Mode != NetworkDisabled {
		t.Errorf("methods that share nothing leave a network: %+v", got)
	}
	if !networkNarrows(&open, &limited) || networkNarrows(&limited, &limited) || networkNarrows(&limited, &open) {
		t.Error("narrowing to limited is not seen as one, or the same or a wider one is")
	}
	if !networkBroader(open, limited) || networkBroader(limited, open) {
		t.Error("a child without the methods list is not broader than a limited parent")
	}
}

func TestIntersectKeepsGlobScanDepth(t *testing.T) {
	a := FilesystemPolicy{Entries: []FilesystemEntry{{Kind: PathWorkspaceRoot, Path: "/w", ResolvedPath: "/w", Access: AccessWrite}}, GlobScanMaxDepth: 8}
	b := FilesystemPolicy{Entries: a.Entries}
	if got := IntersectFilesystem(a, b); got.GlobScanMaxDepth != 8 {
		t.Errorf("glob scan depth %d, want 8", got.GlobScanMaxDepth)
	}
	if got := IntersectFilesystem(b, a); got.GlobScanMaxDepth != 8 {
		t.Errorf("glob scan depth %d, want 8", got.GlobScanMaxDepth)
	}
}
