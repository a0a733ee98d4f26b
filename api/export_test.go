package api

import (
	"context"
	"net/http"

	"turnstile/domain/eventstore"
)

// SetBeforeJoinHook sets the hook a resuming SSE client runs between its
// bulk read of the store and its joining the broadcast (nil removes it).
func SetBeforeJoinHook(f func(*http.Request)) {
	if f == nil {
		beforeJoinHook.Store(nil)
		return
	}
	beforeJoinHook.Store(&f)
}

// BroadcastHead is the position of the last event the server's SSE
// broadcaster has published.
func BroadcastHead(s *Server) eventstore.Position { return s.broadcaster().Head() }

// FoldsWaiting is how many requests wait for a slot to fold a turn from its
// stream.
func FoldsWaiting(s *Server) int64 { return s.folds.waiting.Load() }

// MaxFolds is how many turns are folded from their streams at once.
const MaxFolds = maxFolds

// FoldPage is how many events a fold reads at a time.
const FoldPage = foldPage

// NewFoldSlots and AcquireFold expose the fold slots (folds.go).
func NewFoldSlots() *foldSlots { return newFoldSlots() }

func AcquireFold(f *foldSlots, ctx context.Context, name string) (func(), error) {
	return f.acquire(ctx, name)
}

// ListsWaiting is how many requests wait for a slot to build a
// pending-approvals list.
func ListsWaiting(s *Server) int64 { return s.lists.waiting.Load() }
