package domain

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ProfileCatalog is what the server offers turns to select: the profiles
// file's profiles (the built-ins are always there), the operator's
// constraints, and the home directory "~" rules resolve against.
type ProfileCatalog struct {
	Profiles    ProfileSet
	Constraints *Constraints
	Home        string
}

// BuiltinForMode returns the built-in profile equal to mode.
func BuiltinForMode(m Mode) string {
	for name, mode := range BuiltinModes {
		if mode == m {
			return name
		}
	}
	return BuiltinReadOnly
}

// SelectSnapshot resolves a turn's snapshot from its permission_profile:
// {"mode": …} (or nothing: full_access, defaulted) or {"profile": name},
// never both. Under the operator's constraints a mode is the built-in it
// equals: it must be allowed like any profile, and with required denies it
// compiles as that built-in so the denies are carried, locked. The tool and
// path lists of the request narrow the behaviour table either way.
func SelectSnapshot(req *ProfileRequest, cat *ProfileCatalog, source ProfileSource, in SnapshotInputs) (TurnExecutionSecuritySnapshot, error) {
	if cat == nil {
		cat = &ProfileCatalog{}
	}
	if err := CheckProfileRequest(req); err != nil {
		return TurnExecutionSecuritySnapshot{}, err
	}
	if err := cat.Constraints.CheckRoots(&in, cat.Home); err != nil {
		return TurnExecutionSecuritySnapshot{}, err
	}
	name := ""
	switch {
	case req != nil && req.Profile != "":
		name = req.Profile
	case cat.Constraints != nil:
		mode := ModeFullAccess
		if req != nil && req.Mode != "" {
			mode = req.Mode
		}
		if err := cat.Constraints.CheckSelection(BuiltinForMode(mode)); err != nil {
			return TurnExecutionSecuritySnapshot{}, &FieldError{Field: "permission_profile.mode", Value: string(mode),
				Message: fmt.Sprintf("mode %s is the built-in %s, which %v", mode, BuiltinForMode(mode), constraintMessage(err))}
		}
		if len(cat.Constraints.RequiredDeny) > 0 {
			name = BuiltinForMode(mode)
		}
	}
	if name == "" {
		in.Profile = ResolveProfile(req, source)
		s, err := ResolveSnapshot(in)
		if err != nil {
			return s, err
		}
		BindRootLinks(&s, in.RootLinks)
		return s, cat.Constraints.BindRoots(&s, cat.Home, protectedList(in.ProtectedPaths))
	}
	if in.WorkspaceRoot == "" {
		in.WorkspaceRoot = in.Cwd
	}
	env := ProfileEnv{Home: cat.Home, Cwd: in.Cwd, WorkspaceRoot: in.WorkspaceRoot, ProjectRoots: in.ProjectRoots, AppReadRoots: in.AppReadRoots, RootLinks: in.RootLinks}
	cp, err := CompileProfile(cat.Profiles, name, env, cat.Constraints)
	if err != nil {
		return TurnExecutionSecuritySnapshot{}, &FieldError{Field: "permission_profile.profile", Value: name, Message: err.Error()}
	}
	if req != nil {
		cp.Policy.AllowedTools, cp.Policy.AllowedToolsRestricted = slices.Clone(req.AllowedTools), req.AllowedToolsRestricted
		cp.Policy.DeniedTools = slices.Clone(req.DeniedTools)
		cp.Policy.AllowedPaths, cp.Policy.AllowedPathsRestricted = slices.Clone(req.AllowedPaths), req.AllowedPathsRestricted
		cp.Policy.normalizeLists()
	}
	s, err := ResolveProfileSnapshot(cp, source, in)
	if err != nil {
		return s, err
	}
	BindRootLinks(&s, in.RootLinks)
	if err := cat.Constraints.BindRoots(&s, cat.Home, protectedList(in.ProtectedPaths)); err != nil {
		return TurnExecutionSecuritySnapshot{}, err
	}
	if req == nil || req.Profile == "" {
		s.PermissionProfile.Profile = "" // the client chose a mode
		if req == nil || req.Mode == "" {
			s.PermissionProfile.Source = SourceDefaulted
		}
	}
	return s, nil
}

// CheckProfileRequest refuses a permission_profile naming both a mode and a
// profile: the two systems do not compose, and applying one silently would
// be wrong either way.
//
// It refuses lists that hold more than MaxListBytes in all too: each entry's
// own length is bounded at the edge (a path's at 4096 bytes, 256 entries a
// list), which let a megabyte of allowed_paths into each turn, and the
// server holds a turn's profile in its state, its snapshot, its recent
// turns and, once it has ended, in the summary every listing shows:
// an agent that started and ended turns of a megabyte each took the
// server's memory (5.7 MB a turn), and a server killed for its memory
// lets a Claude Code http hook's calls run.
func CheckProfileRequest(req *ProfileRequest) error {
	if req != nil && req.Mode != "" && req.Profile != "" {
		return &FieldError{Field: "permission_profile", Value: "mode=" + string(req.Mode) + ", profile=" + req.Profile,
			Message: "give a mode or a profile, not both: the two systems do not compose"}
	}
	if req != nil {
		return CheckListBytes("permission_profile", req.AllowedTools, req.DeniedTools, req.AllowedPaths)
	}
	return nil
}

// MaxListBytes bounds the bytes of the lists one field of a request holds
// in all (a permission profile's tool and path lists; a turn's roots).
const MaxListBytes = 64 << 10

// CheckListBytes refuses lists of field that hold more than MaxListBytes
// in all.
func CheckListBytes(field string, lists ...[]string) error {
	n := 0
	for _, l := range lists {
		for _, v := range l {
			n += len(v)
		}
	}
	if n > MaxListBytes {
		return &FieldError{Field: field, Message: fmt.Sprintf("its lists hold %d bytes in all; the limit is %d", n, MaxListBytes)}
	}
	return nil
}

func constraintMessage(err error) string {
	if ce, ok := err.(*ConstraintError); ok {
		return fmt.Sprintf("the operator's constraints do not allow (allowed_profiles: %v)", ce.Allowed)
	}
	return err.Error()
}

// CheckHome refuses a catalog whose rules need a home directory to deny or
// bound anything when none is known (Home empty: the server has no $HOME
// and its user none in the passwd database): a profile's "~/…" deny, a
// required_deny or an allowed root under "~". Left out, the deny denied
// nothing and "~" bound every path ("" + the rest: the hundred-and-
// fifty-first review); a "~/…" grant is only dropped (with a warning in
// the snapshot), which grants less.
func (cat *ProfileCatalog) CheckHome() error {
	if cat == nil || cat.Home != "" {
		return nil
	}
	var errs []error
	home := func(k string) bool { return k == "~" || strings.HasPrefix(k, "~/") }
	for _, name := range slices.Sorted(maps.Keys(cat.Profiles)) {
		p := cat.Profiles[name]
		if p == nil {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(p.Filesystem)) {
			if p.Filesystem[k] == AccessDeny && home(k) {
				errs = append(errs, fmt.Errorf("profile %s: filesystem %q = %q: no home directory is known (HOME is not set and the server's user has none), so this deny cannot be placed", name, k, p.Filesystem[k]))
			}
		}
	}
	if c := cat.Constraints; c != nil {
		for _, k := range c.RequiredDeny {
			if home(k) {
				errs = append(errs, fmt.Errorf("required_deny %q: no home directory is known (HOME is not set and the server's user has none), so this deny cannot be placed", k))
			}
		}
		for _, r := range c.AllowedRoots {
			if home(r) {
				errs = append(errs, fmt.Errorf("allowed_roots %q: no home directory is known (HOME is not set and the server's user has none), so this bound cannot be placed", r))
			}
		}
	}
	return errors.Join(errs...)
}
