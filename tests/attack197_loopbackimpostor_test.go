package tests

import (
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// a197Impostor is the agent's listener, a perl script run by turnstile's own
// /exec: it listens at [::1]:PORT (the server's port, on the other loopback
// family), notes that it listens, and writes the head of the first request
// it receives (Authorization included) to OUT, answering it as the server
// would a list of approvals.
const a197Impostor = `use IO::Socket::IP;
my ($port, $out) = @ARGV;
alarm 60;
my $s = IO::Socket::IP->new(LocalHost => "::1", LocalPort => $port, Listen => 5, ReuseAddr => 1) or die "listen: $@";
open(my $r, ">", "$out.ready") or die; close $r;
my $c = $s->accept or die "accept: $!";
my $req = "";
while (my $l = <$c>) { $req .= $l; last if $l eq "\r\n"; }
open(my $f, ">", $out) or die; print $f $req; close $f;
my $body = '{"approvals":[],"position":"0"}';
print $c "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " . length($body) . "\r\nConnection: close\r\n\r\n$body";
close $c;
print "served\n";
`

// TestAttack197_FullAccessCommandPassesForTheServer (review 197, medium):
// a client on this machine trusts a listener by the user that owns its
// socket (serverpeer.go: root or the caller by default, else
// --server-user): "an agent that binds 127.0.0.1:8740 then would receive
// every credential a client sends there" is what the check is for, and
// TestClientsSendNothingToAnotherUsersListener tests it with an impostor
// of another uid. But the agent's commands that turnstile runs itself
// (POST /exec in a full_access turn) run in the host's network namespace
// as the server's own uid (fullAccessAttr maps the server's ids to
// themselves; only restricted modes get an unprivileged uid, and seccomp
// keeps those off IP sockets): their sockets belong to the very user the
// clients are told to trust. Such a command listens on the server's port
// on the other loopback family ([::1]:8740 beside the server's default
// 127.0.0.1:8740: no conflict), which is where "localhost" goes first for
// Go's dialer where /etc/hosts names ::1 localhost (Debian, Ubuntu) and
// for browsers (the console, which cannot check a uid at all). A person's
// `turnstile approvals` sends the approver's token to it, the uid check
// passes, and the agent holds an approver's credential: it answers its own
// requests in every restricted turn of the workspace (an admin's token:
// widens them too).
//
// Control: the same command line against the server itself sends the
// token and lists the approvals; the agent's listener, reached the same
// way, must get nothing.
func TestAttack197_FullAccessCommandPassesForTheServer(t *testing.T) {
	if l, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skip("no IPv6 loopback here:", err)
	} else {
		l.Close()
	}
	if _, err := os.Stat("/usr/bin/perl"); err != nil {
		t.Skip("the impostor is a perl script")
	}
	s := StartServer(t, "")
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	approver := s.credential("alice197", "approver")
	agent := roAs(s, s.credential("agent197", "runtime"))

	// Control: the person's command line reaches the server with its token.
	env := []string{"TURNSTILE_TOKEN=" + approver, "TURNSTILE_SERVER_USER=", "TURNSTILE_SERVER_KEY=" + s.Key()}
	if out, errOut, code := runCLIAdd(t, env, "approvals", "list", "--server", s.URL); code != 0 {
		t.Fatalf("control: approvals list against the server: exit %d\n%s%s", code, out, errOut)
	}

	// The agent's full_access turn runs its listener through turnstile.
	ws := workspace(t)
	out := filepath.Join(ws, "seen")
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t197", "workspace_id": "ws", "thread_id": "th197",
		"workspace_root": ws, "cwd": ws, "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	type answer struct {
		status int
		body   []byte
	}
	done := make(chan answer, 1)
	go func() {
		status, body := agent.Do("POST", "/v1/turns/t197/exec", map[string]any{"tool_call_id": "listen",
			"argv": []string{"/usr/bin/perl", "-e", a197Impostor, port, out}, "cwd": ws, "timeout_ms": 90000})
		done <- answer{status, body}
	}()
	// Fixed, the server holds [::1] at its port too (twinlisten.go): the
	// agent's listener cannot bind it, and the person's command line at
	// [::1] reaches the server itself.
	var a answer
	waitUntil(t, "the agent's listener at [::1]:"+port+", or its end", func() (bool, string) {
		select {
		case a = <-done:
			return true, ""
		default:
		}
		_, err := os.Stat(out + ".ready")
		return err == nil, "no " + out + ".ready"
	})
	bound := a.status == 0
	stdout, stderr, code := runCLIAdd(t, env, "approvals", "list", "--server", "http://[::1]:"+port)
	if bound {
		a = <-done
	}
	seen, _ := os.ReadFile(out)
	t.Logf("approvals list to [::1]:%s: exit %d %s%s; the agent's command: %d %s", port, code, stdout, stderr, a.status, a.body)
	if strings.Contains(string(seen), approver) {
		t.Errorf("a listener the agent's full_access command opened at [::1]:%s (the server's port) received the approver's token from `turnstile approvals list`: the client's check took the command's socket, which is the server's uid, for the server's:\n%s", port, seen)
	}
	if bound {
		t.Errorf("the agent's full_access command bound [::1]:%s, the server's port on the other loopback address", port)
	} else if code != 0 || !strings.Contains(string(a.body), "Address already in use") {
		t.Errorf("control: the agent's listener ended (%s) and the command line at [::1]:%s did not reach the server: exit %d %s%s", a.body, port, code, stdout, stderr)
	}
}
