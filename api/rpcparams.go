package api

import (
	"bytes"
	"encoding/json"
	"strconv"

	"turnstile/domain"
)

// rpcTurnStartParams is the params of turn/start: the reference's
// TurnStartParams (REFERENCE §12) over turnstile's own start request. Its
// thread_id, turn_id, permission_profile and execution_backend are
// turnstile's; input is recorded as the turn's prompt; the rest is kept, as
// sent, in the turn-start event and changes nothing turnstile decides (the
// security snapshot comes from permission_profile alone: a sandbox_policy or
// mode sent here is recorded, never enforced). A field neither defines is
// refused, naming it.
type rpcTurnStartParams struct {
	StartTurnRequest
	// Input is the turn's prompt: items such as {"type":"text","text":…}.
	Input             json.RawMessage `json:"input,omitempty"`
	Capabilities      json.RawMessage `json:"capabilities,omitempty"`
	Model             json.RawMessage `json:"model,omitempty"`
	ModelProvider     json.RawMessage `json:"model_provider,omitempty"`
	SandboxPolicy     json.RawMessage `json:"sandbox_policy,omitempty"`
	Mode              json.RawMessage `json:"mode,omitempty"`
	Reasoning         json.RawMessage `json:"reasoning,omitempty"`
	CLIRuntimeOptions json.RawMessage `json:"cli_runtime_options,omitempty"`
}

// split checks input and returns it with the kept fields by name.
func (p *rpcTurnStartParams) split() (json.RawMessage, map[string]json.RawMessage, error) {
	if len(p.Input) > 0 && !bytes.Equal(bytes.TrimSpace(p.Input), []byte("null")) {
		var items []map[string]json.RawMessage
		if err := json.Unmarshal(p.Input, &items); err != nil {
			return nil, nil, &domain.FieldError{Field: "input", Message: "must be an array of input items"}
		}
		for i, it := range items {
			var typ string
			if json.Unmarshal(it["type"], &typ) != nil || typ == "" {
				return nil, nil, &domain.FieldError{Field: "input[" + strconv.Itoa(i) + "].type", Message: "required (a string)"}
			}
		}
	} else {
		p.Input = nil
	}
	var l limits // the kept fields are bounded like every other free text
	l.str("model", string(p.Model), maxNameLen)
	l.str("model_provider", string(p.ModelProvider), maxNameLen)
	l.str("mode", string(p.Mode), maxNameLen)
	l.str("reasoning", string(p.Reasoning), maxTextLen)
	for name, raw := range map[string]json.RawMessage{"capabilities": p.Capabilities, "sandbox_policy": p.SandboxPolicy, "cli_runtime_options": p.CLIRuntimeOptions} {
		l.str(name, string(raw), maxKeptBytes)
	}
	if l.err != nil {
		return nil, nil, l.err
	}
	var kept map[string]json.RawMessage
	for name, raw := range map[string]json.RawMessage{
		"capabilities": p.Capabilities, "model": p.Model, "model_provider": p.ModelProvider, "sandbox_policy": p.SandboxPolicy,
		"mode": p.Mode, "reasoning": p.Reasoning, "cli_runtime_options": p.CLIRuntimeOptions,
	} {
		if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		if kept == nil {
			kept = map[string]json.RawMessage{}
		}
		kept[name] = raw
	}
	return p.Input, kept, nil
}
