package entry

// The system calls and the one flag whose numbers differ by architecture.
const (
	supported     = true
	sysOpenat     = 257
	sysClose      = 3
	sysReadlinkat = 267
	sysStatx      = 332
	sysGeteuid    = 107
	sysExecve     = 59
	sysNofollow   = 0o400000
)
