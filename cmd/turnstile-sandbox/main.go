// Command turnstile-sandbox is turnstile's lean sandbox helper: the program
// the server (and `turnstile sandbox`) starts to apply mounts, capabilities,
// Landlock and seccomp and exec one command. It links only the sandbox
// package, domain and x/sys, so a spawn does not pay for the server's
// package initialisation. Build it next to the turnstile binary:
//
//	go build -o DIR ./cmd/turnstile ./cmd/turnstile-sandbox
//
// turnstile uses it only after checking that it is a regular file owned by
// root or the server's user, not writable by group or others, and built from
// the same sandbox and domain code (a fingerprint of their sources);
// otherwise it re-executes itself as the helper. Run by hand it does nothing.
package main

import (
	"os"

	"turnstile/sandbox"
)

func main() {
	// Returns only when the arguments are not the helper's; the helper exits
	// 126 on any failure and otherwise becomes the command.
	sandbox.MaybeRunHelper()
	os.Stderr.WriteString("turnstile-sandbox: the sandbox helper of turnstile; it is started by turnstile, not by hand\n")
	os.Exit(2)
}
