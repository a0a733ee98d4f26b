package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack14ListingDepthInTheGrant: a list_dir's scope held its path
// alone, not how many levels it lists, and its summary said "Read /w/src"
// whatever the depth: in a turn whose profile asks before a read
// (file_read = "ask"), a person's allow_for_turn of a listing of
// /w/src's entries (depth 1, or Claude Code's Glob of src/*.md) was a
// grant of the same scope as a listing of every level below it (depth 0
// or 25, Glob src/**), which then ran without asking, and the person was
// never shown that a call would list every level. The depth is now in the
// scope (0 for every level) and the summary. The control: the same listing
// again is allowed by the grant, and the deep listing's summary says so.
func TestAttack14ListingDepthInTheGrant(t *testing.T) {
	pol := CompilePolicy(ModeSupervised)
	pol.FileRead = BehaviorAsk
	s := &TurnExecutionSecuritySnapshot{PermissionProfile: TurnPermissionProfileSnapshot{Mode: ModeSupervised, EffectivePolicy: pol}}
	listing := func(args string) Action {
		a, err := Classify(Invocation{ToolName: "list_dir", Arguments: json.RawMessage(args)}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	glob := func(in string) Action {
		inv, err := ClaudeCodeInvocation("Glob", json.RawMessage(in), "/w")
		if err != nil {
			t.Fatal(err)
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct {
		name          string
		shallow, deep Action
	}{
		{"list_dir depth 1, then 25", listing(`{"dir_path": "/w/src", "depth": 1}`), listing(`{"dir_path": "/w/src", "depth": 25}`)},
		{"list_dir depth 1, then every level", listing(`{"dir_path": "/w/src", "depth": 1}`), listing(`{"dir_path": "/w/src"}`)},
		{"Glob src/*.md, then src/**", glob(`{"pattern": "src/*.md"}`), glob(`{"pattern": "src/**"}`)},
	} {
		grants := GrantSet{GrantFor(ModeSupervised, &tc.shallow): {}}
		if d := Evaluate(s, &tc.shallow, nil); d.Behavior != BehaviorAsk {
			t.Fatalf("%s: the premise does not hold: %v", tc.name, d.Behavior)
		}
		if d := Evaluate(s, &tc.deep, grants); d.Behavior != BehaviorAsk {
			t.Errorf("%s: the deeper listing was %s by the grant of the shallow one (%s)", tc.name, d.Behavior, tc.deep.Summary)
		}
		// control
		if d := Evaluate(s, &tc.shallow, grants); d.Behavior != BehaviorAllow {
			t.Errorf("control %s: the granted listing again: %s", tc.name, d.Behavior)
		}
	}
	if a := listing(`{"dir_path": "/w/src"}`); !strings.Contains(a.Summary, "every level") {
		t.Errorf("control: a listing of every level is summarised as %q", a.Summary)
	}
}
