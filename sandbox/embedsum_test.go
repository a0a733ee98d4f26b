//go:build go1.26 && !go1.27

package sandbox

import (
	"crypto/sha256"
	"embed"
	"io/fs"
	"testing"

	"github.com/cespare/xxhash/v2"
)

//go:embed testdata/embedsum
var embedTestFS embed.FS

//go:embed testdata/embedsum/*.go
var embedGoFS embed.FS

var embedEmptyFS embed.FS

// embedCompilerHash is what the compiler stores for data (cmd/internal/hash:
// Sum32 for a file of at most 1 KiB, New32 above), truncated to 16 bytes.
func embedCompilerHash(data []byte) [16]byte {
	var sum [32]byte
	if len(data) <= 1024 {
		sum = sha256.Sum256(data)
		sum[0] ^= 0xff
	} else {
		sum = sha256.Sum256(append([]byte{1}, data...))
	}
	return [16]byte(sum[:16])
}

// TestEmbedLayout: the files read through the compiler's layout are the files
// embed's API serves, in the same order, with the same data, and each hash
// is the compiler's hash of that data (a file of each size class). A Go
// release that changes either makes this fail rather than the fingerprint
// silently wrong.
func TestEmbedLayout(t *testing.T) {
	var names []string
	fs.WalkDir(embedTestFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p != "." {
			names = append(names, p)
		}
		return nil
	})
	got := embedFiles(&embedTestFS)
	if len(got) != len(names) || len(names) != 6 {
		t.Fatalf("%d files in the layout, %d through the API (%v), want 6", len(got), len(names), names)
	}
	sizes := map[bool]bool{}
	for i, f := range got {
		name := f.name
		if d, err := fs.Stat(embedTestFS, names[i]); err == nil && d.IsDir() {
			if name != names[i]+"/" || f.data != "" {
				t.Fatalf("entry %d: %q %q, want the directory %s/", i, name, f.data, names[i])
			}
			continue
		}
		data, err := embedTestFS.ReadFile(names[i])
		if err != nil {
			t.Fatal(err)
		}
		if name != names[i] || f.data != string(data) {
			t.Fatalf("entry %d is %q (%d bytes), the API's is %q (%d bytes)", i, name, len(f.data), names[i], len(data))
		}
		if f.hash != embedCompilerHash(data) {
			t.Fatalf("%s: hash %x, want %x", name, f.hash, embedCompilerHash(data))
		}
		sizes[len(data) > 1024] = true
	}
	if !sizes[true] || !sizes[false] {
		t.Fatalf("the test files do not cover both hash rules: %v", sizes)
	}
	if embedFiles(&embedEmptyFS) != nil {
		t.Fatal("an empty FS has files")
	}
}

// TestEmbedWriteGoFiles: the digest covers each Go file's name and content and
// leaves out tests and other files.
func TestEmbedWriteGoFiles(t *testing.T) {
	sum := func(fsys *embed.FS) uint64 {
		h := xxhash.New()
		writeGoFiles(h, fsys)
		return h.Sum64()
	}
	h := xxhash.New()
	for _, name := range []string{"testdata/embedsum/big.go", "testdata/embedsum/small.go"} {
		data, _ := embedGoFS.ReadFile(name)
		hash := embedCompilerHash(data)
		var n [8]byte
		for i := range n {
			n[i] = byte(uint64(len(data)) >> (8 * i))
		}
		h.WriteString(name)
		h.Write([]byte{0})
		h.Write(n[:])
		h.Write(hash[:])
	}
	if got, want := sum(&embedGoFS), h.Sum64(); got != want {
		t.Fatalf("digest %x, want %x (big.go and small.go only)", got, want)
	}
	if sum(&embedGoFS) != sum(&embedTestFS) {
		t.Fatal("the test file or the text file changed the digest")
	}
	if sum(&embedEmptyFS) != xxhash.New().Sum64() {
		t.Fatal("an empty FS wrote something")
	}
	if hex16(0x0123456789abcdef) != "0123456789abcdef" || hex16(0) != "0000000000000000" {
		t.Fatal(hex16(0x0123456789abcdef))
	}
}
