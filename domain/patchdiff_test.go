package domain

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestUnifiedDiffPaths: a unified diff names its files by its headers; a
// removed line "-- comment" inside a hunk (the diff line "--- comment") is
// content, not a header; /dev/null names nothing; git renames name both.
func TestUnifiedDiffPaths(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"git", "diff --git a/src/x.go b/src/x.go\nindex 1..2 100644\n--- a/src/x.go\n+++ b/src/x.go\n@@ -1,2 +1,2 @@\n-old\n+new\n ctx\n", []string{"a/src/x.go", "b/src/x.go", "src/x.go", "x.go"}},
		{"plain -u with timestamps", "--- x.txt\t2026-01-01\n+++ x.txt\t2026-01-02\n@@ -1 +1 @@\n-a\n+b\n", []string{"x.txt"}},
		{"new file", "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n", []string{"b/new.txt", "new.txt"}},
		{"deleted file", "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n", []string{"a/gone.txt", "gone.txt"}},
		{"a removed SQL comment is content", "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- a/etc/passwd\n select 1;\n", []string{"a/q.sql", "b/q.sql", "q.sql"}},
		{"an added line that looks like a header is content", "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n a\n++++ b/../../etc/passwd\n", []string{"a.txt", "a/a.txt", "b/a.txt"}},
		{"rename without content", "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n", []string{"a/old.txt", "b/new.txt", "new.txt", "old.txt"}},
		{"two files", "--- a/1\n+++ b/1\n@@ -1 +1 @@\n-x\n+y\n--- a/2\n+++ b/2\n@@ -1 +1 @@\n-x\n+y\n", []string{"1", "2", "a/1", "a/2", "b/1", "b/2"}},
	} {
		got, ok := unifiedDiffPaths(c.text)
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q (ok %v), want %q", c.name, got, ok, c.want)
		}
	}
	if _, ok := unifiedDiffPaths("just some text\n"); ok {
		t.Error("plain text read as a diff")
	}
}

// TestApplyPatchUnifiedDiff: apply_patch with a unified diff is a write of
// the files its headers name, at every strip level (patch -p0, -p1 and
// without -p write different files; all are judged), and a diff
// whose header reaches outside the cwd resolves there, like any path.
func TestApplyPatchUnifiedDiff(t *testing.T) {
	inv := Invocation{ToolName: "apply_patch", Arguments: json.RawMessage(`{"patch":"--- a/src/x.go\n+++ b/src/x.go\n@@ -1 +1 @@\n-a\n+b\n"}`)}
	a, err := Classify(inv, "/work/repo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != ActionFileWrite || len(a.Files) != 4 || a.Files[2].Path != "/work/repo/src/x.go" || a.Files[2].Access != AccessWrite {
		t.Fatalf("unified diff: %+v", a)
	}
	out := Invocation{ToolName: "apply_patch", Arguments: json.RawMessage(`{"patch":"--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n"}`)}
	a, err = Classify(out, "/work/repo", nil)
	if err != nil || !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/etc/passwd" }) {
		t.Fatalf("a diff reaching outside: %+v %v", a, err)
	}
	if _, err := Classify(Invocation{ToolName: "apply_patch", Arguments: json.RawMessage(`{"patch":"no headers here"}`)}, "/work/repo", nil); err == nil {
		t.Fatal("a patch naming no file was accepted")
	}
}
