package sandbox

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"turnstile/domain"

	"mvdan.cc/sh/v3/syntax"
)

// Directory modules.
//
// An interpreter given a directory runs the module the directory is:
// node (and tsx, ts-node) its package.json's "main", resolved against the
// directory (and wherever that leads, outside it too), or its index.js;
// python its __main__.py. A directory a launcher file runs by a name
// below its own directory is kept read-only whole (launcherRef), but
// package.json's main may lie outside it (review 182: "../boot/start.js"
// left writable), and `node .` runs the launcher file's own directory,
// the person's project, which cannot be kept whole: its package.json, its
// main and its index files are kept instead, watched where missing (so
// that a command cannot make one), and the rest stays writable.

// moduleRunners are the node interpreters whose argument "." (or "..") runs
// the directory as a module.
var moduleRunners = []string{"node", "nodejs", "tsx", "ts-node"}

// moduleRunner reports whether the word w names one of moduleRunners or a
// python (pythonName: python3.12, pypy3 too).
func moduleRunner(w string) bool {
	return slices.Contains(moduleRunners, path.Base(w)) || pythonName(w)
}

// scriptArgsOf returns the words of args (vals their first values, "" for
// an expansion) an interpreter may run: its first that is no option, the
// values of the options that take one skipped (nil when it evaluates a
// string or runs a module by name: -e, -p, -c, -m). An option this list
// does not know may take the next word as its value or not, by
// interpreter and release (node --inspect-port 9229 .: review 190), so
// the first word that is no option is found both ways.
// Python's options are read by pythonArgs (clusters such as -bW error:
// review 192).
func scriptArgsOf(prog string, args []*syntax.Word, vals []string) []*syntax.Word {
	if pythonName(prog) {
		if r := pythonArgs(vals[:min(len(vals), len(args))]); r.hasScript {
			return []*syntax.Word{args[r.scriptAt]}
		}
		return nil
	}
	var out []*syntax.Word
	for _, greedy := range []bool{false, true} {
		if a := scriptArg(args, vals, greedy); a != nil && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// valueOptions are the options of node (20's `node --help`: those written
// with "=..."), tsx/ts-node and python (-W, -X, --check-hash-based-pycs,
// 2's -Q: for a function the .envrc defines that runs python; python
// itself is read by pythonArgs) whose value may be the next word.
var valueOptions = []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions",
	"--env-file", "--env-file-if-exists", "--input-type", "--title", "--allow-fs-read", "--allow-fs-write",
	"--build-snapshot-config", "--cpu-prof-dir", "--cpu-prof-interval", "--cpu-prof-name", "--diagnostic-dir",
	"--disable-proto", "--disable-warning", "--dns-result-order", "--experimental-default-type", "--experimental-policy",
	"--experimental-sea-config", "--heap-prof-dir", "--heap-prof-interval", "--heap-prof-name",
	"--heapsnapshot-near-heap-limit", "--heapsnapshot-signal", "--icu-data-dir", "--inspect-port", "--debug-port",
	"--inspect-publish-uid", "--max-http-header-size", "--network-family-autoselection-attempt-timeout",
	"--openssl-config", "--policy-integrity", "--redirect-warnings", "--report-dir", "--report-directory",
	"--report-filename", "--report-signal", "--secure-heap", "--secure-heap-min", "--snapshot-blob",
	"--test-concurrency", "--test-name-pattern", "--test-reporter", "--test-reporter-destination", "--test-shard",
	"--test-timeout", "--tls-cipher-list", "--tls-keylog", "--trace-event-categories", "--trace-event-file-pattern",
	"--trace-require-module", "--unhandled-rejections", "--use-largepages", "--v8-pool-size", "--watch-path",
	"--localstorage-file", "--tsconfig", "--project", "--compiler", "-W", "-X", "-Q", "--check-hash-based-pycs"}

// flagOptions are node's options that take no value (20's `node --help`,
// those written without "=...", and --inspect's forms, whose value is
// given with "=" only; every --no-… is one too) and ts-node's: scriptArg
// reads no value after them either way.
var flagOptions = []string{"--abort-on-uncaught-exception", "--allow-addons", "--allow-child-process", "--allow-wasi",
	"--allow-worker", "--build-snapshot", "--check", "--completion-bash", "--cpu-prof", "--disable-wasm-trap-handler",
	"--disallow-code-generation-from-strings", "--enable-etw-stack-walking", "--enable-fips",
	"--enable-network-family-autoselection", "--enable-source-maps", "--experimental-eventsource",
	"--experimental-import-meta-resolve", "--experimental-network-imports", "--experimental-network-inspection",
	"--experimental-permission", "--experimental-print-required-tla", "--experimental-require-module",
	"--experimental-test-coverage", "--experimental-test-module-mocks", "--experimental-vm-modules",
	"--experimental-wasm-modules", "--experimental-websocket", "--experimental-strip-types",
	"--experimental-transform-types", "--expose-gc", "--force-context-aware", "--force-fips",
	"--force-node-api-uncaught-exceptions-policy", "--frozen-intrinsics", "--heap-prof", "--help",
	"--huge-max-old-generation-size", "--insecure-http-parser", "--interactive", "--interpreted-frames-native-stack",
	"--jitless", "--node-memory-debug", "--openssl-legacy-provider", "--openssl-shared-config", "--pending-deprecation",
	"--preserve-symlinks", "--preserve-symlinks-main", "--prof", "--prof-process", "--report-compact",
	"--report-exclude-network", "--report-on-fatalerror", "--report-on-signal", "--report-uncaught-exception", "--test",
	"--test-force-exit", "--test-only", "--throw-deprecation", "--trace-atomics-wait", "--trace-deprecation",
	"--trace-exit", "--trace-promises", "--trace-sigint", "--trace-sync-io", "--trace-tls", "--trace-uncaught",
	"--trace-warnings", "--track-heap-objects", "--use-bundled-ca", "--use-openssl-ca", "--v8-options", "--version",
	"--watch", "--watch-preserve-output", "--zero-fill-buffers", "--inspect", "--inspect-brk", "--inspect-wait",
	"--transpile-only", "--swc", "--esm"}

// scriptArg is scriptArgsOf's scan, greedy: whether an option it does not
// know takes the next word.
func scriptArg(args []*syntax.Word, vals []string, greedy bool) *syntax.Word {
	for j := 0; j < len(args) && j < len(vals); j++ {
		v := vals[j]
		switch {
		case v == "--":
			if j+1 < len(args) {
				return args[j+1]
			}
			return nil
		case v == "-" || !strings.HasPrefix(v, "-"):
			return args[j]
		case slices.Contains([]string{"-e", "-p", "--eval", "--print", "-c", "-m"}, v):
			return nil
		case slices.Contains(valueOptions, v):
			j++ // its value is the next word
		case greedy && strings.HasPrefix(v, "--") && !strings.Contains(v, "=") && !strings.HasPrefix(v, "--no-") &&
			!slices.Contains(flagOptions, v):
			j++
		}
	}
	return nil
}

// moduleDirArg reads the word w of script (its source text where it is an
// expansion) as a directory an interpreter runs: ".", "..", the project's
// directory ($PWD, ${PWD}, $(pwd), ~+: "."), or the repository's top
// (gitTopMark).
func moduleDirArg(script string, w *syntax.Word) (string, bool) {
	v := wordTexts(script, []*syntax.Word{w})[0]
	if v == "" {
		return "", false
	}
	if v = strings.TrimSuffix(path.Clean(v), "/"); v == "." || v == ".." || v == string(rune(gitTopMark)) {
		return v, true
	}
	return "", false
}

// dirModuleFiles are the files of a directory an interpreter runs when it
// is given the directory, besides package.json's main: node's index files
// (resolvedExtensions) and python's __main__.py.
func dirModuleFiles(dir string) []string {
	out := make([]string, 0, len(resolvedExtensions)+2)
	for _, ext := range resolvedExtensions {
		out = append(out, dir+"/index"+ext)
	}
	return append(out, dir+"/__main__.py", dir+"/__main__.pyc")
}

// dirModule keeps what an interpreter runs of the directory dir (clean,
// absolute) read-only, or watches it where missing, where it lies in a
// writable root: its package.json, the main that names (as a launcher
// file's name is kept, against dir), its index files and __main__.py;
// not the directory whole. One share of the names an interpreter resolves
// a directory (spendResolved), looked at once.
func (d *discovery) dirModule(dir string) {
	if d.seen["dirmodule:"+dir] || !d.spendResolved() {
		// Past the launcher file's share it is not marked looked at: a
		// later file, the person's, with a share of its own, looks
		// (review 185: the agent's nested .envrc spent its share on the
		// way to the person's directory).
		return
	}
	d.seen["dirmodule:"+dir] = true
	pkg := path.Join(dir, "package.json")
	d.launcherPathCounted(pkg, lookupFree)
	for _, f := range dirModuleFiles(path.Clean(dir)) {
		d.launcherPathCounted(f, lookupFree)
	}
	// python's: an extension module (__main__.cpython-311-x86_64-linux-gnu.so,
	// which its finder tries before .py), and __main__.py's cached
	// bytecode (review 185).
	d.pyExtensionAndCache(dir, "__main__")
	if main, ok := d.packageMain(pkg); ok {
		t := path.Clean(main)
		if !strings.HasPrefix(main, "/") {
			t = path.Join(dir, main)
		}
		if domain.PathWithin(dir, t) {
			// "main": "." or "..": that directory's module, not the
			// directory whole.
			d.dirModule(t)
			return
		}
		d.launcherRef(dir, main)
	}
}

// packageMain reads the "main" of the package.json at p (a regular file,
// at most maxLauncherFileSize, counted against the view's launcher bytes).
func (d *discovery) packageMain(p string) (string, bool) {
	data, ok := readLauncherFile(p)
	if !ok || !d.spendLauncherBytes(len(data)) {
		return "", false
	}
	var pkg struct {
		Main any `json:"main"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return "", false
	}
	main, ok := pkg.Main.(string)
	return main, ok && main != ""
}

// moduleDirRef keeps what an interpreter runs of the directory ref ("."
// or "..", as a launcher file in base wrote it) names, where it is one.
func (d *discovery) moduleDirRef(base, ref string) {
	// cd "$(git rev-parse --show-toplevel)"; node .
	if atEachTop(base, ref, func(top, rel string) { d.moduleDirRef(top, rel) }) {
		return
	}
	dir := ref
	if !strings.HasPrefix(ref, "/") {
		dir = path.Join(base, ref)
	}
	if isDir(dir) {
		d.dirModule(dir)
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// atEachTop calls f for each directory the repository's top may be when
// ref starts with gitTopMark ($(git rev-parse --show-toplevel)…): base
// and every directory above it (maxGitTopDepth), with ref's rest made
// relative ("."+rest); it reports whether ref did.
func atEachTop(base, ref string, f func(top, rel string)) bool {
	rest, ok := strings.CutPrefix(ref, string(rune(gitTopMark)))
	if !ok {
		return false
	}
	for top, n := base, 0; n < maxGitTopDepth; top, n = filepath.Dir(top), n+1 {
		f(top, "."+rest)
		if top == "/" {
			break
		}
	}
	return true
}
