package domain

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"
)

// TestAttack37EnvDetailForgedBoundaries: envDetail joins NAME=value with
// ", " and shows values unquoted, so a shown value can forge where one
// variable ends and the next begins. With GOFLAGS (shown: prefix GO) set to
// `-ldflags="-X main.v=1`, the real PATH `w/.bin:/usr/bin:/bin"` and
// PYTHONPATH (shown: prefix PYTHON) set to
// `/usr/lib/python3, PATH=/usr/local/bin:/usr/bin:/bin`, the request reads
//
//	GOFLAGS=-ldflags="-X main.v=1, PATH=w/.bin:/usr/bin:/bin", PYTHONPATH=/usr/lib/python3, PATH=/usr/local/bin:/usr/bin:/bin
//
// — a quoted ldflags string, then an honest PATH — while /bin/sh -c ls
// gets PATH=w/.bin:… and runs the agent's ls (a restricted mode drops
// GOFLAGS and PYTHONPATH, the request still shows them). Each variable's
// value must be shown so that it cannot pass for another variable (quoted
// or escaped): the detail, split at its separators, has one entry per
// variable.
func TestAttack37EnvDetailForgedBoundaries(t *testing.T) {
	shown := func(env map[string]string) string {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"argv": []string{"/bin/sh", "-c", "ls"}, "executable": "/bin/sh", "env": env})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range a.Details {
			if d.Label == "Environment" {
				return d.Value
			}
		}
		return ""
	}
	// read parses the detail as a person reads it: entries NAME or
	// NAME="quoted value" (Go's quoting) separated by ", ".
	read := func(s string) (map[string]string, bool) {
		out := map[string]string{}
		for s != "" {
			name := s
			if i := strings.IndexAny(s, "=,"); i >= 0 {
				name = s[:i]
			}
			s = s[len(name):]
			if strings.HasPrefix(s, "=") {
				q, err := strconv.QuotedPrefix(s[1:])
				if err != nil {
					return nil, false
				}
				out[name], _ = strconv.Unquote(q)
				s = s[1+len(q):]
			} else {
				out[name] = ""
			}
			if s != "" {
				if !strings.HasPrefix(s, ", ") {
					return nil, false
				}
				s = s[2:]
			}
		}
		return out, true
	}
	// Control: an honest environment reads as its variables.
	honest := map[string]string{"GOFLAGS": "-mod=mod", "PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": "/usr/lib/python3"}
	if got, ok := read(shown(honest)); !ok || !maps.Equal(got, honest) {
		t.Fatalf("control: %q reads as %v", shown(honest), got)
	}
	forged := map[string]string{
		"GOFLAGS":    `-ldflags="-X main.v=1`,
		"PATH":       `w/.bin:/usr/bin:/bin"`,
		"PYTHONPATH": "/usr/lib/python3, PATH=/usr/local/bin:/usr/bin:/bin",
	}
	got := shown(forged)
	if back, ok := read(got); !ok || !maps.Equal(back, forged) {
		t.Errorf("values forge variable boundaries: %s reads as %v, not the command's environment", got, back)
	}
}
