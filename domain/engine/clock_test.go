package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEngineReadsClockOnlyThroughConfig fails when the engine's non-test
// code calls time.Now, time.Since or time.Until: it reads the clock through
// Config.Now, so a test or a replay controls every timestamp it writes.
// Waiting (timers) is not a clock read. The control is the default
// Config.Now = time.Now, a reference, not a call, which must be found.
func TestEngineReadsClockOnlyThroughConfig(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	refs := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[*ast.SelectorExpr]bool{}
		ast.Inspect(file, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					calls[sel] = true
				}
			}
			return true
		})
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "time" {
				return true
			}
			switch sel.Sel.Name {
			case "Now", "Since", "Until":
				if calls[sel] {
					t.Errorf("%s: time.%s() read outside Config.Now", fset.Position(sel.Pos()), sel.Sel.Name)
				} else {
					refs++
				}
			}
			return true
		})
	}
	if refs == 0 {
		t.Fatal("the default Config.Now = time.Now was not found: the check reads nothing")
	}
}
