package domain

import (
	"slices"
	"testing"
)

// TestIntersectEnvConflictingSetNotInherited (review 165, low): two
// profiles that set one variable to different values give a child
// neither value; the host's own value must not take its place, which
// neither side passes on. Controls: a variable both set alike is set, and
// one neither names is inherited.
func TestIntersectEnvConflictingSetNotInherited(t *testing.T) {
	a := EnvironmentPolicy{Profile: &CompiledEnvironment{Inherit: InheritAll, Set: map[string]string{"PGHOST": "db-a", "SAME": "1"}}}
	b := EnvironmentPolicy{Profile: &CompiledEnvironment{Inherit: InheritAll, Set: map[string]string{"PGHOST": "db-b", "SAME": "1"}}}
	for _, pair := range [][2]EnvironmentPolicy{{a, b}, {b, a}} {
		got := intersectEnvProfiles(pair[0], pair[1])
		env := got.Profile.Apply([]string{"PGHOST=host-secret-db", "OTHER=x"})
		if !slices.Contains(env, "SAME=1") || !slices.Contains(env, "OTHER=x") {
			t.Fatalf("control: %v", env)
		}
		for _, kv := range env {
			if len(kv) >= 7 && kv[:7] == "PGHOST=" {
				t.Errorf("a variable two profiles set to different values reached the child as %q (neither side passes the host's on)", kv)
			}
		}
	}
}

// TestIntersectPlainDeniedPatternsWithProfile (review 165, low): a plain
// environment policy's denied patterns match anywhere in a name
// (PASSWORD denies PGPASSWORD); intersected with a profile's filter they
// became exclude globs of whole names, and PGPASSWORD passed. Controls:
// the plain policy alone drops it, and a name holding no pattern passes.
func TestIntersectPlainDeniedPatternsWithProfile(t *testing.T) {
	plain := EnvironmentPolicy{Inherit: true, DeniedPatterns: []string{"PASSWORD", "a[b"}}
	prof := EnvironmentPolicy{Profile: &CompiledEnvironment{Inherit: InheritAll}}
	host := []string{"PGPASSWORD=s3cret", "XA[BY=1", "EDITOR=vi"}
	if got := plain.FilterEnv(host); !slices.Equal(got, []string{"EDITOR=vi"}) {
		t.Fatalf("control: the plain policy alone passes %v", got)
	}
	for _, pair := range [][2]EnvironmentPolicy{{plain, prof}, {prof, plain}} {
		got := intersectEnvProfiles(pair[0], pair[1])
		if env := got.Profile.Apply(host); !slices.Equal(env, []string{"EDITOR=vi"}) {
			t.Errorf("a plain policy's denied patterns intersected with a profile pass %v (want only EDITOR=vi)", env)
		}
	}
}
