package api

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestEventsDocumented checks docs/events.md names every method the event
// stream sends and every kind of audit notification, read from events.go:
// an event added without its documentation fails here.
func TestEventsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("events.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`Method\w+\s*=\s*"([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
		names = append(names, m[1])
	}
	for _, m := range regexp.MustCompile(`(?:p\["kind"\][^=]*= |auditParams\(p, )"([a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		names = append(names, m[1])
	}
	names = append(names, "tool_completed", "invalid_last_event_id")
	if len(names) < 15 {
		t.Fatalf("found only %v in events.go", names)
	}
	for _, n := range names {
		if !strings.Contains(string(doc), "`"+n+"`") {
			t.Errorf("docs/events.md does not document %s", n)
		}
	}
}
