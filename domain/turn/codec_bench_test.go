package turn

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain"
)

// benchDecision is the event a durable read_file decision appends (as
// BenchmarkDurableDecisions in domain/engine records it), with the actor
// and correlation id a request through the API gives it.
func benchDecision() Event {
	path := "/tmp/BenchmarkDurableDecisions3080162484/001/src/main.go"
	return Event{
		ID: uuid.NewSHA1(idNamespace, []byte("t0\x00c1")), TurnID: "t0",
		OccurredAt:    time.Date(2026, 11, 30, 21, 32, 42, 174006822, time.UTC),
		Actor:         domain.Actor{Name: "claude-runtime", Role: domain.RoleRuntime},
		CorrelationID: "c1",
		Payload: &DecisionAllowed{Decided{ToolCallID: "c1",
			Action: ActionRecord{ToolName: "read_file", Kind: domain.ActionFileRead,
				ScopeHash: "4d6158f9428bffbda73ef35ef9201499dc5d833b627f542df604ff635a535b3a",
				Scope:     domain.NewScope(domain.ScopeEntry{Key: "operation", Value: "read"}, domain.ScopeEntry{Key: "path", Value: path}, domain.ScopeEntry{Key: "tool_name", Value: "read_file"}),
				Summary:   "Read " + path},
			Decision: DecisionRecord{Behavior: domain.BehaviorAllow, Reason: domain.ReasonPolicyAllowsAction, DecidedBy: "file_read"}}},
	}
}

// BenchmarkEncode times the encoding of one decision event: its payload,
// content id, envelope and chain hash.
func BenchmarkEncode(b *testing.B) {
	ev := benchDecision()
	prev := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	events := make([]Event, 1)
	b.ReportAllocs()
	for b.Loop() {
		events[0] = ev
		if _, err := Encode(events, prev); err != nil {
			b.Fatal(err)
		}
	}
}

// benchAction is the classified read_file action of benchDecision.
func benchAction() domain.Action {
	path := "/home/alice/project/src/main.go"
	return domain.Action{ToolName: "read_file", Kind: domain.ActionFileRead,
		Files:     []domain.FileOp{{Path: path, Access: domain.AccessRead}},
		ScopeHash: "4d6158f9428bffbda73ef35ef9201499dc5d833b627f542df604ff635a535b3a",
		Scope:     domain.NewScope(domain.ScopeEntry{Key: "operation", Value: "read"}, domain.ScopeEntry{Key: "path", Value: path}, domain.ScopeEntry{Key: "tool_name", Value: "read_file"}),
		Summary:   "Read " + path, Details: []domain.Detail{{Label: "Path", Value: path, Monospace: true}}}
}

// BenchmarkRecord times the redacted record a decision keeps of its action.
func BenchmarkRecord(b *testing.B) {
	a := benchAction()
	b.ReportAllocs()
	for b.Loop() {
		record(&a)
	}
}
