package serverid

import (
	"crypto/ed25519"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tcp(s string) net.Addr {
	a, err := net.ResolveTCPAddr("tcp", s)
	if err != nil {
		panic(err)
	}
	return a
}

// The same key across starts; a proof verifies for the nonce, the key and
// an address the server named, and for nothing else.
func TestProof(t *testing.T) {
	dir := t.TempDir()
	id, created, err := LoadOrCreate(dir)
	if err != nil || !created {
		t.Fatalf("first start: %v created=%v", err, created)
	}
	again, created, err := LoadOrCreate(dir)
	if err != nil || created || again.Key() != id.Key() {
		t.Fatalf("second start: %v created=%v key %s, want %s", err, created, again.Key(), id.Key())
	}
	pub, err := os.ReadFile(filepath.Join(dir, PubFile))
	if err != nil || strings.TrimSpace(string(pub)) != id.Key() {
		t.Fatalf("%s: %q %v", PubFile, pub, err)
	}
	want, err := ParseKey(id.Key())
	if err != nil {
		t.Fatal(err)
	}
	id.SetAddresses([]string{"127.0.0.1:8740", "[::1]:8740"})
	nonce := NewNonce()
	p := id.Sign(nonce)
	for _, at := range []string{"127.0.0.1:8740", "[::1]:8740"} {
		if err := p.Verify(want, nonce, tcp(at)); err != nil {
			t.Errorf("control: the proof at %s: %v", at, err)
		}
	}
	// Where the client reached another address (a relay), another port, or
	// 127.0.0.2 (another loopback address the server does not hold).
	for _, at := range []string{"127.0.0.1:9000", "127.0.0.2:8740", "[::1]:9000"} {
		if err := p.Verify(want, nonce, tcp(at)); err == nil || !strings.Contains(err.Error(), "relayed") {
			t.Errorf("the proof verified at %s: %v", at, err)
		}
	}
	// Another nonce (a replayed proof).
	if err := p.Verify(want, NewNonce(), tcp("127.0.0.1:8740")); err == nil {
		t.Error("a proof of another nonce verified")
	}
	// The addresses changed after signing (an impostor's own added).
	forged := p
	forged.Addresses = append([]string{"127.0.0.1:9000"}, p.Addresses...)
	if err := forged.Verify(want, nonce, tcp("127.0.0.1:9000")); err == nil {
		t.Error("a proof with an address added verified")
	}
	// A relay's splice (review 199): the server asked to sign the client's
	// nonce with the relay's address appended does not sign the client's
	// nonce with the relay's address among the server's.
	spliced := id.Sign(append(append(append([]byte{}, nonce...), 0), "127.0.0.1:9000"...))
	spliced.Addresses = append([]string{"127.0.0.1:9000"}, spliced.Addresses...)
	if err := spliced.Verify(want, nonce, tcp("127.0.0.1:9000")); err == nil {
		t.Error("a spliced proof verified at the relay's address")
	}
	// Another key, though a valid proof of its own.
	other, _, err := LoadOrCreate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other.SetAddresses([]string{"127.0.0.1:8740"})
	if err := other.Sign(nonce).Verify(want, nonce, tcp("127.0.0.1:8740")); err == nil || !strings.Contains(err.Error(), "not the one pinned") {
		t.Errorf("another key's proof: %v", err)
	}
	// A pinned key's signature over an impostor's claimed key.
	stolen := other.Sign(nonce)
	stolen.Key = id.Key()
	if err := stolen.Verify(want, nonce, tcp("127.0.0.1:8740")); err == nil {
		t.Error("another key's signature verified under the pinned key")
	}
}

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		addrs []string
		at    string
		want  bool
	}{
		{[]string{"0.0.0.0:8740"}, "127.0.0.1:8740", true},
		{[]string{"0.0.0.0:8740"}, "192.0.2.7:8740", true},
		{[]string{"0.0.0.0:8740"}, "[::1]:8740", false}, // another family's socket
		{[]string{"[::]:8740"}, "[::1]:8740", true},
		{[]string{"[::]:8740"}, "127.0.0.1:8740", true},
		{[]string{"[::]:8740"}, "127.0.0.1:8741", false},
		{[]string{"127.0.0.1:8740"}, "[::ffff:127.0.0.1]:8740", true},
		{[]string{"localhost:8740"}, "127.0.0.1:8740", false}, // names are not resolved
		{nil, "127.0.0.1:8740", false},
	} {
		if got := Covers(tc.addrs, tcp(tc.at)); got != tc.want {
			t.Errorf("Covers(%v, %s) = %v, want %v", tc.addrs, tc.at, got, tc.want)
		}
	}
}

// A key file another user could read, a link, or another shape is refused,
// never used or replaced.
func TestLoadRefusesAnUnsafeKeyFile(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := LoadOrCreate(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, KeyFile)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreate(dir); err == nil || !strings.Contains(err.Error(), "read by others") {
		t.Errorf("a key of mode 0644: %v", err)
	}
	link := t.TempDir()
	if err := os.Symlink(path, filepath.Join(link, KeyFile)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreate(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a key that is a link: %v", err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, KeyFile), []byte("not hex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreate(bad); err == nil {
		t.Error("a key file of no key was used")
	}
	if b, _ := os.ReadFile(filepath.Join(bad, KeyFile)); string(b) != "not hex\n" {
		t.Errorf("the bad key file was replaced: %q", b)
	}
}

func TestParseKey(t *testing.T) {
	pub := make(ed25519.PublicKey, ed25519.PublicKeySize)
	pub[0] = 7
	k := FormatKey(pub)
	if got, err := ParseKey(" " + k + "\n"); err != nil || !got.Equal(pub) {
		t.Fatalf("ParseKey(%s) = %v, %v", k, got, err)
	}
	// The last character's spare bits set: another text of the same key.
	last := k[len(k)-1]
	alt := k[:len(k)-1] + string(last+1)
	for _, s := range []string{alt, "ed25519:", "ssh-ed25519 AAAA", k + "AA", strings.TrimPrefix(k, Prefix)} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) accepted", s)
		}
	}
}
