package domain

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestToolCatalogueClassifies classifies each catalogue example as the
// tool it documents (a concrete name for a family) and checks the kind, so
// that the catalogue's kind column is the classifier's answer; and drops
// each required argument to check the classifier really requires it.
func TestToolCatalogueClassifies(t *testing.T) {
	concrete := map[string]string{"task_<name>": "task_review", "mcp__<server>__<tool>": "mcp__github__create_issue",
		"skill__<name>": "skill__pdf", "anything else": "write_file"}
	for _, tool := range ToolCatalogue {
		name := tool.Name
		if tool.Pattern {
			name = concrete[tool.Name]
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(tool.Example), &args); err != nil {
			t.Fatalf("%s: the example is not a JSON object: %v", tool.Name, err)
		}
		a, err := Classify(Invocation{ToolName: name, Arguments: json.RawMessage(tool.Example)}, "/w", nil)
		if err != nil || a.Kind != tool.Kind {
			t.Errorf("%s: the example classifies as %q (%v), the catalogue says %q", name, a.Kind, err, tool.Kind)
		}
		for _, arg := range tool.Args {
			if _, ok := args[arg.Name]; arg.Required && !ok {
				t.Errorf("%s: the example lacks the required %s", name, arg.Name)
			}
			if !arg.Required {
				continue
			}
			without := map[string]any{}
			for k, v := range args {
				if k != arg.Name {
					without[k] = v
				}
			}
			raw, _ := json.Marshal(without)
			if _, err := Classify(Invocation{ToolName: name, Arguments: raw}, "/w", nil); err == nil {
				t.Errorf("%s without %s: classified; the catalogue says it is required", name, arg.Name)
			}
		}
	}
}

// TestToolCatalogueNamesTheClassifiersTools parses classify.go and checks
// that the names its switch compares the tool name with, and its internal
// tools, are exactly the catalogue's named tools: a tool added to the
// classifier and not to the catalogue (or the reverse) fails here.
func TestToolCatalogueNamesTheClassifiersTools(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "classify.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var inSwitch []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == "name" && n.Op == token.EQL {
				if lit, ok := n.Y.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					inSwitch = append(inSwitch, s)
				}
			}
		case *ast.ValueSpec:
			if n.Names[0].Name == "internalTools" {
				for _, e := range n.Values[0].(*ast.CompositeLit).Elts {
					s, _ := strconv.Unquote(e.(*ast.BasicLit).Value)
					inSwitch = append(inSwitch, s)
				}
			}
		}
		return true
	})
	var catalogued []string
	for _, tool := range ToolCatalogue {
		if !tool.Pattern {
			catalogued = append(catalogued, tool.Name)
		}
	}
	slices.Sort(inSwitch)
	slices.Sort(catalogued)
	if len(inSwitch) < 10 || !slices.Equal(inSwitch, catalogued) {
		t.Fatalf("classify.go knows %v;\nthe catalogue names %v", inSwitch, catalogued)
	}
}

// TestToolCatalogueInDocs keeps docs/tools.md equal to the catalogue
// (go test ./domain -run TestToolCatalogueInDocs -update rewrites it).
func TestToolCatalogueInDocs(t *testing.T) {
	const begin, end = "<!-- tools:begin -->\n", "<!-- tools:end -->"
	raw, err := os.ReadFile("../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/tools.md has no %q … %q markers", begin, end)
	}
	want := ToolsMarkdown()
	if got := doc[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile("../docs/tools.md", []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("docs/tools.md differs from domain.ToolCatalogue; run with -update\n got:\n%s\nwant:\n%s", got, want)
	}
}

// TestForThisTurnCutsALongSummary: the plain words of a request repeat a
// short summary whole, and only the start of a long one (a here-document
// of 100 KB), which the request shows in full beside them.
func TestForThisTurnCutsALongSummary(t *testing.T) {
	short := Action{ToolName: "exec_command", Summary: "Run make test"}
	if got := ForThisTurn(&short, "t"); !strings.Contains(got, "(Run make test)") {
		t.Fatalf("a short summary: %q", got)
	}
	long := Action{ToolName: "exec_command", Summary: "Run cat > f <<EOF\n" + strings.Repeat("é", 100_000)}
	got := ForThisTurn(&long, "t")
	if len(got) > 1024 || !strings.Contains(got, "(Run cat > f <<EOF\néé") || !strings.Contains(got, "… as the summary shows in full)") || !utf8.ValidString(got) {
		t.Fatalf("a long summary: %d bytes: %.400q", len(got), got)
	}
}
