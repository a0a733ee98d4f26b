package sandbox

import (
	"reflect"
	"slices"
	"testing"

	"turnstile/domain"
)

func sampleMessage() *helperMessage {
	return &helperMessage{
		Argv: []string{"/bin/sh", "-c", "echo ☃"}, Env: []string{"PATH=/bin", "EMPTY="}, Cwd: "/w",
		Spec: SandboxSpec{
			Entries: []domain.FilesystemEntry{
				{Kind: domain.PathWorkspaceRoot, Path: "/w", Access: domain.AccessWrite, Provenance: domain.ProvenanceWorkspace, ResolvedPath: "/w", Within: "/", LedTo: "/real/w"},
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

// TestCodecCarriesEveryEnforcedEntryField: every field of a filesystem
// entry reaches the helper but those that only describe it (Origin, Key):
// a field the sandbox enforces and the codec drops is enforced by the
// server's view and not by the kernel's (a root's LedTo and Within were
// dropped so: the helper granted a root where its link led after the
// start). A field added to FilesystemEntry fails this until the codec
// carries it or it is named here as description (LinkedFrom: a copy is
// enforced as the carve-out it is).
func TestCodecCarriesEveryEnforcedEntryField(t *testing.T) {
	described := []string{"Origin", "Key", "LinkedFrom"}
	var full domain.FilesystemEntry
	rv := reflect.ValueOf(&full).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x" + rv.Type().Field(i).Name)
		case reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("field %s of kind %s: extend this test", rv.Type().Field(i).Name, f.Kind())
		}
	}
	got, err := decodeMessage(encodeMessage(&helperMessage{Argv: []string{"x"}, Spec: SandboxSpec{Entries: []domain.FilesystemEntry{full}}}))
	if err != nil {
		t.Fatal(err)
	}
	gv := reflect.ValueOf(got.Spec.Entries[0])
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Name
		if carried := gv.Field(i).Interface() == rv.Field(i).Interface(); carried == slices.Contains(described, name) {
			t.Errorf("field %s: carried to the helper %v, described only %v", name, carried, slices.Contains(described, name))
		}
	}
}
