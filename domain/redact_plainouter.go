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
// inline code, a pipe into a reader of code) in a text that hides a value
// it assigns, secret-named or not (setsSecret), is not plain: the command
// is shown whole. A nested shell is not enough on its own: Codex hands every
// command to bash -lc, and a credential in a plain script stays hidden.

// setsIn reports whether name stands other than expanded in c's text or
// in a text around it: a lookup in each text's set of such
// names (c.standing), made once per text, so that a text of thousands of
// distinct expansions is read once, not once per name and per level of
// sh -c around it (quadratic: the hundred-and-forty-seventh and
// hundred-and-ninety-third reviews).
func (c *plainCheck) setsIn(name string) bool {
	for k := c; k != nil; k = k.outer {
		if k.standing == nil {
			k.standing = standingNames(k.s)
		}
		if _, ok := k.standing[name]; ok {
			return true
		}
	}
	return false
}

// setsSecret reports whether a value hidden from c's text may be in the
// environment of what it runs: an environment value hidden (tainted), or
// an assignment the text, or a text around it, makes that is hidden or
// secret-named (assignsSecret).
func (c *plainCheck) setsSecret() bool {
	if c.secretSet == 0 {
		c.secretSet = 1
		if len(c.tainted) > 0 || c.outer != nil && c.outer.setsSecret() || c.assignsSecret() {
			c.secretSet = 2
		}
	}
	return c.secretSet == 2
}

// assignsSecret reports whether c's text makes an assignment whose value
// is hidden, or of a secret-named variable. It asks the redaction itself
// (hiddenAt), not a variable's name: a value is as well hidden for its
// shape under any name (H=eyJ…, the hundred-and-ninety-third review), and
// the forms the shell reads as assignments are more than the parser's
// named ones: export "API_TOKEN=v" and export 'API_TOKEN=v' are naked
// assignments whose name is in a quoted word, and env takes NAME=value
// after other runners (nice env, command env, timeout 5 env): a NAME=value
// word after env, sudo or doas anywhere in a command's words. A program's
// argument is none (make deploy password=…: what make runs is no code in
// view; TestAttack110_WrappedShellCode).
func (c *plainCheck) assignsSecret() bool {
	found := false
	syntax.Walk(c.f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			found = found || x.Name != nil && secretKey(x.Name.Value) || c.hiddenAt(x)
			if w, ok := literal(x.Value); ok && x.Naked && assignmentWord(w) {
				name, _, _ := strings.Cut(w, "=")
				found = found || secretKey(name)
			}
		case *syntax.CallExpr:
			words := literalWordsPrefix(x.Args)
			env := false
			for i, w := range words {
				if !assignmentWord(w) {
					b := path.Base(w)
					env = env || b == "env" || b == "sudo" || b == "doas"
					continue
				}
				name, _, _ := strings.Cut(w, "=")
				found = found || env && (secretKey(name) || c.hiddenAt(x.Args[i]))
			}
		}
		return !found
	})
	return found
}
