package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// A full_access command of a root server is root, in a user namespace that
// maps root to root, with the host's filesystem writable: it can rewrite
// /etc/ld.so.preload, /etc/ld.so.cache or the C library. A dynamically
// linked helper (the server re-executing itself: cmd/turnstile links cgo
// through net and os/user) starts with the dynamic loader, which reads those
// files and runs what they name before the helper's first Go instruction,
// in a mount namespace that is still a copy of the host's, before any mask:
// one such command makes every later spawn read the token. Run therefore
// starts a root server's full_access helper only when it is a static
// executable (no ELF interpreter), the lean helper cmd/turnstile-sandbox,
// and refuses the command otherwise. A server that is not root needs no such
// rule: its commands have its uid and no capability over the files the
// loader reads (root's), and the helper's environment is empty (no
// LD_PRELOAD or LD_LIBRARY_PATH).

// staticHelperHint names the fix in the refusal.
const staticHelperHint = "build the static helper next to the server: go build -o DIR/ ./cmd/turnstile ./cmd/turnstile-sandbox, then run DIR/turnstile"

// fullAccessHelperProblem says why prog must not be started as the helper
// of a full_access command of this process, or "".
func fullAccessHelperProblem(prog helperProg) string {
	if os.Geteuid() != 0 || !prog.dynamic {
		return ""
	}
	return fmt.Sprintf("a server running as root starts full_access commands only through a statically linked helper, and its helper is %s, %s: "+
		"its dynamic loader would run before any mask, in the host's view, reading /etc/ld.so.preload and the system libraries, which a full_access command can rewrite (%s)",
		prog.file, prog.linkage, staticHelperHint)
}

// FullAccessHelperProblem says why this process refuses full_access
// commands that hide the gateway's secrets (doctor and serve print it), or
// "" when it runs them.
func FullAccessHelperProblem() string {
	return fullAccessHelperProblem(*currentHelper())
}

// executableLinkage inspects the executable open at f and reports whether
// it is dynamically linked, with how it is linked. Anything but an ELF
// executable without a PT_INTERP program header counts as dynamic (a
// script starts an interpreter; an unreadable file proves nothing).
func executableLinkage(f io.ReaderAt) (dynamic bool, how string) {
	interp, err := elfInterpreter(f)
	switch {
	case err != nil:
		return true, "not a readable ELF executable (" + err.Error() + ")"
	case interp != "":
		return true, "dynamically linked (interpreter " + interp + ")"
	}
	return false, "statically linked"
}

// fileLinkage is executableLinkage of the file at path (opened for reading:
// /proc/self/exe, or /proc/self/fd/N of a pinned helper).
func fileLinkage(path string) (dynamic bool, how string) {
	f, err := os.Open(path)
	if err != nil {
		return true, "unreadable: " + err.Error()
	}
	defer f.Close()
	return executableLinkage(f)
}

// PT_INTERP is the program header type naming the dynamic loader.
const ptInterp = 3

// elfInterpreter returns the interpreter an ELF file names ("" when it
// names none). It reads only the ELF header and the program headers
// (debug/elf would link compression packages into the lean helper).
func elfInterpreter(f io.ReaderAt) (string, error) {
	var id [16]byte
	if _, err := f.ReadAt(id[:], 0); err != nil {
		return "", err
	}
	if string(id[:4]) != "\x7fELF" {
		return "", errors.New("no ELF magic")
	}
	var bo binary.ByteOrder
	switch id[5] {
	case 1:
		bo = binary.LittleEndian
	case 2:
		bo = binary.BigEndian
	default:
		return "", errors.New("unknown ELF byte order")
	}
	var phoff uint64
	var phentsize, phnum uint16
	switch id[4] {
	case 2: // ELFCLASS64
		var h [64]byte
		if _, err := f.ReadAt(h[:], 0); err != nil {
			return "", err
		}
		phoff, phentsize, phnum = bo.Uint64(h[32:]), bo.Uint16(h[54:]), bo.Uint16(h[56:])
		if phentsize < 56 {
			return "", errors.New("short ELF64 program header")
		}
	case 1: // ELFCLASS32
		var h [52]byte
		if _, err := f.ReadAt(h[:], 0); err != nil {
			return "", err
		}
		phoff, phentsize, phnum = uint64(bo.Uint32(h[28:])), bo.Uint16(h[42:]), bo.Uint16(h[44:])
		if phentsize < 32 {
			return "", errors.New("short ELF32 program header")
		}
	default:
		return "", errors.New("unknown ELF class")
	}
	if phnum == 0xffff {
		return "", errors.New("extended program header count") // PN_XNUM: not produced for executables
	}
	ph := make([]byte, phentsize)
	for i := range uint64(phnum) {
		if _, err := f.ReadAt(ph, int64(phoff+i*uint64(phentsize))); err != nil {
			return "", err
		}
		if bo.Uint32(ph) != ptInterp {
			continue
		}
		var off, size uint64
		if id[4] == 2 {
			off, size = bo.Uint64(ph[8:]), bo.Uint64(ph[32:])
		} else {
			off, size = uint64(bo.Uint32(ph[4:])), uint64(bo.Uint32(ph[16:]))
		}
		if size == 0 || size > 4096 {
			return "", errors.New("malformed PT_INTERP")
		}
		name := make([]byte, size)
		if _, err := f.ReadAt(name, int64(off)); err != nil {
			return "", err
		}
		if n := len(name); name[n-1] == 0 {
			name = name[:n-1]
		}
		if len(name) == 0 {
			return "", errors.New("empty PT_INTERP")
		}
		return string(name), nil
	}
	return "", nil
}
