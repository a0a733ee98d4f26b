package sandbox

import (
	"encoding/json"
	"strings"
)

// A dev container's definition read as a launcher file (launchScripts):
// its lifecycle commands run on the host or in the container, over the
// folder, as the person reopens it there.

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
				out = append(out, vscodeTask{script: folderRelative(strings.Join(ws, " "), nil)})
			}
		}
	}
	return out
}
