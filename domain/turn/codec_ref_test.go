package turn

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
)

// encodeReference is Encode as first written, with encoding/json, fmt and
// HashOf: the definition of the stored bytes, ids and chain hashes.
func encodeReference(events []Event, prevHash string) ([]eventstore.EventData, error) {
	out := make([]eventstore.EventData, len(events))
	for i := range events {
		e := &events[i]
		if e.ID == uuid.Nil {
			return nil, fmt.Errorf("encode %s: event id is not set", e.Type)
		}
		version, ok := EventRegistry.Version(e.Payload.EventType())
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrUnknownEventType, e.Payload.EventType())
		}
		e.Type, e.SchemaVersion, e.PrevHash = e.Payload.EventType(), version, prevHash
		data, err := json.Marshal(e.Payload)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", e.Type, err)
		}
		env := Envelope{
			Type: e.Type, SchemaVersion: version, TurnID: e.TurnID, OccurredAt: e.OccurredAt.UTC(),
			Actor: e.Actor, CorrelationID: e.CorrelationID, PrevHash: prevHash,
		}
		e.ID = contentIDFmt(e.ID, &env, data)
		env.EventID = e.ID
		meta, err := json.Marshal(env)
		if err != nil {
			return nil, err
		}
		e.Hash = HashOf(meta, data)
		prevHash = e.Hash
		out[i] = eventstore.EventData{ID: e.ID, Type: e.Type, Data: data, Metadata: meta}
	}
	return out, nil
}

// genDecided draws the body of a decision with hostile strings.
func genDecided(t *rapid.T) Decided {
	str := genString()
	var scope []domain.ScopeEntry
	for range rapid.IntRange(0, 4).Draw(t, "scope_entries") {
		scope = append(scope, domain.ScopeEntry{Key: str.Draw(t, "key"), Value: str.Draw(t, "value")})
	}
	d := Decided{
		ToolCallID: str.Draw(t, "tool_call_id"), ItemID: str.Draw(t, "item_id"),
		Action: ActionRecord{ToolName: str.Draw(t, "tool_name"), Kind: domain.ActionKind(str.Draw(t, "kind")),
			Also: domain.ActionKind(str.Draw(t, "also")), AlsoTool: str.Draw(t, "also_tool"), ScopeHash: str.Draw(t, "scope_hash"),
			Scope: domain.NewScope(scope...), Summary: str.Draw(t, "summary")},
		Decision: DecisionRecord{Behavior: domain.Behavior(rapid.IntRange(0, 4).Draw(t, "behavior")),
			Reason: domain.Reason(str.Draw(t, "reason")), Cached: rapid.Bool().Draw(t, "cached"), DecidedBy: str.Draw(t, "decided_by")},
		RequestID: str.Draw(t, "request_id"), Refusal: str.Draw(t, "refusal"), Message: str.Draw(t, "message"),
	}
	switch rapid.IntRange(0, 2).Draw(t, "scope_form") {
	case 0:
		d.Action.Scope = nil
	case 1: // as drawn: unsorted, keys repeated
		d.Action.Scope = domain.Scope(scope)
	}
	for range rapid.IntRange(0, 3).Draw(t, "files") {
		d.Action.Files = append(d.Action.Files, domain.FileOp{Path: str.Draw(t, "path"), Access: domain.Access(str.Draw(t, "access"))})
	}
	if rapid.Bool().Draw(t, "empty_files") && d.Action.Files == nil {
		d.Action.Files = []domain.FileOp{}
	}
	for range rapid.IntRange(0, 3).Draw(t, "details") {
		d.Action.Details = append(d.Action.Details, domain.Detail{Label: str.Draw(t, "label"), Value: str.Draw(t, "detail"), Monospace: rapid.Bool().Draw(t, "mono")})
	}
	return d
}

// genPayload draws a payload: the decisions Encode writes most, and others.
func genPayload(t *rapid.T) Payload {
	switch rapid.IntRange(0, 4).Draw(t, "payload") {
	case 0:
		return &DecisionAllowed{genDecided(t)}
	case 1:
		return &DecisionDenied{genDecided(t)}
	case 2:
		return &TurnCompleted{TurnEnded{Reason: genString().Draw(t, "end")}}
	case 3:
		return &ApprovalResolved{RequestID: genString().Draw(t, "request"), ToolCallID: genString().Draw(t, "call"),
			Resolution: domain.Resolution(genString().Draw(t, "resolution")), Reason: domain.Reason(genString().Draw(t, "why"))}
	}
	return benchDecision().Payload
}

// TestEncodeMatchesReference: Encode gives the records, ids, chain hashes
// and errors encodeReference gives, over random chains of events.
func TestEncodeMatchesReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var events []Event
		for range rapid.IntRange(1, 4).Draw(rt, "events") {
			env := genEnvelope().Draw(rt, "envelope")
			events = append(events, Event{ID: env.EventID, TurnID: env.TurnID, OccurredAt: env.OccurredAt,
				Actor: env.Actor, CorrelationID: env.CorrelationID, Payload: genPayload(rt)})
		}
		prev := genString().Draw(rt, "prev")
		ref := append([]Event(nil), events...)
		want, werr := encodeReference(ref, prev)
		got, gerr := Encode(events, prev)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			rt.Fatalf("error %v, reference %v", gerr, werr)
		}
		if werr != nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			for i := range got {
				rt.Logf("got  %s\n     %s\nwant %s\n     %s", got[i].Metadata, got[i].Data, want[i].Metadata, want[i].Data)
			}
			rt.Fatal("records differ")
		}
		if !reflect.DeepEqual(events, ref) {
			rt.Fatalf("events\n%+v\nreference\n%+v", events, ref)
		}
	})
}

// TestRecordMatchesRedacted: a decision's record holds what the redacted
// action holds (domain.Action.Redacted), for actions with secrets and
// sensitive paths in every display value.
func TestRecordMatchesRedacted(t *testing.T) {
	pieces := []string{"Read ", "/home/alice/.ssh/id_rsa", " ", "--token=abc", "src/main.go", "https://u:p@h/?k=v", "\"", "="}
	rapid.Check(t, func(rt *rapid.T) {
		str := rapid.OneOf(genString(), rapid.Map(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 6), func(p []string) string {
			s := ""
			for _, x := range p {
				s += x
			}
			return s
		}))
		d := genDecided(rt)
		a := domain.Action{ToolName: d.Action.ToolName, AlsoTool: d.Action.AlsoTool, Kind: d.Action.Kind, Also: d.Action.Also, ScopeHash: d.Action.ScopeHash,
			Summary: str.Draw(rt, "summary"), Files: d.Action.Files, Details: d.Action.Details}
		for _, k := range []string{"path", "command", "argv", "url_path", "operation"} {
			if rapid.Bool().Draw(rt, k) {
				a.Scope = append(a.Scope, domain.ScopeEntry{Key: k, Value: str.Draw(rt, "value")})
			}
		}
		r := a.Redacted()
		want := ActionRecord{ToolName: a.ToolName, Kind: a.Kind, Also: a.Also, AlsoTool: a.AlsoTool, ScopeHash: a.ScopeHash, Scope: r.Scope, Summary: r.Summary}
		if got := record(&a); !reflect.DeepEqual(got, want) {
			rt.Fatalf("record %+v\nredacted %+v", got, want)
		}
	})
}
