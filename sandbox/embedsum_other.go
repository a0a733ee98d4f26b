//go:build !go1.26 || go1.27

package sandbox

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// embedHashesKnown is false: this Go release's layout of embedded files has
// not been checked (embedsum.go), so writeGoFiles reads the files through
// embed's API, which needs package initialisation; earlyFingerprint then
// declines and the turnstile binary runs the command line itself.
const embedHashesKnown = false

// writeGoFiles writes to h, for each file of fsys whose name ends in ".go"
// but not in "_test.go", in name order: its name, its length and its
// content.
func writeGoFiles(h *xxhash.Digest, fsys *embed.FS) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		h.WriteString("unreadable: " + err.Error())
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := fsys.ReadFile(name)
		if err != nil {
			h.WriteString("unreadable: " + err.Error())
			return
		}
		h.WriteString(name + "\x00" + hex16(uint64(len(data))) + "\x00")
		h.Write(data)
	}
}
