package sandbox

import (
	"fmt"
	"os"
	"testing"

	"turnstile/domain"
)

// BenchmarkFSViewDiscovery measures what git dir discovery adds to building
// a view (Run builds one per spawn; decisions at most one a second per
// snapshot): a workspace of dirs directories, fanned out 8 per level, with
// one nested repository, walked afresh and with the walk cached (walkTTL),
// against the same view with a read-only root (nothing to discover).
func BenchmarkFSViewDiscovery(b *testing.B) {
	for _, dirs := range []int{64, 512, 4096} {
		ws := tempWorkspace(b)
		made := 0
		var mk func(dir string, depth int)
		mk = func(dir string, depth int) {
			for i := 0; i < 8 && made < dirs; i++ {
				p := fmt.Sprintf("%s/d%d", dir, i)
				if err := os.Mkdir(p, 0o755); err != nil {
					b.Fatal(err)
				}
				made++
			}
			for i := 0; i < 8 && made < dirs && depth < maxDiscoveryDepth; i++ {
				mk(fmt.Sprintf("%s/d%d", dir, i), depth+1)
			}
		}
		mk(ws, 1)
		os.MkdirAll(ws+"/d0/d1/.git/hooks", 0o755)
		os.WriteFile(ws+"/d0/d1/.git/config", nil, 0o644)
		for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
			s := snapshotFor(b, mode, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true})
			for _, cached := range []bool{false, true} {
				b.Run(fmt.Sprintf("dirs=%d/%s/cached=%v", made, mode, cached), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if !cached {
							walkCache.mu.Lock()
							walkCache.m = map[string]walkResult{}
							walkCache.mu.Unlock()
						}
						newFSView(&s.Sandbox.Filesystem)
					}
				})
			}
		}
	}
}

// BenchmarkFSViewBuild measures one view of a mode's whole snapshot over a
// small workspace with a .git (what prepareSpec and the helper each build
// per spawn): the built-in sensitive paths (a hundred, half of them
// patterns under /home/*), the protected names, the system roots.
func BenchmarkFSViewBuild(b *testing.B) {
	ws := tempWorkspace(b)
	os.MkdirAll(ws+"/.git/hooks", 0o755)
	os.MkdirAll(ws+"/src", 0o755)
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		s := snapshotFor(b, mode, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true})
		domain.AddSensitivePaths(s, []string{"/var/lib/turnstile"})
		for _, walk := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/walk=%v", mode, walk), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					buildFSView(&s.Sandbox.Filesystem, walk)
				}
			})
		}
	}
}
