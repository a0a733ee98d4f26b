package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/internal/esdbtest"
)

// TestESDBSnapshotOverMaxAppendSize: a turn's snapshot may be 3 MiB (30
// roots of long paths), and EventStoreDB refuses a write over its
// MaxAppendSize (1 MiB by default). Such a turn's start is refused with
// an answer that says what to change, and nothing is recorded; a turn of
// a few roots starts on the same cluster (control).
func TestESDBSnapshotOverMaxAppendSize(t *testing.T) {
	store := esdbtest.Start(t)
	s := miStartESDB(t, store, miToken(t))
	root := t.TempDir()
	long := strings.Repeat("d", 200)
	var roots []string
	for i := range 8 {
		p := filepath.Join(root, fmt.Sprintf("p%d-%s", i, long))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, p)
	}
	start := func(id string, roots []string) (int, string) {
		body := miStartBody(id, root)
		body["project_roots"] = roots
		body["permission_profile"] = map[string]any{"mode": "auto_accept_edits"}
		st, b, err := miDo(s, "POST", "/v1/turns", body)
		if err != nil {
			t.Fatal(err)
		}
		return st, string(b)
	}
	if st, b := start("small", roots[:2]); st != http.StatusCreated {
		t.Fatalf("control: a turn of three roots: %d %s", st, b)
	}
	st, b := start("big", roots)
	t.Logf("a turn of 9 long roots: %d %.400s", st, b)
	if st == http.StatusCreated {
		t.Fatalf("premise: the snapshot of nine long roots fit the cluster's largest append")
	}
	if st != http.StatusRequestEntityTooLarge || !strings.Contains(b, "MaxAppendSize") {
		t.Errorf("a snapshot over the cluster's MaxAppendSize is answered %d %s; want a client error naming the limit", st, b)
	}
	if st, _, _ := miDo(s, "GET", "/v1/turns/big", nil); st != http.StatusNotFound {
		t.Errorf("the refused turn exists: %d", st)
	}
}
