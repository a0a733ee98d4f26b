package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// BenchmarkPlantCheckFlood is the check after a command that left what
// costs it most (second attack review): "configs", 60,000 directories laid
// out as repositories (objects and refs as files), each config a hard link
// to one trusted 64 KiB config (ext4 allows 65,000 links), all made since
// the command started; "bigdir", one directory of 300,000 entries with
// 200-byte names. Run with -benchtime 1x: the setup writes about a GB of
// directory entries.
func BenchmarkPlantCheckFlood(b *testing.B) {
	line := "\tbare = false\n"
	cfg := "[core]\n" + strings.Repeat(line, (64<<10-8)/len(line))
	for _, c := range []struct {
		name string
		make func(root string) error
	}{
		{"configs", func(root string) error {
			if err := os.WriteFile(root+"/cfg", []byte(cfg), 0o644); err != nil {
				return err
			}
			for i := 0; i < 60_000; i++ {
				d := fmt.Sprintf("%s/g%d", root, i)
				if err := os.Mkdir(d, 0o755); err != nil {
					return err
				}
				for _, n := range []string{"HEAD", "objects", "refs"} {
					if err := os.WriteFile(d+"/"+n, nil, 0o644); err != nil {
						return err
					}
				}
				if err := os.Link(root+"/cfg", d+"/config"); err != nil {
					return err
				}
			}
			return nil
		}},
		{"bigdir", func(root string) error {
			pad := strings.Repeat("x", 190)
			for i := 0; i < 300_000; i++ {
				if err := os.WriteFile(fmt.Sprintf("%s/%s%09d", root, pad, i), nil, 0o644); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				root := b.TempDir()
				if err := c.make(root); err != nil {
					b.Fatal(err)
				}
				pc := &plantCheck{roots: []string{root}, held: map[string]bool{}}
				b.StartTimer()
				found, limits := pc.run(time.Unix(0, 0)) // everything was made by the command
				b.StopTimer()
				b.ReportMetric(float64(len(found)), "quarantined")
				b.ReportMetric(float64(len(limits)), "limits")
				os.RemoveAll(root)
				b.StartTimer()
			}
		})
	}
}
