package sandbox

import (
	"reflect"
	"testing"

	"turnstile/domain"
)

func sampleMessage() *helperMessage {
	return &helperMessage{
		Argv: []string{"/bin/sh", "-c", "echo ☃"}, Env: []string{"PATH=/bin", "EMPTY="}, Cwd: "/w",
		Spec: SandboxSpec{
			Entries: []domain.FilesystemEntry{
				{Kind: domain.PathWorkspaceRoot, Path: "/w", Access: domain.AccessWrite, Provenance: domain.ProvenanceWorkspace, ResolvedPath: "/w"},
				{Kind: domain.PathProtected, Path: "/w/.git", Access: domain.AccessWrite, Provenance: domain.ProvenanceSystem, ResolvedPath: "/w/.git", Reserved: true},
				{Kind: domain.PathExplicit, Path: "/c", Access: domain.AccessRead, Provenance: domain.ProvenanceProfile, ResolvedPath: "/c", Overlay: true},
			},
			RestrictFilesystem: true, RestrictNetwork: true, AllowUnixSockets: true, LandlockABI: 7, Seccomp: true,
			UserNamespaces: true, InNamespace: true, Walked: true, TmpDir: "/tmp/t", UID: SandboxUID, GID: SandboxUID,
			HostSockets: []string{"/run/a.sock", "/var/run/b c.sock"}, Idmaps: []IdmapOwner{{UID: 0, GID: 0}, {UID: 1000, GID: 100}},
			FullAccess: true, HeldSecrets: 2,
		},
	}
}

func TestCodecRoundTrip(t *testing.T) {
	for _, m := range []*helperMessage{sampleMessage(), {Argv: []string{"x"}}} {
		got, err := decodeMessage(encodeMessage(m))
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Env) == 0 {
			m.Env = []string{}
		}
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip:\n%+v\n%+v", got, m)
		}
	}
	b := encodeMessage(sampleMessage())
	for i := 0; i < len(b); i++ {
		if _, err := decodeMessage(b[:i]); err == nil {
			t.Fatalf("truncated at %d decoded", i)
		}
	}
	if _, err := decodeMessage(append(b, 0)); err == nil {
		t.Fatal("trailing byte decoded")
	}
	if _, err := decodeMessage([]byte{codecVersion, 0x80, 0x00, 0, 0}); err == nil {
		t.Fatal("overlong varint decoded")
	}
}

// FuzzDecodeMessage: the helper's decoder never panics, and what it accepts
// re-encodes to the same bytes.
func FuzzDecodeMessage(f *testing.F) {
	f.Add(encodeMessage(sampleMessage()))
	f.Add([]byte{codecVersion, 0, 0, 0, 0})
	f.Add([]byte{codecVersion, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMessage(b)
		if err != nil {
			return
		}
		if again := encodeMessage(m); string(again) != string(b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", again, b)
		}
	})
}
