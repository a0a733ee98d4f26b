package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAttack14ExecRunsOnAfterRevocation: a revocation is in force at once
// on a credential's requests, its event streams, its waits and its egress,
// but a command its /exec had started ran on to its end (up to the
// process cap, 30 minutes), with the turn's access, after the credential
// was revoked. The command of a revoked credential is now killed within
// the recheck (a second), as its waits end. The control: the same command
// of a credential that is not revoked runs to its end.
func TestAttack14ExecRunsOnAfterRevocation(t *testing.T) {
	s := StartServer(t, "")
	root := workspace(t)
	os.Chmod(root, 0o777)
	for i, name := range []string{"kept", "revoked"} {
		c := roAs(s, s.credential(name, "runtime"))
		turnID := "x-" + name
		c.JSON("POST", "/v1/turns", map[string]any{"turn_id": turnID, "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
			"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
		fifo, late := filepath.Join(root, name+".fifo"), filepath.Join(root, name+".late")
		if err := syscall.Mkfifo(fifo, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chmod(fifo, 0o666)
		done := make(chan int, 1)
		go func() {
			st, _ := c.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": "c", "timeout_ms": 60000,
				"argv": []string{"/bin/sh", "-c", `read x < ` + name + `.fifo && echo "$x" > ` + name + `.late`}, "cwd": root})
			done <- st
		}()
		// The open blocks until the command opens the FIFO to read it.
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if st, b := s.Do("POST", "/v1/credentials/"+name+"/revoke", nil); st != http.StatusOK {
				t.Fatalf("revoke: %d %s", st, b)
			}
			select {
			case <-done:
				done <- 0
			case <-time.After(10 * time.Second):
				t.Errorf("the command of a revoked credential still runs 10 s after the revocation")
			}
		}
		f.WriteString("late\n")
		f.Close()
		if i == 1 {
			<-done // the exec has answered: nothing of it outlives the test
		}
		if i == 0 {
			if st := <-done; st != http.StatusOK {
				t.Fatalf("control: the exec: %d", st)
			}
			if _, err := os.Stat(late); err != nil {
				t.Fatalf("control: the command of a credential not revoked did not run to its end: %v", err)
			}
			continue
		}
		if _, err := os.Stat(late); err == nil {
			t.Errorf("the command of a revoked credential ran on and wrote %s", late)
		}
	}
}
