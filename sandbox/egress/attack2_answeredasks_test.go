package egress

import (
	"context"
	"strconv"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack2AnsweredAsksStillFillTheLimit: an ask is dropped from the
// turn's count (asks.done) only by a connection that is waiting on it when
// its request is resolved (judge.go, await); join drops an ask otherwise
// only once it is older than the TTL. So the agent opens MaxOpenAsks
// questions and drops their connections: the person answers every one of
// them, and the turn's next question is still refused with approval_limit
// ("… are waiting for a person; answer them first") although nothing is
// waiting any more, until the TTL runs out (staleAsk, 10 minutes, when no
// TTL is set). Wanted: a question can be asked once the open ones are
// answered. Control: while they are open, one more is refused.
func TestAttack2AnsweredAsksStillFillTheLimit(t *testing.T) {
	eng, j := judgeOnEngine(t)
	// A connection that gives up while it waits between two looks at its
	// request (the usual case: a look takes microseconds, the wait the
	// poll period) leaves without asks.done; a long period makes that the
	// only case here.
	j.Poll = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	var outs []chan Verdict
	for i := range MaxOpenAsks {
		outs = append(outs, decideAll(ctx, j, 1, "https://o"+strconv.Itoa(i)+".test:443/"))
	}
	waitFor(t, "every question asked", func() bool { _, open := requests(t, eng); return len(open) == MaxOpenAsks })
	if v, err := j.Decide(context.Background(), "t", "https://one-more.test:443/", "GET"); err != nil || v.Code != "approval_limit" {
		t.Fatalf("control: question %d while %d are open: %+v %v, want approval_limit", MaxOpenAsks+1, MaxOpenAsks, v, err)
	}
	cancel() // the connections give up (the command dropped them)
	for _, o := range outs {
		<-o
	}
	// A connection that gave up while looking at its request dropped its
	// ask; the command asks (and drops) more until the proxy says the
	// limit is reached.
	limited := false
	for i := MaxOpenAsks; i < 4*MaxOpenAsks && !limited; i++ {
		before, _ := requests(t, eng)
		c, cn := context.WithCancel(context.Background())
		o := decideAll(c, j, 1, "https://o"+strconv.Itoa(i)+".test:443/")
		waitFor(t, "question "+strconv.Itoa(i), func() bool { all, _ := requests(t, eng); return len(all) > len(before) || len(o) > 0 })
		if len(o) > 0 {
			limited = (<-o).Code == "approval_limit"
		} else {
			cn()
			<-o
		}
		cn()
	}
	if !limited {
		t.Fatal("never reached the limit")
	}
	_, open := requests(t, eng)
	for _, id := range open {
		respond(t, eng, id, domain.ResolutionDeny)
	}
	if _, open := requests(t, eng); len(open) != 0 {
		t.Fatalf("%d requests still open after the person answered all", len(open))
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	got := decideAll(ctx2, j, 1, "https://legit.test:443/")
	waitFor(t, "the new question's answer or request", func() bool {
		all, _ := requests(t, eng)
		return len(all) == MaxOpenAsks+1 || len(got) > 0
	})
	if len(got) > 0 {
		if v := <-got; v.Code == "approval_limit" {
			t.Fatalf("after the person answered every open request, a new question is refused: %s (%s)", v.Code, v.Rule)
		}
	}
}
