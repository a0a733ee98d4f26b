package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestAttack10DiffNameEndsAtASpace: the tenth review. A diff header's name
// was read up to a tab, the separator diff -u writes before a timestamp.
// GNU patch ends a name at its first white space when no tab follows, and
// git apply drops a timestamp written after a space: "--- .envrc x" was
// judged a write of the file ".envrc x", allowed without a question in
// auto_accept_edits, while patch -p0 wrote the workspace's protected
// .envrc; so did git apply with "--- a/.envrc 2026-01-01 00:00:00 +0000".
func TestAttack10DiffNameEndsAtASpace(t *testing.T) {
	for _, diff := range []string{
		"--- .envrc x\n+++ .envrc x\n@@ -1 +1 @@\n-a\n+b\n",
		"--- a/.envrc 2026-01-01 00:00:00.000000000 +0000\n+++ b/.envrc 2026-01-01 00:00:00.000000000 +0000\n@@ -1 +1 @@\n-a\n+b\n",
	} {
		args, _ := json.Marshal(map[string]string{"patch": diff})
		a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
		if err == nil && !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/w/.envrc" }) {
			t.Errorf("%q: judged as a write of %+v; GNU patch or git apply writes /w/.envrc", diff, a.Files)
		}
	}
	// A diff that names more than the classifier judges is refused.
	var many strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&many, "--- a/b/c/d/e/f%d\n+++ b/b/c/d/e/f\n", i)
	}
	args, _ := json.Marshal(map[string]string{"patch": many.String()})
	if _, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil); err == nil {
		t.Error("a diff naming 60,000 paths was judged, not refused")
	}
	// control: diff -u's tab before the timestamp leaves one name; a name
	// with a space is judged whole and before it.
	for _, c := range []struct {
		diff string
		want []string
	}{
		{"--- x.txt\t2026-01-01 00:00:00\n+++ x.txt\t2026-01-01 00:00:00\n@@ -1 +1 @@\n-a\n+b\n", []string{"/w/x.txt"}},
		{"--- my file.txt\t2026-01-01\n+++ my file.txt\t2026-01-01\n@@ -1 +1 @@\n-a\n+b\n", []string{"/w/my", "/w/my file.txt"}},
	} {
		args, _ := json.Marshal(map[string]string{"patch": c.diff})
		a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
		var got []string
		for _, f := range a.Files {
			got = append(got, f.Path)
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("control %q: %q %v, want %q", c.diff, got, err, c.want)
		}
	}
}
