package tests

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAttack86_ConsoleObjectReplacementDrawsNothing (eighty-sixth review):
// the console (visible()) and the CLI (escapeRune) escape what draws as a
// blank or as nothing: controls, format characters, default-ignorables
// (variation selectors), the spaces and U+2800. U+FFFC OBJECT REPLACEMENT
// CHARACTER is a symbol (So): Chromium draws it as nothing, with no width
// (measured below in the console's own page and font), so the agent's
// directory "scripts\uFFFC" reads exactly as the project's "scripts" on
// the card: `sh ./scripts￼/deploy.sh --prod` shows as `sh
// ./scripts/deploy.sh --prod`, the eighty-fourth review's variation
// selector attack with another character. nonASCIIRank gives it "other"
// (rank 3, with accented letters), so eight accented words echoed first
// push it into "and 1 more (1 other)" and the card holds no trace of it.
//
// Root cause: api/ui/app.js hiddenChars and domain/termsafe.go escapeRune
// (BlankDrawing) list what draws as nothing by Unicode property
// (Cf, Default_Ignorable_Code_Point, Zs) plus U+2800 and the Hangul
// fillers; U+FFFC is none of them, and domain/lookalike.go nonASCIIRank
// ranks it with accents.
//
// Fix: add U+FFFC (and U+FFF9–U+FFFB are Cf already; U+1D159 MUSICAL
// SYMBOL NULL NOTEHEAD, blank where a music font is installed) to
// BlankDrawing and to hiddenChars, so both sides escape it and it ranks as
// invisible.
//
// Control: in the same page U+FFFC has no width (so the claim holds in
// this browser), and a variation selector in the same place is shown as an
// escape.
//
// Fixed: U+FFFC, U+1D159, U+303F and U+16FE4 are in BlankDrawing
// (blankSymbols) and in app.js's hiddenChars: both sides show them as
// escapes, and they rank as invisible.
func TestAttack86_ConsoleObjectReplacementDrawsNothing(t *testing.T) {
	s := StartServer(t, "")
	approver := s.credential("alice", "approver")
	b := browser(t)
	signIn(t, b, s, approver)
	run(t, b, "the event stream goes live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery))
	root := workspace(t)
	s.startTurn("t86-obj", "ws", "supervised", root)
	const decoys = `echo "café crème brûlée piñata façade naïve Göteborg über" && `
	vs := s.decide("t86-obj", "c-vs", "exec_command", map[string]any{"cmd": decoys + "sh ./scripts\ufe00/deploy.sh --prod"})
	obj := s.decide("t86-obj", "c-obj", "exec_command", map[string]any{"cmd": decoys + "sh ./scripts\ufffc/deploy.sh --prod"})
	if vs.Request == nil || obj.Request == nil {
		t.Fatalf("want two requests: %+v %+v", vs, obj)
	}
	card := func(id string) string {
		sel := "#req-" + id
		run(t, b, "the request appears", chromedp.WaitVisible(sel, chromedp.ByQuery))
		return text(t, b, sel+" h3") + "\n" + text(t, b, sel+" table")
	}
	if got := card(vs.Request.RequestID); !strings.Contains(got, `scripts\u{fe00}/deploy.sh`) {
		t.Fatalf("control: the variation selector is not shown as an escape:\n%s", got)
	}
	// In the card's own font: the text with U+FFFC is exactly as wide as
	// without it (it draws nothing).
	var same bool
	run(t, b, "the request with U+FFFC appears", chromedp.WaitVisible("#req-"+obj.Request.RequestID+" td.mono", chromedp.ByQuery))
	run(t, b, "measure U+FFFC", chromedp.Evaluate(`(() => {
		const td = document.querySelector("#req-`+obj.Request.RequestID+` td.mono");
		const c = document.createElement("canvas").getContext("2d");
		c.font = getComputedStyle(td).font;
		return c.measureText("scripts\ufffc/deploy.sh").width === c.measureText("scripts/deploy.sh").width;
	})()`, &same))
	if !same {
		// The escape below is checked all the same: it is shown wherever
		// the character lies.
		t.Log("this browser draws U+FFFC with a width")
	}
	got := card(obj.Request.RequestID)
	if !strings.Contains(got, `\u{fffc}`) && !strings.Contains(got, "U+FFFC") {
		t.Errorf("the card shows the agent's scripts\\uFFFC as scripts (U+FFFC draws nothing) with no escape and no mention in the non-ASCII line:\n%s", got)
	}
}
