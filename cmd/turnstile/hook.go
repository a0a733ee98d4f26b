package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"turnstile/api"
	"turnstile/domain"
	"turnstile/internal/serverid"

	"golang.org/x/sys/unix"
)

const hookUsage = `usage:
  turnstile hook claude-code [--server URL] [--server-user UID] [--server-key KEY] [--token-file FILE] [--deadline 55s]
      the command hook: reads one Claude Code hook event on stdin and answers
      on stdout; when the server cannot answer, PreToolUse and
      UserPromptSubmit are blocked (exit 2), other events report an error
      (exit 1) without blocking.
  turnstile hook install claude-code [--project DIR | --user] [--http URL] [--server-user USER] [--server-key KEY] [--print]
      merges turnstile's hook entries into .claude/settings.json of DIR
      (default .) or ~/.claude/settings.json, keeping what is there and
      backing the file up first; --print shows the snippet instead.`

func hookCmd(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) >= 1 && args[0] == "claude-code":
		return hookClaudeCode(args[1:], os.Stdin, stdout, stderr)
	case len(args) >= 2 && args[0] == "install" && args[1] == "claude-code":
		return hookInstall(args[2:], stdout, stderr)
	case len(args) >= 1 && (args[0] == "-h" || args[0] == "--help"):
		fmt.Fprintln(stdout, hookUsage)
		return 0
	}
	fmt.Fprintln(stderr, hookUsage)
	return 2
}

// blockingEvents are the events whose hook fails closed: exit 2 blocks the
// tool call or the prompt. Exit 2 from a Stop hook would instead keep the
// agent going (Claude Code feeds stderr back to the model), and nothing is
// left to block after PostToolUse, so the others exit 1: a non-blocking
// error Claude Code shows to the user.
var blockingEvents = map[string]bool{"PreToolUse": true, "UserPromptSubmit": true, "PermissionRequest": true}

// hookClaudeCode is the command hook: stdin to POST /v1/hooks/claude-code,
// the answer to stdout.
func hookClaudeCode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hook claude-code", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	deadline := fs.Duration("deadline", 55*time.Second, "answer (or block) within this; keep it below the hook's timeout, which Claude Code treats as a non-blocking error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// The hook's environment is Claude Code's, which a project's settings
	// file (the agent can write one) fills from its env block: the server
	// comes from the command line only (hook install writes it), and no
	// proxy or certificate roots are taken from the environment.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["server"] {
		cf.server = defaultServer
	}
	if !set["server-user"] {
		// Nor the server's user: the agent would name its own.
		cf.serverUser = ""
	}
	if !set["server-key"] {
		// Nor its key (nor a data directory's: the environment names it).
		cf.serverKey = ""
	}
	cf.keyFromData, cf.hook = set["data"], true
	os.Unsetenv("SSL_CERT_FILE")
	os.Unsetenv("SSL_CERT_DIR")
	if cf.tokenFile != "" {
		// The token file hook install wrote is the credential, not a
		// TURNSTILE_TOKEN the environment holds.
		os.Unsetenv("TURNSTILE_TOKEN")
	}
	body, err := io.ReadAll(io.LimitReader(stdin, api.MaxHookBodyBytes+1))
	var ev struct {
		HookEventName string `json:"hook_event_name"`
	}
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	fail := func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		if blockingEvents[ev.HookEventName] || ev.HookEventName == "" {
			fmt.Fprintf(stderr, "turnstile: %s; blocked (the turnstile hook fails closed)\n", msg)
			return 2
		}
		fmt.Fprintf(stderr, "turnstile: %s; %s was not recorded\n", msg, ev.HookEventName)
		return 1
	}
	if err != nil {
		return fail("the hook event on stdin is not JSON: %v", err)
	}
	if len(body) > api.MaxHookBodyBytes {
		return fail("the hook event is larger than %d bytes", api.MaxHookBodyBytes)
	}
	c, err := cf.client()
	if err != nil {
		return fail("%v", err)
	}
	// Claude Code kills a hook at its timeout and lets the tool run: a
	// server that accepts and never answers must be blocked before that.
	c.http.Timeout = *deadline
	c.http.Transport.(*http.Transport).Proxy = nil
	req, err := http.NewRequest("POST", c.base+"/v1/hooks/claude-code", bytes.NewReader(body))
	if err != nil {
		return fail("%v", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return fail("the turnstile server at %s did not answer within %s", c.base, *deadline)
	}
	var wrong *wrongServerError
	if errors.As(err, &wrong) {
		return fail("%v", wrong)
	}
	if err != nil {
		return fail("the turnstile server at %s cannot be reached (%v)", c.base, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fail("reading the server's answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		msg := strings.TrimSpace(string(answer))
		if json.Unmarshal(answer, &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		return fail("the server answered HTTP %d: %s", resp.StatusCode, msg)
	}
	if !json.Valid(answer) {
		return fail("the server's answer is not JSON")
	}
	stdout.Write(answer)
	return 0
}

// ccEvents are the events turnstile's hook entries are installed for; the
// tool events take a matcher ("*": every tool, MCP tools included).
var ccEvents = []struct {
	name    string
	matcher bool
}{
	{"UserPromptSubmit", false}, {"PreToolUse", true}, {"PostToolUse", true},
	{"Stop", false}, {"SubagentStop", false}, {"SessionEnd", false},
}

func hookInstall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hook install claude-code", flag.ContinueOnError)
	fs.SetOutput(stderr)
	project := fs.String("project", "", "project directory: writes DIR/.claude/settings.json (the default, with .)")
	user := fs.Bool("user", false, "write ~/.claude/settings.json instead")
	httpURL := fs.String("http", "", "install an http hook POSTing to this server URL instead of the command hook (fails open: see the README)")
	server := fs.String("server", os.Getenv("TURNSTILE_URL"), "server URL the command hook talks to, written into its command (default: TURNSTILE_URL here, else "+defaultServer+"); the hook reads no server from its environment")
	tokenFile := fs.String("token-file", "", "token file the command hook reads (default: TURNSTILE_TOKEN in the hook's environment)")
	timeout := fs.Int("timeout", 60, "hook timeout in seconds (longer than the server's hold_wait)")
	serverUser := fs.String("server-user", "", "the user the server runs as (name or uid), written into the hook's command: the hook sends its credential only to a server on this machine running as that user (default: the user the server at --server runs as now)")
	serverKey := fs.String("server-key", "", "the server's key (ed25519:…, as serve prints it, or a file holding it), written into the hook's command: the hook sends its credential only to a server that proves it holds it (default: the data directory's server-key.pub where this user may read it, else the key the server at --server proves it holds now)")
	data := fs.String("data", "", "the server's data directory, whose server-key.pub is the key (default $STATE_DIRECTORY, else $XDG_STATE_HOME/turnstile, else ~/.local/state/turnstile)")
	printOnly := fs.Bool("print", false, "print the snippet instead of writing settings.json")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*user && *project != "") || *timeout < 1 {
		fmt.Fprintln(stderr, hookUsage)
		return 2
	}
	var err error
	uid, key := "", ""
	if *httpURL == "" {
		hk := hookKey{named: true, from: "--server-key"}
		if *serverKey != "" {
			hk.key, err = readServerKey(*serverKey, "--server-key")
		} else if d, derr := dataDir(*data); derr == nil {
			su, _ := parseServerUser(*serverUser, "--server-user")
			err = su.pinKey("", d)
			hk.key, hk.from, hk.named = su.key, filepath.Join(d, serverid.PubFile), *data != ""
			if err != nil && *data == "" {
				// The default directory is Claude Code's user's: a file
				// the agent planted there blocks nothing (review 200).
				fmt.Fprintf(stderr, "warning: %v; learning the key from the server instead\n", err)
				hk.key, err = nil, nil
			}
		}
		if err == nil {
			uid, key, err = hookLearn(*server, *serverUser, hk, stderr)
		}
		if err != nil {
			fmt.Fprintln(stderr, "turnstile hook install:", err)
			return 2
		}
	}
	handler, err := hookHandler(*httpURL, *server, *tokenFile, uid, key, *timeout)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile hook install:", err)
		return 2
	}
	if *httpURL != "" {
		fmt.Fprintln(stderr, "note: Claude Code treats a failed http hook as a non-blocking error: when the server is unreachable, tools run unchecked (the command hook blocks instead)")
	}
	if d, err := defaultDataDir(); err == nil {
		// Claude Code runs Bash as this user, outside the sandbox.
		// O_NONBLOCK: a FIFO there does not hang the install.
		if f, err := os.OpenFile(filepath.Join(d, "token"), os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
			fmt.Fprintf(stderr, "warning: this user can read the admin token %s: Claude Code runs its Bash commands as this user, outside turnstile's sandbox, so the agent can read it and answer its own approval requests; run turnstile serve as another user and give this one runtime and approver credentials only (README, Claude Code as a client)\n", filepath.Join(d, "token"))
		}
	}
	if *printOnly {
		snippet := map[string]any{}
		mergeHooks(snippet, handler)
		printJSON(stdout, snippet)
		return 0
	}
	path, err := settingsPath(*project, *user)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile hook install:", err)
		return 1
	}
	changed, backup, err := installInto(path, handler, !*user)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile hook install:", err)
		return 1
	}
	switch {
	case !changed:
		fmt.Fprintf(stdout, "%s already has turnstile's hooks; nothing changed\n", path)
	case backup != "":
		fmt.Fprintf(stdout, "installed turnstile's hooks in %s (previous version in %s)\n", path, backup)
	default:
		fmt.Fprintf(stdout, "installed turnstile's hooks in %s\n", path)
	}
	return 0
}

// hookHandler is the one hook object every event gets.
func hookHandler(httpURL, server, tokenFile, serverUID, serverKey string, timeout int) (map[string]any, error) {
	if httpURL != "" {
		u := strings.TrimSuffix(httpURL, "/")
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("--http %q: an http:// or https:// URL is required", httpURL)
		}
		if !strings.HasSuffix(u, "/v1/hooks/claude-code") {
			u += "/v1/hooks/claude-code"
		}
		return map[string]any{"type": "http", "url": u, "timeout": timeout,
			"headers":        map[string]any{"Authorization": "Bearer $TURNSTILE_TOKEN"},
			"allowedEnvVars": []any{"TURNSTILE_TOKEN"}}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := shellQuote(exe) + " hook claude-code --deadline " + strconv.Itoa(max(timeout-5, 1)) + "s"
	if server == "" {
		server = defaultServer
	}
	cmd += " --server " + shellQuote(server)
	if serverUID != "" {
		cmd += " --server-user " + serverUID
	}
	if serverKey != "" {
		cmd += " --server-key " + shellQuote(serverKey)
	}
	if tokenFile != "" {
		abs, err := filepath.Abs(tokenFile)
		if err != nil {
			return nil, err
		}
		cmd += " --token-file " + shellQuote(abs)
	}
	return map[string]any{"type": "command", "command": cmd, "timeout": timeout}, nil
}

func shellQuote(s string) string { return domain.ShellJoin([]string{s}) }

func settingsPath(project string, user bool) (string, error) {
	if user {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	if project == "" {
		project = "."
	}
	abs, err := filepath.Abs(project)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--project %s: not a directory", project)
	}
	return filepath.Join(abs, ".claude", "settings.json"), nil
}

// isTurnstileHook recognises a hook object an earlier install wrote.
func isTurnstileHook(h map[string]any) bool {
	cmd, _ := h["command"].(string)
	url, _ := h["url"].(string)
	return strings.Contains(cmd, " hook claude-code") || strings.HasSuffix(url, "/v1/hooks/claude-code")
}

// mergeHooks puts handler into settings for every event: an identical one
// stays, an earlier turnstile one is replaced, everything else is kept. It
// reports whether settings changed.
func mergeHooks(settings map[string]any, handler map[string]any) bool {
	hooks, _ := settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	changed := false
	for _, ev := range ccEvents {
		groups, _ := hooks[ev.name].([]any)
		found := false
		var kept []any
		for _, g := range groups {
			gm, ok := g.(map[string]any)
			if !ok {
				kept = append(kept, g)
				continue
			}
			hs, _ := gm["hooks"].([]any)
			var keep []any
			for _, h := range hs {
				hm, ok := h.(map[string]any)
				switch {
				case ok && !found && reflect.DeepEqual(normalise(hm), normalise(handler)):
					found = true
					keep = append(keep, h)
				case ok && isTurnstileHook(hm):
					changed = true // an older or duplicate turnstile entry
				default:
					keep = append(keep, h)
				}
			}
			if len(keep) == 0 && len(hs) > 0 {
				continue
			}
			gm["hooks"] = keep
			kept = append(kept, gm)
		}
		if !found {
			g := map[string]any{"hooks": []any{handler}}
			if ev.matcher {
				g["matcher"] = "*"
			}
			kept = append(kept, g)
			changed = true
		}
		hooks[ev.name] = kept
	}
	settings["hooks"] = hooks
	return changed
}

// normalise gives a hook object the types JSON decoding gives it.
func normalise(v map[string]any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// installInto merges the hooks into the settings file at path, backing up
// the old file when it changes. The project (path's directory's parent) is
// often the agent's, and the person runs this as another user (README): so
// every name is opened inside it without leaving it (os.Root: a link
// leading out is refused), a settings file that is a symlink is refused,
// and the backup and the temporary file are created fresh (O_EXCL, the
// temporary one under a random name), never opened through a link the
// agent planted (the seventy-fifth review).
func installInto(path string, handler map[string]any, noLinks bool) (changed bool, backup string, err error) {
	dir, name := filepath.Split(filepath.Clean(path))
	dir = filepath.Clean(dir)
	base, sub := filepath.Dir(dir), filepath.Base(dir)
	open := os.OpenRoot
	if noLinks {
		open = openRootNoLinks
	}
	top, err := open(base)
	if err != nil {
		return false, "", err
	}
	defer top.Close()
	if err := top.MkdirAll(sub, 0o755); err != nil {
		return false, "", fmt.Errorf("%s: %w (a link leading out of %s is not followed)", dir, err, base)
	}
	r, err := top.OpenRoot(sub)
	if err != nil {
		return false, "", fmt.Errorf("%s: %w (a link leading out of %s is not followed)", dir, err, base)
	}
	defer r.Close()
	settings := map[string]any{}
	mode := os.FileMode(0o644)
	var old []byte
	switch fi, err := r.Lstat(name); {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return false, "", err
	case !fi.Mode().IsRegular():
		return false, "", fmt.Errorf("%s is a symlink or not a regular file: a link may lead anywhere; replace it with the file itself first", path)
	default:
		mode = fi.Mode().Perm()
		if old, err = r.ReadFile(name); err != nil {
			return false, "", err
		}
	}
	if len(bytes.TrimSpace(old)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(old))
		dec.UseNumber()
		if err := dec.Decode(&settings); err != nil {
			return false, "", fmt.Errorf("%s is not a JSON object (%v); fix or move it first", path, err)
		}
	}
	if !mergeHooks(settings, handler) {
		return false, "", nil
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(settings); err != nil {
		return false, "", err
	}
	if old != nil {
		bk := name + ".bak-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := writeNew(r, bk, old, mode); err != nil {
			return false, "", err
		}
		backup = filepath.Join(dir, bk)
	}
	tmp := name + ".tmp-" + rand.Text()
	if err := writeNew(r, tmp, out.Bytes(), mode); err != nil {
		return false, "", err
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return false, "", err
	}
	return true, backup, nil
}

// openRootNoLinks opens dir, an absolute path, as a root, refusing a
// symlink at any of its components: a project is often the agent's, which
// could replace it (or a directory above it it owns) with a link to the
// installing user's home (the seventy-sixth review). Each component is
// opened without following links, from /, so nothing can swap one between
// a check and the open. A link root owns in a directory only root may
// write (/home -> var/home on ostree systems) is no one else's: it is
// followed (the eighty-third review's false deny), at most
// maxTrustedLinks of them.
func openRootNoLinks(dir string) (*os.Root, error) {
	path := filepath.Clean(dir)
	for links := 0; ; links++ {
		r, next, err := openNoLinksOnce(dir, path)
		if err != nil || next == "" {
			return r, err
		}
		if links == maxTrustedLinks {
			return nil, fmt.Errorf("--project %s: more than %d links on the way", dir, maxTrustedLinks)
		}
		path = next
	}
}

// maxTrustedLinks bounds the links openRootNoLinks follows.
const maxTrustedLinks = 8

// openNoLinksOnce walks path from / without following links; at a link
// root owns in a directory only root may write it returns the path with
// the link replaced by its target (next), and at any other link an error.
func openNoLinksOnce(dir, path string) (r *os.Root, next string, err error) {
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", err
	}
	defer func() { unix.Close(fd) }()
	at := "/"
	cs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, c := range cs {
		if c == "" {
			continue
		}
		at = filepath.Join(at, c)
		nfd, err := unix.Openat(fd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			var st, pst unix.Stat_t
			if unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
				return nil, "", fmt.Errorf("--project %s: %s: %w", dir, at, err)
			}
			if unix.Fstat(fd, &pst) != nil || st.Uid != 0 || pst.Uid != 0 || pst.Mode&0o022 != 0 {
				return nil, "", fmt.Errorf("--project %s passes through the symlink %s: a link in a project's path may lead to another user's files; pass the directory it leads to (after checking who owns it)", dir, at)
			}
			target, err := readlinkat(fd, c)
			if err != nil {
				return nil, "", fmt.Errorf("--project %s: %s: %w", dir, at, err)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(at), target)
			}
			return nil, filepath.Join(append([]string{target}, cs[i+1:]...)...), nil
		}
		unix.Close(fd)
		fd = nfd
	}
	r, err = os.OpenRoot(fmt.Sprintf("/proc/self/fd/%d", fd))
	return r, "", err
}

// readlinkat reads the link name in the directory fd.
func readlinkat(fd int, name string) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(fd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// writeNew writes data to a file name in r that must not exist yet.
func writeNew(r *os.Root, name string, data []byte, mode os.FileMode) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Remove(name)
	}
	return err
}

// loadClaudeCodeConfig reads serve --claude-code-config: the JSON of
// domain.ClaudeCodeConfig with "hold_wait" as a duration ("50s").
func loadClaudeCodeConfig(path string) (*domain.ClaudeCodeConfig, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--claude-code-config: %w", err)
	}
	var f struct {
		domain.ClaudeCodeConfig
		HoldWait string `json:"hold_wait"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("--claude-code-config %s: %w", path, err)
	}
	cfg := f.ClaudeCodeConfig
	if f.HoldWait != "" {
		if cfg.HoldWait, err = time.ParseDuration(f.HoldWait); err != nil || cfg.HoldWait <= 0 {
			return nil, fmt.Errorf("--claude-code-config %s: hold_wait %q is not a positive duration", path, f.HoldWait)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("--claude-code-config %s: %w", path, err)
	}
	return &cfg, nil
}

// checkClaudeCodeProfiles refuses to start with a Claude Code project whose
// profile the catalog lacks or the operator's constraints do not allow.
func checkClaudeCodeProfiles(cfg *domain.ClaudeCodeConfig, cat *domain.ProfileCatalog) error {
	if cfg == nil {
		return nil
	}
	for i, p := range cfg.Projects {
		if p.Profile == "" {
			continue
		}
		if _, ok := cat.Profiles.Lookup(p.Profile); !ok {
			return fmt.Errorf("--claude-code-config: projects[%d].profile %q is not a profile of --profiles (nor a built-in)", i, p.Profile)
		}
		if cat.Constraints != nil {
			if err := cat.Constraints.CheckSelection(p.Profile); err != nil {
				return fmt.Errorf("--claude-code-config: projects[%d].profile %q: %w", i, p.Profile, err)
			}
		}
	}
	return nil
}
