package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

const auditUsage = `usage: turnstile audit verify [--all | TURN_ID…] [--heads FILE] [--quiet]

Fetches each turn's stored events from the server (--server, else TURNSTILE_URL,
else ` + defaultServer + `) and recomputes its hash chain: every event carries the
SHA-256 of the one before it, so a changed event breaks the chain after it. Exits 0
when every chain holds, 1 naming the first bad event. The last event of a turn has
nothing after it: --heads FILE records each turn's head and checks it on the next run
(keep that file where the store's host cannot write). Needs an auditor or admin token
(TURNSTILE_TOKEN, --token-file, or the admin token in --data).

Run 'turnstile audit verify --help' for every flag.`

func auditCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "verify" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stdout, auditUsage)
			return 0
		}
		if len(args) == 0 {
			fmt.Fprintln(stderr, "turnstile audit: missing the subcommand (verify)")
		} else {
			fmt.Fprintf(stderr, "turnstile audit: unknown subcommand %q (verify)\n", args[0])
		}
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, auditUsage)
		return 2
	}
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	all := fs.Bool("all", false, "verify every turn")
	headsFile := fs.String("heads", "", "file of each turn's head (last version and hash) recorded by an earlier verify: each must still be there, unchanged (the one check that catches a changed last event); the file is then updated")
	quiet := fs.Bool("quiet", false, "no progress bar")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: turnstile audit verify [--all | TURN_ID…]\n\nRecomputes each turn's hash chain from the stored events (every event carries the\nSHA-256 of the one before it). Exits 1 and names the first bad event on tampering.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(args[1:])); err != nil {
		return flagExit(err)
	}
	ids := fs.Args()
	if *all == (len(ids) > 0) {
		if *all {
			fmt.Fprintln(stderr, "turnstile audit verify: --all and turn ids exclude each other")
		} else {
			fmt.Fprintln(stderr, "turnstile audit verify: missing what to verify: --all or TURN_ID…")
		}
		fmt.Fprintln(stderr)
		fs.Usage()
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "turnstile audit:", err)
		return 1
	}
	heads, err := loadHeads(*headsFile)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile audit:", err)
		return 1
	}
	if *all {
		// The server walks its store once and checks every chain where
		// the events are; a server without that endpoint is verified turn
		// by turn.
		code, ok := c.verifyAll(heads, *headsFile, *quiet, stdout, stderr)
		if ok {
			return code
		}
		if ids, err = c.allTurnIDs(); err != nil {
			fmt.Fprintln(stderr, "turnstile audit:", err)
			return 1
		}
	}
	bar := newProgress(stderr, len(ids), !*quiet && len(ids) > 1)
	events := 0
	for i, id := range ids {
		recs, err := c.fetchEvents(id)
		if err != nil {
			bar.done()
			fmt.Fprintf(stderr, "turnstile audit: %s: %v\n", id, err)
			return 1
		}
		last, err := turn.VerifyChain(recs, "")
		if err == nil {
			err = heads.check(id, recs)
		}
		if err != nil {
			bar.done()
			fmt.Fprintf(stdout, "TAMPERED: turn %s, %s\n", id, describeTamper(recs, err))
			return 1
		}
		if len(recs) > 0 {
			heads[id] = head{Version: int64(len(recs) - 1), Hash: last}
		}
		events += len(recs)
		bar.set(i+1, events)
	}
	bar.done()
	return verified(heads, *headsFile, len(ids), events, stdout, stderr)
}

// verified saves the heads (with --heads) and reports an intact audit.
func verified(heads heads, headsFile string, turns, events int, stdout, stderr io.Writer) int {
	if headsFile != "" {
		if err := heads.save(headsFile); err != nil {
			fmt.Fprintln(stderr, "turnstile audit:", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "ok: %d turns, %d events, every hash chain intact\n", turns, events)
	if headsFile == "" {
		fmt.Fprintln(stdout, "note: a changed last event of a turn is caught only against a head recorded earlier (--heads FILE)")
	}
	return 0
}

// describeTamper names the first bad event. A chain error at version i
// means version i-1 no longer hashes to the prev_hash version i recorded
// (or version i's prev_hash itself was changed).
func describeTamper(recs []eventstore.RecordedEvent, err error) string {
	var ce *turn.ChainError
	var he *headError
	switch {
	case errors.As(err, &ce) && ce.Revision > 0:
		bad := recs[ce.Revision-1]
		return fmt.Sprintf("first bad event at version %d (%s %s): it no longer hashes to the prev_hash recorded by version %d", ce.Revision-1, bad.Type, bad.ID, ce.Revision)
	case errors.As(err, &ce):
		return fmt.Sprintf("first bad event at version 0 (%s): its prev_hash is not empty", recs[0].ID)
	case errors.As(err, &he):
		return he.Error()
	}
	return err.Error()
}

// head is a turn's last version and its hash, as recorded by a verify.
type head struct {
	Version int64  `json:"version"`
	Hash    string `json:"hash"`
}

type heads map[string]head

type headError struct{ msg string }

func (e *headError) Error() string { return e.msg }

func loadHeads(path string) (heads, error) {
	h := heads{}
	if path == "" {
		return h, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("--heads %s: %w", path, err)
	}
	return h, nil
}

// check requires the recorded head of turnID to be there, unchanged.
func (h heads) check(turnID string, recs []eventstore.RecordedEvent) error {
	old, ok := h[turnID]
	if !ok {
		return nil
	}
	if int64(len(recs)) <= old.Version {
		return &headError{fmt.Sprintf("the turn has %d events but a head was recorded at version %d: events were removed", len(recs), old.Version)}
	}
	if got := turn.HashOf(recs[old.Version].Metadata, recs[old.Version].Data); got != old.Hash {
		return &headError{fmt.Sprintf("first bad event at version %d (%s %s): it no longer hashes to the head recorded earlier", old.Version, recs[old.Version].Type, recs[old.Version].ID)}
	}
	return nil
}

func (h heads) save(path string) error {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	// The temporary file is made fresh under a random name (O_EXCL): a
	// name beside the heads file the agent could predict it would plant
	// as a link to one of the auditor's files (the seventy-sixth review).
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func (c *client) allTurnIDs() ([]string, error) {
	var ids []string
	after := ""
	for {
		var page struct {
			List []struct {
				ID string `json:"id"`
			} `json:"turns"`
		}
		if _, err := c.do("GET", "/v1/turns?limit=1000&after="+url.QueryEscape(after), nil, &page); err != nil {
			return nil, err
		}
		for _, t := range page.List {
			ids = append(ids, t.ID)
		}
		if len(page.List) < 1000 {
			return ids, nil
		}
		after = page.List[len(page.List)-1].ID
	}
}

// progress draws a one-line progress bar on a terminal-like writer.
type progress struct {
	w       io.Writer
	total   int
	on      bool
	last    time.Time
	started time.Time
}

func newProgress(w io.Writer, total int, on bool) *progress {
	return &progress{w: w, total: total, on: on, started: time.Now()}
}

func (p *progress) set(n, events int) {
	if !p.on || (time.Since(p.last) < 100*time.Millisecond && n < p.total) {
		return
	}
	p.last = time.Now()
	const width = 30
	filled := width * n / max(p.total, 1)
	rate := float64(events) / max(time.Since(p.started).Seconds(), 1e-3)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d turns, %d events (%.0f events/s)", strings.Repeat("#", filled), strings.Repeat(".", width-filled), n, p.total, events, rate)
}

func (p *progress) done() {
	if p.on {
		fmt.Fprintln(p.w)
		p.on = false
	}
}
