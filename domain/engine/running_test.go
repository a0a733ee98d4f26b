package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestEndTurnStopsItsRunningCommand: the engine that appends a turn's end
// cancels the context of every command it runs for that turn (the sandbox
// then kills the command's processes); a command of another turn (the
// control) keeps running until it ends by itself.
func TestEndTurnStopsItsRunningCommand(t *testing.T) {
	_, eng, _, root := execFixture(t)
	startIn(t, eng, "t", "", domain.ModeFullAccess, root)
	startIn(t, eng, "other", "", domain.ModeFullAccess, root)
	started, otherStarted := filepath.Join(root, "started"), filepath.Join(root, "other-started")
	release := filepath.Join(root, "release")
	type answer struct {
		res engine.ExecResult
		err error
	}
	run := func(turnID, marker string) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			c := engine.Command{ToolCallID: "long", Argv: []string{"/bin/sh", "-c", "echo > " + marker + "; while [ ! -e " + release + " ]; do sleep 0.02; done"}}
			res, err := eng.Exec(ctx, turnID, &c, 0)
			ch <- answer{res, err}
		}()
		return ch
	}
	ended, other := run("t", started), run("other", otherStarted)
	waitFor(t, func() bool { return exists(started) && exists(otherStarted) })
	if _, err := eng.Execute(ctx, "t", &turn.EndTurn{Status: turn.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-ended:
		if a.err != nil || !a.res.Ran || !strings.Contains(a.res.Message, "turn ended") {
			t.Fatalf("the ended turn's command: %+v %v", a.res, a.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the ended turn's command still runs")
	}
	select {
	case a := <-other:
		t.Fatalf("the other turn's command stopped with this turn: %+v %v", a.res, a.err)
	default:
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if a := <-other; a.err != nil || !a.res.Ran || a.res.Output.ExitCode != 0 || strings.Contains(a.res.Message, "turn ended") {
		t.Fatalf("the other turn's command: %+v %v", a.res, a.err)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// waitFor polls cond (bounded): an observed condition, not a fixed sleep.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
