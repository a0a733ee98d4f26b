package domain

import (
	"slices"
	"strings"
)

// sensitiveSegments are path elements under which values may hold secrets
// (keys, credentials, tokens). Values below them never appear in clear in
// events, audit rows or approval requests.
var sensitiveSegments = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".npmrc", ".pypirc",
	".git-credentials", ".password-store", "gcloud", ".env",
}

func sensitiveSegment(seg string) bool {
	return slices.Contains(sensitiveSegments, seg) || strings.HasPrefix(seg, ".env.")
}

// RedactPath keeps a path up to its first sensitive element and replaces the
// rest with a short hash, so a person sees where, but not what. Other paths
// are returned unchanged.
func RedactPath(p string) string {
	i := 0
	for i < len(p) {
		j := strings.IndexByte(p[i:], '/')
		end := len(p)
		if j >= 0 {
			end = i + j
		}
		if end > i && sensitiveSegment(p[i:end]) {
			return p[:end] + "/[redacted:" + hashHex([]byte(p))[:12] + "]"
		}
		if j < 0 {
			break
		}
		i = end + 1
	}
	return p
}

// RedactText redacts every path-like word of s (commands, summaries).
func RedactText(s string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	var b strings.Builder
	start := 0
	flush := func(end int) {
		word := s[start:end]
		b.WriteString(RedactPath(word))
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '"', '\'', '=', ',', '[', ']':
			flush(i)
			b.WriteByte(s[i])
			start = i + 1
		}
	}
	flush(len(s))
	return b.String()
}

// Redacted returns the scope with path-bearing values redacted. URL queries
// and environment values never enter a scope, so nothing else needs it.
func (s Scope) Redacted() Scope {
	out := make(Scope, len(s))
	for i, e := range s {
		switch e.Key {
		case "path", "paths", "cwd", "command", "argv":
			e.Value = RedactText(e.Value)
		}
		out[i] = e
	}
	return out
}

// Redacted returns the action's display parts (summary, details, files) with
// sensitive paths redacted; the scope hash is unchanged.
func (a Action) Redacted() Action {
	a.Summary = RedactText(a.Summary)
	a.Details = slices.Clone(a.Details)
	for i := range a.Details {
		a.Details[i].Value = RedactText(a.Details[i].Value)
	}
	a.Files = slices.Clone(a.Files)
	for i := range a.Files {
		a.Files[i].Path = RedactPath(a.Files[i].Path)
	}
	a.Scope = a.Scope.Redacted()
	return a
}
