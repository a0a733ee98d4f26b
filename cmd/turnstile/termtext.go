package main

import "turnstile/domain"

// shown is s made safe to print on a terminal line (domain.TerminalSafe):
// the fields of an approval request come from the agent.
func shown(s string) string { return domain.TerminalSafe(s) }
