package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack120_GlobDenyPlantedLink (hundred-and-twentieth review): a
// profile's glob deny ("**/*.env" = deny) inside the writable workspace. A
// command plants the name a person's secret will be written to (prod.env)
// as a symlink to (or a hard link of) a file of its own, leak.txt, before
// the person writes it. The check after the command sets aside such a
// planted name for a literal deny entry (plantedLink: the seventy-third
// and eightieth reviews), not for a glob's match: the name stays. The
// person's tooling writes the key to prod.env (through the link, or in
// place); at the next command's spawn prod.env is masked as the glob says,
// but the key is in leak.txt, which no rule denies, and the command reads
// it. The decisions allow leak.txt (and, through the symlink, prod.env).
// The same with a directory glob ("**/private" = deny): the command makes
// private/ and links leak.txt in as private/key.
//
// Control: the same key written by the person to a prod.env the command
// did not plant stays masked (and leak.txt does not hold it).
func TestAttack120_GlobDenyPlantedLink(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, how := range []string{"symlink", "hardlink", "dir"} {
		t.Run(how, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"README": "x\n"})
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny, "**/private": domain.AccessDeny, ws + "/literal.key": domain.AccessDeny})
			const key = "AKIA-PERSONS-SECRET-120"

			// Control: the person's own prod.env, no plant.
			if err := os.WriteFile(ws+"/honest.env", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := sh(t, &s, `cat honest.env; echo ---`)
			if strings.Contains(string(r.Stdout), key) {
				t.Fatalf("control: the person's own .env was read: %q", r.Stdout)
			}
			if err := os.Remove(ws + "/honest.env"); err != nil {
				t.Fatal(err)
			}

			// Control: the same plant at a literal deny entry does not
			// stay (held, or set aside after the command).
			lit := `echo notes > lit.txt; ln -s lit.txt literal.key; ln lit.txt literal.key; true`
			r = sh(t, &s, lit)
			if fi, err := os.Lstat(ws + "/literal.key"); err == nil && (fi.Mode()&os.ModeSymlink != 0 || fi.Mode().IsRegular()) {
				t.Fatalf("control: a link planted at a literal deny entry stayed: %v (stderr %q)", fi.Mode(), r.Stderr)
			}

			// The plant.
			plant := `echo notes > leak.txt && ln -s leak.txt prod.env && echo PLANTED`
			target := "/prod.env"
			switch how {
			case "hardlink":
				plant = `echo notes > leak.txt && ln leak.txt prod.env && echo PLANTED`
			case "dir": // "**/private" = deny: a directory of its own, a file linked in it
				plant = `echo notes > leak.txt && mkdir private && ln leak.txt private/key && echo PLANTED`
				target = "/private/key"
			}
			r = sh(t, &s, plant)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: the command could not make prod.env: %s", r.Stderr)
			}
			// The person writes the key where the profile denies it (as a
			// shell's > or an editor does: open, truncate, write).
			// (Its directory made if missing, as a person's tools do: the
			// fix sets the planted directory aside.)
			if err := os.MkdirAll(filepath.Dir(ws+target), 0o700); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(ws+target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(key + "\n")
			f.Close()

			r = sh(t, &s, `cat .`+target+`; echo ---; cat leak.txt`)
			t.Logf("read: exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); how != "symlink" && strings.Contains(before, key) {
				t.Fatalf("premise: prod.env itself was not masked: %q", r.Stdout)
			}
			// The decisions: prod.env refused where it is a file of its
			// own (the rule applies), leak.txt allowed.
			if _, err := (DecisionChecker{}).ResolveFile(&s, ws+"/leak.txt", domain.AccessRead, false); err != nil {
				t.Logf("decision: reading leak.txt refused: %v", err)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("a command read the person's key written to %s (denied by a glob rule) through the %s link it planted there earlier (leak.txt): %q", target[1:], how, r.Stdout)
			}
		})
	}
}
