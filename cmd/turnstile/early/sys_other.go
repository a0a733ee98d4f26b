//go:build !linux || !(amd64 || arm64)

package entry

// Elsewhere the entry does nothing: `turnstile sandbox` runs in the
// turnstile binary, after its initialisation (slower, the same sandbox).
const (
	supported     = false
	sysOpenat     = 0
	sysClose      = 0
	sysReadlinkat = 0
	sysStatx      = 0
	sysGeteuid    = 0
	sysExecve     = 0
	sysNofollow   = 0
)
