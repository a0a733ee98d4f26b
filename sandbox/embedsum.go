//go:build go1.26 && !go1.27

package sandbox

// Identifying the Go files of an embed.FS cheaply: by the content hash the
// compiler stores with each embedded file, not by reading the files.
//
// The compiler writes, for every file of an embed.FS, its name, its data and
// the first 16 bytes of a SHA-256-based hash of the data
// (cmd/compile/internal/staticdata, WriteEmbed; the layout is embed's
// unexported file struct). Hashing the 530 KB of the sandbox's and domain's
// sources touched every page of them and cost 0.3-0.8 ms of every start of
// `turnstile sandbox`, twice (once in each program); the names and hashes
// are a few kilobytes. TestEmbedLayout checks the layout and the hashes
// against embed's own API for the Go version in use, so a toolchain that
// changes either fails the tests instead of yielding a wrong identity; and
// this file is built only with the Go release it was checked against
// (embedsum_other.go, which reads the files themselves, serves any other,
// and the early entry then leaves the command line to the turnstile binary).
//
// These functions may run before this package is initialised (the turnstile
// binary's early entry calls earlyFingerprint): they use no package-level
// state and only functions that need none.

import (
	"embed"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// embedHashesKnown: writeGoFiles reads the compiler's hashes and needs no
// package initialisation (earlyFingerprint may run before it).
const embedHashesKnown = true

// embedFile is embed's file: name, data, and the compiler's content hash.
type embedFile struct {
	name string
	data string
	hash [16]byte
}

// embedFiles returns fsys's files as the compiler laid them out: embed.FS is a
// pointer to a sorted slice of them (nil for an empty FS).
func embedFiles(fsys *embed.FS) []embedFile {
	p := *(**[]embedFile)(unsafe.Pointer(fsys))
	if p == nil {
		return nil
	}
	return *p
}

// writeGoFiles writes to h, for each file of fsys whose name ends in ".go"
// but not in "_test.go", in name order: its name, its length and the
// compiler's hash of its content.
func writeGoFiles(h *xxhash.Digest, fsys *embed.FS) {
	var n [8]byte
	for _, f := range embedFiles(fsys) {
		if !embedHasSuffix(f.name, ".go") || embedHasSuffix(f.name, "_test.go") {
			continue
		}
		h.WriteString(f.name)
		size := uint64(len(f.data))
		for i := range n {
			n[i] = byte(size >> (8 * i))
		}
		h.Write([]byte{0})
		h.Write(n[:])
		h.Write(f.hash[:])
	}
}

func embedHasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
