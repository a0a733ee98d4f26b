package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// envDetail is the environment a request shows: each name, with its value
// (redacted as a command's text is, cut past MaxEnvironmentValue) where
// envShowsValue; other values may be secrets and are not shown.
func envDetail(keys []string, env map[string]any) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k
		if v, ok := env[k].(string); ok && envShowsValue(k) {
			shown := v
			if len(shown) > MaxEnvironmentValue {
				cut := MaxEnvironmentValue
				for cut > 0 && !utf8.RuneStart(shown[cut]) {
					cut--
				}
				shown = shown[:cut] + " … [" + strconv.Itoa(len(v)-cut) + " more bytes not shown]"
			}
			parts[i] = k + "=" + RedactText(shown)
		}
	}
	return strings.Join(parts, ", ")
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
// start-up file.
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
		"CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "MAKEFLAGS", "MFLAGS", "PHPRC", "PERLLIB":
		return true
	}
	for _, p := range []string{"XDG_", "GIT_", "LD_", "BASH_FUNC_", "NPM_CONFIG_", "GO", "PYTHON", "PIP_", "UV_", "POETRY_",
		"CONDA_", "CARGO_", "RUSTC", "RUSTUP_", "RUSTFLAGS", "NODE_", "YARN_", "BUN_", "DENO_", "RUBY", "GEM_", "BUNDLE_",
		"PERL", "LUA_", "JAVA_", "MAVEN_", "GRADLE_", "DOTNET_", "COMPOSER_", "PKG_CONFIG"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, s := range []string{"PATH", "HOME", "_DIR", "_ENV", "_OPTIONS", "_OPTS", "_FLAGS", "_COMMAND", "_CMD", "_EDITOR", "_CONFIG", "_WRAPPER", "_PREFIX"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}
