//go:build !amd64 && !arm64

package sandbox

// nativeSeccompArch: no filter is defined for this architecture, so the
// probe reports seccomp as unavailable (and restricted snapshots fail
// closed).
func nativeSeccompArch() (seccompArch, bool) { return seccompArch{}, false }
