package sandbox

import "sync"

// cleanups counts what Run left to finish after it returned: releasing the
// names held for a command (holdNames) and removing its isolated temp dir.
// Neither is anything the caller waits for (the command and every process
// of its group have ended, and its output is in the Result), and releasing
// the holds alone costs 0.3-0.5 ms of file-system calls (unlink or rmdir,
// and the last close of an inode removed), so a server answers before them.
// A counter under a lock rather than a sync.WaitGroup: Run may start one
// while another goroutine waits (a server's shutdown, parallel tests).
var cleanups struct {
	mu   sync.Mutex
	n    int        // guarded by mu: cleanups not finished
	idle *sync.Cond // on mu: broadcast when n falls to 0
}

func init() { cleanups.idle = sync.NewCond(&cleanups.mu) }

// afterRunStarts, when set (tests), is called first on each cleanup's
// goroutine: a test holds a release back to run it during a later command.
var afterRunStarts func()

// afterRun runs f on its own goroutine, counted in cleanups.
func afterRun(f func()) {
	cleanups.mu.Lock()
	cleanups.n++
	hook := afterRunStarts
	cleanups.mu.Unlock()
	go func() {
		if hook != nil {
			hook()
		}
		defer func() {
			cleanups.mu.Lock()
			if cleanups.n--; cleanups.n == 0 {
				cleanups.idle.Broadcast()
			}
			cleanups.mu.Unlock()
		}()
		f()
	}()
}

// WaitCleanup waits until nothing Run left to clean up is pending: the names
// it held for commands are released (removed, when no other command holds
// them) and isolated temp dirs removed. A program that calls Run calls it
// before it exits, or those are left on disk (the next run removes held
// names left behind, as after a SIGKILL).
func WaitCleanup() {
	cleanups.mu.Lock()
	defer cleanups.mu.Unlock()
	for cleanups.n > 0 {
		cleanups.idle.Wait()
	}
}
