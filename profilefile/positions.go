package profilefile

import (
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// positions maps every key path of a TOML document (parts joined with
// "\x00") to the line it is written on. A table header counts as the line
// of its key. It reads what it can and returns what it found: a syntax
// error is reported by the decoder, not here.
func positions(data []byte) (lines map[string]int) {
	lines = map[string]int{}
	defer func() {
		// The unstable parser is third-party code on untrusted input:
		// positions only improve messages, so a panic here loses them
		// rather than the whole check.
		if recover() != nil {
			lines = map[string]int{}
		}
	}()
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			it := e.Key()
			table = keyParts(&it)
			record(&p, lines, table, e.Key())
		case unstable.KeyValue:
			recordKeyValue(&p, lines, table, e)
		}
	}
	return lines
}

func keyParts(it *unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

func record(p *unstable.Parser, lines map[string]int, path []string, it unstable.Iterator) {
	if !it.Next() {
		return
	}
	line := p.Shape(it.Node().Raw).Start.Line
	// Every prefix of a dotted key is defined here unless defined before.
	for i := 1; i <= len(path); i++ {
		k := strings.Join(path[:i], "\x00")
		if _, ok := lines[k]; !ok || i == len(path) {
			lines[k] = line
		}
	}
}

func recordKeyValue(p *unstable.Parser, lines map[string]int, prefix []string, e *unstable.Node) {
	it := e.Key()
	path := append(append([]string(nil), prefix...), keyParts(&it)...)
	record(p, lines, path, e.Key())
	if v := e.Value(); v != nil && v.Kind == unstable.InlineTable {
		children := v.Children()
		for children.Next() {
			if c := children.Node(); c.Kind == unstable.KeyValue {
				recordKeyValue(p, lines, path, c)
			}
		}
	}
}
