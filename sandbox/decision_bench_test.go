package sandbox

import (
	"testing"

	"turnstile/domain"
)

// BenchmarkResolveFile: a file decision on a workspace file (the tool path
// outside the kernel sandbox), which every sensitive rule is matched
// against, as named and folded (domain.FoldName).
func BenchmarkResolveFile(b *testing.B) {
	ws := tempWorkspace(b)
	mkfilesB(b, ws, "src/")
	s := snapshotFor(b, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	p := ws + "/src/Main.go"
	if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false); err != nil {
			b.Fatal(err)
		}
	}
}
