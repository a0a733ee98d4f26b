// Command turnstile is the turnstile service and its command line: serve,
// replay, audit, approvals, exec, sandbox, doctor, fsm, tools and bench. It is
// wiring only; the behaviour lives in the packages it calls.
package main

import (
	"fmt"
	"io"
	"os"

	// `turnstile sandbox` starts in the lean helper program, before the
	// server's packages are initialised (see its package comment).
	_ "early.invalid/entry"

	"turnstile/sandbox"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) int
}

var commands []command

func init() {
	commands = []command{
		{"serve", "run the service (embedded store in ~/.local/state/turnstile by default)", serveCmd},
		{"token", "manage named credentials (token create --name N --role R [--workspace W] | token list | token revoke N)", tokenCmd},
		{"replay", "show a turn's snapshot and pending approvals as of any version", replayCmd},
		{"audit", "verify the hash chains of the audit log (audit verify [--all | TURN_ID…])", auditCmd},
		{"approvals", "follow, show or resolve approval requests (approvals list | watch | show ID | respond ID RESOLUTION)", approvalsCmd},
		{"exec", "run a command for a turn through the server (exec --turn ID -- CMD…)", execCmd},
		{"sandbox", "run one command under a snapshot, without a server (sandbox --mode M --root DIR -- CMD…)", sandboxCmd},
		{"doctor", "print what this machine's kernel can enforce and what each mode would lose", doctorCmd},
		{"profiles", "check a profiles file, or explain a profile's decision offline (profiles check FILE | explain PROFILE PATH|URL)", profilesCmd},
		{"fsm", "print the turn state machine as a Mermaid diagram", fsmCmd},
		{"tools", "print the tool catalogue: tool names, action kinds, arguments, examples (docs/tools.md)", toolsCmd},
		{"hook", "Claude Code hooks: hook claude-code (the command hook) | hook install claude-code [--project DIR|--user] [--http URL] [--print]", hookCmd},
		{"migrate", "convert an earlier version's bbolt store (DATA/events.db) to the log store once, verified (stop the server first)", migrateCmd},
		{"bench-fill", "add about N realistic events to a stopped server's embedded store, in process, to benchmark a large store (bench-fill --data DIR --events N)", benchFillCmd},
		{"bench", "drive a running server with concurrent turns and report decisions/s and latency", benchCmd},
	}
}

func main() {
	// The sandbox helper is this same binary re-executed with a hidden
	// argument; it must run before anything else and never returns.
	sandbox.MaybeRunHelper()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "turnstile", version)
		return 0
	}
	if args[0] == sandbox.SlowCLIArg {
		// The lean program's fall-back (sandbox.LeanCLIArg): the same
		// command line, run here.
		return sandboxCmd(args[1:], stdout, stderr)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "turnstile: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: turnstile <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'turnstile <command> --help' for a command's flags. Client commands (token, replay, audit,\napprovals, exec, bench, hook) talk to --server, else TURNSTILE_URL, else "+defaultServer+",\nand send a credential only to a server that proves it holds the key serve printed (--server-key,\nelse TURNSTILE_SERVER_KEY, else DATA/server-key.pub).")
}

func sandboxCmd(args []string, stdout, stderr io.Writer) int {
	return sandbox.SandboxCommand(args, stdout, stderr)
}

func doctorCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stdout, "usage: turnstile doctor\n\nProbes Landlock, seccomp and user namespaces, and prints what each mode would lose.")
		if args[0] == "-h" || args[0] == "--help" {
			return 0
		}
		return 2
	}
	sandbox.Doctor(stdout, sandbox.Probe())
	return 0
}
