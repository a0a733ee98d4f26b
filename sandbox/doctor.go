package sandbox

import (
	"fmt"
	"io"
	"strings"

	"turnstile/domain"
)

// Limits lists what the native backend does not enforce on any machine,
// whatever the kernel offers; Doctor prints it and the server may show it
// next to a snapshot.
var Limits = []string{
	"network `restricted` (domain allow-lists) is not enforced by the kernel: a spawned command reaches the outside only through the egress proxy opened in its own network namespace (a root server; elsewhere it gets no IP network at all), which judges each connection on its host name and every address it resolves to but does not intercept TLS: inside a tunnel the method cannot be seen (CONNECT is refused under `limited`); a tunnel's TLS server name must be its CONNECT host and a tunnel that carries a plain HTTP request is closed, but the Host header inside TLS, and the inner name of an encrypted ClientHello, may name another site served at the same address (domain fronting); turnstile's own fetches and downloads go through sandbox/egress.Client, which enforces the domain rules",
	"nested git repositories are found by a walk of each writable root bounded at 6 directories deep and 4096 directories, reused for 2 s: a repository beyond those bounds, created less than 2 s before a command starts, or created by the command keeps a writable config and hooks during the command. After the command, a repository in its writable roots that it made, or whose config, hooks or common dir it changed, must hold trusted config keys only (a person's repository beyond those bounds whose config names a program, core.pager among them, is set aside too once the command wrote to its config, rewrote a hook in place, or changed an include, the hooks path or a program in a writable root that the config names), a work tree in its root and no hooks but git's samples, or its HEAD, config and hooks are set aside and the result names them; a check reads at most 4096 repositories and 32 MiB of config and sets the rest aside unread, and lists at most 200,000 directories (what lies beyond is named, not checked); a stopped rebase or cherry-pick with an exec instruction or a merge strategy that is not git's own, a .git file that makes a directory a second work tree of a held repository, and a new linked work tree of one whose config names hooks relative to the work tree are set aside too. Until the command has ended, a host program that runs git there meanwhile (an editor's git integration) may run what such a repository says; a repository a second command hides from the check while it runs is found by the next check of the same server only (not by turnstile sandbox, nor after a restart)",
	"a tool setting or shell start-up file of the protected list that does not exist when a command starts can be created by it until it ends (.git, .codex, .agents and .claude are held empty and read-only; the others, and a core.hooksPath directory a held repository names that is missing, are set aside after the command), at each writable root and the turn's cwd; in another subdirectory it stays (a .vscode/settings.json), except the agents' .claude, .codex and .agents and the launcher and toolchain files (asdf's .tool-versions, yarn's .yarnrc and .yarnrc.yml, rustup's rust-toolchain and rust-toolchain.toml, Maven's .mvn/jvm.config and .mvn/maven.config, R's .Rprofile, .NET's global.json, uv's .python-version, npm's .npmrc, Bazel's .bazelrc, Bazelisk's .bazeliskrc, MSBuild's Directory.Build.rsp, and the others of the list: .Renviron, Cargo's config, .jvmopts, .sbtopts, bunfig.toml), which are set aside after the command wherever below a root it made or changed one; a home directory granted writable keeps ~/bin and ~/go/bin writable (its default .profile puts ~/bin first in PATH), and other files its start-up files read that the protected list does not name (a plugin manager.s or prompt.s files the list leaves out) can be created; a hard link the command makes to such a file keeps it writable after later commands protect it",
	"hard links that already exist inside a writable root and point outside stay writable (Landlock checks paths, not inodes)",
	"inotify (and fanotify's unprivileged marks) are not governed by Landlock: a command may watch a directory outside its roots that it cannot list, where its uid's file permissions allow the search, and learn the names of the files created, changed or removed there while it runs",
	"full_access commands keep the host's network, unix sockets and IPC: a host service that acts for the server's uid on request (for a root server systemd or a container daemon, to which the command's root is the real root; otherwise the user's session bus or agents) can still read the data directory and token for them; run the server as a dedicated user with no such services",
	"full_access commands see the data directory and token masked, the helper program read-only, /sys, the cgroup filesystems and /proc/sys read-only (and no cgroup namespace of their own: seccomp), nodev on every mount and a /dev of null, zero, full, random, urandom, tty, ptmx and shm only; a hard link to a secret made elsewhere before the server started, a data directory moved while the server was stopped, or a copy of the server's memory on disk (a swap file a root command can read) is not masked, and the server's binary and configuration files, /etc/ld.so.preload and the system libraries stay writable to a root server's command (for the next start of the server, or of any dynamically linked program run as root: turnstile token); from a server that is not root, setuid programs gain nothing in them",
	"a unix socket the host binds after the command started (outside /tmp, which the sandbox sees empty), one bound in another network namespace (a container's), one bound at a relative path or renamed after it was bound (by the host, or by an earlier command renaming a directory above it) that lies outside the writable roots or in one beyond the walk's bounds (6 directories deep, 4096 directories), or a host socket reached through a hard link outside the writable roots, stays connectable subject to its file permissions: host sockets are masked at the paths /proc/net/unix lists at spawn (the path they were bound at), where one bound in another mount namespace or under another root lies here (found through a process of that view, where its name leads to it, and the two mount tables; at most 64 such listeners are looked for a spawn: a command that may use the host's network can bind more, to hide one among them) and, in the writable roots, wherever the walk finds a socket file a host process listens on (the kernel's socket list, NETLINK_SOCK_DIAG, names each listener's file; one the reused walk did not meet is looked for by a fresh walk that enters .git directories too; without that list, the first 64 socket files found are masked); pathname sockets are not confined by Landlock before ABI 9",
	"when the server runs as root, commands run as uid 2147483646 with the writable roots idmapped to it for their owner only: files there owned by another user are not writable",
	"denied commands are matched on argv[0] only: a shell or interpreter can still start them (capabilities are dropped and no_new_privs is set, so setuid programs gain nothing)",
	"no CPU, memory or disk limits: a command may use the machine's resources until its timeout; its tasks are bounded by RLIMIT_NPROC at a quarter of pid_max or threads-max, the unprivileged uid's under a root server (shared by the commands running at once), each command's own in its user namespace under a server that is not root, where nothing bounds how many run at once: four commands at the bound, of one turn or several, take the machine's process ids again",
	"a command ends with the server or `turnstile sandbox` that started it through its parent-death signal when that process is killed outright (SIGKILL); a command that clears that signal itself (prctl) outlives it, with every process it started, unless the server's reaper kills its cgroup (a root server on cgroup v2 with cgroup.kill; the next server's start kills what a killed reaper left, before it takes the port; a graceful stop of the server kills every command first) (a timeout, an interrupt and a turn's end kill them all regardless: under a root server on cgroup v2 with cgroup.kill, at once through the command's own cgroup, the stop returning once each process has begun to exit, at most 10 minutes; otherwise a process it put in a session of its own dies with its PID namespace, once its first process has exited, which the command can delay by seconds (the release of a file of many extents), and the stop waits for that at most 5 s); a killed server leaves its commands' empty cgroups, which the next one removes, and a killed server or `turnstile sandbox` its commands' isolated temp dirs (with what they wrote there), which its reaper, the next server's start or the next `turnstile sandbox` removes; the check after a command whose process was killed outright runs with the next command over its roots (from the killed command's start), not before",
	"a command a server runs in its spare helper (started when the previous restricted command ended, to save the next one the helper's start) is that helper's process: from its own start time it can tell when the server's previous restricted command ended, whichever turn's it was (to a clock tick; at most 60 s back)",
	"with /tmp (or /var/tmp, /dev/shm) writable as a root, the check after a command judges only the top entries there that the command's uid owns or anyone may write, and what lies below them: what it plants through a world-writable directory inside another user's directory there is not judged",
}

// Doctor prints what this machine can enforce and, for each mode, the
// snapshot's enforcement status and degradations under these features.
func Doctor(w io.Writer, f Features) {
	k := f.Kernel
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("turnstile sandbox doctor")
	p("  kernel:          %s (%s)", orUnknown(f.Release), f.Arch)
	p("  landlock:        %s", f.LandlockDetail)
	for _, l := range landlockLosses(k.LandlockABI, k.UserNamespaces) {
		p("                   - %s", l)
	}
	p("  seccomp:         %s: %s", yesNo(k.Seccomp), f.SeccompDetail)
	if k.Seccomp {
		p("                   refuses IPv4/IPv6 sockets of every type (TCP, UDP, raw, MPTCP), netlink, packet,")
		p("                   vsock, io_uring and foreign-architecture syscalls when the network is not enabled")
	}
	p("  user namespaces: %s: %s", yesNo(k.UserNamespaces), f.UserNamespacesDetail)
	if !k.UserNamespaces {
		p("                   - no read-only root view, host-socket masking, PID namespace or unprivileged uid:")
		p("                     restricted modes name these degradations (and refuse to spawn with a required backend)")
	}
	p("  helper:          %s", HelperDescription())
	p("  kill groups:     %s", killGroupsDetail())
	faHelper := FullAccessHelperProblem()
	p("")
	p("modes on this machine:")
	for _, m := range domain.Modes {
		s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
			Profile:       domain.ResolveProfile(&domain.ProfileRequest{Mode: m}, domain.SourceComposer),
			WorkspaceRoot: "/workspace",
			Kernel:        k,
		})
		if err != nil {
			p("  %-18s cannot resolve: %v", m, err)
			continue
		}
		e := s.Enforcement
		line := fmt.Sprintf("  %-18s %s", m, e.Status)
		if e.Reason != "" {
			line += ": " + e.Reason
		}
		p("%s", line)
		for _, d := range e.Degradations {
			p("    - %s: %s", d.Dimension, d.Reason)
		}
		switch {
		case s.Enforcement.Status == domain.EnforcementUnavailable:
			p("    commands are refused (sandbox_unavailable): nothing is spawned")
		case s.Sandbox.Filesystem.Unrestricted && s.Network.Mode == domain.NetworkEnabled && k.UserNamespaces && faHelper != "":
			p("    a server's commands are refused (sandbox_failed, 126): %s", faHelper)
		case s.Sandbox.Filesystem.Unrestricted && s.Network.Mode == domain.NetworkEnabled && k.UserNamespaces:
			p("    a server's commands run in their own user, mount and PID namespaces with its data directory and token masked (and CAP_SYS_ADMIN dropped: the masks cannot be undone); otherwise unconfined (network, host filesystem, inherited environment)")
		case s.Sandbox.Filesystem.Unrestricted && s.Network.Mode == domain.NetworkEnabled && !k.FullAccessUnisolated:
			p("    a server's commands are refused (sandbox_unavailable): without user namespaces its data directory and token cannot be hidden from them (serve --full-access-unisolated runs them unisolated)")
		case s.Sandbox.Filesystem.Unrestricted && s.Network.Mode == domain.NetworkEnabled:
			p("    commands run unconfined and can read the data directory and token (own process group, and as root on cgroup v2 a cgroup of their own; timeout); the environment is inherited")
		case s.Sandbox.Mode == domain.SandboxWorkspaceWrite && !k.UserNamespaces:
			p("    commands run in the sandbox; protected paths use sibling grants (narrower)")
		default:
			p("    commands run in the sandbox")
		}
	}
	p("")
	p("not enforced on any machine:")
	for _, l := range Limits {
		p("  - %s", l)
	}
}

// landlockLosses lists what a strict ruleset at abi cannot control, and
// what the helper's namespaces (ns) make up for.
func landlockLosses(abi int, ns bool) []string {
	if abi < 1 {
		return []string{"no filesystem confinement: restricted modes cannot spawn commands"}
	}
	made := func(loss, by string) string {
		if ns {
			return loss + " (made up for: " + by + ")"
		}
		return loss
	}
	var out []string
	if abi < 2 {
		out = append(out, "ABI < 2: renames and links across directories are always refused")
	}
	if abi < 3 {
		out = append(out, made("ABI < 3: truncate(2) is not controlled", "the read-only root view refuses it outside the writable roots"))
	}
	if abi < 4 {
		out = append(out, "ABI < 4: no TCP bind/connect rules (seccomp still refuses IP sockets)")
	}
	if abi < 5 {
		out = append(out, "ABI < 5: ioctl on devices is not controlled")
	}
	if abi < 6 {
		out = append(out, made("ABI < 6: no scoping: signals and abstract unix sockets can reach processes outside the sandbox",
			"the PID namespace hides host processes, and a network namespace of its own keeps host abstract sockets out"))
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orUnknown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unknown"
	}
	return s
}
