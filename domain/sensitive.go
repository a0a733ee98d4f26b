package domain

import "strings"

// SensitiveSystemPaths are denied, read and write, to every restricted turn
// wherever the roots are: process memory and environments (every process's,
// "/proc/self" and "/proc/thread-self" included, since "*" matches one path
// element and the checker also matches the path those links resolve to),
// the kernel's memory, and shadow password files. A "*" element matches one
// path element; an entry covers its subtree.
var SensitiveSystemPaths = []string{
	"/proc/*/environ", "/proc/*/mem", "/proc/*/task/*/environ", "/proc/*/task/*/mem",
	"/proc/kcore", "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
	// The host's private keys and stored secrets: a runtime that reads
	// files itself as root (in a container) would hand them over (the
	// hundred-and-forty-second review).
	"/etc/ssl/private", "/etc/pki/tls/private", "/etc/letsencrypt", "/etc/ssh/ssh_host_rsa_key",
	"/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key",
	"/etc/krb5.keytab", "/etc/wireguard", "/etc/ipsec.secrets", "/etc/NetworkManager/system-connections",
	// and more of them (the hundred-and-forty-fourth review): a cluster's
	// admin configs and keys, database maintenance logins, dial-up, mail
	// relay, directory and Wi-Fi secrets, CI runners' tokens, other SSH
	// servers' host keys.
	"/etc/kubernetes", "/etc/rancher", "/etc/mysql/debian.cnf", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
	"/etc/postfix/sasl_passwd", "/etc/ldap.secret", "/etc/pam_ldap.secret", "/etc/sssd", "/etc/wpa_supplicant",
	"/etc/gitlab-runner", "/etc/dropbear",
	// The locks of the writable roots (sandbox/rootlock.go): a command
	// that took one would keep others waiting.
	RootLockDirs[0], RootLockDirs[1],
}

// RootLockDirs are where the sandbox keeps the locks that make commands
// over overlapping writable roots run one at a time: the first whose
// parent exists.
var RootLockDirs = []string{"/dev/shm/turnstile-roots", "/run/lock/turnstile-roots"}

// SensitiveHomeNames are credential stores relative to a home directory.
var SensitiveHomeNames = []string{
	".ssh", ".aws", ".config/gcloud", ".netrc", ".docker/config.json", ".kube/config",
	".local/share/keyrings", ".gnupg", ".config/gh/hosts.yml",
	".git-credentials", ".pgpass", ".claude/.credentials.json",
	// Agent CLIs' own logins, and package registries' publish tokens.
	".codex/auth.json", ".config/github-copilot", ".gemini/oauth_creds.json",
	".npmrc", ".pypirc", ".cargo/credentials.toml", ".cargo/credentials",
	".config/hub", ".terraform.d/credentials.tfrc.json", ".azure",
	// Other tools' stored tokens and passwords (the hundred-and-forty-second
	// review): build and package tools, cloud and infrastructure, databases,
	// and git's own credential store under XDG.
	".m2/settings.xml", ".gradle/gradle.properties", ".gem/credentials", ".config/composer/auth.json",
	".composer/auth.json", ".vault-token", ".config/containers/auth.json", ".config/rclone/rclone.conf",
	".pulumi/credentials.json", ".terraformrc", ".my.cnf", ".config/sops/age/keys.txt",
	".cache/huggingface/token", ".huggingface/token", ".kaggle/kaggle.json", ".config/glab-cli/config.yml",
	".config/git/credentials",
	// the hundred-and-forty-fourth review's: more cloud, registry, mail
	// and browser-like stores.
	".mylogin.cnf", ".s3cfg", ".boto", ".config/doctl", ".fly", ".config/hcloud", ".oci", ".config/stripe",
	".config/configstore/firebase-tools.json", ".config/.wrangler", ".nuget/NuGet/NuGet.Config",
	".config/NuGet/NuGet.Config", ".config/helm/repositories.yaml", ".minikube", ".pki/nssdb", ".thunderbird",
	".config/Slack", ".config/pip/pip.conf", ".pip/pip.conf", ".local/share/com.vercel.cli", ".config/netlify",
	// Browser profiles: their cookies and saved sessions hold the console's
	// session cookie and CSRF token (sessionStorage is kept on disk to
	// restore a tab), with which a command answers its own requests (the
	// eighty-third review), and every other site's logins.
	".mozilla", ".config/mozilla", ".config/firefox", "snap/firefox", ".var/app/org.mozilla.firefox",
	".config/chromium", "snap/chromium", ".var/app/org.chromium.Chromium",
	".config/google-chrome", ".config/google-chrome-beta", ".config/google-chrome-unstable", ".var/app/com.google.Chrome",
	".config/BraveSoftware", "snap/brave", ".var/app/com.brave.Browser", ".config/microsoft-edge", ".var/app/com.microsoft.Edge",
	".config/vivaldi", ".config/opera", ".librewolf", ".local/share/epiphany", ".var/app/org.gnome.Epiphany",
	".local/share/qutebrowser", ".var/app/org.qutebrowser.qutebrowser",
}

// SensitiveHomes are the home directories whose credential stores are
// sensitive by default: root's and every user's under /home. Other homes (a
// service account's) come in through SnapshotInputs.SensitivePaths.
var SensitiveHomes = []string{"/root", "/home/*"}

// SensitiveHomePaths returns the credential stores under home.
func SensitiveHomePaths(home string) []string {
	out := make([]string, 0, len(SensitiveHomeNames))
	for _, n := range SensitiveHomeNames {
		out = append(out, CleanPath(home+"/"+n))
	}
	return out
}

// SensitivePaths returns the built-in sensitive paths followed by extra
// (clean, deduplicated; relative or empty extras are ignored: a sensitive
// path must be absolute to mean anything).
func SensitivePaths(extra ...string) []string {
	all := append([]string(nil), SensitiveSystemPaths...)
	for _, h := range SensitiveHomes {
		all = append(all, SensitiveHomePaths(h)...)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(all)+len(extra))
	for _, p := range append(all, extra...) {
		if !strings.HasPrefix(p, "/") {
			continue
		}
		if p = CleanPath(p); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// SensitiveEntries are SensitivePaths(extra...) as snapshot entries: kind
// PathSensitive, access deny, provenance system.
func SensitiveEntries(extra ...string) []FilesystemEntry {
	ps := SensitivePaths(extra...)
	out := make([]FilesystemEntry, 0, len(ps))
	for _, p := range ps {
		out = append(out, FilesystemEntry{Kind: PathSensitive, Path: p, Access: AccessDeny, Provenance: ProvenanceSystem, ResolvedPath: p})
	}
	return out
}
