package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkPlantCheck is the check Run makes after every restricted
// command, over a writable root of n directories (each with 3 files, 10
// subdirectories a level) holding one repository the command did not
// touch: its cost is the walk. "first" is a root no walk has seen (every
// directory listed: `turnstile sandbox`, or a server's first command
// there); "again" one an earlier walk listed (a stat a directory).
func BenchmarkPlantCheck(b *testing.B) {
	for _, n := range []int{100, 2000, 20000} {
		root := b.TempDir()
		dirs := []string{root}
		for i := 1; len(dirs) < n; i++ {
			d := filepath.Join(dirs[(i-1)/10], fmt.Sprintf("d%d", i))
			if err := os.Mkdir(d, 0o755); err != nil {
				b.Fatal(err)
			}
			dirs = append(dirs, d)
		}
		for _, d := range dirs {
			for j := 0; j < 3; j++ {
				os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.go", j)), nil, 0o644)
			}
		}
		mkfilesB(b, root, "repo/.git/HEAD", "repo/.git/config", "repo/.git/objects/", "repo/.git/refs/")
		// The tree is older than a listing may be reused after.
		for time.Since(time.Unix(0, ctimeOf(b, root+"/repo/.git/refs"))) < maxStampLag+time.Second {
			time.Sleep(50 * time.Millisecond)
		}
		pc := &plantCheck{roots: []string{root}, held: map[string]bool{}}
		since := coarseNow()
		for _, warm := range []bool{false, true} {
			b.Run(fmt.Sprintf("dirs=%d/%s", n, map[bool]string{false: "first", true: "again"}[warm]), func(b *testing.B) {
				pc.run(since)
				for b.Loop() {
					if !warm {
						plantMemos.Lock()
						delete(plantMemos.m, root)
						plantMemos.Unlock()
					}
					if q, l := pc.run(since); len(q) != 0 || len(l) != 0 {
						b.Fatal(q, l)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/dir")
			})
		}
	}
}

func ctimeOf(t testing.TB, p string) int64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ctim.Nano()
}
