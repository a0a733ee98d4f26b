package domain

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxArgumentsDetail bounds the "Arguments" detail of an approval request,
// in bytes of its redacted text; what is cut is counted in a marker at its
// end (argumentsDetail).
const MaxArgumentsDetail = 4096

// arguments shows the arguments of a tool whose scope holds them only as a
// hash (payload): redacted, keys sorted, bounded (argumentsDetail). A call
// with none has no such detail: its summary says all it does.
func (c *classifier) arguments() {
	if len(c.args) > 0 {
		c.detail("Arguments", argumentsDetail(c.args), true)
	}
}

// argumentsDetail renders the arguments of a tool whose scope binds them
// only as a hash (payload_hash: an MCP tool, computer_use, a task_ tool, a
// skill's, an unclassified one, write_stdin), for the person asked to
// approve the call: without it the request named the tool and nothing of
// what the call does (which channel and what text; what is typed).
//
// The text is the arguments' JSON with keys sorted at every level (stable
// whatever order the agent sent them in) and HTML left unescaped, in which
// a string or number under a key that names a secret (secretName:
// "password", "api_key", "token"…; not one that names a file or a program,
// refName) is replaced by the marker. Past MaxArgumentsDetail bytes it is
// cut, at the last white space or quote before the bound when there is one
// in its last KiB (so that a token is not cut in two and the half of it
// that pattern no longer recognises shown), else at a rune boundary, and
// ends with " … [N more bytes not shown]", N counted in that JSON. What is
// kept is redacted as any other text (RedactText: tokens, URL userinfo and
// queries, NAME=value, sensitive paths), here, after the cut (RedactText
// costs more than linear time on long texts); Action.Redacted redacts it
// again, which changes nothing. JSON escapes line breaks and control
// characters, so one argument cannot pass for another on a line of its own.
//
// Arguments that do not fit are shown value by value (detailByLeaf), each
// cut at its share of the bound (at least minArgumentDetail bytes): cut as
// one text, a long first value hid the ones after it (write_stdin's chars
// behind 5,000 x's under a key that sorts first; an MCP tool's
// options.run behind options.a).
func argumentsDetail(args map[string]any) string {
	whole := argumentsDetailBound(args, MaxArgumentsDetail)
	if !strings.HasSuffix(whole, " more bytes not shown]") {
		return whole
	}
	return detailByLeaf(args, MaxArgumentsDetail, minArgumentDetail)
}

// detailByLeaf shows each value of args that is not an object or an array
// (a leaf) on its own, inside the keys and arrays that lead to it
// ({"options":{"run":"x"}}, {"steps":[{"run":"x"}]}), each cut past
// max(total/leaves, least) bytes (argumentsDetailBound), in key order.
func detailByLeaf(args map[string]any, total, least int) string {
	var out []any
	leaves(args, func(v any) any { return v }, &out)
	bound := max(total/max(len(out), 1), least)
	parts := make([]string, 0, len(out)+1)
	for i, l := range out {
		if i == maxDetailLeaves {
			parts = append(parts, "… [more values not shown]")
			break
		}
		m, _ := l.(map[string]any) // args is an object: so is each leaf's path
		parts = append(parts, argumentsDetailBound(m, bound))
	}
	return strings.Join(parts, " ")
}

// maxDetailLeaves bounds the values detailByLeaf shows (each costs an
// encoding and a redaction).
const maxDetailLeaves = 2048

// leaves appends wrap(path to each leaf of v) to out, up to one past
// maxDetailLeaves: v reduced to the one leaf, in the objects and arrays
// that hold it. An empty object or array, and an array of values that are
// neither, is a leaf.
func leaves(v any, wrap func(any) any, out *[]any) {
	if len(*out) > maxDetailLeaves {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			for _, k := range slices.Sorted(maps.Keys(x)) {
				leaves(x[k], func(e any) any { return wrap(map[string]any{k: e}) }, out)
			}
			return
		}
	case []any:
		nested := slices.ContainsFunc(x, func(e any) bool {
			switch e.(type) {
			case map[string]any, []any:
				return true
			}
			return false
		})
		if nested {
			for _, e := range x {
				leaves(e, func(e any) any { return wrap([]any{e}) }, out)
			}
			return
		}
	}
	*out = append(*out, wrap(v))
}

// minArgumentDetail is the least each argument is shown of, when the
// arguments do not fit in MaxArgumentsDetail.
const minArgumentDetail = 256

// argumentsDetailBound is argumentsDetail cut past max bytes.
func argumentsDetailBound(args map[string]any, max int) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if args == nil {
		args = map[string]any{}
	}
	if err := enc.Encode(hideSecretKeys(args)); err != nil {
		return "(the arguments could not be shown: " + err.Error() + ")"
	}
	whole := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if len(whole) <= max {
		return RedactText(string(whole))
	}
	cut := detailCut(whole, max)
	return RedactText(string(whole[:cut])) + " … [" + strconv.Itoa(len(whole)-cut) + " more bytes not shown]"
}

// detailCut is where a text longer than max is cut: after the last white
// space or quote at or before max, when one is in the last KiB before it,
// else at the last rune boundary at or before max.
func detailCut(s []byte, max int) int {
	for i := max - 1; i >= 0 && i >= max-1024; i-- {
		if c := s[i]; c == ' ' || c == '"' || c == '\t' {
			return i + 1
		}
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return cut
}

// hideSecretKeys returns v with every string or number under a key that
// names a secret replaced by the redaction marker, at any depth. v is not
// changed.
func hideSecretKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if secretKey(k) {
				switch e.(type) {
				case string, json.Number, float64:
					out[k] = redacted
					continue
				}
			}
			out[k] = hideSecretKeys(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = hideSecretKeys(e)
		}
		return out
	}
	return v
}

// secretKey reports whether an argument's key names a secret.
func secretKey(k string) bool {
	l := strings.ToLower(k)
	if !slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(l, w) }) {
		return false // no secret name holds none of them (gatesOf)
	}
	return secretRes().secretKey.MatchString(k) && !refName(k)
}
