package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"turnstile/adapters/esdbstore"
	"turnstile/api"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/internal/connlimit"
	"turnstile/internal/gctune"
	"turnstile/internal/serverid"
	"turnstile/projections"
	"turnstile/sandbox"
	"turnstile/sandbox/egress"
)

type serveFlags struct {
	storeFile                                                                                string // --store-file: the store's connection string (storeconn.go)
	data, listen, store, tokenFile, mcpReadOnly, logLevel, logFormat, cpuProfile, memProfile string
	storeUnauthenticated                                                                     bool // --store-unauthenticated (storeconn.go)
	approvalTTL, storeTimeout, storeCheck                                                    time.Duration
	dnsServer                                                                                string
	dnsTimeout                                                                               time.Duration
	// The server's edges: slow or idle clients are cut off.
	readHeaderTimeout, readTimeout, idleTimeout time.Duration
	maxHeaderBytes                              int
	sseBuffer                                   int
	claudeCodeConfig                            string
	profiles, constraints                       string
	// egressListen is the shared egress proxy listener (loopback only; the
	// runtime's own web tools use it with a turn's credential); empty: none.
	egressListen  string
	egressAskWait time.Duration
	// fullAccessUnisolated accepts running full_access commands without
	// the isolation that hides the gateway's secrets where the kernel
	// cannot make it (no user namespaces); the snapshots name it.
	fullAccessUnisolated bool
	// The read models: how many ended turns stay in memory in full, how
	// often their checkpoint is written, how many turns the engine caches.
	recentTurns, turnCache          int
	recentTurnBytes, turnCacheBytes int64
	checkpointInterval              time.Duration
	// Quotas: what one credential, or one turn, can make the server hold.
	maxOpenTurns, maxPending, maxHeldBytes, maxRequests, maxConns, maxCommands int
	maxBodyMemory                                                              int64
}

func serveCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f serveFlags
	fs.StringVar(&f.data, "data", "", "data directory (embedded store, token); default $STATE_DIRECTORY (systemd), else $XDG_STATE_HOME/turnstile, else ~/.local/state/turnstile. Every turn is denied it")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8740", "address to listen on (a non-loopback address needs --token-file or TURNSTILE_TOKEN)")
	fs.StringVar(&f.store, "store", "", "event store: empty for the embedded store in --data (the log store in DATA/events; an earlier version's DATA/events.db until `turnstile migrate`), bolt:PATH, log:DIR, or an EventStoreDB/KurrentDB connection string (esdb://host:2113?tls=false, esdb+discover://…) without a password (a command line is readable by every user: use --store-file or TURNSTILE_STORE for one); default $TURNSTILE_STORE")
	fs.StringVar(&f.storeFile, "store-file", "", "a file (mode 0600, owner-checked) holding the store's connection string, credentials and all; every turn is denied it and the files the string names")
	fs.DurationVar(&f.approvalTTL, "approval-ttl", engine.DefaultApprovalTTL, "how long approval requests stay open before they expire")
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the bearer token (default: <data>/token, created on first start; TURNSTILE_TOKEN overrides)")
	fs.StringVar(&f.mcpReadOnly, "mcp-read-only", "", "comma-separated MCP tools trusted as read-only (server/tool or server/*)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fs.DurationVar(&f.storeTimeout, "store-timeout", 5*time.Second, "deadline of every call to a remote event store")
	fs.DurationVar(&f.storeCheck, "store-check-interval", 30*time.Second, "how often the store's reachability is checked; an outage is logged at start and at each check while it lasts")
	fs.StringVar(&f.dnsServer, "dns-server", "", "DNS server (host:port) for decision-time lookups of URL hosts (default: the system resolver)")
	fs.DurationVar(&f.dnsTimeout, "dns-timeout", sandbox.DefaultResolveTimeout, "bound of a decision-time lookup of a URL host")
	fs.StringVar(&f.claudeCodeConfig, "claude-code-config", "", "JSON file configuring the Claude Code hook (projects, modes, ask handling); empty disables POST /v1/hooks/claude-code")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile (go tool pprof) to this file until shutdown")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a heap profile (go tool pprof; -sample_index=alloc_space for what was allocated) to this file at shutdown")
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", 10*time.Second, "close a connection whose request headers take longer than this (slow clients)")
	fs.DurationVar(&f.readTimeout, "read-timeout", time.Minute, "close a connection whose request (headers and body) takes longer than this to arrive")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 2*time.Minute, "close a keep-alive connection idle for longer than this")
	fs.IntVar(&f.maxHeaderBytes, "max-header-bytes", 64<<10, "largest request header block accepted (431 above it)")
	fs.IntVar(&f.sseBuffer, "sse-buffer", 8192, "how many events a /v1/events client may fall behind the live stream before it is cut off (slow_consumer; it resumes with Last-Event-ID); the ring holds at most 8 KiB of frames per event in all")
	fs.StringVar(&f.profiles, "profiles", "", "permission profiles file (TOML) turns may select by name; an invalid file stops the start")
	fs.StringVar(&f.egressListen, "egress-listen", "", "loopback address (127.0.0.1:port) of the egress proxy for the runtime's own web tools, used with a turn's proxy_url; empty: no shared listener (sandboxed commands get their own either way)")
	fs.DurationVar(&f.egressAskWait, "egress-ask-wait", time.Minute, "how long the egress proxy holds a connection while its approval request is open")
	fs.BoolVar(&f.storeUnauthenticated, "store-unauthenticated", false, "take an EventStoreDB/KurrentDB connection string that names no client credential (a store started --insecure): only where no agent's command can reach the store, since whoever writes it mints credentials and answers approvals")
	fs.BoolVar(&f.fullAccessUnisolated, "full-access-unisolated", false, "where the kernel has no user namespaces, run full_access commands unisolated (they can then read the data directory and token; snapshots name the degradation) instead of refusing them")
	fs.StringVar(&f.constraints, "constraints", "", "operator constraints file (TOML): allowed_profiles, allowed_roots, required_deny")
	fs.IntVar(&f.recentTurns, "recent-turns", projections.DefaultRecentTurns, "how many ended turns keep their audit, timeline and approvals in memory (older ones are read from the store when asked); -1 keeps every turn")
	fs.Int64Var(&f.recentTurnBytes, "recent-turn-bytes", projections.DefaultRecentBytes, "the stored bytes of the events of those ended turns, at most (the earliest to end are read from the store past it, even below --recent-turns); -1 for no bound")
	fs.DurationVar(&f.checkpointInterval, "checkpoint-interval", time.Minute, "how often the read models' checkpoint is written (also every 100,000 events and at a clean shutdown); a start replays only the events after it")
	fs.IntVar(&f.maxOpenTurns, "max-open-turns", domain.DefaultMaxOpenTurns, "how many turns one credential may have open at once, child turns included (429 quota_exceeded past it; -1: no bound)")
	fs.Int64Var(&f.maxBodyMemory, "max-body-memory", api.DefaultMaxBodyMemory, "how many bytes of request bodies the server holds at once, over every request in flight (past it a request is a 503 server_busy, a Claude Code PreToolUse a deny; -1: no bound)")
	fs.IntVar(&f.maxHeldBytes, "max-open-turn-bytes", domain.DefaultMaxHeldBytes, "how many bytes of stored events one credential's open turns may hold (a new tool call in one of them past it is a 429 quota_exceeded; -1: no bound)")
	fs.IntVar(&f.maxConns, "max-connections", 0, "how many connections the API holds open at once; past it the longest idle one is closed, or with none idle the new one answered 503 (0: half the descriptor limit)")
	fs.IntVar(&f.maxRequests, "max-requests-per-credential", domain.DefaultMaxRequests, "how many requests one credential may have in flight at once, event streams, JSON-RPC sockets, waits and running commands included (429 quota_exceeded past it; -1: no bound)")
	fs.IntVar(&f.maxCommands, "max-commands-per-credential", domain.DefaultMaxCommands, "how many commands (POST /v1/turns/{id}/exec) one credential may have running or being answered at once (429 quota_exceeded past it; -1: no bound)")
	fs.IntVar(&f.maxPending, "max-pending-approvals", domain.DefaultMaxOpenRequests, "how many approval requests one turn may have open at once (a decision that would ask one more is a 429 quota_exceeded)")
	fs.IntVar(&f.turnCache, "turn-cache", 4096, "how many turns the engine keeps loaded (least recently used first out)")
	fs.Int64Var(&f.turnCacheBytes, "turn-cache-bytes", engine.DefaultMaxCachedBytes, "the stored bytes of the events the turns the engine keeps loaded were folded from, at most (least recently used first out; the most recent is kept)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: turnstile serve [flags]\n\nStarts the service. Stop it with SIGTERM or Ctrl-C: the running commands are killed, in-flight requests drain and the store closes cleanly.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "turnstile serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := serve(f, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "turnstile serve:", err)
		return 1
	}
	return 0
}

func newLogger(f serveFlags, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch f.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, not %q", f.logFormat)
}

// openStore opens the embedded store in the data directory (store.go says
// which), or the one --store names.
func openStore(f serveFlags) (eventstore.Store, string, error) {
	s := f.store
	switch {
	case s == "":
		e, err := chooseEmbedded(f.data)
		if err != nil {
			return nil, "", err
		}
		return e.open()
	case remoteStore(s):
		st, err := esdbstore.Open(s, esdbstore.Options{Timeout: f.storeTimeout})
		return st, "EventStoreDB " + redactConn(s), err
	case strings.HasPrefix(s, "bolt:"):
		return openEmbeddedFlag("bolt", strings.TrimPrefix(s, "bolt:"))
	case strings.HasPrefix(s, "log:"):
		return openEmbeddedFlag("log", strings.TrimPrefix(s, "log:"))
	}
	return nil, "", fmt.Errorf("--store %q: use an esdb:// (or esdb+discover://) connection string, bolt:PATH, log:DIR, or nothing for the embedded store", s)
}

// redactConn hides credentials in a connection string.
func redactConn(s string) string {
	if at := strings.LastIndex(s, "@"); at > 0 {
		if i := strings.Index(s, "://"); i > 0 && i < at {
			return s[:i+3] + "***" + s[at:]
		}
	}
	return s
}

func serve(f serveFlags, stdout, stderr io.Writer) error {
	log, err := newLogger(f, stderr)
	if err != nil {
		return err
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer func() { pprof.StopCPUProfile(); pf.Close() }()
	}
	if f.memProfile != "" {
		mf, err := os.Create(f.memProfile)
		if err != nil {
			return err
		}
		defer func() {
			if err := pprof.Lookup("allocs").WriteTo(mf, 0); err != nil {
				log.Error("writing the heap profile", "err", err)
			}
			mf.Close()
		}()
	}
	if tu := gctune.Start(gctune.Default); tu != nil {
		defer tu.Stop()
		log.Info("GC pacing: GOGC follows the live heap (set GOGC or GOMEMLIMIT to choose your own)",
			"heap_goal_ceiling_mib", gctune.Default.Ceiling>>20, "gogc_min", gctune.Default.Min, "gogc_max", gctune.Default.Max)
	} else {
		log.Info("GC pacing: GOGC or GOMEMLIMIT is set in the environment; the runtime follows it")
	}
	if err := resolveStore(&f, os.Getenv); err != nil {
		return err
	}
	if err := checkStoreAuth(f.store, f.storeUnauthenticated); err != nil {
		return err
	}
	if f.data, err = dataDir(f.data); err != nil {
		return err
	}
	if err := os.MkdirAll(f.data, 0o700); err != nil {
		return err
	}
	if st, err := os.Stat(f.data); err != nil {
		return err
	} else if perm := st.Mode().Perm(); perm&0o022 != 0 {
		// Whoever may write here may replace the token or the store.
		return fmt.Errorf("data directory %s has mode %04o: group or others may write to it; run `chmod 700 %s`", f.data, perm, f.data)
	}
	// Who owns what the server trusts is checked before anything is read
	// from it (a token read first was chosen by whoever could swap it
	// before the check: the hundred-and-fifty-fifth review).
	_, trusted := connFiles(f.store)
	if err := checkOwners(append(append([]string{f.data, filepath.Join(f.data, "token"), filepath.Join(f.data, serverid.KeyFile), f.tokenFile, f.claudeCodeConfig, f.profiles, f.constraints}, storePaths(f)...), trusted...)...); err != nil {
		return err
	}
	token, tokenSource, explicit, err := loadToken(f.data, f.tokenFile)
	if err != nil {
		return err
	}
	sensitive, err := secretPaths(f.data, f.tokenFile, storePaths(f)...)
	if err != nil {
		return err
	}
	// The key clients check before they send a credential (masked with
	// the data directory from every command).
	ident, _, err := serverid.LoadOrCreate(f.data)
	if err != nil {
		return err
	}
	if err := checkListen(f.listen, explicit); err != nil {
		return err
	}
	ccConfig, err := loadClaudeCodeConfig(f.claudeCodeConfig)
	if err != nil {
		return err
	}
	catalog, err := loadCatalog(f.profiles, f.constraints)
	if err != nil {
		return err
	}
	// What the next start reads stays read-only to restricted commands
	// whose writable roots hold it (sandbox/ownprogs.go).
	sandbox.ProtectOwnFiles(f.profiles, f.constraints, f.claudeCodeConfig)
	if err := checkClaudeCodeProfiles(ccConfig, catalog); err != nil {
		return err
	}
	// Before the port is taken: what commands of a server killed before
	// this one left running is killed (one could hold the port, trusted
	// by the clients as the server's uid), and this server's own will be
	// when it ends, however it ends (sandbox/reaper.go).
	if err := sandbox.StartKillGroupReaper(); err != nil {
		return err
	}
	features := sandbox.Probe()
	// A spare helper for the next restricted command, started after each
	// (sandbox/spare.go); ended at shutdown.
	sandbox.KeepSpareHelper(true)
	defer sandbox.KeepSpareHelper(false)
	// The egress proxy enters each command's network namespace to open its
	// listener there: that takes a root server (sandbox/egressns.go).
	features.Kernel.EgressProxy = os.Geteuid() == 0 && features.Kernel.UserNamespaces && features.Kernel.Seccomp
	features.Kernel.FullAccessUnisolated = f.fullAccessUnisolated && !features.Kernel.UserNamespaces
	if features.Kernel.FullAccessUnisolated {
		log.Warn("full_access commands run unisolated (--full-access-unisolated, no user namespaces): they can read the data directory and token")
	}
	log.Info("kernel probe", "landlock_abi", features.Kernel.LandlockABI, "seccomp", features.Kernel.Seccomp, "user_namespaces", features.Kernel.UserNamespaces)
	if features.Kernel.UserNamespaces {
		if why := sandbox.FullAccessHelperProblem(); why != "" {
			log.Warn("full_access commands will be refused", "why", why)
		}
	}
	store, storeDesc, err := openStore(f)
	if err != nil {
		return err
	}
	defer store.Close()
	metrics := api.NewMetrics()
	var trust domain.MCPTrust
	for t := range strings.SplitSeq(f.mcpReadOnly, ",") {
		if t = strings.TrimSpace(t); t != "" {
			trust = append(trust, t)
		}
	}
	if f.recentTurns == 0 || f.recentTurnBytes == 0 || f.recentTurnBytes < -1 || f.turnCache <= 0 || f.turnCacheBytes <= 0 || f.checkpointInterval <= 0 || f.maxPending <= 0 || f.maxOpenTurns == 0 || f.maxOpenTurns < -1 || f.maxHeldBytes == 0 || f.maxHeldBytes < -1 || f.maxBodyMemory == 0 || f.maxBodyMemory < -1 {
		return fmt.Errorf("--recent-turns must not be 0, --recent-turn-bytes must be positive or -1, --turn-cache, --turn-cache-bytes, --checkpoint-interval and --max-pending-approvals must be positive, --max-open-turns, --max-open-turn-bytes and --max-body-memory positive or -1")
	}
	cpPath := checkpointPath(f)
	if old := legacyCheckpointPath(f); old != "" {
		os.Remove(old) // an earlier version's, beside the store: deleting it is always safe
	}
	archive, err := openArchive(archivePath(cpPath), log)
	if err != nil {
		return err
	}
	defer archive.Close()
	proj, err := loadReadModels(context.Background(), cpPath, projections.Options{RecentTurns: f.recentTurns, RecentBytes: f.recentTurnBytes, Archive: archive}, store, f.storeTimeout, log)
	if err != nil {
		return fmt.Errorf("emptying the archive of old turns for a full replay: %w", err)
	}
	cp := newCheckpointer(cpPath, proj, log)
	rn := &runner{otherData: otherDataDir(f.data)}
	eng := engine.New(store, engine.Config{
		ApprovalTTL: f.approvalTTL, Trust: trust, KeyFromStore: true, Kernel: features.Kernel, Sensitive: sensitive, SensitiveNow: sensitiveNow(sensitive, otherDataDir(f.data)), Runner: rn, Hint: hint{proj},
		Checker:  sandbox.DecisionChecker{Resolver: newResolver(f.dnsServer), Timeout: f.dnsTimeout, Fresh: freshSecrets(otherDataDir(f.data))},
		Instance: instanceName(), Profiles: catalog, MaxCachedTurns: f.turnCache, MaxCachedBytes: f.turnCacheBytes, MaxOpenRequests: f.maxPending,
		OnAppend: func(_ string, _ []turn.Event, took time.Duration) { metrics.Append(took) },
	})
	rn.egress = egress.NewProxy(&egress.EngineJudge{Engine: eng, Now: time.Now, TTL: f.egressAskWait,
		Admit: api.HeldBytesQuota(proj, f.maxHeldBytes)}, newResolver(f.dnsServer))
	rn.egress.AskWait = f.egressAskWait
	rn.egress.MaxHeaderBytes, rn.egress.MaxConns = f.maxHeaderBytes, egress.ProcessMaxConns()
	// A turn's end first records what its open proxied connections carried.
	eng.SetBeforeEnd(rn.egress.Drain)
	creds := api.NewCredentialStore(store)
	rn.egress.Valid = api.EgressValid(creds, token)
	var eln net.Listener
	var egressURL func(string, domain.Actor, string) string
	if f.egressListen != "" {
		if eln, err = listenEgress(f.egressListen); err != nil {
			return err
		}
		defer eln.Close()
		egressURL = func(turnID string, by domain.Actor, credID string) string {
			return rn.egress.ProxyURLFor(eln.Addr().String(), turnID, by, credID)
		}
	}
	cmdTimeout := 10 * time.Second
	if f.store != "" && !strings.HasPrefix(f.store, "bolt:") && !strings.HasPrefix(f.store, "log:") {
		// An append may retry within one store timeout; a queued command
		// waits for at most one more.
		cmdTimeout = 2*f.storeTimeout + time.Second
	}
	maxConns := cmp.Or(f.maxConns, connlimit.MaxFor(connlimit.ProcessNofile()))
	srv := api.New(api.Config{Engine: eng, Projector: proj, Store: store, Token: token, Credentials: creds, Logger: log,
		Metrics: metrics, Version: version, Identity: ident, CommandTimeout: cmdTimeout, ClaudeCode: ccConfig, Explainer: sandbox.Explainer{}, EgressProxyURL: egressURL, SSEBuffer: f.sseBuffer,
		MaxOpenTurns: f.maxOpenTurns, MaxHeldBytes: f.maxHeldBytes, MaxBodyMemory: f.maxBodyMemory, MaxRequests: requestsBound(f.maxRequests, maxConns), MaxCommands: f.maxCommands})

	storeGauges(metrics, store)
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	twin, err := listenTwin(ln)
	if err != nil {
		ln.Close()
		return fmt.Errorf("--listen %s: the other loopback address at its port is another program's (%w): a client naming localhost could reach it instead of this server; stop it, or listen on another port", ln.Addr(), err)
	}
	var listener net.Listener = ln
	if twin != nil {
		listener = newMultiListener(ln, twin)
		log.Info("listening on the other loopback address too", "addr", twin.Addr().String())
	}
	// The proxy never carries a command to the gateway itself.
	rn.egress.Own = listenAddrs(ln, twin, eln)
	var own []string
	for _, ap := range listenAddrs(ln, twin) {
		own = append(own, ap.String())
	}
	ident.SetAddresses(own)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	bg, cancelBG := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	projErr := make(chan error, 1)
	rebuilt := make(chan struct{})
	wg.Go(func() {
		err := proj.Follow(bg, store, func() {
			close(rebuilt)
			srv.SetReady()
			log.Info("read models rebuilt", "events", proj.Applied(), "position", proj.Position().String())
		})
		if err != nil && bg.Err() == nil {
			projErr <- err
		}
	})
	wg.Go(func() { reportRebuild(bg, log, proj, rebuilt) })
	wg.Go(func() { cp.run(bg, rebuilt, f.checkpointInterval) })
	wg.Go(func() { stopEndedRuns(bg, eng, proj, log) })
	wg.Go(func() {
		eng.Sweep(bg, sweepInterval(f.approvalTTL), func(now time.Time) []string {
			seen := map[string]bool{}
			var ids []string
			for _, a := range proj.Approvals(projections.ApprovalFilter{Status: projections.ApprovalPending, ExpiresBefore: now}) {
				if !seen[a.Request.TurnID] {
					seen[a.Request.TurnID] = true
					ids = append(ids, a.Request.TurnID)
				}
			}
			return ids
		}, func(id string, err error) { log.Warn("expiring approvals failed", "turn_id", id, "err", err) })
	})
	lim := &connlimit.Listener{Listener: listener, Max: maxConns}
	metrics.Gauge("turnstile_http_connections", func() float64 { return float64(lim.Open()) })
	metrics.Gauge("turnstile_http_connections_refused_total", func() float64 { return float64(lim.Refused.Load()) })
	metrics.Gauge("turnstile_http_connections_evicted_total", func() float64 { return float64(lim.Evicted.Load()) })
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: f.readHeaderTimeout, ReadTimeout: f.readTimeout,
		IdleTimeout: f.idleTimeout, MaxHeaderBytes: f.maxHeaderBytes, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState: lim.State}
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(lim) }()
	fmt.Fprintf(stdout, "turnstile %s listening on http://%s\n  data: %s (denied to every turn)\n  store: %s\n  admin token: %s\n  server key: %s (in %s: a client of another user pins it with TURNSTILE_SERVER_KEY)\n  kernel: landlock ABI %d, seccomp %v, user namespaces %v\n",
		version, ln.Addr(), sensitive[0], storeDesc, tokenSource, ident.Key(), filepath.Join(f.data, serverid.PubFile), features.Kernel.LandlockABI, features.Kernel.Seccomp, features.Kernel.UserNamespaces)
	log.Info("listening", "addr", ln.Addr().String(), "store", storeDesc)
	if eln != nil {
		egressSrv := rn.egress.Server(rn.egress.Handler(), f.readHeaderTimeout)
		egressSrv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
		go egressSrv.Serve(rn.egress.Limit(eln, true))
		defer egressSrv.Close()
		fmt.Fprintf(stdout, "  egress proxy: http://%s (per-turn credential: GET /v1/turns/{id}/egress)\n", eln.Addr())
	}
	wg.Go(func() { watchStore(bg, log, store, storeDesc, f.storeCheck, f.storeTimeout) })

	var result error
	select {
	case <-ctx.Done():
		log.Info("shutting down: draining in-flight requests")
	case err := <-serveErr:
		result = err
	case err := <-projErr:
		result = fmt.Errorf("read models stopped: %w", err)
	}
	srv.Drain()
	// Every command this server runs is killed now, and one a request in
	// flight starts is killed before it runs: none outlives the server
	// (review 197).
	if n := eng.StopAllRuns(); n > 0 {
		log.Info("stopped the running commands", "commands", n)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(shutdownCtx); err != nil {
		log.Warn("shutdown", "err", err)
	}
	cancelBG()
	wg.Wait()
	sandbox.KeepSpareHelper(false)
	sandbox.WaitCleanup() // the names held for the last commands, their temp dirs
	if err := cp.save(); err != nil {
		log.Warn("writing the read-model checkpoint", "path", cpPath, "err", err)
	}
	if err := store.Close(); err != nil && !errors.Is(err, eventstore.ErrClosed) {
		log.Warn("closing the store", "err", err)
	}
	log.Info("stopped")
	return result
}

// storePaths are the embedded store's files when --store names them outside
// the data directory (bolt:PATH and the read-model checkpoint an earlier
// version kept beside it, log:DIR): every workspace's events and the credentials' hashes, denied to
// every turn like the data directory.
func storePaths(f serveFlags) []string {
	switch {
	case strings.HasPrefix(f.store, "bolt:"):
		return []string{strings.TrimPrefix(f.store, "bolt:"), legacyCheckpointPath(f)}
	case strings.HasPrefix(f.store, "log:"):
		return []string{strings.TrimPrefix(f.store, "log:")}
	}
	secret, _ := connFiles(f.store)
	if f.storeFile != "" {
		secret = append(secret, f.storeFile)
	}
	return secret
}

// secretPaths are the service's own secrets, as absolute paths (and, when
// a symlink leads elsewhere, where it leads): the data directory, the
// token file and more (the store's files outside the data directory).
// Every turn's snapshot denies them.
func secretPaths(data, tokenFile string, more ...string) ([]string, error) {
	// The data directory (and, when this user's default one is another,
	// that one too: another server's, or the next one's): where it and
	// each link in it lead, or the names a server would trust there
	// (sandbox.DataDirSecrets), as it is now; each spawn adds the default
	// one's as they are then (runner.otherData).
	out := sandbox.OwnDataDirSecrets(data)
	if def := otherDataDir(data); def != "" && !slices.Contains(out, def) {
		out = append(out, sandbox.DataDirSecrets(def)...)
	}
	for _, p := range append([]string{tokenFile}, more...) {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		out = append(out, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			out = append(out, real)
		}
		// Where the kernel opens it: a ".." after a link is taken from
		// where the link led (/etc/ts/../token with /etc/ts -> ws/s is
		// ws/token), not removed as text (the hundred-and-fifty-fifth
		// review).
		if k, ok := kernelPath(p); ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	// And where another file system shows them: a mount inside the data
	// directory (a token bound onto it from /etc), an overlay's layers
	// (review 174).
	return append(out, sandbox.SecretsShownElsewhere(out)...), nil
}

// sensitiveNow returns the engine's SensitiveNow: the service's secrets
// as listed at start, with the default data directory other (if any) as
// it is when asked (sandbox.DataDirSecrets: denied whole once another
// server wrote there).
func sensitiveNow(atStart []string, other string) func() []string {
	if other == "" {
		return nil
	}
	return func() []string {
		out := slices.Clone(atStart)
		for _, p := range sandbox.DataDirSecrets(other) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		return out
	}
}

// freshSecrets returns the decision checker's Fresh: the default data
// directory other (if any) as it is when asked (sandbox.DataDirSecrets).
func freshSecrets(other string) func() []string {
	if other == "" {
		return nil
	}
	return func() []string { return sandbox.DataDirSecrets(other) }
}

// otherDataDir returns this user's default data directory
// (sandbox.DefaultDataDir, absolute) when it is not data, the server's own
// (nor where data leads); "" otherwise.
func otherDataDir(data string) string {
	def, err := sandbox.DefaultDataDir()
	if err != nil {
		return ""
	}
	def, err = filepath.Abs(def)
	if err != nil {
		return ""
	}
	if own, err := filepath.Abs(data); err == nil && own == def {
		return ""
	}
	if real, err := filepath.EvalSymlinks(data); err == nil && real == def {
		return ""
	}
	return def
}

// reportRebuild logs the replay's progress every few seconds until the
// read models are rebuilt (a large store takes a while).
func reportRebuild(ctx context.Context, log *slog.Logger, proj *projections.Projector, done <-chan struct{}) {
	t := time.NewTicker(3 * time.Second)
	defer t.Stop()
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-t.C:
			n := proj.Applied()
			log.Info("rebuilding read models", "events", n, "events_per_second", int(float64(n)/time.Since(start).Seconds()))
		}
	}
}

func sweepInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/10, 100*time.Millisecond), 5*time.Second)
}

// checkListen refuses a non-loopback address unless the token was chosen
// explicitly (the auto-created token protects a local service only).
func checkListen(addr string, explicitToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsLoopback() {
		return nil
	}
	if !explicitToken {
		return fmt.Errorf("--listen %q is not a loopback address: set a token with --token-file or TURNSTILE_TOKEN first", addr)
	}
	return nil
}

// listenAddrs are the addresses of the listeners given (nil ones left out).
func listenAddrs(ls ...net.Listener) []netip.AddrPort {
	var out []netip.AddrPort
	for _, l := range ls {
		if l == nil {
			continue
		}
		if ap, err := netip.ParseAddrPort(l.Addr().String()); err == nil {
			out = append(out, ap)
		}
	}
	return out
}

// listenEgress listens for the shared egress proxy on a loopback address
// only: the per-turn credential travels in clear.
func listenEgress(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--egress-listen %q: %w", addr, err)
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("--egress-listen %q: the egress proxy listens on a loopback address only", addr)
	}
	return net.Listen("tcp", addr)
}

// requestsBound is the bound of one credential's requests in flight: the
// flag's, at most a quarter of the API's connections, so that one
// credential leaves the others room; -1 keeps none.
func requestsBound(flag, maxConns int) int {
	if flag < 0 {
		return flag
	}
	return max(1, min(flag, maxConns/4))
}
