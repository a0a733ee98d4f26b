package engine_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/adapters/logstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

const crashEnv = "TURNSTILE_ENGINE_CRASH_CHILD"

// TestMain runs the crash child instead of the tests when crashEnv is set.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(path)
	}
	code := m.Run()
	removeTempDirs()
	os.Exit(code)
}

// crashChild is the child of TestCrashKeepsAcknowledged: it runs turns
// through the engine on 8 goroutines and reports every acknowledged event
// until it is killed.
func crashChild(target string) {
	kind, path, _ := strings.Cut(target, ":")
	st, err := openCrashStore(kind, path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	eng := engine.New(st, engine.Config{Kernel: kernel})
	var mu sync.Mutex
	report := func(r engine.Result, id string) {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range r.Events {
			fmt.Printf("ack %s %d %s\n", id, e.Version, e.ID)
		}
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id := fmt.Sprintf("w%d-t%d", w, i)
				r, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: "/w"}})
				if err != nil {
					fmt.Println("error", err)
					os.Exit(2)
				}
				report(r, id)
				for c := range 20 {
					args := fmt.Sprintf(`{"cmd":["echo",%q]}`, strconv.Itoa(c))
					r, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", c),
						Invocation: domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(args)}})
					if err != nil {
						fmt.Println("error", err)
						os.Exit(2)
					}
					report(r, id)
				}
			}
		}()
	}
	wg.Wait()
}

// openCrashStore opens the embedded store of the given kind (log or bolt).
func openCrashStore(kind, path string) (eventstore.Store, error) {
	if kind == "log" {
		return logstore.Open(path, logstore.Options{})
	}
	return boltstore.Open(path, boltstore.Options{})
}

// TestCrashKeepsAcknowledged kills a child appending through the engine with
// SIGKILL at several moments, on each embedded store; after reopening the
// store every event the child had acknowledged is there, in order, with an
// unbroken hash chain.
func TestCrashKeepsAcknowledged(t *testing.T) {
	for _, c := range []struct {
		kind  string
		after int
	}{{"log", 50}, {"log", 400}, {"log", 2000}, {"bolt", 50}, {"bolt", 400}, {"bolt", 2000}} {
		after := c.after
		t.Run(fmt.Sprintf("store=%s/after%d", c.kind, after), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events")
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), crashEnv+"="+c.kind+":"+path)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			acked := map[string][]string{} // turn → event ids by version
			sc := bufio.NewScanner(out)
			n := 0
			deadline := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
			defer deadline.Stop()
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) != 4 || f[0] != "ack" {
					if strings.HasPrefix(sc.Text(), "error") {
						t.Fatal(sc.Text())
					}
					continue
				}
				v, _ := strconv.Atoi(f[2])
				if v != len(acked[f[1]]) {
					t.Fatalf("child reported %s v%d out of order", f[1], v)
				}
				acked[f[1]] = append(acked[f[1]], f[3])
				if n++; n == after {
					cmd.Process.Signal(syscall.SIGKILL)
				}
			}
			cmd.Wait()
			if n < after {
				t.Fatalf("child acknowledged only %d events", n)
			}
			st, err := openCrashStore(c.kind, path)
			if err != nil {
				t.Fatalf("reopen after SIGKILL: %v", err)
			}
			defer st.Close()
			for id, ids := range acked {
				recs, err := st.ReadStream(ctx, turn.StreamName(id), 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) < len(ids) {
					t.Fatalf("%s: %d events acknowledged, %d on disk", id, len(ids), len(recs))
				}
				for v, want := range ids {
					if recs[v].ID.String() != want {
						t.Fatalf("%s v%d: id %s on disk, %s acknowledged", id, v, recs[v].ID, want)
					}
				}
				if _, err := turn.VerifyChain(recs, ""); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
