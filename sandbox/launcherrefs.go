package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// maxLauncherFileSize bounds what is read of one launcher file, and
// maxLauncherBytes of all a view reads (past it, the view refuses the
// commands: the agent can make thousands of them).
const (
	maxLauncherFileSize = 256 << 10
	maxLauncherBytes    = 16 << 20
)

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
		return yarnrcRefs(data)
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
	case ".Rprofile":
		return rSourceRefs(data)
	case ".envrc":
		return envrcRefs(data)
	}
	if slices.Contains(miseConfigs, item) {
		return miseRefs(data)
	}
	return nil
}

// miseConfigs are the protected list's mise (and rtx) config files, each
// relative to the project directory mise takes its relative paths from
// (".config/mise/config.toml" too: ".config/mise" is protected whole).
var miseConfigs = []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml",
	"mise/config.toml", "mise/config.local.toml", ".mise/config.toml", ".mise/config.local.toml",
	".config/mise.toml", ".config/mise.local.toml", ".config/mise/config.toml", ".config/mise/config.local.toml",
	".rtx.toml", ".rtx.local.toml"}

// launcherItem returns the launcher item the lexical path p ends in (one
// of readAtAnyDepth, .envrc, or a mise config) and the project directory
// its relative paths are taken from.
func launcherItem(p string) (item, base string, ok bool) {
	if item, base, ok = anyDepthItem(p); ok {
		return item, base, true
	}
	for _, n := range append([]string{".envrc"}, miseConfigs...) {
		if len(p) > len(n) && p[len(p)-len(n)-1] == '/' && domain.FoldEqual(p[len(p)-len(n):], n) {
			return n, domain.CleanPath(p[:len(p)-len(n)]), true
		}
	}
	return "", "", false
}

// rSource matches R's source("FILE") and sys.source("FILE") (renv's
// .Rprofile: source("renv/activate.R"), run at every R start).
var rSource = regexp.MustCompile(`\b(?:sys\.)?source\s*\(\s*(?:file\s*=\s*)?["']([^"']+)["']`)

func rSourceRefs(data []byte) []string {
	var out []string
	for _, m := range rSource.FindAllSubmatch(data, -1) {
		out = append(out, string(m[1]))
	}
	return uniq(out)
}

// envrcRefs: the files direnv's .envrc has the person's shell evaluate
// (source, ".", source_env, source_env_if_exists) or read into the
// environment (dotenv, dotenv_if_exists).
func envrcRefs(data []byte) []string {
	var out []string
	for line := range lines(data) {
		for _, cmd := range strings.FieldsFunc(line, func(r rune) bool { return r == ';' || r == '&' || r == '|' }) {
			f := strings.Fields(cmd)
			if len(f) < 2 || strings.HasPrefix(f[0], "#") {
				continue
			}
			switch f[0] {
			case "source", ".", "source_env", "source_env_if_exists", "dotenv", "dotenv_if_exists", "PATH_add":
				out = append(out, strings.Trim(f[1], `"'`))
			case "path_add", "MANPATH_add", "PATH_rm":
				if f[0] == "path_add" && len(f) > 2 {
					out = append(out, strings.Trim(f[2], `"'`)) // path_add VAR DIR
				}
			}
		}
	}
	return uniq(out)
}

// miseRefs: what mise runs or sources for the project: [env] _.source
// (sourced by its shell hook at every prompt), the [hooks] scripts (on
// entering and leaving the directory), and the [tools] given as
// "path:DIR" (DIR/bin first in PATH).
func miseRefs(data []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	table := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	var each func(v any, f func(string))
	each = func(v any, f func(string)) {
		switch v := v.(type) {
		case string:
			f(v)
		case []any:
			for _, e := range v {
				each(e, f)
			}
		case map[string]any:
			for _, k := range []string{"path", "script", "version"} {
				each(v[k], f)
			}
		}
	}
	underscore := table(table(doc["env"])["_"])
	for _, k := range []string{"source", "file", "path"} {
		// sourced scripts, dotenv files, directories put first in PATH
		each(underscore[k], func(s string) { out = append(out, s) })
	}
	for _, v := range table(doc["hooks"]) {
		each(v, func(s string) {
			if f := strings.Fields(s); len(f) > 0 && strings.Contains(f[0], "/") {
				out = append(out, f[0]) // (a bare name is a command from PATH)
			}
		})
	}
	for _, v := range table(doc["tools"]) {
		each(v, func(s string) {
			if p, ok := strings.CutPrefix(s, "path:"); ok {
				out = append(out, p)
			}
		})
	}
	return uniq(out)
}

// uniq is out without repeats and empty strings, in order.
func uniq(out []string) []string {
	var u []string
	for _, p := range out {
		if p != "" && !slices.Contains(u, p) {
			u = append(u, p)
		}
	}
	return u
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

// yarnrcRefs: yarn 1's yarn-path, written "yarn-path x" or, as yarn 1's
// parser also takes it, "yarn-path: x".
func yarnrcRefs(data []byte) []string {
	var out []string
	for line := range lines(data) {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) < 2 {
			continue
		}
		if k := strings.TrimSuffix(strings.Trim(f[0], `"'`), ":"); k == "yarn-path" || strings.HasSuffix(k, ".yarn-path") {
			_, v, _ := strings.Cut(strings.TrimSpace(line), f[0])
			out = append(out, strings.Trim(strings.TrimSpace(v), `"'`))
		}
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
	if json.Unmarshal(stripJSONComments(data), &f) == nil {
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
	return slices.DeleteFunc(uniq(out), func(p string) bool { return p == "$host$" })
}

// stripJSONComments blanks the // and /* */ comments of data outside its
// strings (the dotnet host reads global.json with comments allowed), and
// the commas before a closing bracket or brace.
func stripJSONComments(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(data)-1)
			out = append(out, data[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
			out = append(out, ' ')
		default:
			out = append(out, c)
		}
	}
	return trailingCommas.ReplaceAll(out, []byte("$1"))
}

var trailingCommas = regexp.MustCompile(`,(\s*[\]}])`)

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
	// A command line (runner, credential provider: its program first) or
	// a program's path alone (rustc, the wrappers, a linker: spaces are
	// the path's).
	program := func(v any, line bool) {
		switch v := v.(type) {
		case string:
			if !line {
				out = append(out, v)
			} else if f := strings.Fields(v); len(f) > 0 {
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
	// rustflags' linker (-C linker=PATH, -Clinker=PATH).
	flags := func(v any) {
		var fs []string
		switch v := v.(type) {
		case string:
			fs = strings.Fields(v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					fs = append(fs, s)
				}
			}
		}
		for _, f := range fs {
			f = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(f, "--codegen="), "--codegen"), "-C")
			if p, ok := strings.CutPrefix(f, "linker="); ok {
				out = append(out, p)
			}
			// The linker driver's -B: where cc looks for ld (mold's
			// documented set-up, link-arg=-Bpath/to/mold).
			for _, pre := range []string{"link-arg=-B", "link-args=-B"} {
				if p, ok := strings.CutPrefix(f, pre); ok {
					p, _, _ = strings.Cut(p, " ")
					out = append(out, p)
				}
			}
		}
	}
	table := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	build := table(doc["build"])
	for _, k := range []string{"rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc"} {
		program(build[k], false)
	}
	flags(build["rustflags"])
	flags(build["rustdocflags"])
	for _, t := range []map[string]any{table(doc["target"]), table(doc["host"])} {
		for _, v := range t {
			if m := table(v); m != nil {
				program(m["linker"], false)
				program(m["runner"], true)
				flags(m["rustflags"])
			}
		}
	}
	program(table(doc["host"])["linker"], false)
	reg := table(doc["registry"])
	program(reg["credential-provider"], true)
	if ps, ok := reg["global-credential-providers"].([]any); ok {
		for _, p := range ps {
			program(p, true)
		}
	}
	for _, r := range table(doc["registries"]) {
		program(table(r)["credential-provider"], true)
	}
	// [env]: what every process cargo starts gets (LD_PRELOAD = { value
	// = "tools/x.so", relative = true }); a value naming a path.
	for _, v := range table(doc["env"]) {
		if m := table(v); m != nil {
			v = m["value"]
		}
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
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
		next := ""
		if i+1 < len(fields) {
			next = strings.Trim(strings.TrimPrefix(fields[i+1], "-J"), `"'`)
		}
		switch f {
		case "-sbt-jar", "-java-home", "-sbt-boot", "-sbt-dir", "-ivy", "--patch-module", "-XX:VMOptionsFile":
			out = append(out, next)
			if f == "--patch-module" {
				_, v, _ := strings.Cut(next, "=")
				out = append(out, strings.Split(v, ":")...)
			}
		}
		if p, ok := strings.CutPrefix(f, "@"); ok {
			out = append(out, p) // an argument file: more options
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
		for _, pre := range []string{"-XX:OnOutOfMemoryError=", "-XX:OnError=", "-XX:VMOptionsFile=", "-XX:Flags=",
			"-Dsbt.boot.directory=", "-Dsbt.global.base=", "-Dsbt.ivy.home=", "-Dsbt.boot.properties="} {
			if v, ok := strings.CutPrefix(f, pre); ok && v != "" {
				out = append(out, v)
			}
		}
		if v, ok := strings.CutPrefix(f, "--patch-module="); ok {
			_, v, _ = strings.Cut(v, "=")
			out = append(out, strings.Split(v, ":")...)
		}
	}
	return uniq(out)
}

// lines yields data's lines, ended by LF, CRLF or a lone CR (yarn 1's
// parser ends a line at either).
func lines(data []byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(data) > 0 {
			i := bytes.IndexAny(data, "\r\n")
			if i < 0 {
				yield(string(data))
				return
			}
			if !yield(string(data[:i])) {
				return
			}
			if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			data = data[i+1:]
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
	type file struct{ path, lexical string }
	var files []file
	for _, c := range d.v.carves {
		if c.Kind != domain.PathProtected || c.Access != domain.AccessRead {
			continue
		}
		lexical := c.Path
		if c.From != "" {
			lexical = domain.CleanPath(c.From)
		}
		files = append(files, file{c.Path, lexical})
	}
	// And those the walk found deeper (sub/.yarnrc.yml: the person's
	// yarn in sub runs its yarnPath; the file itself is set aside after
	// a command that changed it, plantagent.go): the hundred-and-fortieth
	// review.
	for _, p := range d.v.launchers {
		if d.writable(p) {
			files = append(files, file{p, p})
		}
	}
	seen := map[string]bool{}
	budget := maxLauncherBytes
	for _, f := range files {
		item, base, ok := launcherItem(f.lexical)
		if !ok || seen[f.lexical] {
			continue
		}
		seen[f.lexical] = true
		data, ok := readLauncherFile(f.path)
		if !ok {
			continue
		}
		if budget -= len(data); budget < 0 {
			if d.v.overflow == "" {
				d.v.overflow = fmt.Sprintf("the launcher and toolchain files in the writable roots hold more than %d bytes: what they name cannot all be read", maxLauncherBytes)
			}
			return
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
	p := expandLauncherVars(strings.TrimSpace(ref), base)
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
	if slices.Contains(splitPath(p), "node_modules") {
		// What a package manager installs (node_modules/.bin, put in
		// PATH by direnv's layout node) is rewritten by every install:
		// kept read-only it would break them, and the packages around
		// it are the command's anyway (as configRefs).
		return
	}
	if way, ok := d.dotDotWay(p); ok {
		// Where the kernel's ".." leads, and where the lexical one does
		// (yarn and node resolve paths as text: tools/../x is x even
		// where tools is a symlink).
		d.launcherPath(way)
	}
	d.launcherPath(domain.CleanPath(p))
}

// launcherPath keeps the clean absolute path p read-only, or watches it
// when missing, where it lies in a writable root.
func (d *discovery) launcherPath(p string) {
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
	if !slices.Contains(d.v.launcherTargets, c) {
		d.v.launcherTargets = append(d.v.launcherTargets, c)
	}
}

// launcherVar matches a shell-style variable: ${NAME}, ${NAME:-default},
// ${NAME-default} (yarn's and Maven's forms).
var launcherVar = regexp.MustCompile(`\$\{([A-Za-z0-9_.]+)(:?-([^}]*))?\}`)

// expandLauncherVars replaces in p each variable with a default by the
// default (the tool uses it where the variable is unset, as it is for
// the person's next run as far as this process can tell), and Maven's
// names for the project's directory by base; others stay (the caller
// skips a path that holds one).
func expandLauncherVars(p, base string) string {
	return launcherVar.ReplaceAllStringFunc(p, func(m string) string {
		sub := launcherVar.FindStringSubmatch(m)
		switch {
		case sub[2] != "":
			return sub[3]
		case slices.Contains([]string{"MAVEN_PROJECTBASEDIR", "maven.multiModuleProjectDirectory", "session.rootDirectory", "project.basedir", "basedir"}, sub[1]):
			return base
		}
		return m
	})
}
