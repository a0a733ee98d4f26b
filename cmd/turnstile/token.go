package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"turnstile/api"
	"turnstile/domain"
	"turnstile/internal/serverid"
	"turnstile/sandbox"
)

// minTokenLen is the shortest token accepted from any source.
const minTokenLen = 16

// defaultDataDir is where the service keeps its store and token unless
// --data says otherwise: out of the working directory (which is often the
// agent's workspace), in systemd's $STATE_DIRECTORY when run as a service,
// else $XDG_STATE_HOME/turnstile, else ~/.local/state/turnstile
// (sandbox.DefaultDataDir, which `turnstile sandbox` denies its commands).
func defaultDataDir() (string, error) { return sandbox.DefaultDataDir() }

// dataDir is --data, or the default.
func dataDir(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return defaultDataDir()
}

// maxTokenFileBytes bounds what a token file is read for.
const maxTokenFileBytes = 64 << 10

// checkToken refuses a token shorter than minTokenLen.
func checkToken(t, source string) error {
	if len(t) < minTokenLen {
		return fmt.Errorf("%s: the token is %d characters; at least %d are required", source, len(t), minTokenLen)
	}
	return nil
}

// readTokenFile reads a token (or credential) file, refusing one that its
// group or others may read or write: a secret they can read is not one.
func readTokenFile(path string) (string, error) {
	// Opened without waiting (a FIFO there blocked the read until its
	// writer chose the token: the hundred-and-fifty-fifth review), and
	// judged by what was opened.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("%s has mode %04o: group and others may access it; run `chmod 600 %s` (and check who could have read it)", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes))
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(b))
	return t, checkToken(t, path)
}

// loadToken returns the admin token, where it came from, and whether it was
// chosen explicitly (TURNSTILE_TOKEN or --token-file) rather than created.
func loadToken(dataDir, tokenFile string) (token, source string, explicit bool, err error) {
	if t, ok := os.LookupEnv("TURNSTILE_TOKEN"); ok && strings.TrimSpace(t) != "" {
		t = strings.TrimSpace(t)
		return t, "from TURNSTILE_TOKEN", true, checkToken(t, "TURNSTILE_TOKEN")
	}
	if tokenFile != "" {
		t, err := readTokenFile(tokenFile)
		if err != nil {
			return "", "", false, fmt.Errorf("--token-file: %w", err)
		}
		return t, "from " + tokenFile, true, nil
	}
	path := filepath.Join(dataDir, "token")
	t, err := readTokenFile(path)
	if err == nil {
		return t, "in " + path, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", "", false, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", false, err
	}
	t = hex.EncodeToString(raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", false, err
	}
	if _, err := f.WriteString(t + "\n"); err != nil {
		f.Close()
		return "", "", false, err
	}
	if err := f.Close(); err != nil {
		return "", "", false, err
	}
	return t, "created in " + path + " (mode 0600)", false, nil
}

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func tokenCmd(args []string, stdout, stderr io.Writer) int {
	usage := "usage: turnstile token create --name NAME --role runtime|approver|auditor|admin [--workspace WS]…\n" +
		"       turnstile token list\n       turnstile token revoke NAME\n\n" +
		"Manages named credentials through a running server, with the admin token.\n"
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	fset := flag.NewFlagSet("token "+args[0], flag.ContinueOnError)
	fset.SetOutput(stderr)
	var cf clientFlags
	cf.register(fset)
	var name, role string
	var workspaces stringList
	if args[0] == "create" {
		fset.StringVar(&name, "name", "", "the credential's name (who holds it)")
		fset.StringVar(&role, "role", "", "runtime, approver, auditor or admin")
		fset.Var(&workspaces, "workspace", "limit the credential to this workspace (repeatable; none: every workspace)")
	}
	if err := fset.Parse(args[1:]); err != nil {
		return flagExit(err)
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "turnstile token:", err)
		return 1
	}
	switch args[0] {
	case "create":
		if fset.NArg() > 0 || name == "" || role == "" {
			fmt.Fprint(stderr, usage)
			return 2
		}
		var out api.NewCredential
		if _, err := c.do("POST", "/v1/credentials", api.CreateCredentialRequest{Name: name, Role: domain.Role(role), Workspaces: workspaces}, &out); err != nil {
			fmt.Fprintln(stderr, "turnstile token create:", err)
			return 1
		}
		scope := "every workspace"
		if len(out.Workspaces) > 0 {
			scope = "workspaces " + strings.Join(out.Workspaces, ", ")
		}
		fmt.Fprintf(stderr, "created credential %q (id %s), role %s, %s. The token below is shown once; turnstile keeps only its hash:\n", out.Name, out.ID, out.Role, scope)
		fmt.Fprintln(stdout, out.Token)
		if c.users.key != nil {
			fmt.Fprintf(stderr, "its holder's client sends it only to a server that proves it holds this server's key: give it TURNSTILE_SERVER_KEY=%s (or --server-key)\n", serverid.FormatKey(c.users.key))
		}
	case "list":
		var out struct {
			Credentials []domain.Credential `json:"credentials"`
		}
		if _, err := c.do("GET", "/v1/credentials", nil, &out); err != nil {
			fmt.Fprintln(stderr, "turnstile token list:", err)
			return 1
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tID\tROLE\tWORKSPACES\tCREATED\tREVOKED")
		for _, cr := range out.Credentials {
			ws, revoked := strings.Join(cr.Workspaces, ","), "-"
			if ws == "" {
				ws = "*"
			}
			if cr.RevokedAt != nil {
				revoked = cr.RevokedAt.Format("2006-01-02T15:04:05Z")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cr.Name, cr.ID, cr.Role, ws, cr.CreatedAt.Format("2006-01-02T15:04:05Z"), revoked)
		}
		tw.Flush()
	case "revoke":
		if fset.NArg() != 1 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		var out domain.Credential
		if _, err := c.do("POST", "/v1/credentials/"+url.PathEscape(fset.Arg(0))+"/revoke", nil, &out); err != nil {
			fmt.Fprintln(stderr, "turnstile token revoke:", err)
			return 1
		}
		fmt.Fprintf(stdout, "revoked %q (id %s)\n", out.Name, out.ID)
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	return 0
}
