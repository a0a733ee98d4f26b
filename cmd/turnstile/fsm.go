package main

import (
	"flag"
	"fmt"
	"io"

	"turnstile/domain/turn"
)

func fsmCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fsm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: turnstile fsm\n\nPrints the turn's state machine (the looplab/fsm table the aggregate uses) as a Mermaid state diagram.")
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	d, err := turn.Mermaid()
	if err != nil {
		fmt.Fprintln(stderr, "turnstile fsm:", err)
		return 1
	}
	fmt.Fprint(stdout, d)
	return 0
}

// flagExit is the exit code of a flag parse error (0 for --help).
func flagExit(err error) int {
	if err == flag.ErrHelp {
		return 0
	}
	return 2
}
