package sandbox

import (
	"encoding/json"
	"path"
	"regexp"
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

// devcontainerItem stands for a dev container's definition
// (.devcontainer/devcontainer.json, .devcontainer.json, or
// .devcontainer/NAME/devcontainer.json) read as a launcher file: its
// initializeCommand runs on the host before the container is built
// (VS Code offers to reopen the folder in the container as it opens it),
// and its other lifecycle commands in the container, over the folder.
const devcontainerItem = ".devcontainer/devcontainer.json"

// devcontainerCommands are the lifecycle commands of a dev container's
// definition.
var devcontainerCommands = []string{"initializeCommand", "onCreateCommand", "updateContentCommand",
	"postCreateCommand", "postStartCommand", "postAttachCommand"}

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
	if item == devcontainerItem {
		return devcontainerScripts(data)
	}
	return vscodeTaskScripts(data, item == codeWorkspaceItem)
}

// devcontainerScripts: each lifecycle command of a dev container's
// definition (a string for a shell, a list for a program and its
// arguments, or an object of either, run in parallel), run in the folder.
func devcontainerScripts(data []byte) (out []vscodeTask) {
	var doc map[string]any
	if json.Unmarshal(stripJSONComments(data), &doc) != nil {
		return nil
	}
	for _, k := range devcontainerCommands {
		cmds := []any{doc[k]}
		if m := jsonObj(doc[k]); m != nil {
			cmds = cmds[:0]
			for _, v := range m {
				cmds = append(cmds, v)
			}
		}
		for _, c := range cmds {
			if ws := jsonWords(c); len(ws) > 0 {
				out = append(out, vscodeTask{script: strings.Join(ws, " ")})
			}
		}
	}
	return out
}

// vscodeTaskScripts returns each task's command line (its command and its
// arguments, the folder's variables read as "."), and the directory it
// runs in relative to the folder ("" for the folder), of a tasks.json or
// (workspace) a NAME.code-workspace. The file may hold comments and
// trailing commas (VS Code reads JSONC).
func vscodeTaskScripts(data []byte, workspace bool) (scripts []vscodeTask) {
	var doc map[string]any
	if json.Unmarshal(stripJSONComments(data), &doc) != nil {
		return nil
	}
	if workspace {
		doc, _ = doc["tasks"].(map[string]any)
	}
	var tasks []map[string]any
	if doc != nil {
		tasks = append(tasks, doc) // the version 0.1.0 form: one command at the top
		ts, _ := doc["tasks"].([]any)
		for _, t := range ts {
			if m, ok := t.(map[string]any); ok {
				tasks = append(tasks, m)
			}
		}
	}
	for _, t := range tasks {
		// A task's own form and each platform's (linux, osx, windows:
		// the one for the person's platform replaces the others' fields).
		for _, f := range []map[string]any{t, jsonObj(t["linux"]), jsonObj(t["osx"]), jsonObj(t["windows"])} {
			if f == nil {
				continue
			}
			words := append(jsonWords(f["command"]), jsonWords(f["args"])...)
			if len(words) == 0 {
				continue
			}
			cwd := ""
			for _, o := range []map[string]any{jsonObj(t["options"]), jsonObj(f["options"])} {
				if c, ok := o["cwd"].(string); ok {
					cwd = c
				}
			}
			scripts = append(scripts, vscodeTask{script: strings.Join(words, " "), cwd: folderRelative(cwd)})
		}
	}
	return scripts
}

// vscodeTask is one task's command line and the directory it runs in.
type vscodeTask struct{ script, cwd string }

// folderRelative is s with the folder's variables read as ".".
func folderRelative(s string) string {
	return vscodeFolderVar().ReplaceAllString(s, ".")
}

// jsonObj is v as a JSON object (nil when it is none; indexing nil is
// safe).
func jsonObj(v any) map[string]any { m, _ := v.(map[string]any); return m }

// jsonWords is a task's command or arguments as words: a string, a list
// of strings, or objects whose value is one ({"value": "x", "quoting":
// "escape"}), the folder's variables read as ".".
func jsonWords(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{folderRelative(v)}
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

// vscodeTasksRefs: each word of a task's command line that names a path
// (as mise's hook scripts are read), taken from the task's directory.
func vscodeTasksRefs(ts []vscodeTask) []string {
	var out []string
	for _, t := range ts {
		for i, w := range strings.Fields(t.script) {
			w = strings.Trim(w, `"'`)
			if strings.Contains(w, "/") || i > 0 && !strings.HasPrefix(w, "-") && strings.Contains(w, ".") {
				out = append(out, inTaskDir(t.cwd, w))
			}
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
// (read as a .envrc's lines are), from the task's directory.
func vscodeTasksBare(ts []vscodeTask) bareRefs {
	var out bareRefs
	for _, t := range ts {
		var r bareRefs
		envrcWords(t.script, 0, &r)
		for _, n := range keepBare(r.names) {
			out.names = append(out.names, inTaskDir(t.cwd, n))
		}
		for _, n := range keepBare(r.run) {
			out.run = append(out.run, inTaskDir(t.cwd, n))
		}
	}
	return out
}
