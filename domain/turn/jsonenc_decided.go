package turn

import (
	"encoding/json"
)

// marshalPayload is json.Marshal(p), by hand for the decisions (most of
// what a turn appends) and with encoding/json for the rest.
func marshalPayload(p Payload) ([]byte, error) {
	switch v := p.(type) {
	case *DecisionAllowed:
		if v != nil {
			return v.Decided.appendJSON(make([]byte, 0, v.Decided.size())), nil
		}
	case *DecisionDenied:
		if v != nil {
			return v.Decided.appendJSON(make([]byte, 0, v.Decided.size())), nil
		}
	}
	return json.Marshal(p)
}

// appendJSON appends the decision as json.Marshal renders it (for
// DecisionAllowed and DecisionDenied, which embed it).
func (d *Decided) appendJSON(b []byte) []byte {
	b = append(b, `{"tool_call_id":`...)
	b = appendJSONString(b, d.ToolCallID)
	if d.ItemID != "" {
		b = append(b, `,"item_id":`...)
		b = appendJSONString(b, d.ItemID)
	}
	b = append(b, `,"action":`...)
	b = d.Action.appendJSON(b)
	b = append(b, `,"decision":{"decision":`...)
	b = appendJSONString(b, d.Decision.Behavior.String()) // its MarshalText
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, string(d.Decision.Reason))
	if d.Decision.Cached {
		b = append(b, `,"cached":true`...)
	}
	b = append(b, `,"decided_by":`...)
	b = appendJSONString(b, d.Decision.DecidedBy)
	b = append(b, '}')
	if d.RequestID != "" {
		b = append(b, `,"request_id":`...)
		b = appendJSONString(b, d.RequestID)
	}
	if d.Refusal != "" {
		b = append(b, `,"refusal":`...)
		b = appendJSONString(b, d.Refusal)
	}
	if d.Message != "" {
		b = append(b, `,"message":`...)
		b = appendJSONString(b, d.Message)
	}
	return append(b, '}')
}

// size is room for the decision when its strings need no escaping.
func (d *Decided) size() int {
	n := 160 + len(d.ToolCallID) + len(d.ItemID) + len(d.Decision.Reason) + len(d.Decision.DecidedBy) +
		len(d.RequestID) + len(d.Refusal) + len(d.Message)
	a := &d.Action
	n += 96 + len(a.ToolName) + len(a.Kind) + len(a.Also) + 15 + len(a.AlsoTool) + len(a.ScopeHash) + len(a.Summary)
	for _, e := range a.Scope {
		n += 6 + len(e.Key) + len(e.Value)
	}
	for _, f := range a.Files {
		n += 24 + len(f.Path) + len(f.Access)
	}
	for _, x := range a.Details {
		n += 40 + len(x.Label) + len(x.Value)
	}
	return n
}

// appendJSON appends the action record as json.Marshal renders it.
func (a *ActionRecord) appendJSON(b []byte) []byte {
	b = append(b, `{"tool_name":`...)
	b = appendJSONString(b, a.ToolName)
	b = append(b, `,"action":`...)
	b = appendJSONString(b, string(a.Kind))
	if a.Also != "" {
		b = append(b, `,"also":`...)
		b = appendJSONString(b, string(a.Also))
	}
	if a.AlsoTool != "" {
		b = append(b, `,"also_tool":`...)
		b = appendJSONString(b, a.AlsoTool)
	}
	b = append(b, `,"scope_hash":`...)
	b = appendJSONString(b, a.ScopeHash)
	b = append(b, `,"scope":`...)
	b = a.Scope.AppendJSON(b, true) // its MarshalJSON, compacted with HTML escaping
	if len(a.Files) > 0 {
		b = append(b, `,"files":[`...)
		for i, f := range a.Files {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = appendJSONString(b, f.Path)
			b = append(b, `,"access":`...)
			b = appendJSONString(b, string(f.Access))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"summary":`...)
	b = appendJSONString(b, a.Summary)
	if len(a.Details) > 0 {
		b = append(b, `,"details":[`...)
		for i, x := range a.Details {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"label":`...)
			b = appendJSONString(b, x.Label)
			b = append(b, `,"value":`...)
			b = appendJSONString(b, x.Value)
			if x.Monospace {
				b = append(b, `,"monospace":true}`...)
			} else {
				b = append(b, `,"monospace":false}`...)
			}
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
