package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAttack18ConfigProgramWords: the words of the commands a config gives
// git to run that name a path, as configFileRefs keeps them (0fe00e5 and
// the commits after it): a program, a script an interpreter or a shell
// runs, an option's value that names one (ssh -oProxyCommand=…), and the
// keys of sendemail, imap, guitool and instaweb that name programs; not
// options, expansions, URLs, placeholders or a value of a key that runs
// nothing.
func TestAttack18ConfigProgramWords(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	mustDo(t, os.WriteFile(cfg, []byte(`[core]
	sshCommand = ssh -i keys/deploy -oProxyCommand=tools/proxy.sh
	editor = vim
[sendemail]
	sendmailCmd = tools/sendmail --from=$USER
[imap]
	tunnel = "sh 'tools/imap.sh'"
[guitool "x"]
	cmd = tools/gui.sh %f
[filter "f"]
	clean = cat -- https://example.com/x
[user]
	signingKey = keys/signing.pub
[tar "tgz"]
	command = tools/gzip.sh -n
[uploadpack]
	packObjectsHook = tools/pack.sh
[lfs "customtransfer.x"]
	path = tools/transfer.sh
[lfs "extension.y"]
	clean = tools/lfsclean.sh %f
`), 0o644))
	var got []string
	for _, r := range gitConfigRefs(cfg) {
		got = append(got, r.path)
	}
	for _, want := range []string{"keys/deploy", "tools/proxy.sh", "tools/sendmail", "tools/imap.sh", "tools/gui.sh",
		"tools/gzip.sh", "tools/pack.sh", "tools/transfer.sh", "tools/lfsclean.sh"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s, which git runs or hands a program, is not named: %q", want, got)
		}
	}
	for _, not := range []string{"vim", "keys/signing.pub", "https://example.com/x", "%f"} {
		if slices.Contains(got, not) {
			t.Errorf("control: %s is named: %q", not, got)
		}
	}
}
