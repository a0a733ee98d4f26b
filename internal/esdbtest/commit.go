package esdbtest

import (
	"github.com/google/uuid"
)

// expectedKind is the expected_stream_revision option of an append.
type expectedKind int

const (
	expectAny expectedKind = iota
	expectNoStream
	expectStreamExists
	expectRevision
)

// expectation is an append's expected version; rev is the revision for
// expectRevision and -1 (the server's ExpectedVersion.NoStream) for
// expectNoStream.
type expectation struct {
	kind expectedKind
	rev  int64
}

// decision mirrors KurrentDB's CommitDecision for the cases a single node
// without deleted streams can reach.
type decision int

const (
	decisionOK decision = iota
	decisionWrongExpectedVersion
	decisionIdempotent
	// decisionCorruptedIdempotency: part of the batch matches stored events
	// and part does not. The server answers it as a wrong expected version.
	decisionCorruptedIdempotency
)

// commitCheck is the outcome of checkCommit.
type commitCheck struct {
	decision decision
	current  int64 // the stream's last revision, -1 when it has none
	start    int64 // first and last revision of an idempotent replay
	end      int64
}

// checkCommit decides an append the way KurrentDB's IndexWriter.CheckCommit
// does. Callers hold l.mu.
//
//   - stream_exists on a stream without events is a wrong expected version
//     (this server has no metadata streams that could make it exist);
//   - any and stream_exists consult only the bounded cache of recently
//     committed ids: the first id unknown (or of another stream) means a new
//     write, a later one means corrupted idempotency, all known means an
//     idempotent replay;
//   - revision n (no_stream is n = -1) with head cur: n > cur is a wrong
//     expected version, n == cur a write, n < cur compares the ids with the
//     stored events n+1, n+2, ...: all equal is an idempotent replay, the
//     first different is a wrong expected version, a later one corrupted
//     idempotency, and an empty batch is a wrong expected version.
func (l *eventLog) checkCommit(stream string, exp expectation, ids []uuid.UUID) commitCheck {
	cur := l.lastRev(stream)
	result := func(d decision) commitCheck { return commitCheck{decision: d, current: cur, start: -1, end: -1} }

	if exp.kind == expectStreamExists && cur < 0 {
		return result(decisionWrongExpectedVersion)
	}

	if exp.kind == expectAny || exp.kind == expectStreamExists {
		first := true
		var start, end int64
		for _, id := range ids {
			info, ok := l.ids.get(id)
			if !ok || info.stream != stream {
				if first {
					return result(decisionOK)
				}
				return result(decisionCorruptedIdempotency)
			}
			if first {
				start = info.rev
			}
			end = info.rev
			first = false
		}
		if first { // no data in the transaction
			return result(decisionOK)
		}
		return commitCheck{decision: decisionIdempotent, current: cur, start: start, end: end}
	}

	expected := exp.rev
	if expected < cur {
		eventNumber := expected
		for _, id := range ids {
			eventNumber++
			if info, ok := l.ids.get(id); ok && info.stream == stream && info.rev == eventNumber {
				continue
			}
			if r := l.eventAt(stream, eventNumber); r != nil && r.id == id {
				continue
			}
			if eventNumber == expected+1 {
				return result(decisionWrongExpectedVersion)
			}
			return result(decisionCorruptedIdempotency)
		}
		if eventNumber == expected { // no data in the transaction
			return result(decisionWrongExpectedVersion)
		}
		return commitCheck{decision: decisionIdempotent, current: cur, start: expected + 1, end: eventNumber}
	}
	if expected > cur {
		return result(decisionWrongExpectedVersion)
	}
	return result(decisionOK)
}

// commitResult is what an append did.
type commitResult struct {
	check    commitCheck
	lastRev  int64  // stream revision reported on success (-1: no stream)
	position uint64 // log position reported on success
}

// commit checks and, when the check allows it, writes evs to stream.
func (l *eventLog) commit(stream string, exp expectation, evs []proposed) commitResult {
	ids := make([]uuid.UUID, len(evs))
	for i, e := range evs {
		ids[i] = e.id
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	check := l.checkCommit(stream, exp, ids)
	switch check.decision {
	case decisionIdempotent:
		// The original result: the last event of the replayed batch and its
		// log position (StorageMessage.AlreadyCommitted).
		return commitResult{check: check, lastRev: check.end, position: l.eventAt(stream, check.end).pos}
	case decisionOK:
		if len(evs) == 0 {
			r := l.appendNoData(stream)
			return commitResult{check: check, lastRev: check.current, position: r.pos}
		}
		written := l.appendEvents(stream, check.current, evs)
		last := written[len(written)-1]
		return commitResult{check: check, lastRev: last.rev, position: last.pos}
	default:
		return commitResult{check: check}
	}
}
