package sandbox

import (
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSecretsShownElsewhere: a file bound onto a path inside the data
// directory (a token bound from /etc) is reachable at its source too,
// which the server then denies to every turn as it denies the data
// directory (review 174). Control: before the bind, the source is not
// listed.
func TestSecretsShownElsewhere(t *testing.T) {
	requireKernel(t, true)
	dir := t.TempDir()
	data, src := dir+"/data", dir+"/etc-turnstile/admin-token"
	mustDo(t, os.MkdirAll(data, 0o700))
	mustDo(t, os.MkdirAll(dir+"/etc-turnstile", 0o700))
	mustDo(t, os.WriteFile(src, []byte("secret\n"), 0o600))
	mustDo(t, os.WriteFile(data+"/token", nil, 0o600))
	if got := SecretsShownElsewhere([]string{data}); slices.Contains(got, src) {
		t.Fatalf("control: %s listed before it is bound into the data directory: %v", src, got)
	}
	mustDo(t, unix.Mount(src, data+"/token", "", unix.MS_BIND, ""))
	t.Cleanup(func() { _ = unix.Unmount(data+"/token", unix.MNT_DETACH) })
	if got := SecretsShownElsewhere([]string{data}); !slices.Contains(got, src) {
		t.Errorf("the file bound onto %s/token is not listed where it comes from (%s): %v", data, src, got)
	}
}
