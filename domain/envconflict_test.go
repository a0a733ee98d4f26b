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
