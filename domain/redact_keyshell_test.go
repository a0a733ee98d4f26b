package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// shownExec is what an exec_command's request shows (summary, details and
// the scope as recorded), args being its arguments.
func shownExec(t *testing.T, args map[string]any) string {
	t.Helper()
	raw, _ := json.Marshal(args)
	a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := a.Redacted()
	var b strings.Builder
	b.WriteString(r.Summary)
	for _, d := range r.Details {
		b.WriteString("\n" + d.Label + ": " + d.Value)
	}
	for _, e := range r.Scope {
		b.WriteString("\n" + e.Key + "=" + e.Value)
	}
	return b.String()
}

// TestShellCommandShowsKeyLines: a line after a key's marker in a shell
// command may be one the shell runs (a program by a relative path, a
// name of 40 bytes), whatever the marker's place: on a line of its own,
// in a quote closed on its line, after a here-document already ended,
// after a "<<" in a comment or an arithmetic shift, or in a shell's -c
// script given as an argv. Three reviews broke a lexer that told a key's
// data from code, and a shell command now shows its key blocks whole.
// Controls: the same keys, in a here-document, a quote over lines, a
// JSON string's escapes, are hidden by the key reader on a text of no
// known kind (a tool's arguments), and a command's token of a known shape
// stays hidden.
func TestShellCommandShowsKeyLines(t *testing.T) {
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const l2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	const prog = "tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace"
	const begin, end = "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"own line", map[string]any{"cmd": begin + "\n" + prog + "\ngit status"}},
		{"quote closed on its line", map[string]any{"cmd": ": '" + begin + "'\n" + prog + "\ngit status"}},
		{"ansi-c quote closed", map[string]any{"cmd": "x=$'" + begin + "'\n" + prog}},
		{"document ended", map[string]any{"cmd": "cat <<EOF\nx\nEOF\n" + begin + "\n" + prog}},
		{"tab-stripped end", map[string]any{"cmd": "cat <<-EOF\n\t" + begin + "\n\tEOF\n" + begin + "\n" + prog}},
		{"<< in a comment", map[string]any{"cmd": "# cat <<EOF\n" + begin + "\n" + prog}},
		{"arithmetic shift", map[string]any{"cmd": "echo $((1<<EOF))\n" + begin + "\n" + prog}},
		{"substitution in double quotes", map[string]any{"cmd": "echo \"$(echo \")\"\n" + begin + "\n" + prog + "\necho \"\""}},
		{"-c script in an argv", map[string]any{"argv": []string{"bash", "-c", "# " + begin + "\n" + prog}}},
		{"-c script after options", map[string]any{"argv": []string{"/bin/bash", "-o", "pipefail", "-ec", begin + "\n" + prog}}},
	} {
		if s := shownExec(t, c.args); !strings.Contains(s, prog) {
			t.Errorf("%s: the program the shell runs is hidden:\n%s", c.name, s)
		}
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"here-document", map[string]any{"cmd": "cat > k.pem <<'EOF'\n" + begin + "\n" + l1 + "\n" + l2 + "\n" + end + "\nEOF\nchmod 600 k.pem"}},
		{"quote over lines", map[string]any{"cmd": "printf '%s\\n' '" + begin + "\n" + l1 + "\n" + l2 + "\n" + end + "' > k.pem"}},
		{"double quotes", map[string]any{"cmd": "KEY=\"" + begin + "\n" + l1 + "\n" + l2 + "\n" + end + "\" ./deploy.sh"}},
		{"JSON escapes", map[string]any{"cmd": `curl -d '{"key":"` + begin + `\n` + l1 + `\n` + l2 + `\n` + end + `\n"}' https://vault.example/v1/k`}},
		{"-c script's document", map[string]any{"argv": []string{"bash", "-c", "cat > k <<EOF\n" + begin + "\n" + l1 + "\n" + l2 + "\n" + end + "\nEOF"}}},
		{"argv", map[string]any{"argv": []string{"ssh-add", "-", begin + "\n" + l1 + "\n" + l2 + "\n" + end}}},
	} {
		cmd, _ := c.args["cmd"].(string)
		if argv, ok := c.args["argv"].([]string); ok {
			cmd = argv[len(argv)-1]
		}
		if s := keyReaderShown(t, cmd); strings.Contains(s, l1) || strings.Contains(s, l2) {
			t.Errorf("control %s: the key reader shows a key's line:\n%s", c.name, s)
		}
		if s := shownExec(t, c.args); !strings.Contains(s, l1) {
			t.Errorf("%s: a command's key line is hidden:\n%s", c.name, s)
		}
	}
	if s := shownExec(t, map[string]any{"cmd": "GH_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345 gh repo list"}); strings.Contains(s, "ghp_0123") {
		t.Errorf("control: a token of a known shape is shown:\n%s", s)
	}
}
