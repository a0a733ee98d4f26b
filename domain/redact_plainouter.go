package domain

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A secret-named variable's value is hidden, and a second reader may get
// the variable's name only in pieces (the hundred-and-ninety-first
// review):
//
//	export API_TOKEN=…; sh -c 'echo x >> $API'_TOKEN
//	export API_TOKEN=…; python3 -c '… open(E["API_"+"TOKEN"], "a") …'
//
// The outer shell joins '…$API' and _TOKEN into the nested script's
// $API_TOKEN, which the plain check read as a script alone, where no
// text sets API_TOKEN: plain, and the value that names where it writes
// was hidden. Python joins the key, which no reading of its code can
// follow. So a nested script is read within the texts around it (setsIn),
// and code that reads its environment as it likes (an interpreter's
// inline code, a pipe into a reader of code) in a text that hides a
// secret-named value is not plain (setsSecret): the command is shown
// whole. A nested shell is not enough on its own: Codex hands every
// command to bash -lc, and a credential in a plain script stays hidden.

// setsIn reports whether name stands other than expanded in c's text or
// in a text around it (setsName), remembered in c.sets: a text of
// thousands of sh -c '…' reads the text around once per name, not once
// per nested script (which is quadratic).
func (c *plainCheck) setsIn(name string) bool {
	v, ok := c.sets[name]
	if !ok {
		v = setsName(c.s, name) || c.outer != nil && c.outer.setsIn(name)
		if c.sets == nil {
			c.sets = map[string]bool{}
		}
		c.sets[name] = v
	}
	return v
}

// setsSecret reports whether a value hidden from c's text may be in the
// environment of what it runs: an environment value hidden (tainted), or
// a secret-named variable the text, or a text around it, assigns
// (API_TOKEN=…, export API_TOKEN=…, env API_TOKEN=… cmd; a word of a
// program's arguments, make password=…, is none).
func (c *plainCheck) setsSecret() bool {
	if c.secretSet == 0 {
		c.secretSet = 1
		if len(c.tainted) > 0 || c.outer != nil && c.outer.setsSecret() || assignsSecret(c.f) {
			c.secretSet = 2
		}
	}
	return c.secretSet == 2
}

// assignsSecret reports whether the parsed text f assigns a secret-named
// variable.
func assignsSecret(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			found = found || x.Name != nil && secretKey(x.Name.Value)
		case *syntax.CallExpr:
			words := literalWordsPrefix(x.Args)
			if len(words) > 0 && (path.Base(words[0]) == "env" || path.Base(words[0]) == "sudo") {
				for _, w := range words[1:] {
					name, _, _ := strings.Cut(w, "=")
					found = found || assignmentWord(w) && secretKey(name)
				}
			}
		}
		return !found
	})
	return found
}
