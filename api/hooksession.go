package api

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// A Claude Code session is a thread; its agent turns are turnstile turns
// whose ids are derived from the session id and a counter:
//
//	thread  claude-code:<24 hex of sha256(session_id)>
//	turn n  <thread>:<n>                      (n = 1, 2, …)
//	child   <turn>:task:<16 hex of sha256(tool_use_id)>
//
// The store is the record of the counter: turn n+1 is only ever started
// after turn n was found, so the turns of a session are 1…N without a gap
// and the current one is the highest that exists. Any instance finds it
// from the store (a hint per session saves probing from 1), so the mapping
// holds across restarts and between instances; two instances starting the
// same turn at once send the same request, and the second is answered with
// the first's turn. The prefix is reserved: clients cannot start turns in it
// (checkClientTurnID).

// ClaudeCodeTurnPrefix is the reserved prefix of the hook's thread and turn ids.
const ClaudeCodeTurnPrefix = "claude-code:"

// checkClientTurnID refuses a client-chosen turn id in the hook's namespace.
func checkClientTurnID(id string) error {
	if strings.HasPrefix(id, ClaudeCodeTurnPrefix) {
		return &domain.FieldError{Field: "turn_id", Value: id, Message: "the prefix " + ClaudeCodeTurnPrefix + " is reserved for Claude Code sessions"}
	}
	return nil
}

func shortHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

func ccThreadID(sessionID string) string { return ClaudeCodeTurnPrefix + shortHash(sessionID, 24) }

func ccTurnID(thread string, n int) string { return thread + ":" + strconv.Itoa(n) }

func ccChildID(parent, toolUseID string) string { return parent + ":task:" + shortHash(toolUseID, 16) }

// ccHints remembers the latest turn number found per thread (a hint only:
// every use is checked against the store).
type ccHints struct {
	mu sync.Mutex // guards m
	m  map[string]int
}

func (h *ccHints) get(thread string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m[thread]
}

func (h *ccHints) set(thread string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil || len(h.m) > 100_000 {
		h.m = map[string]int{}
	}
	if n > h.m[thread] {
		h.m[thread] = n
	}
}

// exists reports whether a turn has any event in the store.
func (s *Server) turnExists(ctx context.Context, id string) (bool, error) {
	recs, err := s.cfg.Store.ReadStream(ctx, turn.StreamName(id), 0, 1)
	return len(recs) > 0, err
}

// latestTurn returns the number of the session's latest turn (0: none),
// probing the store from the hint: doubling steps, then a binary search.
func (s *Server) latestTurn(ctx context.Context, thread string) (int, error) {
	lo := s.ccHints.get(thread)
	step := 1
	for {
		ok, err := s.turnExists(ctx, ccTurnID(thread, lo+step))
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		lo += step
		step *= 2
	}
	hi := lo + step // lo exists (or is 0), hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, err := s.turnExists(ctx, ccTurnID(thread, mid))
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	s.ccHints.set(thread, lo)
	return lo, nil
}

// turnSummary reads a turn from the store (through the engine's cache,
// caught up).
func (s *Server) turnSummary(ctx context.Context, id string) (turn.Summary, error) {
	var sum turn.Summary
	err := s.cfg.Engine.View(ctx, id, func(st *turn.State) error {
		sum = st.Summary
		return nil
	})
	return sum, err
}

// ccSession is one hook call's view of its session.
type ccSession struct {
	hook    *claudeCodeHook
	thread  string
	project domain.ClaudeCodeProject
	// configured is set when the cwd is under a configured project.
	configured bool
}

func (s *Server) ccSession(h *claudeCodeHook) (*ccSession, error) {
	if h.SessionID == "" {
		return nil, &domain.FieldError{Field: "session_id", Message: "required"}
	}
	if !strings.HasPrefix(h.Cwd, "/") {
		return nil, &domain.FieldError{Field: "cwd", Value: h.Cwd, Message: "must be an absolute path"}
	}
	p, ok := s.cfg.ClaudeCode.Project(h.Cwd)
	return &ccSession{hook: h, thread: ccThreadID(h.SessionID), project: p, configured: ok}, nil
}

// checkProject refuses to start a turn for a cwd under no configured
// project (a session's open turn is still found, used and ended when its
// cwd wanders out of the project).
func (cs *ccSession) checkProject() error {
	if !cs.configured {
		return &domain.FieldError{Field: "cwd", Value: cs.hook.Cwd, Message: "is under no project configured for Claude Code (serve --claude-code-config)"}
	}
	return nil
}

// clientParams is what a hook turn keeps of the session in its start event.
func (cs *ccSession) clientParams(extra map[string]any) map[string]json.RawMessage {
	cc := map[string]any{"session_id": cs.hook.SessionID, "permission_mode": cs.hook.PermissionMode,
		"transcript_path": cs.hook.TranscriptPath, "started_by": cs.hook.HookEventName}
	for k, v := range extra {
		cc[k] = v
	}
	b, _ := json.Marshal(cc)
	return map[string]json.RawMessage{"claude_code": b}
}

// startTurn starts turn n of the session (the same request from two
// instances is one turn).
func (s *Server) ccStartTurn(r *http.Request, cs *ccSession, n int, prompt string) (string, error) {
	if err := cs.checkProject(); err != nil {
		return "", err
	}
	if n > 1 {
		// The session's turns stay in the workspaces of whoever drives it:
		// another workspace's credential cannot take the session over by
		// starting its next turn.
		if err := s.authorizeTurn(r, domain.OpTurnStart, ccTurnID(cs.thread, n-1)); err != nil {
			return "", err
		}
	}
	id := ccTurnID(cs.thread, n)
	profile := cs.project.Request(cs.hook.PermissionMode)
	var carried *turn.ProfileOrigin
	if n > 1 {
		p, origin, err := s.ccCarriedProfile(r, ccTurnID(cs.thread, n-1))
		if err != nil {
			return "", err
		}
		if p != nil {
			profile, carried = p, origin
		}
	}
	var input json.RawMessage
	if prompt != "" {
		input, _ = json.Marshal([]map[string]any{{"type": "text", "text": prompt, "textElements": []any{}}})
	}
	_, err := s.hookExec(r, id, &turn.StartTurn{
		Meta: hookMeta(r), TurnID: id, WorkspaceID: cs.project.WorkspaceID, ThreadID: cs.thread,
		Profile: profile,
		Inputs: turn.Inputs{Cwd: cs.hook.Cwd, WorkspaceRoot: cs.project.Root, ExecutionBackend: domain.BackendClaudeCLI,
			ForeignProjects: s.foreignProjects(cs.project.WorkspaceID, cs.project.Root)},
		Input: input, Client: cs.clientParams(nil), ProfileCarried: carried,
	})
	var conflict *turn.ConflictError
	if errors.As(err, &conflict) {
		err = nil // started a moment ago by another call of this session
	}
	if err == nil {
		s.ccHints.set(cs.thread, n)
	}
	return id, err
}

// ccCarriedProfile returns the profile a session's next turn starts with
// when its previous turn, prev, was last given one by another principal
// than the hook's (an admin narrowing a session that misbehaves), or
// carried one so given: that mode or permission profile and where it came
// from, nil otherwise. The agent, which holds the
// hook's credential, can end a turn and start the next (a Stop or a
// UserPromptSubmit of its own), and the next took the project's mode: the
// admin's narrowing ended with the agent's forged Stop. The first
// PreToolUse of the turn narrows it to the project's selection still
// (ccNarrowToMode), so a change that widened the session gives it nothing
// past its project's mode, and one that both widens and narrows denies the
// call, as a wider selection of the agent's does. The tool and path lists
// the change gave are carried with its mode or profile.
func (s *Server) ccCarriedProfile(r *http.Request, prev string) (*domain.ProfileRequest, *turn.ProfileOrigin, error) {
	var by domain.Actor
	var prof domain.TurnPermissionProfileSnapshot
	var kids childChanges
	err := s.cfg.Engine.View(r.Context(), prev, func(st *turn.State) error {
		by, prof, kids = st.ProfileChangedBy, st.CarriedProfile, childChangesOf(st, principalOf(r).Name)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// A child of it another principal changed after prev's own change
	// binds the session the same way (ccNarrowToMode narrowed prev to it,
	// as the hook's principal).
	if req, origin, err := s.ccChildCarried(r, kids); err != nil || req != nil {
		return req, origin, err
	}
	if by == (domain.Actor{}) || by.Name == principalOf(r).Name {
		return nil, nil, nil
	}
	origin := &turn.ProfileOrigin{TurnID: prev, By: by}
	return carriedRequest(&prof), origin, nil
}

// childChanges is what ccChildCarried needs of a session's turn: its child
// turns, and since when a change of its own by another principal than the
// hook's stands (zero when none does).
type childChanges struct {
	kids  []string
	since time.Time
}

// childChangesOf reads them from the turn's state; me is the hook's
// principal.
func childChangesOf(st *turn.State, me string) childChanges {
	c := childChanges{kids: slices.Clone(st.Children)}
	if st.ProfileChangedBy != (domain.Actor{}) && st.ProfileChangedBy.Name != me {
		c.since = st.ProfileChangedAt
	}
	return c
}

// ccChildCarried returns the profile the latest child turn of a session's
// turn (c, read with the turn's own state) that another principal than the
// hook's changed was given, with where it came from (nil when none was):
// the agent can end a child turn an admin narrowed (a SubagentStop of its
// own names no child, and a runtime credential ends its turns over REST),
// and the calls it sent there then go to the parent.
//
// Only a change made after the parent's own change by another principal
// counts (an admin who widens the session's turn again after narrowing a
// child is not undone by that child), and of those the latest.
func (s *Server) ccChildCarried(r *http.Request, c childChanges) (*domain.ProfileRequest, *turn.ProfileOrigin, error) {
	me := principalOf(r).Name
	since := c.since
	var req *domain.ProfileRequest
	var origin *turn.ProfileOrigin
	for _, id := range c.kids {
		var by domain.Actor
		var prof domain.TurnPermissionProfileSnapshot
		var at time.Time
		if err := s.cfg.Engine.View(r.Context(), id, func(st *turn.State) error {
			by, prof, at = st.ProfileChangedBy, st.CarriedProfile, st.ProfileChangedAt
			return nil
		}); err != nil {
			return nil, nil, err
		}
		if by != (domain.Actor{}) && by.Name != me && at.After(since) {
			since = at
			req, origin = carriedRequest(&prof), &turn.ProfileOrigin{TurnID: id, By: by}
		}
	}
	return req, origin, nil
}

// carriedRequest is the request that gives a turn the profile prof: its
// mode or profile and the tool and path lists the change gave with it (an
// admin takes one tool, or the paths outside a directory, away without
// changing the mode; the lists of a snapshot are the request's).
func carriedRequest(prof *domain.TurnPermissionProfileSnapshot) *domain.ProfileRequest {
	p := &prof.EffectivePolicy
	req := &domain.ProfileRequest{Mode: prof.Mode, Profile: prof.Profile,
		AllowedTools: slices.Clone(p.AllowedTools), AllowedToolsRestricted: p.AllowedToolsRestricted,
		DeniedTools:  slices.Clone(p.DeniedTools),
		AllowedPaths: slices.Clone(p.AllowedPaths), AllowedPathsRestricted: p.AllowedPathsRestricted}
	if req.Profile != "" {
		req.Mode = ""
	}
	return req
}

// openTurn returns the session's live turn, starting the next one when
// there is none and start is set ("" when there is none).
func (s *Server) ccOpenTurn(r *http.Request, cs *ccSession, start bool) (string, error) {
	n, err := s.latestTurn(r.Context(), cs.thread)
	if err != nil {
		return "", err
	}
	if n > 0 {
		sum, err := s.turnSummary(r.Context(), ccTurnID(cs.thread, n))
		if err != nil {
			return "", err
		}
		if !sum.Status.Terminal() {
			return sum.TurnID, nil
		}
	}
	if !start {
		return "", nil
	}
	return s.ccStartTurn(r, cs, n+1, "")
}

// ccChild is an open child turn started for a Task call.
type ccChild struct {
	id    string
	start int64
}

// openChildren lists the live child turns of a turn (the engine records
// each on its parent), oldest first.
func (s *Server) ccOpenChildren(ctx context.Context, parent string) ([]ccChild, error) {
	p, err := s.turnSummary(ctx, parent)
	if err != nil {
		return nil, err
	}
	var out []ccChild
	for _, id := range p.Children {
		sum, err := s.turnSummary(ctx, id)
		if err != nil {
			return nil, err
		}
		if sum.Status == turn.StatusNone || sum.Status.Terminal() {
			continue
		}
		out = append(out, ccChild{id: id, start: sum.StartedAt.UnixNano()})
	}
	slices.SortStableFunc(out, func(a, b ccChild) int { return cmp.Compare(a.start, b.start) })
	return out, nil
}

// ccStartChild starts the child turn of an allowed Task call.
func (s *Server) ccStartChild(r *http.Request, cs *ccSession, parent string, h *claudeCodeHook) error {
	if err := cs.checkProject(); err != nil {
		return err
	}
	var in struct {
		Description  string `json:"description"`
		Prompt       string `json:"prompt"`
		SubagentType string `json:"subagent_type"`
	}
	_ = json.Unmarshal(h.ToolInput, &in)
	var input json.RawMessage
	if in.Prompt != "" {
		input, _ = json.Marshal([]map[string]any{{"type": "text", "text": in.Prompt, "textElements": []any{}}})
	}
	id := ccChildID(parent, h.ToolUseID)
	_, err := s.hookExec(r, id, &turn.StartTurn{
		Meta: hookMeta(r), TurnID: id, WorkspaceID: cs.project.WorkspaceID, ThreadID: cs.thread, ParentTurnID: parent,
		Inputs: turn.Inputs{Cwd: h.Cwd, WorkspaceRoot: cs.project.Root, ExecutionBackend: domain.BackendClaudeCLI,
			ForeignProjects: s.foreignProjects(cs.project.WorkspaceID, cs.project.Root)},
		Input: input, Client: cs.clientParams(map[string]any{"tool_use_id": h.ToolUseID, "subagent_type": in.SubagentType, "description": in.Description}),
	})
	var conflict *turn.ConflictError
	if errors.As(err, &conflict) {
		return nil
	}
	return err
}

// endTurn ends a turn and, first, its open children; ending one that has
// already ended is not an error.
func (s *Server) ccEnd(r *http.Request, id string, status turn.Status, reason string) error {
	kids, err := s.ccOpenChildren(r.Context(), id)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := s.ccEndOne(r, k.id, status, "its parent turn ended ("+reason+")"); err != nil {
			return err
		}
	}
	return s.ccEndOne(r, id, status, reason)
}

func (s *Server) ccEndOne(r *http.Request, id string, status turn.Status, reason string) error {
	_, err := s.hookExec(r, id, &turn.EndTurn{Meta: hookMeta(r), Status: status, Reason: reason})
	var illegal *turn.IllegalTransitionError
	var missing *turn.NotFoundError
	if errors.As(err, &illegal) || errors.As(err, &missing) {
		return nil // already over, or never started (a Task that was not allowed)
	}
	return err
}

// hookMeta is the metadata of a hook command: the actor is the hook's
// authenticated principal, whatever the request's headers say.
func hookMeta(r *http.Request) turn.Meta { return meta(r) }

// hookExec runs a command. It does not wait for the read models (only a
// hold on an approval request does: ccAsk); the position of the hook's last
// event is its answer's PositionHeader.
func (s *Server) hookExec(r *http.Request, turnID string, cmd turn.Command) (engine.Result, error) {
	if err := s.hookAuthorize(r, turnID, cmd); err != nil {
		return engine.Result{}, err
	}
	res, err := s.execute(r, turnID, cmd)
	if hp, ok := r.Context().Value(hookPosKey{}).(*eventstore.Position); ok && err == nil && hp.Less(res.Position) {
		*hp = res.Position
	}
	return res, err
}

// hookAuthorize checks the hook's principal may act on the turn a command
// goes to: a session's turns are found by its id alone, so a credential
// scoped to one workspace, with a cwd in its own project, could otherwise
// name a session of another workspace's project and end, interrupt or
// decide in its turns. A new turn is checked against its parent (the
// workspace is checked where the hook starts).
func (s *Server) hookAuthorize(r *http.Request, turnID string, cmd turn.Command) error {
	op := domain.OpTurnDecide
	switch c := cmd.(type) {
	case *turn.StartTurn:
		if c.ParentTurnID == "" {
			return nil
		}
		turnID, op = c.ParentTurnID, domain.OpTurnStart
	case *turn.EndTurn:
		op = domain.OpTurnEnd
	case *turn.ChangeProfile:
		op = domain.OpTurnChangeProfile
	case *turn.RespondApproval:
		op = domain.OpApprovalRespond
		if c.Resolution == domain.ResolutionCancelled {
			// Withdrawing one request: less than ending the turn, which
			// cancels every one (ccPostToolUse).
			op = domain.OpTurnEnd
		}
	}
	return s.authorizeTurn(r, op, turnID)
}

// PositionHeader carries the store position of a hook's last event (the
// hook's body is Claude Code's, with no room for it): pass it as ?after= to
// a read that must include what the hook recorded.
const PositionHeader = "Turnstile-Position"

// hookPosKey keys the *eventstore.Position a hook request's commands raise
// (one request, one goroutine).
type hookPosKey struct{}
