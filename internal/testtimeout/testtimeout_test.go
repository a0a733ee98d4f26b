package testtimeout

import (
	"flag"
	"os"
	"testing"
	"time"
)

var before string

func TestMain(m *testing.M) {
	flag.Parse()
	before = flag.Lookup("test.timeout").Value.String()
	Raise(25 * time.Minute)
	os.Exit(m.Run())
}

// TestRaise: the go command's default timeout (10m) becomes the raised
// one; any other is kept (run with -timeout 3m, the value stays 3m).
func TestRaise(t *testing.T) {
	got := flag.Lookup("test.timeout").Value.String()
	if b, _ := time.ParseDuration(before); b == goDefault {
		if got != (25 * time.Minute).String() {
			t.Fatalf("the default timeout %s was not raised: %s", before, got)
		}
	} else if got != before {
		t.Fatalf("the timeout %s given was changed to %s", before, got)
	}
}
