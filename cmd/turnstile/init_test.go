package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// initBudget is what one package of this module may allocate during package
// initialisation. Every start of the binary pays for it: each command line,
// and each sandbox helper when turnstile re-executes itself.
const initBudget = 48 << 10

// TestPackageInitIsSmall: no package of this module builds large tables,
// compiles regexps or decodes documents at package initialisation (they are
// built on first use): GODEBUG=inittrace=1 shows each package's allocations
// at start. Compiling api's {0,127} id pattern and decoding the OpenAPI
// examples at init allocated 166 KB there.
func TestPackageInitIsSmall(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init (turnstile(?:/\S+)?) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)
	seen := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		seen[m[1]] = true
		if n, _ := strconv.Atoi(m[2]); n > initBudget {
			t.Errorf("package %s allocates %d bytes (%s allocs) at initialisation: more than %d; build it on first use", m[1], n, m[3], initBudget)
		}
	}
	for _, p := range []string{"turnstile/api", "turnstile/domain"} {
		if !seen[p] {
			t.Fatalf("no inittrace line for %s in:\n%s", p, out)
		}
	}
}
