package logstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"turnstile/adapters/internal/embeddedtest"
	"turnstile/domain/eventstore"
)

func TestOpenCreatesPrivateDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "events")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	embeddedtest.MustAppend(t, s, "s", eventstore.NoStream(), embeddedtest.NewEvents(1))
	for _, d := range []string{filepath.Dir(dir), dir} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("directory %s mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if fi, err := e.Info(); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("file %s: %v, %v; want mode 0600", e.Name(), fi, err)
		}
	}
}

// TestOpenRefusesForeignFile: a directory whose FORMAT is another one's, or
// segments without a FORMAT, is refused; the control is a directory with
// the right FORMAT and no segments, which opens.
func TestOpenRefusesForeignFile(t *testing.T) {
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "FORMAT"), []byte("something-else/1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(foreign, Options{}); !errors.Is(err, ErrFormat) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open with a foreign FORMAT: %v, want ErrFormat", err)
	}
	bare := t.TempDir()
	if err := os.WriteFile(filepath.Join(bare, segmentName(0)), make([]byte, 100), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(bare, Options{}); !errors.Is(err, ErrFormat) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open of segments without FORMAT: %v, want ErrFormat", err)
	}
	control := t.TempDir()
	if err := os.WriteFile(filepath.Join(control, "FORMAT"), []byte(formatVersion), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(control, Options{})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	s.Close()
}
