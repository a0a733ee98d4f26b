package eventcodec

import (
	"encoding/json"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// The fast decoders read the JSON the codec writes without reflection. A
// replay decodes mostly these (decisions and approvals); encoding/json
// decodes the rest, and any input a fast decoder does not expect, so the
// result is always what encoding/json would give (TestFastDecodeMatchesJSON,
// FuzzFastDecode).

func decodeEnvelopeFast(s *scanner, e *turn.Envelope) {
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "event_id":
			s.text(e.EventID.UnmarshalText)
		case "type":
			e.Type = s.str()
		case "schema_version":
			e.SchemaVersion = int(s.integer())
		case "turn_id":
			e.TurnID = s.str()
		case "occurred_at":
			s.text(e.OccurredAt.UnmarshalText)
		case "actor":
			s.actor(&e.Actor)
		case "correlation_id":
			e.CorrelationID = s.str()
		case "prev_hash":
			e.PrevHash = s.str()
		default:
			s.fail()
		}
	}
}

// actor reads {"name","role"}, or the bare name of an event stored before
// roles existed.
func (s *scanner) actor(a *domain.Actor) {
	if s.peek() == '"' {
		*a = domain.Actor{Name: s.str()}
		return
	}
	*a = domain.Actor{}
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "name":
			a.Name = s.str()
		case "role":
			a.Role = domain.Role(s.str())
		default:
			s.fail()
		}
	}
}

// strs reads an array of strings (non-nil when the array is there, as
// encoding/json gives).
func (s *scanner) strs() []string {
	if s.null() {
		return nil
	}
	out := []string{}
	for first := s.open('['); s.next(']', &first); {
		out = append(out, s.str())
	}
	return out
}

func (s *scanner) scope() domain.Scope {
	if s.null() {
		return nil
	}
	out := make(domain.Scope, 0, 8)
	for first := s.open('{'); s.next('}', &first); {
		k := string(s.key())
		// Stored scopes are canonical: sorted, no duplicate keys.
		if n := len(out); n > 0 && out[n-1].Key >= k {
			s.fail()
		}
		out = append(out, domain.ScopeEntry{Key: k, Value: s.str()})
	}
	return out
}

func (s *scanner) details() []domain.Detail {
	if s.null() {
		return nil
	}
	out := []domain.Detail{}
	for first := s.open('['); s.next(']', &first); {
		var d domain.Detail
		for f := s.open('{'); s.next('}', &f); {
			switch string(s.key()) {
			case "label":
				d.Label = s.str()
			case "value":
				d.Value = s.str()
			case "monospace":
				d.Monospace = s.boolean()
			default:
				s.fail()
			}
		}
		out = append(out, d)
	}
	return out
}

func decodeActionRecord(s *scanner, a *turn.ActionRecord) {
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "tool_name":
			a.ToolName = s.str()
		case "action":
			s.text(a.Kind.UnmarshalText)
		case "also":
			s.text(a.Also.UnmarshalText)
		case "also_tool":
			a.AlsoTool = s.str()
		case "scope_hash":
			a.ScopeHash = s.str()
		case "scope":
			a.Scope = s.scope()
		case "files":
			if s.null() {
				a.Files = nil
				continue
			}
			a.Files = []domain.FileOp{}
			for f := s.open('['); s.next(']', &f); {
				var op domain.FileOp
				for g := s.open('{'); s.next('}', &g); {
					switch string(s.key()) {
					case "path":
						op.Path = s.str()
					case "access":
						s.text(op.Access.UnmarshalText)
					default:
						s.fail()
					}
				}
				a.Files = append(a.Files, op)
			}
		case "summary":
			a.Summary = s.str()
		case "details":
			a.Details = s.details()
		default:
			s.fail()
		}
	}
}

func decodeDecisionRecord(s *scanner, v *turn.DecisionRecord) {
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "decision":
			s.text(v.Behavior.UnmarshalText)
		case "reason":
			s.text(v.Reason.UnmarshalText)
		case "cached":
			v.Cached = s.boolean()
		case "decided_by":
			v.DecidedBy = s.str()
		default:
			s.fail()
		}
	}
}

func decodeDecided(s *scanner, d *turn.Decided) {
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "tool_call_id":
			d.ToolCallID = s.str()
		case "item_id":
			d.ItemID = s.str()
		case "action":
			decodeActionRecord(s, &d.Action)
		case "decision":
			decodeDecisionRecord(s, &d.Decision)
		case "request_id":
			d.RequestID = s.str()
		case "refusal":
			d.Refusal = s.str()
		case "message":
			d.Message = s.str()
		default:
			s.fail()
		}
	}
}

func decodeApprovalRequest(s *scanner, r *turn.ApprovalRequest) {
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "request_id":
			r.RequestID = s.str()
		case "workspace_id":
			r.WorkspaceID = s.str()
		case "thread_id":
			r.ThreadID = s.str()
		case "turn_id":
			r.TurnID = s.str()
		case "visible_thread_ids":
			r.VisibleThreadIDs = s.strs()
		case "tool_name":
			r.ToolName = s.str()
		case "action":
			s.text(r.Action.UnmarshalText)
		case "scope_hash":
			r.ScopeHash = s.str()
		case "reason":
			s.text(r.Reason.UnmarshalText)
		case "summary":
			r.Summary = s.str()
		case "details":
			r.Details = s.details()
		case "for_this_turn":
			r.ForThisTurn = s.str()
		default:
			s.fail()
		}
	}
}

func decodeApprovalRequested(s *scanner, p *turn.ApprovalRequested) {
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "tool_call_id":
			p.ToolCallID = s.str()
		case "item_id":
			p.ItemID = s.str()
		case "request":
			decodeApprovalRequest(s, &p.Request)
		case "action_record":
			decodeActionRecord(s, &p.Action)
		case "decision":
			decodeDecisionRecord(s, &p.Decision)
		case "mode":
			s.text(p.Mode.UnmarshalText)
		case "expires_at":
			s.text(p.ExpiresAt.UnmarshalText)
		case "recheck_url":
			p.RecheckURL = s.str()
		default:
			s.fail()
		}
	}
}

func decodeApprovalResolved(s *scanner, p *turn.ApprovalResolved) {
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "request_id":
			p.RequestID = s.str()
		case "tool_call_id":
			p.ToolCallID = s.str()
		case "resolution":
			s.text(p.Resolution.UnmarshalText)
		case "reason":
			s.text(p.Reason.UnmarshalText)
		default:
			s.fail()
		}
	}
}

func decodeTurnStarted(s *scanner, p *turn.TurnStarted) {
	for first := s.open('{'); s.next('}', &first); {
		switch string(s.key()) {
		case "turn_id":
			p.TurnID = s.str()
		case "workspace_id":
			p.WorkspaceID = s.str()
		case "thread_id":
			p.ThreadID = s.str()
		case "parent_turn_id":
			p.ParentTurnID = s.str()
		case "request_hash":
			p.RequestHash = s.str()
		case "inputs":
			for f := s.open('{'); s.next('}', &f); {
				switch string(s.key()) {
				case "cwd":
					p.Inputs.Cwd = s.str()
				case "workspace_root":
					p.Inputs.WorkspaceRoot = s.str()
				case "project_roots":
					p.Inputs.ProjectRoots = s.strs()
				case "app_read_roots":
					p.Inputs.AppReadRoots = s.strs()
				case "execution_backend":
					s.text(p.Inputs.ExecutionBackend.UnmarshalText)
				default:
					s.fail()
				}
			}
		default: // task_cap and anything new: encoding/json
			s.fail()
		}
	}
}

func decodeTurnEnded(s *scanner, p *turn.TurnEnded) {
	for first := s.open('{'); s.next('}', &first); {
		if string(s.key()) != "reason" {
			s.fail()
		}
		p.Reason = s.str()
	}
}

// decodeFast decodes data into p without reflection when p is one of the
// types above; it reports false when p has no fast decoder or the input is
// not as the codec writes it (p may then hold a partial decode).
func decodeFast(data []byte, p turn.Payload) bool {
	s := scanner{b: data}
	switch v := p.(type) {
	case *turn.DecisionAllowed:
		decodeDecided(&s, &v.Decided)
	case *turn.DecisionDenied:
		decodeDecided(&s, &v.Decided)
	case *turn.ApprovalRequested:
		decodeApprovalRequested(&s, v)
	case *turn.ApprovalResolved:
		decodeApprovalResolved(&s, v)
	case *turn.TurnStarted:
		decodeTurnStarted(&s, v)
	case *turn.TurnCompleted:
		decodeTurnEnded(&s, &v.TurnEnded)
	case *turn.TurnInterrupted:
		decodeTurnEnded(&s, &v.TurnEnded)
	case *turn.TurnFailed:
		decodeTurnEnded(&s, &v.TurnEnded)
	default:
		return false
	}
	return s.done() == nil
}

// decodeInto decodes data into p, fast when p knows how and the input is as
// the codec writes it, else with encoding/json (into a fresh payload, so a
// partial fast decode leaves nothing behind).
func decodeInto(data []byte, p turn.Payload, fresh func() turn.Payload) (turn.Payload, error) {
	if cacheable(p) {
		typ := p.EventType()
		if c, ok := snapshotCache.get(typ, data); ok {
			return c, nil
		}
		if err := json.Unmarshal(data, p); err != nil {
			return p, err
		}
		snapshotCache.put(typ, data, p)
		return shallowCopy(p), nil
	}
	if decodeFast(data, p) {
		return p, nil
	}
	p = fresh()
	return p, json.Unmarshal(data, p)
}

// decodeEnvelope decodes stored metadata, fast when it is as Encode writes it.
func decodeEnvelope(data []byte, env *turn.Envelope) error {
	s := scanner{b: data}
	if decodeEnvelopeFast(&s, env); s.done() == nil {
		return nil
	}
	*env = turn.Envelope{}
	return json.Unmarshal(data, env)
}
