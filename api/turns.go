package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// StartTurnRequest is the body of POST /v1/turns and the params of turn/start.
type StartTurnRequest struct {
	TurnID            string                  `json:"turn_id,omitempty"`
	WorkspaceID       string                  `json:"workspace_id"`
	ThreadID          string                  `json:"thread_id,omitempty"`
	PermissionProfile *domain.ProfileRequest  `json:"permission_profile,omitempty"`
	Cwd               string                  `json:"cwd,omitempty"`
	WorkspaceRoot     string                  `json:"workspace_root,omitempty"`
	ProjectRoots      []string                `json:"project_roots,omitempty"`
	AppReadRoots      []string                `json:"app_read_roots,omitempty"`
	ExecutionBackend  domain.ExecutionBackend `json:"execution_backend,omitempty"`
	ParentTurnID      string                  `json:"parent_turn_id,omitempty"`
	TaskCap           *domain.TaskCap         `json:"task_cap,omitempty"`
}

// TurnResponse is a turn with its effective security snapshot.
type TurnResponse struct {
	Turn             projections.TurnView                 `json:"turn"`
	SecuritySnapshot domain.TurnExecutionSecuritySnapshot `json:"security_snapshot"`
	// PermissionsPrompt is the "Current Permissions" section for the model
	// (empty for the default full_access profile).
	PermissionsPrompt string `json:"permissions_prompt,omitempty"`
	// Position, in a command's answer, is the store position of its last
	// event: pass it as ?after= to a read that must include it.
	Position string `json:"position,omitempty"`
}

// idPattern is compiled on first use (see lazyRegexp).
var idPattern = &lazyRegexp{src: `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`}

// lazyRegexp is a regular expression compiled on first match: a bounded
// repetition such as {0,127} compiles to a large program, and compiling it
// at package initialisation cost every start of the binary (every command
// line, every sandbox helper re-execution), not only the server.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// String returns the source text.
func (l *lazyRegexp) String() string { return l.src }

// MatchString reports whether s matches.
func (l *lazyRegexp) MatchString(s string) bool {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re.MatchString(s)
}

func checkID(field, id string) error {
	if !idPattern.MatchString(id) {
		return &domain.FieldError{Field: field, Value: id, Message: "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'"}
	}
	return nil
}

func (s *Server) startTurn(w http.ResponseWriter, r *http.Request) {
	var req StartTurnRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	resp, created, err := s.doStartTurn(r, &req)
	if err != nil {
		writeError(w, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, resp)
}

func (s *Server) doStartTurn(r *http.Request, req *StartTurnRequest) (*TurnResponse, bool, error) {
	return s.startTurnWith(r, req, nil, nil)
}

// startTurnWith starts a turn with the client's prompt (input) and what else
// it sent that turnstile keeps without acting on (client), both recorded in
// the turn-start event.
func (s *Server) startTurnWith(r *http.Request, req *StartTurnRequest, input json.RawMessage, client map[string]json.RawMessage) (*TurnResponse, bool, error) {
	if err := req.checkLengths(); err != nil {
		return nil, false, err
	}
	if req.TurnID == "" {
		req.TurnID = uuid.NewString()
	}
	if err := checkID("turn_id", req.TurnID); err != nil {
		return nil, false, err
	}
	if err := checkClientTurnID(req.TurnID); err != nil {
		return nil, false, err
	}
	// Validation before existence: a request without its workspace is a
	// 400 even when the turn exists.
	if req.WorkspaceID == "" {
		return nil, false, &domain.FieldError{Field: "workspace_id", Message: "is required"}
	}
	if err := principalOf(r).AuthorizeIn(domain.OpTurnStart, req.WorkspaceID); err != nil {
		return nil, false, err
	}
	if req.ParentTurnID != "" {
		if err := checkID("parent_turn_id", req.ParentTurnID); err != nil {
			return nil, false, err
		}
		if err := s.authorizeTurn(r, domain.OpTurnStart, req.ParentTurnID); err != nil {
			return nil, false, err
		}
	}
	if err := s.checkProjectRoots(req); err != nil {
		return nil, false, err
	}
	res, err := s.execute(r, req.TurnID, &turn.StartTurn{
		Meta: meta(r), TurnID: req.TurnID, WorkspaceID: req.WorkspaceID, ThreadID: req.ThreadID, Profile: req.PermissionProfile,
		Inputs: turn.Inputs{Cwd: req.Cwd, WorkspaceRoot: req.WorkspaceRoot, ProjectRoots: req.ProjectRoots,
			AppReadRoots: req.AppReadRoots, ExecutionBackend: req.ExecutionBackend, ForeignProjects: s.foreignProjects(req.WorkspaceID, turnRoot(req))},
		ParentTurnID: req.ParentTurnID, TaskCap: req.TaskCap, Input: input, Client: client,
	})
	if err != nil {
		return nil, false, err
	}
	return s.turnResponse(r, res), !res.Replayed, nil
}

// turnResponse answers a command with the turn as the engine left it (the
// read model's type, folded by the same turn.Summary.Apply) and the
// position of its last event. It does not wait for the read models: a read
// that must include the command passes that position as ?after=.
func (s *Server) turnResponse(r *http.Request, res engine.Result) *TurnResponse {
	t := res.Turn
	return &TurnResponse{Turn: t, SecuritySnapshot: t.Snapshot, PermissionsPrompt: permissionsPrompt(&t), Position: positionOf(res.Position)}
}

func (s *Server) readTurn(r *http.Request, id string) (*TurnResponse, error) {
	if err := s.authorizeTurn(r, domain.OpTurnRead, id); err != nil {
		return nil, err
	}
	t, err := s.turnView(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return &TurnResponse{Turn: t, SecuritySnapshot: t.Snapshot, PermissionsPrompt: permissionsPrompt(&t)}, nil
}

// permissionsPrompt renders t's "Current Permissions" section, naming the
// version of a mid-turn change.
func permissionsPrompt(t *projections.TurnView) string {
	return domain.PermissionsPromptAt(t.Profile, t.SnapshotVersion, t.SnapshotVersion > turn.InitialSnapshotVersion)
}

func (s *Server) getTurn(w http.ResponseWriter, r *http.Request) {
	if err := s.awaitAfter(r, "after"); err != nil {
		writeError(w, err)
		return
	}
	resp, err := s.readTurn(r, chi.URLParam(r, "turn_id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) listTurns(w http.ResponseWriter, r *http.Request) {
	// after is this list's paging cursor (a turn id): read-your-writes
	// here is after_position.
	if err := s.awaitAfter(r, "after_position"); err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	limit, err := intParam(q.Get("limit"), "limit", 100, 1000)
	if err == nil && limit == 0 {
		// 0 would list every turn ever run in one answer.
		err = &domain.FieldError{Field: "limit", Value: q.Get("limit"), Message: "must be an integer from 1 to 1000"}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	p := principalOf(r)
	ws := q.Get("workspace_id")
	if ws != "" || (p.Scoped() && len(p.Workspaces) == 1) {
		if ws == "" {
			ws = p.Workspaces[0]
		}
		if err := p.AuthorizeIn(domain.OpTurnRead, ws); err != nil {
			writeError(w, err)
			return
		}
	}
	filter := projections.TurnFilter{WorkspaceID: ws, Status: q.Get("status"), After: q.Get("after"), Limit: limit}
	if p.Scoped() {
		// A credential scoped to several workspaces sees its own turns
		// only, filtered before the limit counts (else a page of other
		// workspaces' turns came back empty, as if the listing ended).
		filter.Workspaces = slices.Clone(p.Workspaces)
	}
	turns := s.cfg.Projector.Turns(filter)
	turns = slices.DeleteFunc(turns, func(t projections.TurnView) bool { return !p.InScope(t.WorkspaceID) })
	if turns == nil {
		turns = []projections.TurnView{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"turns": turns})
}

func intParam(v, field string, def, maxV int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxV {
		return 0, &domain.FieldError{Field: field, Value: v, Message: "must be an integer from 0 to " + strconv.Itoa(maxV)}
	}
	return n, nil
}

// ChangePermissionsRequest is the body of POST /v1/turns/{id}/permissions.
type ChangePermissionsRequest struct {
	PermissionProfile *domain.ProfileRequest `json:"permission_profile"`
}

func (s *Server) changePermissions(w http.ResponseWriter, r *http.Request) {
	var req ChangePermissionsRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	id := chi.URLParam(r, "turn_id")
	if err := s.authorizeTurn(r, domain.OpTurnChangeProfile, id); err != nil {
		writeError(w, err)
		return
	}
	// The engine loads a child's parent itself (never from the read model).
	cmd := &turn.ChangeProfile{Meta: meta(r), Profile: req.PermissionProfile}
	res, err := s.execute(r, id, cmd)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.turnResponse(r, res))
}

// EndTurnRequest is the optional body of complete, interrupt and fail.
type EndTurnRequest struct {
	Reason string `json:"reason,omitempty"`
}

func (s *Server) endTurn(status turn.Status) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req EndTurnRequest
		if r.ContentLength != 0 {
			if err := decodeJSON(w, r, &req); err != nil {
				writeError(w, err)
				return
			}
		}
		id := chi.URLParam(r, "turn_id")
		if err := checkReason(req.Reason); err != nil {
			writeError(w, err)
			return
		}
		if err := s.authorizeTurn(r, domain.OpTurnEnd, id); err != nil {
			writeError(w, err)
			return
		}
		res, err := s.execute(r, id, &turn.EndTurn{Meta: meta(r), Status: status, Reason: req.Reason})
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, s.turnResponse(r, res))
	}
}

func (s *Server) timeline(w http.ResponseWriter, r *http.Request) {
	if err := s.awaitAfter(r, "after"); err != nil {
		writeError(w, err)
		return
	}
	id := chi.URLParam(r, "turn_id")
	if err := s.authorizeTurn(r, domain.OpTurnRead, id); err != nil {
		writeError(w, err)
		return
	}
	rows, err := s.timelineRows(r.Context(), id)
	if err != nil {
		writeError(w, err)
		return
	}
	if rows == nil {
		rows = []projections.TimelineRow{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"turn_id": id, "rows": rows})
}

func (s *Server) audit(w http.ResponseWriter, r *http.Request) {
	if err := s.awaitAfter(r, "after"); err != nil {
		writeError(w, err)
		return
	}
	id := chi.URLParam(r, "turn_id")
	if err := s.authorizeTurn(r, domain.OpTurnHistory, id); err != nil {
		writeError(w, err)
		return
	}
	if _, ok := s.cfg.Projector.Turn(id); !ok {
		writeError(w, &turn.NotFoundError{Kind: "turn", ID: id})
		return
	}
	offset, err := intParam(r.URL.Query().Get("offset"), "offset", 0, 1<<30)
	if err != nil {
		writeError(w, err)
		return
	}
	limit, err := intParam(r.URL.Query().Get("limit"), "limit", 1000, 10000)
	if err != nil {
		writeError(w, err)
		return
	}
	rows, err := s.auditRows(r.Context(), id, offset, limit)
	if err != nil {
		writeError(w, err)
		return
	}
	if rows == nil {
		rows = []projections.AuditRow{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"turn_id": id, "rows": rows})
}

// rawJSON keeps stored bytes exactly (for hash verification by clients).
type rawJSON = json.RawMessage

// checkProjectRoots refuses a turn whose workspace root, project roots or
// cwd (as written, and where their symlinks lead) the operator's Claude
// Code projects give another workspace than the turn's
// (domain.ClaudeCodeConfig.ForeignRoot), and sets them where they lead.
// Read-only app roots are not judged (shared toolchains).
func (s *Server) checkProjectRoots(req *StartTurnRequest) error {
	cc := s.ccResolved()
	if cc == nil {
		return nil
	}
	in := domain.SnapshotInputs{Cwd: req.Cwd, WorkspaceRoot: req.WorkspaceRoot, ProjectRoots: req.ProjectRoots}
	fields, raw, abs, err := domain.RootsNamed(&in)
	if err != nil {
		return nil // the snapshot's resolution refuses the inputs
	}
	resolved := make([]string, len(abs))
	for i, p := range abs {
		cands := []string{p}
		resolved[i] = p
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			cands, resolved[i] = append(cands, real), real
		}
		if root, proj, found := cc.ForeignRoot(req.WorkspaceID, cands); found {
			msg := fmt.Sprintf("lies in or holds the project %s, which the Claude Code configuration gives workspace %q: a turn of workspace %q may not act there", proj.Root, proj.WorkspaceID, req.WorkspaceID)
			if root != p {
				msg = "leads to " + root + ", which " + msg
			}
			return &domain.FieldError{Field: fields[i], Value: raw[i], Message: msg}
		}
	}
	// The turn takes its roots where they lead now: a link the agent
	// points at another workspace's project later does not take them
	// there (the thirtieth review: a turn rooted at a link to its own
	// project, the link then pointed at billing's).
	set := map[string]*string{"cwd": &req.Cwd}
	if req.WorkspaceRoot != "" { // else RootsNamed names the cwd so
		set["workspace_root"] = &req.WorkspaceRoot
	}
	for j := range req.ProjectRoots {
		set[fmt.Sprintf("project_roots[%d]", j)] = &req.ProjectRoots[j]
	}
	for i, f := range fields {
		if p := set[f]; p != nil {
			*p = resolved[i]
		}
	}
	return nil
}
