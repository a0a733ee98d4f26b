//go:debug netdns=go

package main

// The directive above makes the net package resolve names with its own
// resolver only, never with the C library's getaddrinfo. cmd/turnstile is
// dynamically linked (cgo through net), and a full_access command of a root
// server is root over the host's files: through /etc/nsswitch.conf and a
// libnss_*.so it planted, glibc would load its code into the running server
// (or a client) at the next name lookup — the egress proxy and the decision
// checks look up names the agent chooses. The Go resolver reads
// /etc/nsswitch.conf, /etc/hosts and /etc/resolv.conf as data and loads
// nothing. (The sandbox helper, turnstile-sandbox, links no net at all.)
