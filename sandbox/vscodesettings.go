package sandbox

// VS Code's settings of a folder read as a launcher file (launchScripts):
// the few settings that name a program VS Code or a common extension starts
// as the folder opens.

// vscodeSettingsItem is VS Code's settings of the folder, read as a
// launcher file for the few settings whose value is a program VS Code or a
// common extension starts as the folder opens (vscodeProgramSettings).
const vscodeSettingsItem = ".vscode/settings.json"

// vscodeProgramSettings are settings naming a program VS Code or a common
// extension runs with no action of the person's but opening the folder:
// the Python extension starts the interpreter it is given to learn its
// version and environment; tasks run in the automation shell (the
// hundred-and-seventy-second review). A profile's path is under "path".
var vscodeProgramSettings = []string{"python.defaultInterpreterPath", "python.pythonPath",
	"terminal.integrated.automationProfile.linux", "terminal.integrated.automationShell.linux", "terminal.integrated.shell.linux"}

// settingsPrograms is vscodeTask{extra: the programs settings name}.
func settingsPrograms(settings map[string]any, folders map[string]string) []vscodeTask {
	var extra []string
	add := func(v any) {
		for _, w := range jsonWords(v) {
			extra = append(extra, folderRelative(w, folders))
		}
	}
	for _, k := range vscodeProgramSettings {
		v := settings[k]
		if m := jsonObj(v); m != nil {
			// A profile: its program, its arguments (given in place of
			// -c: a script), its variables (BASH_ENV).
			add(m["path"])
			add(m["args"])
			for _, e := range jsonObj(m["env"]) {
				add(e)
			}
			continue
		}
		add(v)
	}
	// The variables of the terminals tasks run in (the
	// hundred-and-seventy-fifth review: BASH_ENV there is sourced by a
	// folderOpen task's shell).
	for _, e := range jsonObj(settings["terminal.integrated.env.linux"]) {
		add(e)
	}
	if len(extra) == 0 {
		return nil
	}
	return []vscodeTask{{script: "true", extra: extra}}
}
