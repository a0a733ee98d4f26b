package sandbox

import (
	"encoding/binary"
	"errors"

	"turnstile/domain"
)

// The helper message travels in a small length-prefixed binary form rather
// than JSON: both ends are the same binary, and decoding JSON by reflection
// cost 0.2–0.3 ms of every spawn in the freshly started helper (measured),
// against a few microseconds for this. Layout: a version byte, then fields
// in a fixed order; strings are uvarint length + bytes, lists uvarint count +
// items, booleans one byte, integers uvarints.
const codecVersion = 3 // 2: an entry's Overlay; 3: a root's Within and LedTo

// maxCodecItems bounds list lengths and string sizes while decoding.
const maxCodecItems = 1 << 20

var errCodec = errors.New("malformed helper message")

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) boolean(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *encoder) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// encodeMessage serialises m.
func encodeMessage(m *helperMessage) []byte {
	e := &encoder{b: []byte{codecVersion}}
	e.strs(m.Argv)
	e.strs(m.Env)
	e.str(m.Cwd)
	sp := &m.Spec
	e.uint(uint64(len(sp.Entries)))
	for _, en := range sp.Entries {
		e.str(string(en.Kind))
		e.str(en.Path)
		e.str(string(en.Access))
		e.str(string(en.Provenance))
		e.str(en.ResolvedPath)
		e.boolean(en.Reserved)
		e.boolean(en.Overlay)
		e.str(en.Within)
		e.str(en.LedTo)
	}
	for _, v := range []bool{sp.RestrictFilesystem, sp.RestrictNetwork, sp.AllowUnixSockets, sp.Seccomp, sp.UserNamespaces, sp.InNamespace, sp.Walked} {
		e.boolean(v)
	}
	e.uint(uint64(max(sp.LandlockABI, 0)))
	e.str(sp.TmpDir)
	e.uint(uint64(max(sp.UID, 0)))
	e.uint(uint64(max(sp.GID, 0)))
	e.strs(sp.HostSockets)
	e.uint(uint64(len(sp.Idmaps)))
	for _, o := range sp.Idmaps {
		e.uint(uint64(max(o.UID, 0)))
		e.uint(uint64(max(o.GID, 0)))
	}
	e.uint(uint64(max(sp.ProxyPort, 0)))
	e.boolean(sp.FullAccess)
	e.uint(uint64(max(sp.HeldSecrets, 0)))
	e.uint(uint64(max(sp.MaxTasks, 0)))
	return e.b
}

// decoder reads a message. Its strings are slices of one copy of the
// message (s, with b the bytes not read yet, at offset len(s)-len(b)): a
// freshly started helper decodes about 2,000 strings, and one allocation
// instead of one each is fewer fresh pages touched, which is most of what a
// spawn costs on a virtualised machine (docs/benchmarks.md).
type decoder struct {
	b   []byte
	s   string
	err error
}

// uvarintLen is the length of v's uvarint form.
func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || n != uvarintLen(v) { // overlong forms are refused
		d.err = errCodec
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCodec
		return ""
	}
	off := len(d.s) - len(d.b)
	d.b = d.b[n:]
	return d.s[off : off+int(n)]
}

// known returns s as one of names when it is one (no copy of the message
// kept alive by it), else s.
func known[T ~string](s string, names ...T) T {
	for _, n := range names {
		if string(n) == s {
			return n
		}
	}
	return T(s)
}

func (d *decoder) boolean() bool {
	if d.err != nil || len(d.b) == 0 || d.b[0] > 1 {
		d.err = errCodec
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *decoder) count() int {
	n := d.uint()
	if n > maxCodecItems || n > uint64(len(d.b)) {
		d.err = errCodec
		return 0
	}
	return int(n)
}

func (d *decoder) strs() []string {
	n := d.count()
	out := make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.str())
	}
	return out
}

// decodeMessage parses what encodeMessage produced; any trailing or missing
// byte is an error.
func decodeMessage(b []byte) (*helperMessage, error) {
	if len(b) == 0 || b[0] != codecVersion {
		return nil, errCodec
	}
	s := string(b)
	d := &decoder{b: b[1:], s: s}
	m := &helperMessage{}
	m.Argv = d.strs()
	m.Env = d.strs()
	m.Cwd = d.str()
	sp := &m.Spec
	n := d.count()
	if n > 0 {
		// An entry takes at least 9 bytes (seven lengths, two booleans).
		sp.Entries = make([]domain.FilesystemEntry, 0, min(n, len(d.b)/9))
	}
	for i := 0; i < n && d.err == nil; i++ {
		sp.Entries = append(sp.Entries, domain.FilesystemEntry{
			Kind: known(d.str(), domain.PathProtected, domain.PathSensitive, domain.PathWorkspaceRoot, domain.PathProjectRoot,
				domain.PathSystemRoot, domain.PathDevice, domain.PathExplicit, domain.PathAppReadRoot),
			Path:   d.str(),
			Access: known(d.str(), domain.AccessRead, domain.AccessWrite, domain.AccessDeny, domain.AccessOverlay),
			Provenance: known(d.str(), domain.ProvenanceSystem, domain.ProvenanceWorkspace, domain.ProvenanceProject,
				domain.ProvenanceRuntime, domain.ProvenanceTaskCap, domain.ProvenanceComposer, domain.ProvenanceProfile, domain.ProvenanceBuiltin),
			ResolvedPath: d.str(), Reserved: d.boolean(), Overlay: d.boolean(),
			Within: d.str(), LedTo: d.str(),
		})
	}
	for _, p := range []*bool{&sp.RestrictFilesystem, &sp.RestrictNetwork, &sp.AllowUnixSockets, &sp.Seccomp, &sp.UserNamespaces, &sp.InNamespace, &sp.Walked} {
		*p = d.boolean()
	}
	abi := d.uint()
	if abi > 1<<16 {
		d.err = errCodec
	}
	sp.LandlockABI = int(abi)
	sp.TmpDir = d.str()
	uid, gid := d.uint(), d.uint()
	if uid > 1<<32-2 || gid > 1<<32-2 {
		d.err = errCodec
	}
	sp.UID, sp.GID = int(uid), int(gid)
	if hs := d.strs(); len(hs) > 0 {
		sp.HostSockets = hs
	}
	n = d.count()
	for i := 0; i < n && d.err == nil; i++ {
		u, g := d.uint(), d.uint()
		if u > 1<<32-2 || g > 1<<32-2 {
			d.err = errCodec
		}
		sp.Idmaps = append(sp.Idmaps, IdmapOwner{UID: int(u), GID: int(g)})
	}
	if pp := d.uint(); pp > 65535 {
		d.err = errCodec
	} else {
		sp.ProxyPort = int(pp)
	}
	sp.FullAccess = d.boolean()
	if hs := d.uint(); hs > 64 {
		d.err = errCodec
	} else {
		sp.HeldSecrets = int(hs)
	}
	if mt := d.uint(); mt > 1<<22 {
		d.err = errCodec
	} else {
		sp.MaxTasks = int(mt)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errCodec
	}
	if d.err != nil {
		return nil, d.err
	}
	return m, nil
}
