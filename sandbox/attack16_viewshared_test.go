package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack16ViewBuildsShared: a decision's view of a workspace (its
// roots, protected paths and nested repositories canonicalised) is reused
// while nothing it looked up changes, but after a change every decision
// that found it stale built it again, all at once: the agent kept 256
// nested repositories in its workspace (each one's work tree looked up
// for the protected list's names), created a file and asked for 32
// decisions at once, which took 4.5 s of the server's CPU and 300 MB at
// their peak on the review machine, ten times that for 320. A decision
// now waits for the build of its view under way at the same watch
// generation. Here, after a file is created in the workspace, eight
// decisions find the view stale at once, the first build waiting (for up
// to 2 s) for the others to start theirs; one build is made. The
// controls: each decision answers as alone (a read in the workspace
// allowed, a write to a nested repository's .git/config refused).
func TestAttack16ViewBuildsShared(t *testing.T) {
	ws := tempWorkspace(t)
	files := map[string]string{"a.txt": "x"}
	for i := range 64 {
		files[fmt.Sprintf("r%d/.git/config", i)] = "[core]\n"
	}
	mkfiles(t, ws, files)
	s := profileSnapshot(t, ws, map[string]domain.Access{})
	check := func(p string, op domain.Access) error {
		return DecisionChecker{}.CheckFile(&s, filepath.Join(ws, p), op)
	}
	if err := check("a.txt", domain.AccessRead); err != nil {
		t.Fatalf("control: read a.txt: %v", err)
	}
	if _, _, ok := watchGen(); !ok {
		t.Fatal("no inotify here: views are not cached, the premise does not hold")
	}
	mustDo(t, os.WriteFile(filepath.Join(ws, "new.txt"), nil, 0o644))
	const callers = 8
	var mu sync.Mutex
	builds := 0
	all := make(chan struct{})
	viewBuilding = func() {
		mu.Lock()
		builds++
		n := builds
		if n == callers {
			close(all)
		}
		mu.Unlock()
		if n == 1 {
			select {
			case <-all:
			case <-time.After(2 * time.Second): // a bound on what is not expected
			}
		}
	}
	defer func() { viewBuilding = nil }()
	start := make(chan struct{})
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if i%2 == 0 {
				errs[i] = check("a.txt", domain.AccessRead)
			} else if check("r3/.git/config", domain.AccessWrite) == nil {
				errs[i] = fmt.Errorf("a write to r3/.git/config allowed")
			}
		}()
	}
	close(start)
	wg.Wait()
	if builds != 1 {
		t.Errorf("%d decisions that found the view stale at once built it %d times", callers, builds)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("control: decision %d: %v", i, err)
		}
	}
}
