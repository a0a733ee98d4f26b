package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestOverlaysShareOneBound: a command's overlays keep their upper layers
// on one tmpfs, so a profile with several overlay keys still gives a
// command at most 1 GiB of the host's memory, not one GiB each: 8 MiB
// written to one overlay leaves 8 MiB less in the other (statfs of an
// overlay is its upper layer's), and both report the one 1 GiB bound.
// Control: the writes succeed, and the directories themselves are not
// written.
func TestOverlaysShareOneBound(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	base := visibleWorkspace(t)
	ws, cache := base+"/ws", base+"/cache"
	for _, d := range []string{ws + "/vendor", cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := overlaySnapshot(ws, cache, "", filepathDir(testExe(t)), f.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	script := `set -e; C=` + cache + `
free() { stat -f -c '%a %S %b' "$1"; }
free vendor; free "$C"
dd if=/dev/zero of="$C/big" bs=1M count=8 2>/dev/null
free vendor; free "$C"; ls -l "$C/big" | cut -d' ' -f5`
	r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("%v: exit %d, %s", err, r.ExitCode, r.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(r.Stdout)), "\n")
	if len(lines) != 5 || lines[4] != strconv.Itoa(8<<20) {
		t.Fatalf("output %q", r.Stdout)
	}
	var avail [4]int64
	for i := range 4 {
		fs := strings.Fields(lines[i])
		a, _ := strconv.ParseInt(fs[0], 10, 64)
		bs, _ := strconv.ParseInt(fs[1], 10, 64)
		total, _ := strconv.ParseInt(fs[2], 10, 64)
		if total*bs != 1<<30 {
			t.Fatalf("overlay %d reports %d bytes, want the one 1 GiB bound (%q)", i, total*bs, lines[i])
		}
		avail[i] = a * bs
	}
	if d := avail[0] - avail[2]; d < 8<<20 {
		t.Fatalf("8 MiB written to one overlay left the other's free space %d bytes lower: each has a bound of its own (%q)", d, lines)
	}
	if d := avail[1] - avail[3]; d < 8<<20 {
		t.Fatalf("control: the written overlay's free space fell by %d bytes (%q)", d, lines)
	}
	if _, err := os.Lstat(cache + "/big"); !os.IsNotExist(err) {
		t.Fatalf("the overlay's directory was written: %v", err)
	}
}
