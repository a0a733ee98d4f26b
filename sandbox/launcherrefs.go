package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"turnstile/domain"
)

// The launcher and toolchain files (readAtAnyDepth) are read-only because
// the person's next tool there runs what they name; what they name may lie
// in the writable root too (Yarn Berry's own layout: .yarnrc.yml
// "yarnPath: .yarn/releases/yarn-4.5.0.cjs"; .NET's global.json
// "sdk": {"paths": [".dotnet", "$host$"]}), and a command or a file tool
// that rewrote it would have the person's next yarn or dotnet run its code
// (the hundred-and-thirty-ninth review). So, as for the programs a git
// config names (configRefs), discovery keeps read-only what each such file
// the view keeps read-only names, where it lies in a writable root: an
// existing file or directory is a carve-out, a missing one is watched
// (missingRefs: set aside when a command makes it, refused to a write
// decision).

// maxLauncherFileSize bounds what is read of one launcher file.
const maxLauncherFileSize = 256 << 10

// launcherRefsOf returns the paths, as written, that the launcher file
// item (an entry of readAtAnyDepth, with data its contents) names for a
// host program to run, load or take a toolchain from. It over-approximates
// where the formats are loose: a path kept read-only that is not one
// costs an agent a write, a path missed costs the person a program run.
func launcherRefsOf(item string, data []byte) []string {
	switch item {
	case ".yarnrc.yml":
		return yarnrcYMLRefs(data)
	case ".yarnrc":
		return keyedLineRefs(data, " ", "yarn-path")
	case "global.json":
		return globalJSONRefs(data)
	case ".tool-versions":
		return toolVersionsRefs(data)
	case "rust-toolchain", "rust-toolchain.toml":
		var f struct{ Toolchain struct{ Path string } }
		if toml.Unmarshal(data, &f) == nil && f.Toolchain.Path != "" {
			return []string{f.Toolchain.Path}
		}
	case ".cargo/config", ".cargo/config.toml":
		return cargoConfigRefs(data)
	case "bunfig.toml":
		return bunfigRefs(data)
	case ".Renviron":
		return keyedLineRefs(data, "=", "R_PROFILE_USER", "R_PROFILE")
	case ".mvn/jvm.config", ".mvn/maven.config", ".jvmopts", ".sbtopts":
		return jvmOptionRefs(data)
	}
	return nil
}

// yarnrcYMLRefs: yarnPath (the release node runs for every yarn command)
// and each plugin's path (loaded by every yarn command), in block style or
// as a plugin given by its path alone.
func yarnrcYMLRefs(data []byte) []string {
	var out []string
	inPlugins := false
	for line := range lines(data) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		top := !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "-")
		s := strings.TrimSpace(line)
		if top {
			inPlugins = strings.HasPrefix(s, "plugins:")
		}
		item := strings.HasPrefix(s, "- ")
		s = strings.TrimSpace(strings.TrimPrefix(s, "- "))
		k, v, ok := strings.Cut(s, ":")
		switch {
		case ok && (strings.Trim(k, `"'`) == "yarnPath" || inPlugins && strings.Trim(k, `"'`) == "path"):
			out = append(out, yamlScalar(v))
		case inPlugins && item && !ok:
			out = append(out, yamlScalar(s))
		}
	}
	return out
}

// yamlScalar is a plain or quoted YAML scalar, its comment removed.
func yamlScalar(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 1 && (v[0] == '"' || v[0] == '\'') {
		if i := strings.IndexByte(v[1:], v[0]); i >= 0 {
			return v[1 : i+1]
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// keyedLineRefs: the value of each line "key<sep>value" for one of keys
// (yarn 1's `yarn-path "x"`, R's `R_PROFILE_USER=x`), quotes removed.
func keyedLineRefs(data []byte, sep string, keys ...string) []string {
	var out []string
	for line := range lines(data) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), sep)
		if !ok || !slices.Contains(keys, strings.Trim(strings.TrimSpace(k), `"'`)) {
			continue
		}
		out = append(out, strings.Trim(strings.TrimSpace(v), `"'`))
	}
	return out
}

var (
	jsonPaths   = regexp.MustCompile(`(?s)"paths"\s*:\s*\[([^\]]*)\]`)
	jsonStrings = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// globalJSONRefs: sdk.paths, where the dotnet host looks for its SDK
// ("$host$" is the host's own). The file may hold comments, which the
// host accepts and encoding/json does not: the "paths" arrays are taken
// wherever they are as well.
func globalJSONRefs(data []byte) []string {
	var out []string
	var f struct{ Sdk struct{ Paths []string } }
	if json.Unmarshal(data, &f) == nil {
		out = append(out, f.Sdk.Paths...)
	}
	for _, m := range jsonPaths.FindAllSubmatch(data, -1) {
		for _, s := range jsonStrings.FindAllSubmatch(m[1], -1) {
			var v string
			if json.Unmarshal(s[0], &v) == nil {
				out = append(out, v)
			}
		}
	}
	var uniq []string
	for _, p := range out {
		if p != "$host$" && !slices.Contains(uniq, p) {
			uniq = append(uniq, p)
		}
	}
	return uniq
}

// toolVersionsRefs: each version written "path:DIR" (asdf and mise run
// DIR/bin's programs).
func toolVersionsRefs(data []byte) []string {
	var out []string
	for line := range lines(data) {
		line, _, _ = strings.Cut(line, "#")
		for _, f := range strings.Fields(line) {
			if p, ok := strings.CutPrefix(f, "path:"); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// cargoConfigRefs: the programs every cargo build there runs: build.rustc,
// rustc-wrapper, rustc-workspace-wrapper and rustdoc, each target's (and
// the host's) linker and runner, and the credential providers. A program
// named without a "/" is looked up in PATH.
func cargoConfigRefs(data []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	program := func(v any) {
		switch v := v.(type) {
		case string:
			if f := strings.Fields(v); len(f) > 0 {
				out = append(out, f[0])
			}
		case []any:
			if len(v) > 0 {
				if s, ok := v[0].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	table := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	build := table(doc["build"])
	for _, k := range []string{"rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc"} {
		program(build[k])
	}
	for _, t := range []map[string]any{table(doc["target"]), table(doc["host"])} {
		for _, v := range t {
			if m := table(v); m != nil {
				program(m["linker"])
				program(m["runner"])
			}
		}
	}
	program(table(doc["host"])["linker"])
	reg := table(doc["registry"])
	program(reg["credential-provider"])
	if ps, ok := reg["global-credential-providers"].([]any); ok {
		for _, p := range ps {
			program(p)
		}
	}
	for _, r := range table(doc["registries"]) {
		program(table(r)["credential-provider"])
	}
	return slices.DeleteFunc(out, func(p string) bool { return !strings.Contains(p, "/") })
}

// bunfigRefs: the scripts bun preloads (top level and for bun test) and
// its plugins, where given by path (a bare name is a package).
func bunfigRefs(data []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	add := func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	add(doc["preload"])
	add(doc["plugins"])
	for _, k := range []string{"test", "run"} {
		if m, ok := doc[k].(map[string]any); ok {
			add(m["preload"])
			add(m["plugins"])
		}
	}
	if m, ok := doc["serve"].(map[string]any); ok {
		if s, ok := m["static"].(map[string]any); ok {
			add(s["plugins"])
		}
	}
	return slices.DeleteFunc(out, func(p string) bool {
		return !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") && !strings.HasPrefix(p, "/")
	})
}

// jvmOptionRefs: what the JVM options (Maven's, sbt's) load or run: an
// agent (-javaagent:, -agentpath:), an extension or boot class path
// (-Dmaven.ext.class.path=, -Xbootclasspath/a:), the program an error
// runs (-XX:OnOutOfMemoryError=, -XX:OnError=), and sbt's launcher jar
// and Java home (-sbt-jar, -java-home). sbt passes -J-prefixed options
// to the JVM.
func jvmOptionRefs(data []byte) []string {
	var out []string
	var fields []string
	for line := range lines(data) {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		fields = append(fields, strings.Fields(line)...)
	}
	for i, f := range fields {
		f = strings.Trim(strings.TrimPrefix(f, "-J"), `"'`)
		if (f == "-sbt-jar" || f == "-java-home") && i+1 < len(fields) {
			out = append(out, strings.Trim(fields[i+1], `"'`))
		}
		for _, pre := range []string{"-javaagent:", "-agentpath:"} {
			if v, ok := strings.CutPrefix(f, pre); ok {
				v, _, _ = strings.Cut(v, "=")
				out = append(out, v)
			}
		}
		for _, pre := range []string{"-Dmaven.ext.class.path=", "-Xbootclasspath/a:", "-Xbootclasspath/p:", "-Xbootclasspath:"} {
			if v, ok := strings.CutPrefix(f, pre); ok {
				out = append(out, strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' })...)
			}
		}
		for _, pre := range []string{"-XX:OnOutOfMemoryError=", "-XX:OnError="} {
			if v, ok := strings.CutPrefix(f, pre); ok && v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// lines yields data's lines.
func lines(data []byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 4096), maxLauncherFileSize)
		for sc.Scan() {
			if !yield(sc.Text()) {
				return
			}
		}
	}
}

// protectLauncherRefs keeps read-only what each launcher file among the
// view's read-only carve-outs names (launcherRefsOf), where it lies in a
// writable root; a missing one is watched (missingRefs). Relative paths
// are taken from the directory holding the item's first name (the
// project's: a .cargo/config.toml's from the directory holding .cargo,
// where cargo takes them from).
func (d *discovery) protectLauncherRefs() {
	carves := slices.Clone(d.v.carves)
	for _, c := range carves {
		if c.Kind != domain.PathProtected || c.Access != domain.AccessRead {
			continue
		}
		lexical := c.Path
		if c.From != "" {
			lexical = domain.CleanPath(c.From)
		}
		item, base, ok := anyDepthItem(lexical)
		if !ok {
			continue
		}
		data, ok := readLauncherFile(c.Path)
		if !ok {
			continue
		}
		for _, ref := range launcherRefsOf(item, data) {
			d.launcherRef(base, ref)
		}
	}
}

// readLauncherFile reads the regular file p, at most maxLauncherFileSize.
func readLauncherFile(p string) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxLauncherFileSize))
	return data, err == nil
}

// launcherRef keeps the path ref (as a launcher file in base wrote it)
// read-only, or watches it when missing, where it lies in a writable root.
func (d *discovery) launcherRef(base, ref string) {
	p := strings.TrimSpace(ref)
	if p == "" || strings.ContainsRune(p, 0) {
		return
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return
		}
		p = home + p[1:]
	} else if strings.HasPrefix(p, "~") || strings.Contains(p, "$") {
		return // another user's home; a variable the tool expands
	}
	if !strings.HasPrefix(p, "/") {
		p = base + "/" + p
	}
	if way, ok := d.dotDotWay(p); ok {
		p = way
	} else {
		p = domain.CleanPath(p)
	}
	c, exists, ok, err := canonicalPath(p)
	if err != nil || !ok {
		return
	}
	if c != p && d.writable(p) {
		d.v.linkRefs = append(d.v.linkRefs, [2]string{p, c})
	}
	if !d.writable(c) {
		return
	}
	if !exists {
		if !slices.Contains(d.v.missingRefs, c) {
			d.v.missingRefs = append(d.v.missingRefs, c)
		}
		return
	}
	d.addCarve(c, pathKindGitFile)
}
