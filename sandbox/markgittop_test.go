package sandbox

import (
	"strings"
	"testing"
)

// TestMarkGitTop: each spelling of the repository's top, and a variable
// assigned one, becomes the mark; a variable whose name only begins the
// same, and one assigned something else, stay.
func TestMarkGitTop(t *testing.T) {
	m := string(rune(gitTopMark))
	in := "top=$(git rev-parse --show-toplevel)\n" +
		"export ROOT=\"`git -C . rev-parse --show-toplevel`\"\n" +
		"source \"$top/a.sh\"; source ${ROOT}/b.sh; source \"$topx/c.sh\"; other=$(pwd); source $other/d.sh\n" +
		"source \"$( git rev-parse --path-format=absolute --show-toplevel )/e.sh\"\n"
	want := "top=" + m + "\n" +
		"export ROOT=\"" + m + "\"\n" +
		"source \"" + m + "/a.sh\"; source " + m + "/b.sh; source \"$topx/c.sh\"; other=$(pwd); source $other/d.sh\n" +
		"source \"" + m + "/e.sh\"\n"
	if got := string(markGitTop([]byte(in))); got != want {
		t.Errorf("markGitTop:\n got %q\nwant %q", got, want)
	}
	// A use after many assignments (one pass over the script marks them).
	var b strings.Builder
	for i := range 20000 {
		b.WriteString("v" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "=$(git rev-parse --show-toplevel); ")
	}
	b.WriteString("source \"$vxa/z.sh\"\n")
	if got := string(markGitTop([]byte(b.String()))); !strings.HasSuffix(got, "source \""+m+"/z.sh\"\n") {
		t.Errorf("a use after many assignments was not marked: %q", got[len(got)-40:])
	}
}
