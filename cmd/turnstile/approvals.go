package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"

	"turnstile/api"
	"turnstile/projections"
)

func approvalsCmd(args []string, stdout, stderr io.Writer) int {
	usage := "usage: turnstile approvals list [--status pending|resolved|all] [--turn ID] [--json]\n       turnstile approvals respond REQUEST_ID allow_once|allow_for_turn|deny|cancelled"
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("approvals "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	status := fs.String("status", "pending", "pending, resolved or all")
	turnID := fs.String("turn", "", "only this turn's requests")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage+"\n\nflags:")
		fs.PrintDefaults()
	}
	switch args[0] {
	case "list", "respond":
	case "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return 0
	default:
		fmt.Fprintln(stderr, usage)
		return 2
	}
	if err := fs.Parse(reorder(args[1:])); err != nil {
		return flagExit(err)
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "turnstile approvals:", err)
		return 1
	}
	if args[0] == "respond" {
		if fs.NArg() != 2 {
			fs.Usage()
			return 2
		}
		var out api.RespondResponse
		if _, err := c.do("POST", "/v1/approvals/"+url.PathEscape(fs.Arg(0))+"/respond", map[string]string{"resolution": fs.Arg(1)}, &out); err != nil {
			fmt.Fprintln(stderr, "turnstile approvals respond:", err)
			return 1
		}
		note := ""
		if out.Replayed {
			note = " (already resolved so; nothing changed)"
		}
		fmt.Fprintf(stdout, "%s: %s%s\n", out.RequestID, out.Resolution, note)
		return 0
	}
	var out struct {
		Approvals []projections.ApprovalView `json:"approvals"`
	}
	q := url.Values{"status": {*status}}
	if *turnID != "" {
		q.Set("turn_id", *turnID)
	}
	if _, err := c.do("GET", "/v1/approvals?"+q.Encode(), nil, &out); err != nil {
		fmt.Fprintln(stderr, "turnstile approvals list:", err)
		return 1
	}
	if *asJSON {
		printJSON(stdout, out.Approvals)
		return 0
	}
	if len(out.Approvals) == 0 {
		fmt.Fprintln(stdout, "no approval requests")
	}
	for _, a := range out.Approvals {
		state := a.Status
		if a.Resolution != "" {
			state += ":" + string(a.Resolution)
		}
		fmt.Fprintf(stdout, "%s  %-16s turn %s  %s  %s\n", a.Request.RequestID, state, a.Request.TurnID, a.Request.Action, a.Request.Summary)
	}
	return 0
}
