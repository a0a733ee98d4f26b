package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/api"
	"turnstile/projections"
)

const approvalsUsage = `usage: turnstile approvals list [--status pending|resolved|all] [--turn ID] [--json]
       turnstile approvals show ID [--json]
       turnstile approvals respond ID allow_once|allow_for_turn|deny|cancelled
       turnstile approvals watch [--turn ID] [--json]

ID may be any unique prefix of a request id (respond then shows the request and asks you
to confirm it on a terminal; without one, give the full id). Every subcommand talks to the server at
--server, else TURNSTILE_URL, else ` + defaultServer + `.

  list     the requests, one line each
  show     one request in full: tool, action, command or paths, cwd, origin, expiry
  respond  resolve a request: allow_once (this call only), allow_for_turn (every call
           with the same scope until the turn ends), deny, or cancelled
  watch    print each request as it opens (with the details of show) and as it is
           resolved, live from the server's event stream, until interrupted

Run 'turnstile approvals SUBCOMMAND --help' for its flags.`

func approvalsCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "turnstile approvals: missing the subcommand (list, show, respond or watch)")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, approvalsUsage)
		return 2
	}
	sub := args[0]
	var synopsis string
	switch sub {
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, approvalsUsage)
		return 0
	case "list":
		synopsis = "turnstile approvals list [--status pending|resolved|all] [--turn ID] [--json]"
	case "show":
		synopsis = "turnstile approvals show ID [--json]\n\nPrints one approval request in full; ID may be a unique prefix."
	case "respond":
		synopsis = "turnstile approvals respond ID RESOLUTION\n\nResolves a request and prints what it resolved. ID may be a unique prefix: the request\nis then shown and resolved only when you confirm it on a terminal.\nRESOLUTION: allow_once (this call only), allow_for_turn (every call with the same\nscope until the turn ends), deny, cancelled. Only the server expires a request."
	case "watch":
		synopsis = "turnstile approvals watch [--turn ID] [--json]\n\nPrints the pending requests, then each request as it opens and as it is resolved,\nlive, until interrupted (--json: one JSON notification per line)."
	default:
		fmt.Fprintf(stderr, "turnstile approvals: unknown subcommand %q (list, show, respond or watch)\n\n%s\n", sub, approvalsUsage)
		return 2
	}
	fs := flag.NewFlagSet("approvals "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	var status, turnID *string
	var asJSON *bool
	if sub == "list" {
		status = fs.String("status", "pending", "pending, resolved or all")
	}
	if sub == "list" || sub == "watch" {
		turnID = fs.String("turn", "", "only this turn's requests")
	}
	if sub != "respond" {
		asJSON = fs.Bool("json", false, "print JSON")
	}
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+synopsis+"\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(args[1:])); err != nil {
		return flagExit(err)
	}
	want := map[string]int{"list": 0, "show": 1, "respond": 2, "watch": 0}[sub]
	if fs.NArg() != want {
		switch {
		case fs.NArg() > want:
			fmt.Fprintf(stderr, "turnstile approvals %s: unexpected argument %q\n\n", sub, fs.Arg(want))
		case fs.NArg() == 0:
			fmt.Fprintf(stderr, "turnstile approvals %s: missing the request ID\n\n", sub)
		default:
			fmt.Fprintf(stderr, "turnstile approvals respond: missing the resolution after %s (allow_once, allow_for_turn, deny or cancelled)\n\n", fs.Arg(0))
		}
		fs.Usage()
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintf(stderr, "turnstile approvals %s: %v\n", sub, err)
		return 1
	}
	switch sub {
	case "show":
		return approvalsShow(c, fs.Arg(0), *asJSON, stdout, stderr)
	case "respond":
		return approvalsRespond(c, fs.Arg(0), fs.Arg(1), stdout, stderr)
	case "watch":
		return approvalsWatch(c, *turnID, *asJSON, stdout, stderr)
	}
	list, err := c.approvals(*status, *turnID)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile approvals list:", err)
		return 1
	}
	if *asJSON {
		printJSON(stdout, list)
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no approval requests")
	}
	for _, a := range list {
		state := a.Status
		if a.Resolution != "" {
			state += ":" + string(a.Resolution)
		}
		fmt.Fprintf(stdout, "%s  %-16s turn %s  %s  %s\n", shown(a.Request.RequestID), state, shown(a.Request.TurnID), a.Request.Action, shown(a.Request.Summary))
	}
	return 0
}

// approvals lists the requests of a status ("all" for every one).
func (c *client) approvals(status, turnID string) ([]projections.ApprovalView, error) {
	var out struct {
		Approvals []projections.ApprovalView `json:"approvals"`
	}
	q := url.Values{"status": {status}}
	if turnID != "" {
		q.Set("turn_id", turnID)
	}
	_, err := c.do("GET", "/v1/approvals?"+q.Encode(), nil, &out)
	return out.Approvals, err
}

// resolveRequestID turns a unique prefix into the request id it names. An
// exact id is used as is; a prefix nothing matches is sent as is (the
// server names it not found); a prefix several match is an error listing
// them.
func (c *client) resolveRequestID(prefix string) (string, error) {
	if prefix == "" {
		return "", fmt.Errorf("an empty request id")
	}
	list, err := c.approvals("all", "")
	if err != nil {
		return "", err
	}
	var matches []string
	only := ""
	for _, a := range list {
		id := a.Request.RequestID
		if id == prefix {
			return id, nil
		}
		if strings.HasPrefix(id, prefix) {
			only = id
			matches = append(matches, fmt.Sprintf("%s (%s, turn %s: %s)", shown(id), a.Status, shown(a.Request.TurnID), shown(a.Request.Summary)))
		}
	}
	switch len(matches) {
	case 0:
		return prefix, nil
	case 1:
		return only, nil
	}
	sort.Strings(matches)
	return "", fmt.Errorf("request id prefix %q is ambiguous; it matches:\n  %s", prefix, strings.Join(matches, "\n  "))
}

func approvalsShow(c *client, prefix string, asJSON bool, stdout, stderr io.Writer) int {
	id, err := c.resolveRequestID(prefix)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile approvals show:", err)
		return 1
	}
	var a projections.ApprovalView
	if _, err := c.do("GET", "/v1/approvals/"+url.PathEscape(id), nil, &a); err != nil {
		fmt.Fprintln(stderr, "turnstile approvals show:", err)
		return 1
	}
	if asJSON {
		printJSON(stdout, a)
		return 0
	}
	printApproval(stdout, &a, time.Now())
	return 0
}

// printApproval writes a request in full, for a person deciding it.
func printApproval(w io.Writer, a *projections.ApprovalView, now time.Time) {
	r := &a.Request
	fmt.Fprintf(w, "request %s\n", shown(r.RequestID))
	state := a.Status
	switch {
	case a.Resolution != "":
		state += ": " + string(a.Resolution)
		if a.ResolvedBy.Name != "" {
			state += " by " + shown(a.ResolvedBy.Name) + " (" + string(a.ResolvedBy.Role) + ")"
		}
	case !a.ExpiresAt.IsZero():
		state += fmt.Sprintf(", expires %s (in %s)", a.ExpiresAt.Format(time.RFC3339), a.ExpiresAt.Sub(now).Round(time.Second))
	}
	fmt.Fprintf(w, "  %-10s %s\n", "status", state)
	fmt.Fprintf(w, "  %-10s %s (workspace %s, thread %s)\n", "turn", shown(r.TurnID), shown(r.WorkspaceID), shown(r.ThreadID))
	fmt.Fprintf(w, "  %-10s %s (%s), tool call %s\n", "tool", shown(r.ToolName), r.Action, shown(a.ToolCallID))
	fmt.Fprintf(w, "  %-10s %s\n", "summary", shown(r.Summary))
	fmt.Fprintf(w, "  %-10s %s\n", "why asked", shown(string(r.Reason)))
	for _, d := range r.Details {
		fmt.Fprintf(w, "  %-10s %s\n", shown(strings.ToLower(d.Label)), shown(d.Value))
	}
	if a.Status == projections.ApprovalPending {
		covers := r.ForThisTurn
		if covers == "" { // a request opened before servers said so
			covers = "allow_for_turn allows, until turn " + r.TurnID + " ends, every later call with the same scope as this one; allow_once this call only."
		}
		fmt.Fprintf(w, "  %-10s %s\n  %-10s or deny, or cancelled\n", "answers", shown(covers), "")
	}
}

func approvalsRespond(c *client, prefix, resolution string, stdout, stderr io.Writer) int {
	id, err := c.resolveRequestID(prefix)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile approvals respond:", err)
		return 1
	}
	if id != prefix && !confirmPrefix(c, prefix, id, resolution, os.Stdin, stdout, stderr) {
		return 1
	}
	var out api.RespondResponse
	if _, err := c.do("POST", "/v1/approvals/"+url.PathEscape(id)+"/respond", map[string]string{"resolution": resolution}, &out); err != nil {
		fmt.Fprintln(stderr, "turnstile approvals respond:", err)
		return 1
	}
	note := ""
	if out.Replayed {
		note = " (already resolved so; nothing changed)"
	}
	fmt.Fprintf(stdout, "%s: %s%s\n", out.RequestID, out.Resolution, note)
	// What it resolved: read back, best effort (the answer above is the
	// result; a failure here changes nothing).
	var a projections.ApprovalView
	if _, err := c.do("GET", "/v1/approvals/"+url.PathEscape(id), nil, &a); err == nil {
		fmt.Fprintf(stdout, "  turn %s, %s: %s\n", shown(a.Request.TurnID), shown(a.Request.ToolName), shown(a.Request.Summary))
		if string(out.Resolution) == "allow_for_turn" {
			fmt.Fprintf(stdout, "  allowed for the rest of turn %s: every call with the same scope (%s)\n", shown(a.Request.TurnID), a.Request.Action)
		}
	}
	return 0
}

// confirmPrefix asks the person who gave a prefix of a request id whether
// the request it names now is the one they mean, showing it in full. Request
// ids derive from ids the agent chooses: it can make one that starts like
// another, and take that other away while the person types. Without a
// terminal to ask on, a prefix is refused: the full id is needed.
func confirmPrefix(c *client, prefix, id, resolution string, in *os.File, stdout, stderr io.Writer) bool {
	if _, err := unix.IoctlGetTermios(int(in.Fd()), unix.TCGETS); err != nil {
		fmt.Fprintf(stderr, "turnstile approvals respond: %s is a prefix of request %s; give the full request id (a prefix is answered only after you confirm the request on a terminal)\n", shown(prefix), shown(id))
		return false
	}
	var a projections.ApprovalView
	if _, err := c.do("GET", "/v1/approvals/"+url.PathEscape(id), nil, &a); err != nil {
		fmt.Fprintln(stderr, "turnstile approvals respond:", err)
		return false
	}
	printApproval(stdout, &a, time.Now())
	fmt.Fprintf(stdout, "Resolve request %s as %s? [y/N] ", shown(id), shown(resolution))
	line, _ := bufio.NewReader(in).ReadString('\n')
	if answer := strings.ToLower(strings.TrimSpace(line)); answer != "y" && answer != "yes" {
		fmt.Fprintln(stderr, "turnstile approvals respond: not resolved")
		return false
	}
	return true
}
