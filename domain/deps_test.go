package domain

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestPureCoreImports fails when the pure core (domain/... and
// projections/...) reaches I/O: net/http, os/exec, database/*, a store
// driver or the HTTP router anywhere in its dependencies, or os, net or
// syscall directly.
func TestPureCoreImports(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps,Error", "turnstile/domain/...", "turnstile/projections/...")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// database/sql/driver comes in through github.com/google/uuid (its
	// Scanner/Valuer methods), which the design allows; database/sql does not.
	forbiddenDeps := []string{"net/http", "os/exec", "database/sql", "go.etcd.io/bbolt", "github.com/EventStore/", "google.golang.org/grpc", "github.com/go-chi/", "turnstile/adapters", "turnstile/api", "turnstile/sandbox"}
	forbiddenDirect := []string{"database/sql", "database/sql/driver", "os", "net", "syscall", "golang.org/x/sys/unix", "math/rand", "math/rand/v2", "time/tzdata"}
	dec := json.NewDecoder(out)
	seen := 0
	for {
		var p struct {
			ImportPath    string
			Imports, Deps []string
			Error         *struct{ Err string }
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			if strings.Contains(p.Error.Err, "matched no packages") {
				continue
			}
			t.Fatalf("%s: %s", p.ImportPath, p.Error.Err)
		}
		seen++
		if strings.HasSuffix(p.ImportPath, "_test") {
			continue
		}
		for _, d := range p.Deps {
			for _, f := range forbiddenDeps {
				if d == f || strings.HasPrefix(d, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) {
					if d == "database/sql/driver" {
						continue
					}
					t.Errorf("%s depends on %s", p.ImportPath, d)
				}
			}
		}
		for _, d := range p.Imports {
			for _, f := range forbiddenDirect {
				if d == f {
					t.Errorf("%s imports %s", p.ImportPath, d)
				}
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("go list found no packages")
	}
}
