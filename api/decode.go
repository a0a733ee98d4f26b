package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"turnstile/domain"
)

// MaxBodyBytes is the largest request body accepted (413 above it).
const MaxBodyBytes = 1 << 20

// errMalformed is wrapped by every malformed-JSON error.
var errMalformed = errors.New("malformed JSON")

type unknownFieldError struct{ field string }

func (e *unknownFieldError) Error() string { return "unknown field " + e.field }

// decodeJSON reads one JSON object into v, refusing unknown fields, trailing
// data and bodies over MaxBodyBytes.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		return err
	}
	return decodeBytes(body, v)
}

func decodeBytes(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("%w: empty body", errMalformed)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return &unknownFieldError{field: strings.Trim(f, `"`)}
		}
		var (
			syntax   *json.SyntaxError
			typeErr  *json.UnmarshalTypeError
			fieldErr *domain.FieldError
			enumErr  *domain.InvalidEnumError
		)
		// A field or enum error raised by a nested type's own decoder names
		// the field within that type: give it its whole dotted path.
		if errors.As(err, &fieldErr) {
			fieldErr.Field = fieldPath(badField(body, reflect.TypeOf(v), ""), fieldErr.Field)
			return fieldErr
		}
		if errors.As(err, &enumErr) {
			enumErr.Field = fieldPath(badField(body, reflect.TypeOf(v), ""), enumErr.Field)
			return enumErr
		}
		if errors.As(err, &typeErr) {
			return err
		}
		if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: %v", errMalformed, err)
		}
		// Any other decoding error (a type's own UnmarshalJSON) is the
		// client's: a 400, never a 500, naming the field where it can be
		// found.
		if field := badField(body, reflect.TypeOf(v), ""); field != "" {
			return &domain.FieldError{Field: field, Message: err.Error()}
		}
		return fmt.Errorf("%w: %v", errMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after the JSON value", errMalformed)
	}
	return nil
}

// Length limits of the strings a client sends; above one the request is a
// 400 naming the field, and nothing is appended. The body limit alone would
// let a 900 KB workspace_id into every event of a turn.
const (
	maxIDLen     = domain.MaxIDLength // workspace, thread, turn, tool call, item and request ids
	maxNameLen   = 256                // tool names, MCP server and tool names, environment names
	maxTextLen   = 4096               // reasons and other free text
	maxPathLen   = 4096               // paths (PATH_MAX)
	maxListLen   = 256                // roots, tool and path lists
	maxArgvLen   = 4096               // argv entries
	maxArgBytes  = domain.MaxArgBytes // one argv entry or environment value (MAX_ARG_STRLEN)
	maxKeptBytes = 64 << 10           // a JSON-RPC turn/start field kept as sent (capabilities, sandbox_policy…)
)

// limits collects the first field over its limit.
type limits struct{ err error }

func (l *limits) str(field, v string, maxLen int) {
	if l.err == nil && len(v) > maxLen {
		l.err = &domain.FieldError{Field: field, Message: fmt.Sprintf("is %d bytes long; the limit is %d", len(v), maxLen)}
	}
}

// id checks an identifier: bounded, and no control or format character
// (NUL, ESC, U+202E), no replacement character (invalid UTF-8, which the
// decoder turned into one: two ids sent apart would be one), and not
// blank only. Every place a person reads an id escapes it; the id is
// refused before anything is appended (the eighty-seventh review).
func (l *limits) id(field, v string, maxLen int) {
	l.str(field, v, maxLen)
	if l.err != nil || v == "" {
		return
	}
	bad := strings.TrimSpace(v) == "" || strings.ContainsFunc(v, func(r rune) bool {
		return r == utf8.RuneError || unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)
	})
	if bad {
		l.err = &domain.FieldError{Field: field, Message: "must be printable: no control or format character, no invalid UTF-8, not blank"}
	}
}

func (l *limits) strs(field string, vs []string, maxCount, maxLen int) {
	if l.err == nil && len(vs) > maxCount {
		l.err = &domain.FieldError{Field: field, Message: fmt.Sprintf("has %d entries; the limit is %d", len(vs), maxCount)}
	}
	for i, v := range vs {
		l.str(fmt.Sprintf("%s[%d]", field, i), v, maxLen)
	}
}

func (l *limits) profile(p *domain.ProfileRequest) {
	if p == nil {
		return
	}
	l.strs("permission_profile.allowed_tools", p.AllowedTools, maxListLen, maxNameLen)
	l.strs("permission_profile.denied_tools", p.DeniedTools, maxListLen, maxNameLen)
	l.strs("permission_profile.allowed_paths", p.AllowedPaths, maxListLen, maxPathLen)
}

func (req *StartTurnRequest) checkLengths() error {
	var l limits
	l.str("turn_id", req.TurnID, maxIDLen)
	l.id("workspace_id", req.WorkspaceID, maxIDLen)
	l.id("thread_id", req.ThreadID, maxIDLen)
	l.id("parent_turn_id", req.ParentTurnID, maxIDLen)
	l.str("cwd", req.Cwd, maxPathLen)
	l.str("workspace_root", req.WorkspaceRoot, maxPathLen)
	l.strs("project_roots", req.ProjectRoots, maxListLen, maxPathLen)
	l.strs("app_read_roots", req.AppReadRoots, maxListLen, maxPathLen)
	l.profile(req.PermissionProfile)
	return l.err
}

func (req *DecisionRequest) checkLengths() error {
	var l limits
	l.id("tool_call_id", req.ToolCallID, maxIDLen)
	l.id("item_id", req.ItemID, maxIDLen)
	l.str("tool_name", req.ToolName, maxNameLen)
	if req.MCP != nil {
		l.str("mcp.server", req.MCP.Server, maxNameLen)
		l.str("mcp.tool", req.MCP.Tool, maxNameLen)
	}
	return l.err
}

func (req *ExecRequest) checkLengths() error {
	var l limits
	l.id("tool_call_id", req.ToolCallID, maxIDLen)
	l.id("item_id", req.ItemID, maxIDLen)
	l.strs("argv", req.Argv, maxArgvLen, maxArgBytes)
	l.str("cwd", req.Cwd, maxPathLen)
	for k, v := range req.Env {
		l.str("env", k, maxNameLen)
		l.str("env."+k[:min(len(k), maxNameLen)], v, maxArgBytes)
	}
	return l.err
}

// checkReason limits an end-of-turn reason.
func checkReason(reason string) error {
	var l limits
	l.str("reason", reason, maxTextLen)
	return l.err
}

// badField finds the (dotted) path of the field of t whose value in raw
// fails to decode: each member of an object is decoded alone into its
// field's type, and the search goes down into the first that fails. It
// returns "" when no single field is to blame.
func badField(raw []byte, t reflect.Type, prefix string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return ""
	}
	for name, val := range members {
		f, ok := jsonField(t, name)
		if !ok {
			continue
		}
		if json.Unmarshal(val, reflect.New(f.Type).Interface()) == nil {
			continue
		}
		if deeper := badField(val, f.Type, prefix+name+"."); deeper != "" {
			return deeper
		}
		return prefix + name
	}
	return ""
}

// jsonField is the field of struct t that the JSON member name decodes
// into (embedded structs included).
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && tag == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if sf, ok := jsonField(ft, name); ok {
					return sf, true
				}
			}
			continue
		}
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// fieldPath joins the path of the member that failed (found by badField)
// with the field a nested decoder named, without saying a name twice.
func fieldPath(at, field string) string {
	switch {
	case at == "":
		return field
	case field == "" || at == field || strings.HasSuffix(at, "."+field):
		return at
	}
	return at + "." + field
}
