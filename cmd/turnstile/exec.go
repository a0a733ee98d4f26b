package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/google/uuid"

	"turnstile/api"
	"turnstile/sandbox"
)

func execCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	turnID := fs.String("turn", "", "the turn (required)")
	callID := fs.String("tool-call-id", "", "tool call id (default: a new one); send the same id again to run an approved call")
	cwd := fs.String("cwd", "", "working directory (default: the turn's cwd)")
	timeout := fs.Int64("timeout-ms", 0, "timeout in milliseconds (capped by the snapshot)")
	wait := fs.Duration("wait", 0, "wait this long for an approval (e.g. 60s)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: turnstile exec --turn ID [flags] -- CMD [ARG…]\n\nAsks the server to decide and run a command under the turn's snapshot. Exits with the\ncommand's exit code; 3 when the call waits for approval; 4 when this tool call id\nalready ran (or started) and is not run again; 126 when it is denied.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if missing := missingExecArgs(*turnID, fs.NArg()); missing != "" {
		fmt.Fprintf(stderr, "turnstile exec: missing %s\n\n", missing)
		fs.Usage()
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "turnstile exec:", err)
		return 1
	}
	if *callID == "" {
		*callID = "cli-" + uuid.NewString()
	}
	req := api.ExecRequest{ToolCallID: *callID, Argv: fs.Args(), Cwd: *cwd, TimeoutMs: *timeout}
	path := "/v1/turns/" + url.PathEscape(*turnID) + "/exec"
	if *wait > 0 {
		path += "?wait=" + url.QueryEscape(wait.Round(time.Second).String())
	}
	var out api.ExecResponse
	status, err := c.do("POST", path, req, &out)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile exec:", err)
		return 1
	}
	switch {
	case out.Ran && out.Result != nil:
		io.WriteString(stdout, out.Result.Stdout)
		io.WriteString(stderr, out.Result.Stderr)
		if out.Result.TimedOut {
			fmt.Fprintln(stderr, "turnstile exec: killed by the timeout")
		}
		for _, q := range out.Result.Quarantined {
			fmt.Fprintln(stderr, shown(sandbox.QuarantineLine(q.Path, q.Reason, q.MovedTo, q.Error)))
		}
		for _, l := range out.Result.CheckLimits {
			fmt.Fprintln(stderr, "turnstile exec: "+shown(l))
		}
		return out.Result.ExitCode
	case status == 202:
		fmt.Fprintf(stderr, "turnstile exec: waiting for approval of request %s (%s)\n  approve: turnstile approvals respond%s %s allow_once\n  then run again with --tool-call-id %s\n",
			out.Request.RequestID, shown(out.Request.Summary), c.serverArg, out.Request.RequestID, *callID)
		return 3
	case status == 409:
		fmt.Fprintf(stderr, "turnstile exec: not run again: tool call %s already ran (or started) in turn %s; use a new --tool-call-id to run it again\n", *callID, *turnID)
		return 4
	default:
		fmt.Fprintf(stderr, "turnstile exec: not run: %s (%s) %s\n", out.Decision, out.Reason, shown(out.Message))
		if out.Refusal != "" {
			fmt.Fprintf(stderr, "  sandbox refusal: %s\n", shown(out.Refusal))
		}
		return 126
	}
}

// missingExecArgs names what `exec` lacks: the turn, the command, or both.
func missingExecArgs(turnID string, nargs int) string {
	switch {
	case turnID == "" && nargs == 0:
		return "--turn ID and the command (-- CMD [ARG…])"
	case turnID == "":
		return "--turn ID (the turn the command runs for)"
	case nargs == 0:
		return "the command to run (-- CMD [ARG…])"
	}
	return ""
}
