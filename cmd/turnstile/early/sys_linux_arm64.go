package entry

// The system calls and the one flag whose numbers differ by architecture.
const (
	supported     = true
	sysOpenat     = 56
	sysClose      = 57
	sysReadlinkat = 78
	sysStatx      = 291
	sysGeteuid    = 175
	sysExecve     = 221
	sysNofollow   = 0o100000
)
