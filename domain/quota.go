package domain

import "fmt"

// Quotas bound what one credential can make the service hold: the agent
// holds the runtime's credential, and every open turn and every pending
// approval request is kept in memory, shown to people and swept by the
// server until it ends.
const (
	// DefaultMaxOpenRequests bounds the approval requests open at once in
	// one turn. A request stays open until a person answers or it expires,
	// so an agent that asks faster than people answer is told to wait
	// rather than fill the approvers' queue.
	DefaultMaxOpenRequests = 256
	// DefaultMaxOpenTurns bounds the turns one credential has open at once
	// (child turns included). A turn stays open until its runtime ends it.
	DefaultMaxOpenTurns = 1024
	// DefaultMaxHeldBytes bounds the stored size of the events of one
	// credential's open turns: the server holds an open turn's decisions
	// in full (a few times their stored size), and one decision may carry
	// up to 128 KiB of arguments.
	DefaultMaxHeldBytes = 256 << 20
	// DefaultMaxRequests bounds the requests one credential has in flight
	// at once: every event stream, JSON-RPC socket, wait and running
	// command is a connection, a descriptor and goroutines of the server
	// for as long as it lasts.
	DefaultMaxRequests = 256
	// DefaultMaxCommands bounds the commands (POST /exec) one credential
	// has running or being answered at once: each holds processes, pipes
	// and up to 2 MiB of output in the server.
	DefaultMaxCommands = 32
)

// Quota names.
const (
	QuotaOpenRequests = "pending_approvals_per_turn"
	QuotaOpenTurns    = "open_turns_per_credential"
	QuotaHeldBytes    = "open_turn_bytes_per_credential"
	QuotaRequests     = "requests_in_flight_per_credential"
	QuotaCommands     = "commands_per_credential"
)

// QuotaError refuses a command that would take a credential or a turn past
// one of its quotas. It changes nothing; the same command succeeds once
// what holds the quota ends (a request answered or expired, a turn ended).
type QuotaError struct {
	Quota string
	Limit int
	// Of is what the quota counts in: a turn id or a credential's name.
	Of string
}

func (e *QuotaError) Error() string {
	switch e.Quota {
	case QuotaOpenRequests:
		return fmt.Sprintf("turn %s already has %d approval requests open, its limit: wait for a person to answer one (or for one to expire) before asking again", e.Of, e.Limit)
	case QuotaOpenTurns:
		return fmt.Sprintf("credential %q already has %d turns open, its limit: end a turn it no longer uses (POST /v1/turns/{id}/complete or /interrupt) before starting another", e.Of, e.Limit)
	case QuotaRequests:
		return fmt.Sprintf("credential %q already has %d requests in flight (event streams, sockets, waits and commands included), its limit: close some before sending more", e.Of, e.Limit)
	case QuotaCommands:
		return fmt.Sprintf("credential %q already has %d commands running (or their answers being sent), its limit: wait for one to finish", e.Of, e.Limit)
	case QuotaHeldBytes:
		return fmt.Sprintf("the events credential %q added to open turns hold %d bytes or more, its limit: end a turn it no longer uses before it makes new calls (calls already decided are still answered)", e.Of, e.Limit)
	}
	return fmt.Sprintf("quota %s of %s is %d", e.Quota, e.Of, e.Limit)
}
