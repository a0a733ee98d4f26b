// Package testtimeout raises the go command's default test timeout for the
// packages whose tests run real commands under the kernel sandbox and real
// servers: the sandbox and end-to-end packages take 7–9 minutes on two
// cores when `go test ./...` runs them side by side, and the go command's
// default of 10 minutes per package left them one loaded machine from a
// timeout (a run beside another process's tests hit it).
//
// It raises only the binary's own timer: the go command kills a test
// binary at the -timeout it passed plus a minute, whatever the binary
// does (a run of the end-to-end package past 11 minutes was stopped so),
// so the README's command and .ci/run pass -timeout 30m themselves.
package testtimeout

import (
	"flag"
	"time"
)

// goDefault is the timeout the go command gives a test binary when -timeout
// is not given.
const goDefault = 10 * time.Minute

// Raise sets the test binary's timeout to d when it is the go command's
// default (a timeout given explicitly, other than 10m, is kept; 0, none, is
// kept). Call it in TestMain before m.Run.
func Raise(d time.Duration) {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.timeout")
	if f == nil {
		return
	}
	if cur, err := time.ParseDuration(f.Value.String()); err == nil && cur == goDefault {
		f.Value.Set(d.String())
	}
}
