package egress

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// judgeOnEngine is an EngineJudge on a real engine and embedded store in a
// temp dir, with one supervised turn "t" started (its web_fetch asks).
func judgeOnEngine(t *testing.T) (*engine.Engine, *EngineJudge) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, engine.Config{})
	if _, err := eng.Execute(context.Background(), "t", &turn.StartTurn{TurnID: "t", WorkspaceID: "ws", ThreadID: "th",
		Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: t.TempDir()}}); err != nil {
		t.Fatal(err)
	}
	return eng, &EngineJudge{Engine: eng, Poll: time.Millisecond}
}

// requests returns the turn's approval requests, open ones first counted.
func requests(t *testing.T, eng *engine.Engine) (all, open []string) {
	t.Helper()
	err := eng.View(context.Background(), "t", func(s *turn.State) error {
		for id, r := range s.Approvals {
			all = append(all, id)
			if r.Status == turn.RequestOpen {
				open = append(open, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all, open
}

// decideAll runs n Decides of one question at once and returns their
// verdicts on a channel.
func decideAll(ctx context.Context, j *EngineJudge, n int, rawURL string) chan Verdict {
	out := make(chan Verdict, n)
	for range n {
		go func() {
			v, err := j.Decide(ctx, "t", rawURL, "GET")
			if err != nil {
				v = Verdict{Code: "error: " + err.Error()}
			}
			out <- v
		}()
	}
	return out
}

// waitFor polls cond (the judge's and the engine's state) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling a condition, not standing in for it
	}
}

func joined(j *EngineJudge, rawURL string) int {
	j.asks.mu.Lock()
	defer j.asks.mu.Unlock()
	n := 0
	for k, a := range j.asks.m { // the question starts with the principal's prefix
		if k.turnID == "t" && strings.HasSuffix(k.question, "\x00GET "+rawURL) {
			n += a.joined
		}
	}
	return n
}

func respond(t *testing.T, eng *engine.Engine, reqID string, r domain.Resolution) {
	t.Helper()
	if _, err := eng.Execute(context.Background(), "t", &turn.RespondApproval{Meta: turn.Meta{Actor: domain.Actor{Name: "person", Role: "approver"}}, RequestID: reqID, Resolution: r}); err != nil {
		t.Fatal(err)
	}
}

// TestConnectionsAskingTheSameShareOneRequest: five connections to one
// origin while it asks make one approval request, not five (an attack
// review filled the approver's queue by opening and dropping connections),
// and its allow_for_turn lets every one of them through. The control: a
// connection to another origin asks its own question.
func TestConnectionsAskingTheSameShareOneRequest(t *testing.T) {
	eng, j := judgeOnEngine(t)
	const u = "https://asked.test:443/"
	got := decideAll(context.Background(), j, 5, u)
	waitFor(t, "five connections asking", func() bool { _, open := requests(t, eng); return joined(j, u) == 5 && len(open) > 0 })
	all, open := requests(t, eng)
	if len(all) != 1 || len(open) != 1 {
		t.Fatalf("five connections to one origin made %d requests (%d open), want 1", len(all), len(open))
	}
	respond(t, eng, open[0], domain.ResolutionAllowForTurn)
	for range 5 {
		if v := <-got; !v.Allow {
			t.Errorf("a connection sharing the request answered allow_for_turn: %+v", v)
		}
	}
	other := decideAll(context.Background(), j, 1, "https://other.test:443/")
	waitFor(t, "the other origin's request", func() bool { _, open := requests(t, eng); return len(open) == 1 })
	if all, _ := requests(t, eng); len(all) != 2 {
		t.Fatalf("control: another origin made %d requests in all, want 2", len(all))
	}
	_, open = requests(t, eng)
	respond(t, eng, open[0], domain.ResolutionDeny)
	if v := <-other; v.Allow {
		t.Fatalf("control: a denied request allowed %+v", v)
	}
}

// TestAllowOnceLetsOneSharedConnectionThrough: an allow_once answers one
// connection; the others sharing its request ask again (one new request
// between them), and a deny of that one refuses them both.
func TestAllowOnceLetsOneSharedConnectionThrough(t *testing.T) {
	eng, j := judgeOnEngine(t)
	const u = "https://once.test:443/"
	got := decideAll(context.Background(), j, 3, u)
	waitFor(t, "three connections asking", func() bool { _, open := requests(t, eng); return joined(j, u) == 3 && len(open) > 0 })
	_, open := requests(t, eng)
	first := open[0]
	respond(t, eng, first, domain.ResolutionAllowOnce)
	v := <-got
	if !v.Allow || !v.Once {
		t.Fatalf("the first answer after allow_once: %+v, want one allow", v)
	}
	waitFor(t, "the two others asking again", func() bool {
		_, open := requests(t, eng)
		return len(open) == 1 && open[0] != first && joined(j, u) == 2
	})
	_, open = requests(t, eng)
	respond(t, eng, open[0], domain.ResolutionDeny)
	for range 2 {
		if v := <-got; v.Allow {
			t.Errorf("allow_once let a second connection through: %+v", v)
		}
	}
	if all, _ := requests(t, eng); len(all) != 2 {
		t.Errorf("%d requests in all, want 2", len(all))
	}
}

// TestOpenAsksAreBounded: a turn's connections keep at most MaxOpenAsks
// questions open; one more is refused at once (approval_limit) without a
// request, and once one question is answered a new one can be asked (the
// control).
func TestOpenAsksAreBounded(t *testing.T) {
	eng, j := judgeOnEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var outs []chan Verdict
	for i := range MaxOpenAsks {
		outs = append(outs, decideAll(ctx, j, 1, "https://o"+strconv.Itoa(i)+".test:443/"))
	}
	waitFor(t, "every question asked", func() bool { _, open := requests(t, eng); return len(open) == MaxOpenAsks })
	v, err := j.Decide(ctx, "t", "https://one-more.test:443/", "GET")
	if err != nil || v.Allow || v.Code != "approval_limit" {
		t.Fatalf("question %d: %+v %v, want approval_limit", MaxOpenAsks+1, v, err)
	}
	if all, _ := requests(t, eng); len(all) != MaxOpenAsks {
		t.Fatalf("the refused question opened a request: %d in all", len(all))
	}
	_, open := requests(t, eng)
	respond(t, eng, open[0], domain.ResolutionDeny)
	waitFor(t, "the answered question's connection", func() bool {
		for _, o := range outs {
			if len(o) > 0 {
				return true
			}
		}
		return false
	})
	more := decideAll(ctx, j, 1, "https://one-more.test:443/")
	waitFor(t, "the new question", func() bool { all, _ := requests(t, eng); return len(all) == MaxOpenAsks+1 })
	cancel()
	<-more
}

// TestApprovalAfterANarrowerModeDecidesAnew: a connection waits on its
// request opened under auto_accept_edits; the turn's mode is narrowed to
// supervised (the request stays open: it still asks there), and a person
// then answers allow_for_turn. The connection is not let through on an
// answer given under the wider mode: it is decided again under the
// snapshot in force, which asks anew, and a deny of that request refuses
// it (the API refuses such an approved call as permissions_changed). The
// control: without the change, the same answer lets it through.
func TestApprovalAfterANarrowerModeDecidesAnew(t *testing.T) {
	for _, narrow := range []bool{false, true} {
		eng, j := judgeOnEngine(t)
		ctx := context.Background()
		if _, err := eng.Execute(ctx, "t", &turn.ChangeProfile{Meta: turn.Meta{Actor: domain.Actor{Name: "admin", Role: "admin"}},
			Profile: &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}}); err != nil {
			t.Fatal(err)
		}
		const u = "https://waits.test:443/"
		got := decideAll(ctx, j, 1, u)
		waitFor(t, "the connection asking", func() bool { _, open := requests(t, eng); return joined(j, u) == 1 && len(open) == 1 })
		_, open := requests(t, eng)
		first := open[0]
		if narrow {
			if _, err := eng.Execute(ctx, "t", &turn.ChangeProfile{Meta: turn.Meta{Actor: domain.Actor{Name: "admin", Role: "admin"}},
				Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}}); err != nil {
				t.Fatal(err)
			}
			if _, open := requests(t, eng); len(open) != 1 {
				t.Fatalf("the narrowing resolved the request (%d open): the test needs it open", len(open))
			}
		}
		respond(t, eng, first, domain.ResolutionAllowForTurn)
		if !narrow {
			if v := <-got; !v.Allow {
				t.Fatalf("control: allow_for_turn without a change: %+v", v)
			}
			continue
		}
		waitFor(t, "a new request under the narrower mode", func() bool {
			_, open := requests(t, eng)
			return len(open) == 1 && open[0] != first
		})
		_, open = requests(t, eng)
		respond(t, eng, open[0], domain.ResolutionDeny)
		if v := <-got; v.Allow {
			t.Fatalf("a connection went through on an answer given before its turn's mode narrowed: %+v", v)
		}
	}
}
