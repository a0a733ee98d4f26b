package engine_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// gate179 holds the appends to one stream while on.
type gate179 struct {
	eventstore.Store
	stream   string
	on       atomic.Bool
	inFlight atomic.Int64
	open     chan struct{}
}

func (g *gate179) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (eventstore.AppendResult, error) {
	if stream == g.stream && g.on.Load() {
		g.inFlight.Add(1)
		defer g.inFlight.Add(-1)
		select {
		case <-g.open:
		case <-ctx.Done():
			return eventstore.AppendResult{}, ctx.Err()
		}
	}
	return g.Store.Append(ctx, stream, expected, events)
}

var errRevoked179 = errors.New("credential_revoked (test)")

// revocable179 is a caller's context whose recheck (engine.WithRecheck,
// as the API's authenticatedAs sets it) fails once revoked is set: the
// caller's credential was revoked.
func revocable179(revoked *atomic.Bool) context.Context {
	return engine.WithRecheck(context.Background(), func(context.Context) error {
		if revoked.Load() {
			return errRevoked179
		}
		return nil
	})
}

// until179 polls ok (the goroutines' states have no event to wait on).
func until179(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitingIn179 reports whether a goroutine waits for a turn's lock with fn
// on its stack.
func waitingIn179(fn string) bool {
	buf := make([]byte, 1<<22)
	n := runtime.Stack(buf, true)
	for _, g := range strings.Split(string(buf[:n]), "\n\n") {
		if strings.Contains(g, "engine.(*entry).lock(") && strings.Contains(g, fn) {
			return true
		}
	}
	return false
}

// holdLock179 holds turnID's lock (a reader's View) until release is
// closed: held is closed once it has the lock, done once it let it go.
func holdLock179(t *testing.T, eng *engine.Engine, turnID string, release chan struct{}) (held chan struct{}, done chan struct{}) {
	held, done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_ = eng.View(context.Background(), turnID, func(*turn.State) error {
			close(held)
			<-release
			return nil
		})
	}()
	return held, done
}

func status179(t *testing.T, eng *engine.Engine, id string) (turn.Status, domain.Mode) {
	t.Helper()
	var st turn.Status
	var m domain.Mode
	if err := eng.View(context.Background(), id, func(s *turn.State) error {
		st, m = s.Status, s.Snapshot.PermissionProfile.Mode
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return st, m
}

// TestAttack179_EndChildrenStopsAtRecheck: the hundred-and-seventy-ninth
// review, against review 177's recheck (entry.lock calls Recheck once it
// waited). What must follow a command runs detached from its caller's
// credential (detached: a narrowing or an end carried to children), but
// endChildren reads the ended turn's children with e.View(ctx) on the
// CALLER's context, which still carries the recheck: when the turn's lock
// is busy right after the end (another command or reader of the turn, a
// killed command's end being recorded), the View waits, rechecks the
// caller's credential, and a credential revoked meanwhile makes it fail.
// endChildren then returns: the children's commands are not stopped and
// the children are not ended, though their parent's end is recorded. The
// runtime that ends its turn as an operator revokes its credential leaves
// every child live, running what it runs.
//
// Control: the same end, with the lock just as busy and the credential
// not revoked, ends the child.
func TestAttack179_EndChildrenStopsAtRecheck(t *testing.T) {
	for _, revoke := range []bool{false, true} {
		f := newFixture(t)
		g := &gate179{Store: f.store, stream: turn.StreamName("p"), open: make(chan struct{})}
		eng := engine.New(g, engine.Config{Kernel: kernel, Now: f.clock.Now})
		root := t.TempDir()
		startIn(t, eng, "p", "", domain.ModeFullAccess, root)
		startIn(t, eng, "c", "p", domain.ModeFullAccess, root)

		var revoked atomic.Bool
		g.on.Store(true)
		ended := make(chan error, 1)
		go func() {
			_, err := eng.Execute(revocable179(&revoked), "p", &turn.EndTurn{Meta: turn.Meta{Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}},
				Status: turn.StatusInterrupted, Reason: "done"})
			ended <- err
		}()
		until179(t, "the end appends", func() bool { return g.inFlight.Load() == 1 })
		// A reader of p queues for its lock behind the end, and holds it
		// once the end is appended.
		release := make(chan struct{})
		held, done := holdLock179(t, eng, "p", release)
		until179(t, "the reader queues", func() bool { return waitingIn179("holdLock179") })
		g.on.Store(false)
		close(g.open)
		<-held
		until179(t, "endChildren waits for p's lock", func() bool { return waitingIn179("endChildren") })
		revoked.Store(revoke)
		close(release)
		<-done
		if err := <-ended; err != nil {
			t.Fatalf("revoke=%v: the end: %v", revoke, err)
		}
		if st, _ := status179(t, eng, "p"); st != turn.StatusInterrupted {
			t.Fatalf("revoke=%v: p is %s", revoke, st)
		}
		st, _ := status179(t, eng, "c")
		if !revoke {
			if st != turn.StatusInterrupted {
				t.Fatalf("control: with the credential still valid, the child of the interrupted turn is %s", st)
			}
			continue
		}
		if st != turn.StatusInterrupted {
			t.Errorf("the parent's end is recorded, but its child is %s: endChildren's View rechecked the ender's credential (revoked while it waited for the parent's lock) and the end was never carried to the child", st)
		}
	}
}

// TestAttack179_ChildStartNarrowingStopsAtRecheck: the same for the
// narrowing a child's start carries (after, StartTurn): the parent may
// have been narrowed after the child read its snapshot and before it was
// registered, so the started child is bounded again by the parent as it
// is now; review 177 runs that ChangeProfile detached, but the parent it
// bounds by is read first with e.parent(ctx) on the caller's context. A
// parent's lock busy at that moment makes the read wait and recheck the
// caller's credential: revoked meanwhile, the read fails and the child
// keeps the wider snapshot it read, under a parent narrowed to supervised.
//
// Control: the same start, with the parent's lock as busy and the
// credential valid, narrows the child to its parent's supervised mode.
func TestAttack179_ChildStartNarrowingStopsAtRecheck(t *testing.T) {
	for _, revoke := range []bool{false, true} {
		f := newFixture(t)
		g := &gate179{Store: f.store, stream: turn.StreamName("c"), open: make(chan struct{})}
		eng := engine.New(g, engine.Config{Kernel: kernel, Now: f.clock.Now})
		root := t.TempDir()
		startIn(t, eng, "p", "", domain.ModeFullAccess, root)
		// What the child's start read of its parent (prepare) ...
		var wide *turn.Parent
		if err := eng.View(context.Background(), "p", func(s *turn.State) error {
			wide = &turn.Parent{TurnID: "p", Status: s.Status, Snapshot: s.Snapshot, WorkspaceID: s.WorkspaceID}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// ... before a person narrowed the parent (no child to carry it to
		// yet).
		if _, err := eng.Execute(context.Background(), "p", &turn.ChangeProfile{Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}}); err != nil {
			t.Fatal(err)
		}
		var revoked atomic.Bool
		g.on.Store(true)
		started := make(chan error, 1)
		go func() {
			_, err := eng.Execute(revocable179(&revoked), "c", &turn.StartTurn{TurnID: "c", WorkspaceID: "ws", ThreadID: "th", ParentTurnID: "p", Parent: wide,
				Meta:    turn.Meta{Actor: domain.Actor{Name: "agent", Role: domain.RoleRuntime}},
				Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root, Cwd: root}})
			started <- err
		}()
		until179(t, "the child's start appends", func() bool { return g.inFlight.Load() == 1 })
		release := make(chan struct{})
		held, done := holdLock179(t, eng, "p", release)
		<-held
		g.on.Store(false)
		close(g.open)
		until179(t, "the start's follow-up waits for p's lock", func() bool { return waitingIn179("(*Engine).after(") })
		revoked.Store(revoke)
		close(release)
		<-done
		if err := <-started; err != nil {
			t.Fatalf("revoke=%v: the child's start: %v", revoke, err)
		}
		_, pm := status179(t, eng, "p")
		st, cm := status179(t, eng, "c")
		if pm != domain.ModeSupervised || st.Terminal() {
			t.Fatalf("revoke=%v: setup: parent %s, child %s", revoke, pm, st)
		}
		if !revoke {
			if cm != domain.ModeSupervised {
				t.Fatalf("control: with the credential still valid, the child started from the wider parent is %s, not bounded by its supervised parent", cm)
			}
			continue
		}
		if cm != domain.ModeSupervised {
			t.Errorf("the child of a parent narrowed to supervised stays %s: the start's follow-up read of the parent rechecked the starter's credential (revoked while it waited for the parent's lock) and the narrowing was never carried", cm)
		}
	}
}
