package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// Execute runs cmd against turnID: decide on the cached state, append with
// the expected version, and on a wrong-expected-version catch up from the
// store and decide again (at most MaxRetries times). A command that was
// already applied appends nothing and answers what is stored.
//
// The cached state may be behind the store when other instances write to
// the same turn. An append finds that out by itself (its expected version
// fails); an answer that appends nothing (a replay, a not-found, a
// conflict, an illegal transition) would not, so before giving one the
// engine reads what the store holds after its version, once, and decides
// again if there was anything. The hot path, a decision that appends, does
// no extra read.
func (e *Engine) Execute(ctx context.Context, turnID string, cmd turn.Command) (Result, error) {
	if _, ok := cmd.(*turn.EndTurn); ok {
		if f := e.beforeEnd.Load(); f != nil {
			(*f)(ctx, turnID)
		}
	}
	res, err := e.execute(ctx, turnID, cmd, func(s *turn.State, c turn.Command) (turn.Command, error) { return e.load(ctx, s, c) })
	if pe := (*parentEndedError)(nil); errors.As(err, &pe) {
		// A child asked something once its parent had ended
		// (refuseParentEnded): ended now, as the propagation would.
		if _, eerr := e.endWithParent(ctx, turnID, pe.parent); eerr != nil && !errors.Is(eerr, turn.ErrIllegalTransition) {
			return Result{}, eerr
		}
		return Result{}, &turn.IllegalTransitionError{TurnID: turnID, State: pe.parent.Status,
			Transition: pe.what + " (parent turn " + pe.parent.TurnID + " has ended)"}
	}
	e.after(ctx, turnID, cmd, &res, err)
	return res, err
}

// hook turns a command into the one to decide against the turn's state,
// under the turn's lock (loading what it needs through the engine).
type hook func(s *turn.State, cmd turn.Command) (turn.Command, error)

func (e *Engine) execute(ctx context.Context, turnID string, cmd turn.Command, load hook) (Result, error) {
	if turnID == "" {
		return Result{}, fmt.Errorf("engine: empty turn id")
	}
	if err := e.prepare(ctx, turnID, cmd); err != nil {
		return Result{}, err
	}
	if err, ok := e.refuseEnded(turnID, cmd); ok {
		return Result{}, err
	}
	en := e.entry(turnID)
	if err := en.lock(ctx); err != nil {
		return Result{}, err
	}
	locked := true
	defer func() {
		if locked {
			en.unlock()
		}
	}()
	fresh := false
	if en.state == nil {
		if err := e.catchUp(ctx, en); err != nil {
			en.state = nil
			return Result{}, err
		}
		fresh = true
	}
	for attempt := 0; ; attempt++ {
		c, err := load(en.state, cmd)
		if nl := (*needLookup)(nil); errors.As(err, &nl) {
			// The host is looked up without the turn's lock, and the call
			// decided again with the answer (LookupPrefetcher).
			ev, ok := cmd.(*turn.EvaluateTool)
			if !ok || ev.Looked != nil {
				return Result{}, err // not asked of another command, nor twice
			}
			en.unlock()
			locked = false
			addrs, lerr := e.cfg.Checker.(LookupPrefetcher).Lookup(ctx, nl.host)
			if err := ctx.Err(); err != nil {
				return Result{}, err // the caller gave up: nothing is decided (the seventieth review)
			}
			if err := Recheck(ctx); err != nil {
				return Result{}, err // a lookup the agent made slow outlived its credential
			}
			if err := en.lock(ctx); err != nil {
				return Result{}, err
			}
			locked = true
			again := *ev
			again.Looked = &turn.LookupAnswer{Host: nl.host, Addrs: addrs, Err: lerr}
			cmd = &again
			if en.state == nil { // evicted meanwhile
				if err := e.catchUp(ctx, en); err != nil {
					en.state = nil
					return Result{}, err
				}
				fresh = true
			}
			continue
		}
		if err != nil {
			return Result{}, err
		}
		evs, out, err := turn.Decide(en.state, c)
		if err != nil || len(evs) == 0 {
			if !fresh {
				changed, rerr := e.refresh(ctx, en)
				if rerr != nil {
					return Result{}, rerr
				}
				fresh = true
				if changed {
					continue
				}
			}
			if err != nil {
				return Result{}, err
			}
			return Result{Outcome: out, Position: en.position, Turn: en.state.Summary}, nil
		}
		data, err := turn.Encode(evs, en.state.LastHash)
		if err != nil {
			return Result{}, err
		}
		expected := eventstore.NoStream()
		if en.state.Version >= 0 {
			expected = eventstore.Exactly(uint64(en.state.Version))
		}
		start := e.cfg.Now()
		res, err := e.store.Append(ctx, turn.StreamName(turnID), expected, data)
		var wev *eventstore.WrongExpectedVersionError
		if errors.As(err, &wev) {
			if attempt+1 >= e.cfg.MaxRetries {
				return Result{}, fmt.Errorf("%w: %s after %d attempts", ErrTooManyConflicts, turnID, attempt+1)
			}
			if err := pause(ctx, attempt, e.cfg.Now()); err != nil {
				return Result{}, err
			}
			if err := e.catchUp(ctx, en); err != nil {
				return Result{}, err
			}
			fresh = true
			continue
		}
		if err != nil {
			return Result{}, err
		}
		took := e.cfg.Now().Sub(start)
		first := res.NextExpectedRevision - uint64(len(evs)) + 1
		for i := range evs {
			evs[i].Version = int64(first) + int64(i)
			turn.Evolve(en.state, &evs[i])
			e.index(turnID, &evs[i])
			en.folded += int64(len(data[i].Data) + len(data[i].Metadata))
		}
		e.account(en)
		// The store reports the position of the last event only.
		evs[len(evs)-1].Position = res.Position
		en.position = res.Position
		e.appended(res.Position)
		if e.cfg.OnAppend != nil {
			e.cfg.OnAppend(turnID, evs, took)
		}
		return Result{Outcome: out, Events: evs, Position: res.Position, Turn: en.state.Summary}, nil
	}
}

// prepare fills what the engine owns in a command: the time, the approval
// TTL, the MCP trust list, the kernel features, the parent's snapshot and
// the turn's digest key.
func (e *Engine) prepare(ctx context.Context, turnID string, cmd turn.Command) (err error) {
	now := e.cfg.Now().UTC()
	switch c := cmd.(type) {
	case *turn.StartExec:
		if c.Invocation.Key, err = e.turnKey(ctx, turnID, c.Meta.Actor.Name); err != nil {
			return err
		}
	case *turn.StartTurn:
		setNow(&c.Meta, now)
		if c.Kernel == (domain.KernelFeatures{}) {
			c.Kernel = e.cfg.Kernel
		}
		if c.Sensitive == nil {
			c.Sensitive = e.sensitive()
		}
		if c.Catalog == nil {
			c.Catalog = e.cfg.Profiles
		}
		if err := e.checkRoots(c); err != nil {
			return err
		}
		if c.ResolveLinks == nil {
			c.ResolveLinks = e.resolveLinks()
		}
		if c.ParentTurnID != "" && c.Parent == nil {
			p, err := e.parent(ctx, c.ParentTurnID)
			if err != nil {
				return err
			}
			// Nested at most maxAncestry deep: EndedAncestor reaches the
			// root from every turn (the hundred-and-thirty-fourth review:
			// a turn 65 below an interrupted one went on).
			if d, err := e.depthOf(ctx, c.ParentTurnID); err != nil {
				return err
			} else if d >= maxAncestry {
				return &domain.FieldError{Field: "parent_turn_id", Value: c.ParentTurnID,
					Message: fmt.Sprintf("turns nest at most %d deep: this parent is %d deep", maxAncestry, d)}
			}
			c.Parent = p
		}
	case *turn.EvaluateTool:
		setNow(&c.Meta, now)
		if c.Invocation.Key, err = e.turnKey(ctx, turnID, c.Meta.Actor.Name); err != nil {
			return err
		}
		if c.TTL <= 0 {
			c.TTL = e.cfg.ApprovalTTL
		}
		if c.Trust == nil {
			c.Trust = e.cfg.Trust
		}
		if c.MaxOpen <= 0 {
			c.MaxOpen = e.cfg.MaxOpenRequests
		}
	case *turn.ChangeProfile:
		setNow(&c.Meta, now)
		if c.ResolveLinks == nil {
			c.ResolveLinks = e.resolveLinks()
		}
		if c.Kernel == (domain.KernelFeatures{}) {
			c.Kernel = e.cfg.Kernel
		}
		if c.Sensitive == nil {
			c.Sensitive = e.sensitive()
		}
		if c.Catalog == nil {
			c.Catalog = e.cfg.Profiles
		}
		if c.AddedRootLinks == nil {
			c.AddedRootLinks = e.profileRootLinks(c.Profile, c.Catalog)
		}
	case *turn.RecordDenial:
		setNow(&c.Meta, now)
		if c.Invocation.Key, err = e.turnKey(ctx, turnID, c.Meta.Actor.Name); err != nil {
			return err
		}
	case *turn.FinishExec:
		setNow(&c.Meta, now)
	case *turn.RegisterChild:
		setNow(&c.Meta, now)
	case *turn.RespondApproval:
		setNow(&c.Meta, now)
	case *turn.ExpireApprovals:
		setNow(&c.Meta, now)
	case *turn.EndTurn:
		setNow(&c.Meta, now)
	case *turn.RecordToolRun:
		setNow(&c.Meta, now)
		if c.Invocation.Key, err = e.turnKey(ctx, turnID, c.Meta.Actor.Name); err != nil {
			return err
		}
	}
	return nil
}

// turnKey is the digest key of principal's calls in the turn turnID
// (domain.DigestKey.ForTurn).
func (e *Engine) turnKey(ctx context.Context, turnID, principal string) (domain.DigestKey, error) {
	k, err := e.DigestKey(ctx)
	if err != nil {
		return k, err
	}
	return e.turnKeys.forTurn(k, turnID, principal), nil
}

func setNow(m *turn.Meta, now time.Time) {
	if m.Now.IsZero() {
		m.Now = now
	}
}

// parent returns what a child turn needs of its parent.
func (e *Engine) parent(ctx context.Context, parentID string) (*turn.Parent, error) {
	var p *turn.Parent
	err := e.View(ctx, parentID, func(s *turn.State) error {
		if s.Status == turn.StatusNone {
			return &turn.NotFoundError{Kind: "turn", ID: parentID}
		}
		p = &turn.Parent{TurnID: parentID, Status: s.Status, Snapshot: s.Snapshot, WorkspaceID: s.WorkspaceID}
		return nil
	})
	return p, err
}

// EndedAncestor returns the nearest turn at or above parentID (a turn's
// parent, its parent's parent, ...) that has ended, or nil: a grandchild of
// an ended turn is ended too, also before the end's propagation reaches
// its own parent (the hundred-and-thirty-third review). Turns nest at most
// maxAncestry deep (StartTurn refuses deeper), so the walk reaches the
// root. Each ancestor is waited for at most ancestorWait: the walk runs
// under the asking turn's lock, and a start of a taken id locks the parent
// it names under the taken turn's (a descendant of it, in a lock-order
// cycle: the hundred-and-thirty-fourth review), so a wait that runs out is
// an error, refusing what was asked, rather than a deadlock.
func (e *Engine) EndedAncestor(ctx context.Context, parentID string) (*turn.Parent, error) {
	for range maxAncestry {
		if parentID == "" {
			return nil, nil
		}
		var p *turn.Parent
		var up string
		vctx, cancel := context.WithTimeout(ctx, ancestorWait)
		err := e.View(vctx, parentID, func(s *turn.State) error {
			if s.Status.Terminal() {
				p = &turn.Parent{TurnID: parentID, Status: s.Status, Snapshot: s.Snapshot, WorkspaceID: s.WorkspaceID}
			}
			up = s.ParentTurnID
			return nil
		})
		cancel()
		if err != nil {
			return nil, err
		}
		if p != nil {
			return p, nil
		}
		parentID = up
	}
	return nil, nil
}

// maxAncestry is how deep turns nest (a turn and 63 ancestors) and how
// far up EndedAncestor looks; ancestorWait bounds its wait for each.
const (
	maxAncestry  = 64
	ancestorWait = 2 * time.Second
)

// depthOf returns how many turns lie at and above parentID (1: a root).
func (e *Engine) depthOf(ctx context.Context, parentID string) (int, error) {
	n := 0
	for parentID != "" && n <= maxAncestry {
		n++
		var up string
		if err := e.View(ctx, parentID, func(s *turn.State) error { up = s.ParentTurnID; return nil }); err != nil {
			return 0, err
		}
		parentID = up
	}
	return n, nil
}

// View calls fn with the turn's cached state under its lock, catching up
// from the store first. fn must not keep s.
func (e *Engine) View(ctx context.Context, turnID string, fn func(s *turn.State) error) error {
	en := e.entry(turnID)
	if err := en.lock(ctx); err != nil {
		return err
	}
	defer en.unlock()
	if err := e.catchUp(ctx, en); err != nil {
		en.state = nil
		return err
	}
	return fn(en.state)
}

// pause waits before a retry after a lost race: up to 100 µs times the
// attempt, jittered by the low bits of now, the engine's clock (two
// instances that lost together should not retry in lockstep).
func pause(ctx context.Context, attempt int, now time.Time) error {
	if attempt == 0 {
		return nil
	}
	span := int64(attempt) * int64(100*time.Microsecond)
	d := time.Duration(now.UnixNano() % span)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sensitive is what every snapshot started now denies (Config.Sensitive,
// or SensitiveNow's answer).
func (e *Engine) sensitive() []string {
	if e.cfg.SensitiveNow != nil {
		return e.cfg.SensitiveNow()
	}
	return e.cfg.Sensitive
}
