package turn

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
)

// TestTableMatchesFSM checks the derived lookup against looplab/fsm for
// every state and transition.
func TestTableMatchesFSM(t *testing.T) {
	states := []Status{StatusNone, StatusInProgress, StatusAwaitingApproval, StatusCompleted, StatusInterrupted, StatusFailed}
	names := map[string]bool{}
	for _, e := range TurnTransitions {
		names[e.Name] = true
	}
	for _, s := range states {
		for name := range names {
			m := NewMachine(s)
			_, err := next("t", s, name)
			if m.Can(name) != (err == nil) {
				t.Errorf("%s --%s--> table says %v, fsm says %v", s, name, err == nil, m.Can(name))
			}
			if s.Terminal() && err == nil {
				t.Errorf("terminal %s allows %s", s, name)
			}
			if err != nil && !errors.Is(err, ErrIllegalTransition) {
				t.Errorf("error %v does not wrap ErrIllegalTransition", err)
			}
		}
	}
	d, err := Mermaid()
	if err != nil || !strings.Contains(d, "stateDiagram") || !strings.Contains(d, "awaiting_approval") {
		t.Fatalf("mermaid: %v\n%s", err, d)
	}
}

func TestRegistryRefusesDuplicatesAndUnknown(t *testing.T) {
	r := NewRegistry()
	if err := r.Register(1, func() Payload { return &TurnStarted{} }); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(2, func() Payload { return &TurnStarted{} }); err == nil {
		t.Fatal("duplicate accepted")
	}
	if _, err := r.New("turn.renamed", 1); !errors.Is(err, ErrUnknownEventType) {
		t.Fatalf("unknown type: %v", err)
	}
	if _, err := r.New(TypeTurnStarted, 2); !errors.Is(err, ErrUnknownEventType) {
		t.Fatalf("unknown version: %v", err)
	}
	if len(EventRegistry.Types()) != len(catalogue) {
		t.Fatal("catalogue and registry differ")
	}
}

func TestCodecRoundTripAndChain(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := NewState("t1")
	evs, _, err := Decide(s, &StartTurn{Meta: Meta{Now: now, Actor: domain.Actor{Name: "agent"}}, TurnID: "t1", WorkspaceID: "w", ThreadID: "th",
		Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: Inputs{WorkspaceRoot: "/w"}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(evs, "")
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]eventstore.RecordedEvent, len(data))
	for i, d := range data {
		recs[i] = eventstore.RecordedEvent{ID: d.ID, Stream: StreamName("t1"), Revision: uint64(i), Type: d.Type, Data: d.Data, Metadata: d.Metadata}
	}
	last, err := VerifyChain(recs, "")
	if err != nil || last != evs[len(evs)-1].Hash {
		t.Fatalf("chain: %v", err)
	}
	for i := range recs {
		ev, err := Decode(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		if ev.ID != evs[i].ID || ev.Hash != evs[i].Hash || ev.Type != evs[i].Type || !ev.OccurredAt.Equal(now) || ev.Actor != (domain.Actor{Name: "agent"}) {
			t.Fatalf("round trip %d: %+v", i, ev)
		}
		Evolve(s, &ev)
	}
	if s.Status != StatusInProgress || s.Snapshot.Sandbox.Mode != domain.SandboxReadOnly || s.SnapshotVersion != 2 {
		t.Fatalf("state: %s %s %d", s.Status, s.Snapshot.Sandbox.Mode, s.SnapshotVersion)
	}
	tampered := recs[1]
	tampered.Data = []byte(strings.Replace(string(tampered.Data), "supervised", "full_access", 1))
	if _, err := VerifyChain([]eventstore.RecordedEvent{recs[0], tampered, recs[2]}, ""); err == nil {
		t.Fatal("tampering not detected")
	}
	unknown := recs[0]
	unknown.Type = "turn.teleported"
	if _, err := Decode(&unknown); err == nil {
		t.Fatal("unknown type decoded")
	}
}

func TestDeterministicIDs(t *testing.T) {
	m := Meta{Now: time.Unix(0, 0)}
	a, _, _ := Decide(NewState("t"), &StartTurn{Meta: m, TurnID: "t", Inputs: Inputs{WorkspaceRoot: "/w"}})
	b, _, _ := Decide(NewState("t"), &StartTurn{Meta: m, TurnID: "t", Inputs: Inputs{WorkspaceRoot: "/w"}})
	c, _, _ := Decide(NewState("t"), &StartTurn{Meta: m, TurnID: "t", Inputs: Inputs{WorkspaceRoot: "/x"}})
	if a[0].ID != b[0].ID || a[0].ID == c[0].ID || a[0].ID == uuid.Nil {
		t.Fatal("event ids must follow the command's identity")
	}
}
