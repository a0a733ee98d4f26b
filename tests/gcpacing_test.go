package tests

import "testing"

// TestServeGCPacing: serve paces the collector itself (GOGC above the
// default while its heap is small) unless the environment sets GOGC or
// GOMEMLIMIT, which the runtime then follows unchanged.
func TestServeGCPacing(t *testing.T) {
	for _, c := range []struct {
		name     string
		env      []string
		check    func(gogc float64) bool
		want     string
		memlimit float64 // want go_gc_gomemlimit_bytes, when not 0
	}{
		// The control: neither set (empty is unset, for the runtime too).
		{"unset", []string{"GOGC=", "GOMEMLIMIT="}, func(g float64) bool { return g > 100 }, "above 100 (the tuner's)", 0},
		{"GOGC", []string{"GOGC=150", "GOMEMLIMIT="}, func(g float64) bool { return g == 150 }, "150 (the user's)", 0},
		{"GOMEMLIMIT", []string{"GOGC=", "GOMEMLIMIT=512MiB"}, func(g float64) bool { return g == 100 }, "100 (the runtime's default)", 512 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := StartServerEnv(t, c.env)
			m := s.scrape()
			if g := m["go_gc_gogc_percent"]; !c.check(g) {
				t.Errorf("go_gc_gogc_percent = %v, want %s", g, c.want)
			}
			if c.memlimit != 0 && m["go_gc_gomemlimit_bytes"] != c.memlimit {
				t.Errorf("go_gc_gomemlimit_bytes = %v, want %v", m["go_gc_gomemlimit_bytes"], c.memlimit)
			}
		})
	}
}
