package sandbox

import (
	"testing"
	"time"
)

// scanSlot holds the decision scans' test hooks: each scan that takes the
// slot waits in entered until proceed lets it run, and each that starts to
// wait for the slot is told on queued. The hooks and maxScanWait are put
// back when the test ends.
type scanSlot struct {
	t                        *testing.T
	entered, proceed, queued chan struct{}
}

func holdScanSlot(t *testing.T) *scanSlot {
	t.Helper()
	wait := maxScanWait
	t.Cleanup(func() { maxScanWait, scanEntered, scanQueued = wait, nil, nil })
	s := &scanSlot{t: t, entered: make(chan struct{}), proceed: make(chan struct{}), queued: make(chan struct{}, 8)}
	scanEntered = func() { s.entered <- struct{}{}; <-s.proceed }
	scanQueued = func() { s.queued <- struct{}{} }
	return s
}

// wait waits for what ch tells, what naming it, at most 10 s.
func (s *scanSlot) wait(ch chan struct{}, what string) {
	s.t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second): // a bound on what is not expected
		s.t.Fatalf("%s did not happen within 10 s", what)
	}
}
