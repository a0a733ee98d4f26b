// Package sandbox enforces a turn's execution security snapshot
// (turnstile/domain.TurnExecutionSecuritySnapshot) on real resources.
//
// It has three layers:
//
//   - Checks before any side effect: CheckFile (canonical paths, symlink
//     escapes, protected paths), CheckURL and the connect-time CheckAddr
//     (schemes, domain rules, localhost, private and metadata addresses
//     re-checked on the resolved IP; the HTTP client that applies them is
//     in sandbox/egress, so that this package stays free of net).
//   - The spawn plan: PlanSpawn turns a command request into a Plan (argv,
//     filtered environment, checked cwd, capped timeout, isolated temp dir,
//     what the kernel will enforce) or a *Refusal, and Run executes it.
//   - The kernel layer: Probe finds what this machine can enforce; Run
//     starts the helper program (the lean turnstile-sandbox next to the
//     binary when it is verified, else the current binary re-executed; see
//     helperprog.go), which (MaybeRunHelper), in a user + mount namespace,
//     pins protected paths and the directories above them (a mount point
//     cannot be moved), keeps git's control files and start-up files
//     read-only, masks denied subtrees (see mounts.go and protect.go), drops
//     every capability, sets no_new_privs, applies Landlock
//     in its strict form for the detected ABI, installs a seccomp filter and
//     execs the command. Any failure exits 126 before the command runs.
//
// The server never restricts itself: every restriction is applied in the
// helper process, after fork and before exec.
package sandbox
