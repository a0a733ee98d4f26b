package domain

import (
	"path"
	"strings"
)

// DefaultSearchPath is where a bare command name is looked up when the
// server's environment gives the turn no usable PATH.
const DefaultSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// SearchPath is the policy's search path for a bare command name (argv[0]
// without a slash), resolved at decision time: the server's PATH when the
// snapshot's environment policy passes it, else DefaultSearchPath. Relative
// entries ("", ".", "bin") are dropped, so a bare name never resolves in the
// working directory. The request's own PATH never counts: it reaches the
// command's environment, not the choice of the executable that was approved.
func SearchPath(env *EnvironmentPolicy, serverPATH string) []string {
	p := DefaultSearchPath
	if serverPATH != "" && env.EnvAllowed("PATH") {
		p = serverPATH
	}
	var out []string
	for dir := range strings.SplitSeq(p, ":") {
		if path.IsAbs(dir) {
			out = append(out, path.Clean(dir))
		}
	}
	return out
}
