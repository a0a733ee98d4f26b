package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinariesBuiltFromTheseSources stats every source file the binaries
// under test are built from (TestMain builds them with go build, which the
// go command's test cache does not see): the cache then keys this package's
// results on them, so that `go test ./...` runs the end-to-end tests again
// after a change to the server, not a cached pass of the code before it.
func TestBinariesBuiltFromTheseSources(t *testing.T) {
	n := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != ".." && (strings.HasPrefix(name, ".") || name == "tests" || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if name := d.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || name == "go.mod" || name == "go.sum" ||
			strings.HasPrefix(filepath.ToSlash(p), "../api/ui/") {
			if _, err := os.Stat(p); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("../cmd/turnstile/main.go"); err != nil || n < 100 {
		t.Fatalf("%d source files found (%v): the walk does not see the sources the binaries are built from", n, err)
	}
}
