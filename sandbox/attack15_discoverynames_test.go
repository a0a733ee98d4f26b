package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestAttack15DiscoveryNamesBounded: the discovery of git dirs below a
// writable root, run for the decisions and spawns of every turn there,
// stops after 4,096 directories, but read each directory whole, every name
// held and sorted: the agent put millions of hard links with names of 247
// bytes in one directory of its workspace, and each walk of it (after any
// change below the root) took the server's memory by about 300 bytes a
// name, without bound. The walk now spends a budget of names (1 << 20, a
// name one more per 32 bytes) and records the bound it reached. Here
// 140,000 such names pass it; the control, a small tree beside, has its
// .git found and no bound reached.
func TestAttack15DiscoveryNamesBounded(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"wide/": "", "small/sub/.git/HEAD": "ref: refs/heads/main\n"})
	name := strings.Repeat("x", 240)
	for i := 0; i < 140000; i++ {
		seed := filepath.Join(ws, fmt.Sprintf("seed%d", i/60000))
		if i%60000 == 0 {
			mustDo(t, os.WriteFile(seed, nil, 0o644))
		}
		mustDo(t, os.Link(seed, filepath.Join(ws, "wide", fmt.Sprintf("%s%07d", name, i))))
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	r := walkRoot(ws)
	runtime.ReadMemStats(&m1)
	if len(r.limits) == 0 {
		t.Errorf("the walk read 140,000 names of 247 bytes whole (%d MB allocated), no bound reached", (m1.TotalAlloc-m0.TotalAlloc)>>20)
	}
	// control
	c := walkRoot(filepath.Join(ws, "small"))
	if len(c.limits) != 0 || len(c.found) != 1 || c.found[0] != filepath.Join(ws, "small", "sub", ".git") {
		t.Errorf("control: the walk of a small tree found %v, limits %v", c.found, c.limits)
	}
}
