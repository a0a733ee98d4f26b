package domain

// profileDenies compiles a :workspace profile over /ws with the filesystem
// entries fs and reports whether it denies p; the error is the profile's
// (a key refused at compilation).
func profileDenies(fs map[string]Access, p string) (bool, error) {
	set := ProfileSet{"p": {Name: "p", Extends: BuiltinWorkspace, Filesystem: fs}}
	cp, err := CompileProfile(set, "p", ProfileEnv{Cwd: "/ws", WorkspaceRoot: "/ws"}, nil)
	if err != nil {
		return false, err
	}
	return cp.Explain(p).Access == AccessDeny, nil
}
