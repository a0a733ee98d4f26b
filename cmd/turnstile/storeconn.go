package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"turnstile/adapters/esdbstore"
)

// An EventStoreDB/KurrentDB store's credentials live in its connection
// string (esdb://user:password@host) or in the client certificate and key
// it names (userCertFile, userKeyFile). Whoever holds either is a client
// of the store and mints credentials (the twenty-eighth review): a
// password on serve's command line is readable by every user of the
// machine (/proc/PID/cmdline), and the key file was readable by a
// full_access command. So a connection string with a password comes from
// --store-file (mode 0600 or stricter, owner-checked) or TURNSTILE_STORE
// (the server's environment, which only its user reads and no command
// inherits), never --store; and the files it names are secrets every turn
// is denied (storePaths).

// storeEnv is the environment variable serve reads the store from when
// neither --store nor --store-file is given.
const storeEnv = "TURNSTILE_STORE"

// resolveStore sets f.store from --store-file or TURNSTILE_STORE, and
// refuses a --store that holds a password.
func resolveStore(f *serveFlags, getenv func(string) string) error {
	switch {
	case f.storeFile != "" && f.store != "":
		return errors.New("--store and --store-file both name the store: give one")
	case f.storeFile != "":
		fi, err := os.Stat(f.storeFile)
		if err != nil {
			return fmt.Errorf("--store-file: %w", err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 || !fi.Mode().IsRegular() {
			return fmt.Errorf("--store-file %s has mode %04o: it holds the store's credentials; run `chmod 600 %s`", f.storeFile, perm, f.storeFile)
		}
		b, err := os.ReadFile(f.storeFile)
		if err != nil {
			return fmt.Errorf("--store-file: %w", err)
		}
		if f.store = strings.TrimSpace(string(b)); f.store == "" || strings.ContainsAny(f.store, "\n\r") {
			return fmt.Errorf("--store-file %s: want one connection string on one line", f.storeFile)
		}
		return nil
	case f.store == "":
		f.store = strings.TrimSpace(getenv(storeEnv))
		return nil
	}
	if connPassword(f.store) {
		return fmt.Errorf("--store %s holds a password, and a command line is readable by every user of this machine (/proc/PID/cmdline): put the connection string in a file of mode 0600 (--store-file) or in %s", redactConn(f.store), storeEnv)
	}
	return nil
}

// checkStoreAuth refuses a remote store whose client, as it parses the
// connection string, sends no credential (esdbstore.SendsCredential: none
// over plaintext), unless --store-unauthenticated says no agent can reach
// it: such a store (KurrentDB --insecure) takes every client, and the
// agent's shell, an anonymous client on the same machine, would append a
// credential of its own making and answer its own approvals as an admin
// (the seventy-fifth review; the seventy-sixth: judged by the client's own
// parse, which sends nothing with tls=false, ignores ?password= and an
// empty password).
func checkStoreAuth(store string, unauthenticated bool) error {
	if !remoteStore(store) || unauthenticated {
		return nil
	}
	sends, err := esdbstore.SendsCredential(store)
	if err != nil {
		return fmt.Errorf("--store %s: %w", redactConn(store), err)
	}
	if sends {
		return nil
	}
	return fmt.Errorf("--store %s sends the store no client credential: a store that takes anonymous clients (KurrentDB --insecure, any plaintext tls=false node) takes the agent's too, and whoever writes the store mints credentials and answers approvals; run the store secure and give the connection string a user and password (in --store-file or %s) or a client certificate (userCertFile, userKeyFile), over TLS, or pass --store-unauthenticated when no agent's command can reach the store", redactConn(store), storeEnv)
}

// remoteStore reports whether s is an EventStoreDB/KurrentDB connection
// string.
func remoteStore(s string) bool {
	for _, p := range []string{"esdb://", "esdb+discover://", "kurrentdb://", "kurrentdb+discover://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// connPassword reports whether an esdb/kurrentdb connection string holds a
// password: user:password@ before its hosts, or a password parameter.
func connPassword(s string) bool {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return false
	}
	hosts, query, _ := strings.Cut(rest, "?")
	hosts, _, _ = strings.Cut(hosts, "/")
	if user, _, found := strings.Cut(hosts, "@"); found && strings.Contains(user, ":") {
		return true
	}
	q, _ := url.ParseQuery(query)
	for k := range q {
		if strings.EqualFold(k, "password") {
			return true
		}
	}
	return false
}

// connFiles returns the files an esdb/kurrentdb connection string names:
// the client's certificate and key (secrets) and the CA it trusts (not a
// secret, but what the server trusts: owner-checked).
func connFiles(s string) (secret, trusted []string) {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return nil, nil
	}
	_, query, _ := strings.Cut(rest, "?")
	q, _ := url.ParseQuery(query)
	for k, vs := range q {
		for _, v := range vs {
			switch strings.ToLower(k) {
			case "usercertfile", "userkeyfile":
				secret = append(secret, v)
			case "tlscafile":
				trusted = append(trusted, v)
			}
		}
	}
	return secret, trusted
}
