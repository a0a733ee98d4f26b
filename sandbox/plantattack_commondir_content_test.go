package sandbox

import (
	"strings"
	"testing"
)

// TestAttackPlantCommondirContent: git takes the commondir file's content
// up to a NUL, trims only a trailing \n and \r, and reads a file of any
// size; the check trims all white space, keeps a NUL and gives up on a file
// over 4096 bytes. Whenever the check's reading names no directory it can
// open, it checks the git dir as one without a common dir, while git takes
// the config and hooks of the hostile common dir.
func TestAttackPlantCommondirContent(t *testing.T) {
	long := strings.Repeat("./", 2100) + "../common"
	for _, c := range []struct{ name, dir, content string }{
		{"trailing-space", "common ", `../common \n`},
		{"trailing-tab", "common\t", `../common\t\n`},
		{"nul", "common", `../common\0junk\n`},
		{"over-4096", "common", long + `\n`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
				"sha=$("+agentGit+"-C real rev-parse HEAD) && mkdir -p x/wt sub && mv real/.git \"x/"+c.dir+"\" && rmdir real && "+
				"mv \"x/"+c.dir+"/HEAD\" x/wt/HEAD && mkdir -p x/common && "+
				"printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' >> \"x/"+c.dir+"/config\" && "+
				"printf '"+c.content+"' > x/wt/commondir && "+
				"echo 'gitdir: ../x/wt' > sub/.git && "+
				agentGit+"update-index --add --cacheinfo 160000,$sha,sub && echo ok")
			attackReport(t, "plant", r)
			if r.ExitCode != 0 {
				t.Fatalf("the plant failed")
			}
			attackHostStatus(t, f, f.ws)
		})
	}
}
