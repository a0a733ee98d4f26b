package sandbox

import (
	"bytes"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// VS Code's tasks (.vscode/tasks.json, and a NAME.code-workspace's
// "tasks") run a command in the folder: one with runOptions.runOn
// "folderOpen" as the person opens it, the others when the person picks
// them. .vscode and the workspace files are kept read-only, but the
// scripts their tasks run were not: a turn rewrote the script a
// folderOpen task runs, and the person's next VS Code ran it (the
// hundred-and-sixty-ninth review). They are read as mise's hooks are:
// each word of a task's command and arguments that names a path, and the
// bare names the shell reader finds (vscodeTaskScripts).

// vscodeTasksItem is the launcher item of VS Code's tasks, below the
// folder it is protected in.
const vscodeTasksItem = ".vscode/tasks.json"

// codeWorkspaceItem stands for a NAME.code-workspace file read as a
// launcher file (its name is the person's).
const codeWorkspaceItem = "*.code-workspace"

// vscodeFolderVar matches VS Code's variables for the folder a task runs
// in (${workspaceFolder}, ${workspaceRoot}, ${fileWorkspaceFolder} and a
// named folder's ${workspaceFolder:name}), and the dev containers' for
// the folder on the host and where it is mounted in the container.
var vscodeFolderVar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{(?:workspaceFolder|workspaceRoot|fileWorkspaceFolder|localWorkspaceFolder|containerWorkspaceFolder)(?::[^}]*)?\}`)
})

// launchScripts is what the launcher file item (VS Code's tasks, a
// workspace file's, a dev container's definition) runs: each command line
// and the directory it runs in.
func launchScripts(item string, data []byte) []vscodeTask {
	switch item {
	case devcontainerItem:
		return devcontainerScripts(data)
	case vscodeSettingsItem:
		var doc map[string]any
		if json.Unmarshal(stripJSONComments(data), &doc) != nil {
			return nil
		}
		return settingsPrograms(doc, nil)
	}
	return vscodeTaskScripts(data, item == codeWorkspaceItem)
}

// vscodeTaskScripts returns each task's command line (its command and its
// arguments), the directory it runs in relative to the folder ("" for the
// folder), and the programs and variables its options give, of a
// tasks.json or (workspace) a NAME.code-workspace. The file may hold
// comments and trailing commas (VS Code reads JSONC). Options may be set
// for the file, for a platform of it, for a task and for a platform of a
// task, each over the one before: every one that may apply is read (a
// task for each directory it may run in).
func vscodeTaskScripts(data []byte, workspace bool) (scripts []vscodeTask) {
	var doc map[string]any
	if json.Unmarshal(stripJSONComments(data), &doc) != nil {
		return nil
	}
	folders := map[string]string{}
	if workspace {
		// ${workspaceFolder:NAME} is the folder of that name (its path's
		// last element when it has none), relative to the file.
		fs, _ := doc["folders"].([]any)
		for _, f := range fs {
			m := jsonObj(f)
			p, _ := m["path"].(string)
			name, _ := m["name"].(string)
			if p == "" {
				continue
			}
			if name == "" {
				name = path.Base(p)
			}
			folders[name] = p
		}
		scripts = settingsPrograms(jsonObj(doc["settings"]), folders)
		doc = jsonObj(doc["tasks"])
	}
	if doc == nil {
		return scripts
	}
	rel := func(s string) string { return folderRelative(s, folders) }
	var global []map[string]any
	for _, o := range []map[string]any{doc, jsonObj(doc["linux"]), jsonObj(doc["osx"]), jsonObj(doc["windows"])} {
		if o := jsonObj(o["options"]); o != nil {
			global = append(global, o)
		}
	}
	tasks := []map[string]any{doc} // the version 0.1.0 form: one command at the top
	ts, _ := doc["tasks"].([]any)
	for _, t := range ts {
		if m := jsonObj(t); m != nil {
			tasks = append(tasks, m)
		}
	}
	for _, t := range tasks {
		// A task's own form and each platform's (linux, osx, windows:
		// the one for the person's platform replaces the others' fields).
		forms := []map[string]any{t, jsonObj(t["linux"]), jsonObj(t["osx"]), jsonObj(t["windows"])}
		opts := slices.Clone(global)
		for _, f := range forms {
			if o := jsonObj(f["options"]); o != nil {
				opts = append(opts, o)
			}
		}
		cwds := []string{""}
		var extra []string
		for _, o := range opts {
			if c, ok := o["cwd"].(string); ok {
				cwds = append(cwds, rel(c))
			}
			// The shell the task runs in, and its variables (BASH_ENV,
			// which bash -c sources first; ENV, sh's).
			// The shell's arguments come in place of its -c: a script
			// (the hundred-and-seventy-fifth review).
			for _, w := range append(jsonWords(jsonObj(o["shell"])["executable"]), jsonWords(jsonObj(o["shell"])["args"])...) {
				extra = append(extra, rel(w))
			}
			for _, v := range jsonObj(o["env"]) {
				if sv, ok := v.(string); ok {
					extra = append(extra, rel(sv))
				}
			}
		}
		for _, f := range forms {
			var words []string
			for _, w := range append(jsonWords(f["command"]), jsonWords(f["args"])...) {
				if vscodePythonVar(w) {
					// The Python extension's interpreter (review 189):
					// python, with what it runs read as python's.
					w = "python3"
				}
				words = append(words, rel(w))
			}
			if len(words) == 0 && f != nil && len(extra) > 0 {
				words = []string{"true"} // the shell and variables alone
			}
			if len(words) == 0 {
				continue
			}
			slices.Sort(cwds)
			for _, cwd := range slices.Compact(cwds) {
				scripts = append(scripts, vscodeTask{script: strings.Join(words, " "), cwd: cwd, extra: extra})
			}
		}
	}
	return scripts
}

// vscodeTask is one task's command line, the directory it runs in, and
// the other paths its options name (its shell, its variables' values).
type vscodeTask struct {
	script, cwd string
	extra       []string
}

// folderRelative is s with the folder's variables read as "." (a named
// folder of a workspace file as its path, given in folders).
func folderRelative(s string, folders map[string]string) string {
	return vscodeFolderVar().ReplaceAllStringFunc(s, func(v string) string {
		if _, name, ok := strings.Cut(strings.TrimSuffix(v, "}"), ":"); ok {
			if p, ok := folders[name]; ok {
				return p
			}
		}
		return "."
	})
}

// jsonObj is v as a JSON object (nil when it is none; indexing nil is
// safe): encoding/json decodes one as tomlTable's map.
var jsonObj = tomlTable

// jsonWords is a task's command or arguments as words: a string, a list
// of strings, or objects whose value is one ({"value": "x", "quoting":
// "escape"}).
func jsonWords(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, jsonWords(e)...)
		}
		return out
	case map[string]any:
		return jsonWords(v["value"])
	}
	return nil
}

// vscodeTasksRefs: what each task's command line names as a path, read as
// a .envrc's line is (a cd followed: "cd app && ./run.sh" runs
// app/run.sh) and word by word (mise's hook scripts' reading: a program's
// arguments), and each path its options name; all taken from the task's
// directory.
func vscodeTasksRefs(ts []vscodeTask) []string {
	var out []string
	for _, t := range ts {
		var refs []string
		for i, w := range strings.Fields(t.script) {
			w = strings.Trim(w, `"'`)
			if c := path.Clean(w); c == "." || c == ".." {
				// The task's directory (ruff check ., docker build .),
				// not a file it runs: kept whole, it froze the workspace
				// (review 189); an interpreter's "." is read as a module
				// (vscodeTasksBare, dirmodule.go).
				continue
			}
			if strings.Contains(w, "/") || i > 0 && !strings.HasPrefix(w, "-") && strings.Contains(w, ".") {
				refs = append(refs, w)
			}
		}
		refs = append(refs, envrcRefs([]byte(t.script+"\n"))...)
		for _, x := range t.extra {
			refs = append(refs, pathTokens(x)...)
		}
		for _, r := range refs {
			out = append(out, inTaskDir(t.cwd, r))
		}
	}
	return uniq(out)
}

// inTaskDir is the word w (a path) as the folder names it, for a task
// running in cwd (relative to the folder, or absolute).
func inTaskDir(cwd, w string) string {
	if cwd == "" || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~") || strings.Contains(w, "$") {
		return w
	}
	return path.Join(cwd, w)
}

// vscodeTasksBare: the bare names each task's command line runs or names
// (read as a .envrc's lines are), and its options' bare values (a shell
// "tools/sh" is a path; "mysh" beside the folder a bare name), from the
// task's directory.
func vscodeTasksBare(ts []vscodeTask) bareRefs {
	var out bareRefs
	for _, t := range ts {
		var r bareRefs
		envrcWords(t.script, 0, &r)
		for _, n := range keepBare(append(r.names, t.extra...)) {
			out.names = append(out.names, inTaskDir(t.cwd, n))
		}
		for _, n := range keepBare(r.run) {
			out.run = append(out.run, inTaskDir(t.cwd, n))
		}
		for _, n := range r.modules {
			out.modules = append(out.modules, inTaskDir(t.cwd, n))
		}
		for _, m := range r.pyModules {
			out.pyModules = append(out.pyModules, pyModuleRef{inTaskDir(t.cwd, m.dir), m.mod})
		}
		for _, dir := range r.pyPaths {
			out.pyPaths = append(out.pyPaths, inTaskDir(t.cwd, dir))
		}
		for _, scr := range r.pyScripts {
			out.pyScripts = append(out.pyScripts, inTaskDir(t.cwd, scr))
		}
	}
	return out
}

// isVSCodeItem reports whether item is one of the JSON launcher files
// VS Code reads (tasks, a workspace file's, a dev container's).
func isVSCodeItem(item string) bool {
	return item == vscodeTasksItem || item == codeWorkspaceItem || item == devcontainerItem || item == vscodeSettingsItem
}

// jsoncReadable reports whether data is empty or JSON with comments and
// trailing commas (an object, as VS Code's files are).
func jsoncReadable(data []byte) bool {
	if len(bytes.TrimSpace(stripJSONComments(data))) == 0 {
		return true
	}
	var doc map[string]any
	return json.Unmarshal(stripJSONComments(data), &doc) == nil
}

// vscodePythonVar reports whether the task word w is the Python
// extension's name for the interpreter it picked
// (${command:python.interpreterPath}, ${config:python.defaultInterpreterPath},
// ${config:python.pythonPath}), the form its documentation gives tasks.
func vscodePythonVar(w string) bool {
	switch strings.TrimSpace(w) {
	case "${command:python.interpreterPath}", "${config:python.defaultInterpreterPath}", "${config:python.pythonPath}":
		return true
	}
	return false
}
