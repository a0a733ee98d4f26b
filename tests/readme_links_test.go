package tests

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeLinksNameHeadings: every in-page link of the README (#anchor,
// as GitHub renders headings: lower case, punctuation dropped, spaces as
// hyphens) names one of its headings, and every section is in the list
// after "Start here"; and each link to a file of the repository names one
// that exists. Control: a heading's anchor computed here is found.
func TestReadmeLinksNameHeadings(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	slug := func(h string) string {
		h = strings.ToLower(strings.TrimSpace(h))
		h = regexp.MustCompile(`[^a-z0-9 _-]`).ReplaceAllString(h, "")
		return strings.ReplaceAll(h, " ", "-")
	}
	anchors := map[string]bool{}
	var sections []string
	for _, line := range strings.Split(md, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			sections = append(sections, slug(h))
			anchors[slug(h)] = true
		} else if h, ok := strings.CutPrefix(line, "### "); ok {
			anchors[slug(h)] = true
		}
	}
	if !anchors["what-the-sandbox-guarantees-and-what-it-does-not"] {
		t.Fatal("control: a heading's anchor is not computed as GitHub does")
	}
	links := regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(md, -1)
	listed := map[string]bool{}
	for _, l := range links {
		target := l[1]
		switch {
		case strings.HasPrefix(target, "#"):
			if !anchors[target[1:]] {
				t.Errorf("the link %s names no heading", target)
			}
			listed[target[1:]] = true
		case strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:"):
		default:
			file, _, _ := strings.Cut(target, "#")
			if _, err := os.Stat("../" + file); err != nil {
				t.Errorf("the link %s names no file of the repository: %v", target, err)
			}
		}
	}
	for _, s := range sections[1:] { // after "Start here"
		if !listed[s] {
			t.Errorf("the section #%s is not in the list after Start here", s)
		}
	}
}
