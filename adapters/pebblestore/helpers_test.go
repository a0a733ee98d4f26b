package pebblestore

import (
	"context"
	"testing"
	"time"
)

const testDeadline = time.Minute

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testDeadline)
	t.Cleanup(cancel)
	return ctx
}
