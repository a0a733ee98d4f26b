package domain

import (
	"strconv"
	"strings"
)

// envDetail is the environment a request shows: each name, with its value
// where envShowsValue, quoted (Go's quoting: a value cannot forge where one
// variable ends and the next begins, the thirty-seventh review's
// `PYTHONPATH=…, PATH=honest`), a path list's entries redacted as paths
// are (a directory is never hidden for its name looking like a token), any
// other value as a command's text is; a name of other characters than
// letters, digits, _ and % quoted too. Other values may be secrets and are
// not shown. Values past MaxEnvironmentValue are refused before this
// (execBindings): what is shown is whole. A value the command expands
// where it decides what the command does (exposed, exposedVars: cp .env
// "$API_TOKEN") is shown whatever its name (the forty-second review).
func envDetail(keys []string, env map[string]any, exposed map[string]bool) string {
	return envDetailShown(keys, env, exposed, nil)
}

// envDetailShown is envDetail given the values its caller already redacted
// (shown: envValueShown by name; a name not in it is redacted here).
func envDetailShown(keys []string, env map[string]any, exposed map[string]bool, shown map[string]string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := k
		if strings.TrimFunc(k, plainEnvNameRune) != "" {
			name = strconv.Quote(k)
		}
		parts[i] = name
		v, ok := env[k].(string)
		switch {
		case ok && exposed[wholeValues]:
			parts[i] = name + "=" + strconv.Quote(v) // a command that computes its program (computesProgram)
		case ok && (envShowsValue(k) || exposedValue(exposed, k, v)):
			s, done := shown[k]
			if !done {
				s = envValueShown(k, v)
			}
			parts[i] = name + "=" + strconv.Quote(s)
		}
	}
	return strings.Join(parts, ", ")
}

func plainEnvNameRune(r rune) bool {
	return r == '_' || r == '%' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
}

// envValueShown is v redacted for the request: a path list (a name ending
// in PATH) entry by entry as paths, anything else as a command's text.
func envValueShown(name, v string) string {
	if !strings.HasSuffix(strings.ToUpper(name), "PATH") {
		// A command a program runs (GIT_SSH_COMMAND, an exported
		// function BASH_FUNC_x%%): read as a shell command is, its
		// program and its key lines shown (the forty-fourth review).
		r := redactText(v, textMode{shell: true, keysShown: true})
		if r != v && !inertHidden(`"`+v+`"`, `"`+r+`"`) { // (the value is one word: a header's whole)
			return v // what it hides may be a path or code (SHELL="password=tools/x": redact_inert.go)
		}
		return r
	}
	entries := strings.Split(v, ":")
	for i, e := range entries {
		entries[i] = RedactPath(e)
	}
	return strings.Join(entries, ":")
}

// envShowsValue reports whether a variable's value is shown with its name,
// unless the name marks a secret: every variable a restricted mode passes
// (RestrictedEnvAllowList: PATH, HOME, GOCACHE, GOMODCACHE, VIRTUAL_ENV …,
// none of them a secret; the thirty-fifth review ran the agent's module
// cache under a GOMODCACHE shown by name), and, for a profile that passes
// more (inherit = "all"), those that choose the program a command runs,
// where it finds its configuration or what it loads: the shells' (BASH_ENV,
// exported functions BASH_FUNC_*, PS4, SHELLOPTS), the XDG, git, loader,
// compiler and build variables, and a language's path, home, options and
// start-up file; the programs others run for them (SSH_ASKPASS, MANPAGER,
// *_PAGER, BROWSER), a TLS library's configuration and trusted CAs
// (OPENSSL_CONF, SSL_CERT_FILE), the proxies a client sends through.
func envShowsValue(name string) bool {
	if secretKey(name) {
		return false
	}
	if (&EnvironmentPolicy{AllowedVars: RestrictedEnvAllowList}).EnvAllowed(name) {
		return true
	}
	n := strings.ToUpper(name)
	switch n {
	case "SHELL", "ENV", "BASH_ENV", "ZDOTDIR", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "IFS", "CDPATH",
		"EDITOR", "VISUAL", "PAGER", "LESSOPEN", "LESSCLOSE", "CC", "CXX", "CPP", "LD", "AR", "AS", "NM", "RANLIB",
		"CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "MAKEFLAGS", "MFLAGS", "PHPRC", "PERLLIB",
		"SSH_ASKPASS", "SUDO_ASKPASS", "MANPAGER", "BROWSER", "TERMINAL", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
		"SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "HTTP_PROXY",
		"HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "TMPDIR", "MAKEFILES", "ZIPOPT", "UNZIPOPT", "ZIPINFOOPT", "GZIP", "XZ_OPT", "TAR_OPTIONS",
		"RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "MANOPT", "LESS", "GREP_OPTIONS":
		return true
	}
	for _, p := range []string{"XDG_", "GIT_", "LD_", "BASH_FUNC_", "NPM_CONFIG_", "GO", "PYTHON", "PIP_", "UV_", "POETRY_",
		"CONDA_", "CARGO_", "RUSTC", "RUSTUP_", "RUSTFLAGS", "NODE_", "YARN_", "BUN_", "DENO_", "RUBY", "GEM_", "BUNDLE_",
		"PERL", "LUA_", "JAVA_", "MAVEN_", "GRADLE_", "DOTNET_", "COMPOSER_", "PKG_CONFIG"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, s := range []string{"PATH", "HOME", "_DIR", "_ENV", "_OPTIONS", "_OPTS", "_FLAGS", "_COMMAND", "_CMD", "_EDITOR", "_CONFIG", "_WRAPPER", "_PREFIX",
		"_PAGER", "_ASKPASS", "_PROXY", "_CONF", "_FILE", "_PROGRAM", "_SHELL", "_OPT", "_RSH"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}
