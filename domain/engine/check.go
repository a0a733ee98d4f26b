package engine

import (
	"context"
	"errors"
	"net/netip"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// ResourceChecker is the port to the checks made before any side effect
// (REFERENCE §5): the file policy (canonical paths, symlink escapes, roots)
// and the network policy (schemes, denied and allowed hosts, localhost and
// private ranges). The sandbox package implements it.
type ResourceChecker interface {
	CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error
	CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error
}

// StaticURLChecker is a ResourceChecker that can also check a URL without
// looking its host up (the scheme, the host lists, an address written in
// the URL). A call that asks a person is checked so, and looked up only
// once a person allows it: the name a prompt-injected agent puts in a URL
// (a secret as a subdomain of its own domain) reaches a DNS server only
// with a person's consent.
type StaticURLChecker interface {
	CheckURLStatic(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error
}

// Refusal is an error a ResourceChecker returns to refuse; other errors are
// failures of the check itself.
type Refusal interface {
	error
	RefusalCode() string
}

// FileResolver is a ResourceChecker that also resolves path arguments the
// way the kernel will (symlinks first, ".." on the resolved parent): the
// engine then judges, shows the approver and records the resolved path, and
// every path rule (roots, allowed_paths, grants) applies to it. ResolveFile
// checks as CheckFile does and returns the resolved path; with tree (a
// recursive read) everything below the path is checked too.
type FileResolver interface {
	ResolveFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access, tree bool) (string, error)
}

// ListingChecker is a FileResolver that also checks a listing of a
// resolved directory depth levels deep (0: every level), which shows the
// names below it (Codex's list_dir, Claude Code's LS): it refuses one that
// would list a directory a read of refuses.
type ListingChecker interface {
	CheckListing(s *domain.TurnExecutionSecuritySnapshot, dir string, depth int) error
}

// PrincipalScoped is a ResourceChecker that shares its costly work (the
// decision scans of a tree) out among the principals asking: ForPrincipal
// returns the checker to judge one principal's calls with. Shared out by
// the filesystem policy judged instead, an agent holding a runtime
// credential that started a turn per root held every other principal's
// scans behind one of each of its own.
// (The result's type is ResourceChecker's method set written out, so that
// an implementation need not import this package.)
type PrincipalScoped interface {
	ForPrincipal(name string) interface {
		CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error
		CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error
	}
}

// checkerFor is the checker of a call asked by actor.
func (e *Engine) checkerFor(actor domain.Actor) ResourceChecker {
	if ps, ok := e.cfg.Checker.(PrincipalScoped); ok && actor.Name != "" {
		return ps.ForPrincipal(string(actor.Role) + ":" + actor.Name)
	}
	return e.cfg.Checker
}

// RootResolver is a ResourceChecker that also resolves a turn's roots where
// their symlinks lead, as the kernel sandbox takes them: the operator's
// allowed_roots are checked against that, not against the names alone.
type RootResolver interface {
	ResolveRoot(path string) (string, error)
}

// checkRoots refuses a turn whose roots lead outside the operator's
// allowed_roots through a symlink (SelectSnapshot checks them as written).
// It also records where each root it can resolve leads, also where that
// is the root itself (StartTurn.RootLinks): the profile's rules judge a
// root there, and the snapshot binds the root to it (led_to).
func (e *Engine) checkRoots(c *turn.StartTurn) error {
	rr, ok := e.cfg.Checker.(RootResolver)
	if !ok {
		return nil
	}
	in := domain.SnapshotInputs{Cwd: c.Inputs.Cwd, WorkspaceRoot: c.Inputs.WorkspaceRoot, ProjectRoots: c.Inputs.ProjectRoots, AppReadRoots: c.Inputs.AppReadRoots}
	fields, raw, abs, err := domain.RootsNamed(&in)
	if err != nil {
		return nil // the snapshot's resolution refuses the inputs
	}
	var cons *domain.Constraints
	if c.Catalog != nil && c.Catalog.Constraints != nil && c.Catalog.Constraints.AllowedRoots != nil {
		cons = c.Catalog.Constraints
	}
	for i, p := range abs {
		canon, err := rr.ResolveRoot(p)
		if err != nil && cons != nil {
			return &domain.FieldError{Field: fields[i], Value: raw[i], Message: "cannot be resolved to check it against the operator's allowed_roots: " + err.Error()}
		}
		if err != nil {
			// Judged as written, and bound there: a root the agent made
			// unresolvable for the start (a symlink loop, a path through
			// a file) and then pointed into a deny takes no grant with
			// it (the fifty-third review).
			canon = domain.CleanPath(p)
		}
		if err := domain.CheckRootDepth(fields[i], raw[i], canon); err != nil {
			return err
		}
		if c.RootLinks == nil {
			c.RootLinks = map[string]string{}
		}
		c.RootLinks[p] = canon // also where it is p: a directory swapped for a link later is no root
		if cons != nil && !cons.RootAllowed(canon, c.Catalog.Home) {
			if canon == p {
				canon = "" // no symlink: the root as the snapshot takes it is outside
			}
			return cons.RootError(fields[i], raw[i], canon)
		}
	}
	// And where the roots the profile adds (its workspace_roots table, the
	// operator's) lead: capRoots judges a root named below one of them
	// there too. Recorded only: the operator chose them.
	for p, canon := range e.profileRootLinks(c.Profile, c.Catalog) {
		if _, named := c.RootLinks[p]; !named {
			if c.RootLinks == nil {
				c.RootLinks = map[string]string{}
			}
			c.RootLinks[p] = canon
		}
	}
	return nil
}

// profileRootLinks returns where each root the profile req adds (its
// workspace_roots table) leads now, for a turn's start (checkRoots) and a
// change to that profile mid-turn (turn.ChangeProfile.AddedRootLinks: the
// hundred-and-eighty-second review); nil without a RootResolver.
func (e *Engine) profileRootLinks(req *domain.ProfileRequest, cat *domain.ProfileCatalog) map[string]string {
	rr, ok := e.cfg.Checker.(RootResolver)
	if !ok {
		return nil
	}
	var out map[string]string
	for _, p := range domain.ProfileAddedRoots(req, cat) {
		if canon, err := rr.ResolveRoot(p); err == nil {
			if out == nil {
				out = map[string]string{}
			}
			out[p] = canon
		}
	}
	return out
}

// resolveLinks returns the function that resolves where a snapshot's
// carve-outs lead now (turn.StartTurn.ResolveLinks), nil without a
// RootResolver: each path that leads elsewhere through a symlink maps to
// where; one that cannot be resolved (a loop) is bound where it is written.
func (e *Engine) resolveLinks() func([]string) map[string][]string {
	rr, ok := e.cfg.Checker.(RootResolver)
	if !ok {
		return nil
	}
	return func(paths []string) map[string][]string {
		var out map[string][]string
		for _, p := range paths {
			t, err := rr.ResolveRoot(p)
			if err != nil || domain.CleanPath(t) == domain.CleanPath(p) {
				continue
			}
			if out == nil {
				out = map[string][]string{}
			}
			out[domain.CleanPath(p)] = []string{domain.CleanPath(t)}
		}
		return out
	}
}

// LookupPrefetcher is a ResourceChecker whose URL checks look host names
// up: the engine looks a decision's host up before it takes the turn's
// lock (Lookup), when the check under the lock would (LookupPending), and
// decides again with that answer (CheckURLLooked): a lookup the agent
// makes slow then holds no one's command behind it (the sixty-seventh
// review: a person's answer waited behind queued lookups and timed out).
// The answer is the call's own.
type LookupPrefetcher interface {
	LookupPending(s *domain.TurnExecutionSecuritySnapshot, rawURL string) (host string, pending bool)
	Lookup(ctx context.Context, host string) ([]netip.Addr, error)
	CheckURLLooked(s *domain.TurnExecutionSecuritySnapshot, rawURL string, addrs []netip.Addr, err error) error
}

// needLookup is what checkResources answers for a call whose host it
// would look up under the turn's lock: execute looks it up without the
// lock and decides again (EvaluateTool.Looked).
type needLookup struct{ host string }

func (n *needLookup) Error() string { return "engine: " + n.host + " is to be looked up first" }

// checkURL is chk.CheckURL, with the call's host looked up without the
// turn's lock when the checker can (LookupPrefetcher): needLookup first,
// then the answer the call carries. A call whose answer is for another
// host (none should be) is looked up under the lock, as before.
func (e *Engine) checkURL(chk ResourceChecker, snap *domain.TurnExecutionSecuritySnapshot, c *turn.EvaluateTool, rawURL string) error {
	pf, ok := e.cfg.Checker.(LookupPrefetcher)
	if !ok {
		return chk.CheckURL(snap, rawURL)
	}
	host, pending := pf.LookupPending(snap, rawURL)
	switch {
	case !pending:
		return chk.CheckURL(snap, rawURL)
	case c.Looked != nil && c.Looked.Host == host:
		return pf.CheckURLLooked(snap, rawURL, c.Looked.Addrs, c.Looked.Err)
	case c.Looked == nil:
		return &needLookup{host}
	}
	return chk.CheckURL(snap, rawURL)
}

// checkResources runs the resource checks on a tool call that has not been
// decided yet. A refusal turns the command into a RecordDenial, so the turn
// records a decision_denied with reason sandbox_denied instead of asking a
// person about something that cannot run. A retried call is classified
// again (resolved) so that it is compared with what was decided.
func (e *Engine) checkResources(s *turn.State, c *turn.EvaluateTool) (turn.Command, error) {
	if e.cfg.Checker == nil || s.Status == turn.StatusNone || s.Status.Terminal() || c.ToolCallID == "" {
		return c, nil
	}
	chk := e.checkerFor(c.Actor)
	snap := &s.Snapshot
	if t, ok, cwdErr := snap.AlsoProtectedAt(c.CallCwd); cwdErr != nil {
		return nil, cwdErr
	} else if ok {
		at := t    // on the heap only here: the closures below take snap
		snap = &at // the protected list at the call's own directory too
	}
	var (
		a       domain.Action
		err     error
		refusal error
	)
	if fr, ok := chk.(FileResolver); ok {
		var listing domain.ListingChecker
		if lc, ok := chk.(ListingChecker); ok {
			listing = func(p string, depth int) error { return lc.CheckListing(snap, p, depth) }
		}
		a, err = domain.ClassifyChecked(c.Invocation, snap.Sandbox.Cwd, c.Trust, func(p string, op domain.Access, tree bool) (string, error) {
			return fr.ResolveFile(snap, p, op, tree)
		}, listing)
		var r Refusal
		if errors.As(err, &r) {
			refusal, err = err, nil
		}
	} else {
		a, err = domain.Classify(c.Invocation, snap.Sandbox.Cwd, c.Trust)
		for i := 0; err == nil && refusal == nil && i < len(a.Files); i++ {
			refusal = chk.CheckFile(snap, a.Files[i].Path, a.Files[i].Access)
		}
	}
	if err != nil {
		// The answer (bad input, or a path the resolved classification
		// refuses, as one whose '..' leads elsewhere after its links): Decide
		// classifies without the resolver, where such a path passes, and
		// would judge the lexical paths with no file check at all (the
		// twenty-seventh review).
		return nil, err
	}
	call := s.Calls[c.ToolCallID]
	if call != nil {
		// A call reported as run is not final by that alone: the agent can
		// report a call it has not been asked about yet (its next
		// tool_use_id), and its retry after a person's allow must still be
		// judged as the snapshot then stands (the eighty-second review).
		if call.Denial != nil || call.Started || call.Consumed || s.OpenRequest(call.RequestID) {
			if refusal != nil {
				return c, nil // decided before: replayed as recorded
			}
			classified := *c
			classified.Classified = &a
			return &classified, nil
		}
		// Otherwise it is asked again before it ran, its request answered
		// or none: judged below as the snapshot in force judges a new call
		// (its host without a lookup), a refusal being its final answer (a
		// revoked allow), so that a narrowing since the allow holds it back
		// (the twenty-seventh review: Decide's revoked() compares the
		// policy table and the mode, not the file and host rules).
	}
	// Only a call the policy allows is looked up now. The host name of a
	// call that cannot run (denied_tools, a restricted allowed_tools or
	// allowed_paths, a deny behaviour) is never sent to a DNS server (a
	// channel out for what the agent puts in it), nor that of a call that
	// asks before a person allows it (StaticURLChecker); and an answer
	// does not wait for a lookup it does not need.
	var ev domain.Decision
	if refusal == nil && (call == nil || call.RequestID == "" || allowedBefore(s, call)) {
		// A call asked of nobody (the table allows it, no grant) is
		// judged as the snapshot stands (asis.go), before its host is
		// looked up: a disabled network sends no name to a DNS server.
		// So is one whose request was allowed under another snapshot:
		// that answer does not grant what the profile since changed to
		// refuses without asking (the seventy-fourth review).
		if ev = domain.Evaluate(snap, &a, s.Grants); ev.Behavior == domain.BehaviorAllow && !ev.Cached {
			refusal = asIsRefusal(snap, &a)
		}
	}
	recheck := ""
	if refusal == nil && a.URL != nil {
		sc, static := chk.(StaticURLChecker)
		switch {
		case call != nil && static:
			refusal = sc.CheckURLStatic(snap, a.URL.String())
		case call != nil:
			refusal = chk.CheckURL(snap, a.URL.String())
		default:
			switch ev.Behavior {
			case domain.BehaviorAllow:
				refusal = e.checkURL(chk, snap, c, a.URL.String())
			case domain.BehaviorAsk:
				if static && !c.LookUpAsks {
					refusal, recheck = sc.CheckURLStatic(snap, a.URL.String()), a.URL.Scheme+"://"+a.URL.Host
				} else {
					refusal = e.checkURL(chk, snap, c, a.URL.String())
				}
			}
		}
	}
	if refusal == nil && a.URL != nil {
		refusal = headersRefused(snap, &a, domain.ArgumentHeaders(c.Invocation.Arguments))
	}
	if refusal == nil {
		refusal = urlLessRefusal(snap, &a)
	}
	if refusal == nil {
		classified := *c // the caller's command stays as it was
		classified.Classified, classified.RecheckURL = &a, recheck
		return &classified, nil
	}
	return denial(c, refusal, &a)
}

// allowedBefore reports whether call's request was allowed, and opened
// under another snapshot than the one in force.
func allowedBefore(s *turn.State, call *turn.Call) bool {
	r := s.Approvals[call.RequestID]
	return r != nil && r.Status == turn.RequestResolved && r.Resolution.Allows() && r.SnapshotVersion != s.SnapshotVersion
}

// denial turns a refusal of c into the RecordDenial that records it (a,
// classified with the resolver, when the refusal came after it: the
// denial then compares what it decided by the resolved scope); an error
// that is not a refusal is a failure of the check.
func denial(c *turn.EvaluateTool, refusal error, a *domain.Action) (turn.Command, error) {
	var r Refusal
	if !errors.As(refusal, &r) {
		return nil, refusal
	}
	d := &turn.RecordDenial{Meta: c.Meta, ToolCallID: c.ToolCallID, ItemID: c.ItemID, Invocation: c.Invocation,
		Refusal: r.RefusalCode(), Message: r.Error()}
	if a.ToolName != "" {
		d.Classified = a
	}
	return d, nil
}

// headersRefused refuses a network call whose method, or a method its
// headers or query name (domain.NamedMethods, as the egress proxy reads
// them), a limited network does not allow; whose headers argument cannot
// be read; or whose Host names another host than its URL
// (domain.HostMismatch).
func headersRefused(snap *domain.TurnExecutionSecuritySnapshot, a *domain.Action, headers map[string][]string) error {
	if !snap.Network.MethodAllowed(a.Method) {
		return methodRefusal(a.Method)
	}
	if len(snap.Network.AllowedMethods) > 0 {
		_, named := domain.NamedMethods(headers, a.URL.Query())
		for _, m := range named {
			if !snap.Network.MethodAllowed(m) {
				return methodRefusal(m)
			}
		}
	}
	if domain.UnreadableHeaders(headers) {
		return hostHeaderRefusal("")
	}
	if h := domain.HostMismatch(headers, a.URL); h != "" {
		return hostHeaderRefusal(h)
	}
	return nil
}

// methodRefusal refuses an HTTP method a limited network does not allow.
type methodRefusal string

func (m methodRefusal) Error() string {
	return "the network is limited to GET, HEAD and OPTIONS; " + string(m) + " is not allowed"
}

// RefusalCode implements Refusal.
func (m methodRefusal) RefusalCode() string { return "method_not_allowed" }

// recheck looks up, before a person's allow is recorded, the host of a
// request that asked without a lookup (RecheckURL), against the snapshot in
// force now; a refusal records the allow as a deny (RespondApproval.Refusal).
func (e *Engine) recheck(s *turn.State, c *turn.RespondApproval) (turn.Command, error) {
	r := s.Approvals[c.RequestID]
	if e.cfg.Checker == nil || r == nil || r.Status != turn.RequestOpen || r.RecheckURL == "" || !c.Resolution.Allows() {
		return c, nil
	}
	err := e.cfg.Checker.CheckURL(&s.Snapshot, r.RecheckURL)
	if err == nil {
		return c, nil
	}
	var ref Refusal
	if !errors.As(err, &ref) {
		return nil, err
	}
	checked := *c
	checked.Refusal = ref.RefusalCode()
	return &checked, nil
}

// judgeOpen judges an open request's recorded action against a new
// snapshot with the resource checks a new call gets (ChangeProfile.Judge):
// its files, the origin of a network call without a lookup, its method.
// A profile change judged the open requests on the policy table alone: a
// narrowing to a profile whose file rules deny a held write left it open
// for an approver to allow, and a widening allowed it itself (the
// twenty-seventh review). A recorded path redacted from its credential
// store down (`web/[redacted:…]` for web/.env) cannot be checked: the
// request is unjudged.
func (e *Engine) judgeOpen(chk ResourceChecker) func(*domain.TurnExecutionSecuritySnapshot, *turn.ActionRecord) (bool, bool) {
	refusal := func(err error) bool {
		var r Refusal
		return errors.As(err, &r)
	}
	return func(snap *domain.TurnExecutionSecuritySnapshot, a *turn.ActionRecord) (refused, unjudged bool) {
		// A call the new table allows outright is asked of nobody, and is
		// judged as the snapshot stands (asis.go), as a new call is:
		// judged against the Approvable one, a change to a read-only or
		// network-off profile that never asks allowed a pending write
		// itself, or left a pending fetch for a person to allow (the
		// seventy-fourth review).
		act := a.Judged()
		if domain.Evaluate(snap, &act, nil).Behavior == domain.BehaviorAllow && asIsRefusal(snap, &act) != nil {
			return true, false
		}
		// A search's recorded domains are held to the new host rules
		// whatever the table says, as a new search naming them is (a
		// change that denies the host cancels it, as it does a pending
		// fetch of that host; the eighty-second review).
		if urlLessRefusal(snap, &act) != nil {
			return true, false
		}
		for _, f := range a.Files {
			if domain.HidesText(f.Path) {
				unjudged = true
				continue
			}
			if err := chk.CheckFile(snap, f.Path, f.Access); err != nil {
				if refusal(err) {
					return true, false
				}
				unjudged = true
			}
		}
		if origin, ok := a.Scope.Get("url_origin"); ok {
			if sc, ok := chk.(StaticURLChecker); ok {
				if err := sc.CheckURLStatic(snap, origin+"/"); err != nil {
					if refusal(err) {
						return true, false
					}
					unjudged = true
				}
			}
			if m, ok := a.Scope.Get("method"); ok && !snap.Network.MethodAllowed(m) {
				return true, false
			}
		}
		return false, unjudged
	}
}

// ClassifyAsDecided classifies inv against s with its paths resolved as
// the decision of a new call resolves them, so that a report of the call
// (a run, a Claude Code PostToolUse) compares with what was decided: a
// Write through a link inside the workspace was decided on the resolved
// path and its report, classified lexically, was refused as another
// invocation (409 tool_call_reused; the twenty-seventh review). A path the
// resolver refuses, or no resolver, gives the lexical classification.
func (e *Engine) ClassifyAsDecided(s *turn.State, inv domain.Invocation, actor domain.Actor) (domain.Action, error) {
	inv.Key = inv.Key.ForTurn(s.TurnID, actor.Name) // the turn's and principal's digests (domain.DigestKey)
	if fr, ok := e.checkerFor(actor).(FileResolver); ok {
		snap := &s.Snapshot
		a, err := domain.ClassifyResolved(inv, snap.Sandbox.Cwd, nil, func(p string, op domain.Access, tree bool) (string, error) {
			return fr.ResolveFile(snap, p, op, tree)
		})
		if err == nil {
			return a, nil
		}
	}
	return domain.Classify(inv, s.Snapshot.Sandbox.Cwd, nil)
}

// hostHeaderRefusal refuses a network call whose Host (or :authority)
// header names another host than its URL (domain.HostMismatch).
type hostHeaderRefusal string

func (h hostHeaderRefusal) Error() string {
	if h == "" {
		return "the headers argument has a shape its Host and method cannot be read from (an object, a list of \"Name: value\" lines or of [name, value] pairs, or one string of lines)"
	}
	return "a Host header naming " + string(h) + " would ask the URL's address for another host than the one judged"
}

// RefusalCode implements Refusal.
func (hostHeaderRefusal) RefusalCode() string { return "host_header_mismatch" }
