package domain

import (
	"slices"
	"strings"
)

// DroppedEnv returns, sorted, the names of vars (a command's requested
// environment) that do not reach the command as given: env does not let
// them through, as FilterEnv decides them (or a profile sets another
// value), or they are turnstile's own TURNSTILE_* names, which no command
// inherits.
func (env *EnvironmentPolicy) DroppedEnv(vars map[string]string) []string {
	var out []string
	for k, v := range vars {
		if strings.HasPrefix(k, "TURNSTILE_") || strings.ContainsRune(k+v, 0) || !slices.Contains(env.FilterEnv([]string{k + "=" + v}), k+"="+v) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
