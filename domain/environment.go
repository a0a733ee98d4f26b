package domain

import (
	"slices"
	"strings"
)

// RestrictedEnvAllowList is the environment a restricted snapshot keeps
// (REFERENCE §4). Names ending in "*" are prefixes (XDG_*).
var RestrictedEnvAllowList = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TEMP", "TMP",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME",
	"NODE_PATH", "VIRTUAL_ENV",
}

// SecretEnvPatterns are case-insensitive substrings that drop a variable
// even when it is allow-listed.
var SecretEnvPatterns = []string{
	"TOKEN", "SECRET", "PASSWORD", "API_KEY", "ACCESS_KEY", "CREDENTIAL", "DATABASE_URL", "AUTH", "COOKIE",
}

// alwaysDroppedEnv are names dropped whatever the policy says.
var alwaysDroppedEnv = []string{"SSH_AUTH_SOCK"}

// EnvAllowed reports whether a variable named name passes env.
func (env *EnvironmentPolicy) EnvAllowed(name string) bool {
	if name == "" || slices.Contains(alwaysDroppedEnv, name) {
		return false
	}
	upper := strings.ToUpper(name)
	for _, p := range env.DeniedPatterns {
		if strings.Contains(upper, strings.ToUpper(p)) {
			return false
		}
	}
	if env.Inherit {
		return true
	}
	for _, a := range env.AllowedVars {
		if a == name || (strings.HasSuffix(a, "*") && strings.HasPrefix(name, strings.TrimSuffix(a, "*"))) {
			return true
		}
	}
	return false
}

// FilterEnv returns the "NAME=value" entries of environ that env lets
// through, in their original order. Entries without "=" are dropped.
func (env *EnvironmentPolicy) FilterEnv(environ []string) []string {
	if env.Profile != nil {
		return env.Profile.Apply(environ)
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && env.EnvAllowed(name) {
			out = append(out, kv)
		}
	}
	return out
}
