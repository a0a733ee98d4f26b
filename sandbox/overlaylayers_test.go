package sandbox

import (
	"slices"
	"testing"
)

// TestOverlayLayers: the layers an overlay's mountinfo options name, in
// the forms kernels write them (lowerdir with ":" between layers and "\:"
// in a name, "::" before data-only layers, lowerdir+= and datadir+= one
// a layer, octal escapes of blanks and commas); relative or empty names
// are left out.
func TestOverlayLayers(t *testing.T) {
	for _, tc := range []struct {
		opts string
		want []string
	}{
		{`rw,lowerdir=/l1:/l2,upperdir=/media/root-rw/overlay,workdir=/media/root-rw/overlay-workdir/_`, []string{"/l1", "/l2", "/media/root-rw/overlay"}},
		{`rw,lowerdir=/a\134:b::/data,upperdir=/u\040x,workdir=/w`, []string{"/a:b", "/data", "/u x"}},
		{`rw,lowerdir+=/l1,lowerdir+=/l\054c,datadir+=/d,upperdir=/u,workdir=/w`, []string{"/l1", "/l,c", "/d", "/u"}},
		{`rw,lowerdir=rel:/abs`, []string{"/abs"}},
		{`rw,relatime`, nil},
	} {
		if got := overlayLayers(tc.opts); !slices.Equal(got, tc.want) {
			t.Errorf("overlayLayers(%q) = %q, want %q", tc.opts, got, tc.want)
		}
	}
}
