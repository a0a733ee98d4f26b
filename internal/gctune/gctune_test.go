package gctune

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"pgregory.net/rapid"
)

const mib = 1 << 20

func TestPolicyGOGC(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 800},
		{1 * mib, 800},    // a goal of 9 MiB: Max bounds it
		{14 * mib, 800},   // 128/14 - 1 = 8.1
		{16 * mib, 700},   // goal 128 MiB
		{32 * mib, 300},   // goal 128 MiB
		{48 * mib, 166},   // goal 127.7 MiB
		{64 * mib, 100},   // goal 128 MiB, GOGC the default
		{100 * mib, 100},  // past half the ceiling: the default, goal 200 MiB
		{128 * mib, 100},  // at the ceiling
		{4096 * mib, 100}, // far past it: never below the default
		{1<<40 + 1, 100},  // no overflow
	} {
		if got := Default.GOGC(c.live); got != c.want {
			t.Errorf("GOGC(%d MiB) = %d, want %d", c.live/mib, got, c.want)
		}
	}
}

// TestPolicyProperties: GOGC stays within [Min, Max], never grows with the
// live heap, and puts the heap goal at or under the ceiling whenever it is
// above Min (at Min the goal is Go's default, twice the live heap).
func TestPolicyProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := Policy{Ceiling: rapid.Uint64Range(1, 1<<40).Draw(rt, "ceiling")}
		p.Min = rapid.IntRange(1, 500).Draw(rt, "min")
		p.Max = rapid.IntRange(p.Min, 5000).Draw(rt, "max")
		a := rapid.Uint64Range(0, 1<<42).Draw(rt, "live")
		b := rapid.Uint64Range(a, 1<<42).Draw(rt, "more")
		ga, gb := p.GOGC(a), p.GOGC(b)
		if ga < p.Min || ga > p.Max {
			rt.Fatalf("GOGC(%d) = %d, outside [%d, %d]", a, ga, p.Min, p.Max)
		}
		if gb > ga {
			rt.Fatalf("GOGC(%d) = %d > GOGC(%d) = %d", b, gb, a, ga)
		}
		if goal := a + a*uint64(ga)/100; ga > p.Min && goal > p.Ceiling {
			rt.Fatalf("GOGC(%d) = %d: heap goal %d over the ceiling %d", a, ga, goal, p.Ceiling)
		}
	})
}

func TestUserSet(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"GOGC": ""}, false},
		{map[string]string{"GOGC": "100"}, true},
		{map[string]string{"GOGC": "off"}, true},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, true},
		{map[string]string{"GODEBUG": "gctrace=1"}, false},
	} {
		if got := UserSet(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("UserSet(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

func gogcNow() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestTunerFollowsLiveHeap: after each collection the tuner sets the GOGC
// its policy gives for the live heap that cycle measured; a live set past
// half the ceiling gets the default, and a small one the ceiling's GOGC
// again once it is gone; Stop restores the GOGC it found.
func TestTunerFollowsLiveHeap(t *testing.T) {
	before := gogcNow()
	p := Policy{Ceiling: 64 * mib, Min: 100, Max: 800}
	type adj struct {
		live uint64
		gogc int
	}
	seen := make(chan adj, 64)
	tu := start(p, func(live uint64, g int) {
		select {
		case seen <- adj{live, g}:
		default:
		}
	})
	defer tu.Stop()
	// after collects until an adjustment reports a live heap for which
	// cond holds. Each adjustment is made after the tuner has re-armed, so
	// the next runtime.GC is always followed by another.
	after := func(cond func(uint64) bool) adj {
		t.Helper()
		for range 5 {
			runtime.GC()
			select {
			case a := <-seen:
				if cond(a.live) {
					return a
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no adjustment after a collection")
			}
		}
		t.Fatal("no adjustment with the live heap wanted")
		return adj{}
	}
	hold := make([][]byte, 0, 48)
	for range 48 {
		hold = append(hold, make([]byte, mib))
	}
	big := after(func(live uint64) bool { return live >= 48*mib })
	if big.gogc != 100 || gogcNow() != 100 {
		t.Errorf("live %d MiB: tuner set %d, runtime has %d, want 100", big.live/mib, big.gogc, gogcNow())
	}
	runtime.KeepAlive(hold)
	hold = nil
	small := after(func(live uint64) bool { return live < 16*mib })
	if want := p.GOGC(small.live); small.gogc != want || small.gogc <= 300 || gogcNow() != int64(want) {
		t.Errorf("live %d MiB: tuner set %d, runtime has %d, want %d (> 300)", small.live/mib, small.gogc, gogcNow(), want)
	}
	tu.Stop()
	if got := gogcNow(); got != before {
		t.Errorf("after Stop GOGC is %d, want %d as before Start", got, before)
	}
}
