package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"turnstile/domain"
	"turnstile/profilefile"
)

const profilesUsage = `usage: turnstile profiles check FILE [--constraints FILE]
       turnstile profiles explain PROFILE PATH|URL [--file FILE] [--cwd DIR] [--workspace-root DIR]
                                  [--constraints FILE] [--method GET] [--json]

check validates a profiles file offline: exit 0, or 1 with every error as
FILE:LINE: profile "NAME": KEY: what is wrong.

explain prints the decision for one path (resolved against --cwd, symlinks
followed as far as the path exists) or URL under PROFILE (a built-in, or a
profile of --file), and the rule that made it.`

func profilesCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, profilesUsage)
		return 2
	}
	switch args[0] {
	case "check":
		return profilesCheck(args[1:], stdout, stderr)
	case "explain":
		return profilesExplain(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, profilesUsage)
		return 0
	}
	fmt.Fprintln(stderr, profilesUsage)
	return 2
}

func profilesFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("profiles "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, profilesUsage+"\n\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

// printFileErrors prints a load error: one line per problem.
func printFileErrors(w io.Writer, err error) {
	var es profilefile.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			fmt.Fprintln(w, e.Error())
		}
		return
	}
	fmt.Fprintln(w, err)
}

func profilesCheck(args []string, stdout, stderr io.Writer) int {
	fs := profilesFlags("check", stderr)
	consPath := fs.String("constraints", "", "also check this constraints file against the profiles")
	if err := fs.Parse(reorder(args)); err != nil {
		return flagExit(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	f, err := profilefile.Load(fs.Arg(0))
	if err != nil {
		printFileErrors(stderr, err)
		return 1
	}
	for _, w := range f.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if *consPath != "" {
		if _, err := profilefile.LoadConstraints(*consPath, f.Profiles); err != nil {
			printFileErrors(stderr, err)
			return 1
		}
	}
	names := f.Profiles.Names()[len(domain.BuiltinProfiles()):]
	fmt.Fprintf(stdout, "%s: ok, %d profiles (%s)\n", fs.Arg(0), len(names), strings.Join(names, ", "))
	return 0
}

func profilesExplain(args []string, stdout, stderr io.Writer) int {
	fs := profilesFlags("explain", stderr)
	file := fs.String("file", "", "profiles file (without it, only the built-ins)")
	cwd := fs.String("cwd", "", "the turn's working directory (default: the current directory)")
	root := fs.String("workspace-root", "", "the turn's workspace root (default: --cwd)")
	consPath := fs.String("constraints", "", "operator constraints file")
	method := fs.String("method", "GET", "HTTP method, for a URL")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(reorder(args)); err != nil {
		return flagExit(err)
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return 2
	}
	name, target := fs.Arg(0), fs.Arg(1)
	set := domain.ProfileSet{}
	if *file != "" {
		f, err := profilefile.Load(*file)
		if err != nil {
			printFileErrors(stderr, err)
			return 1
		}
		set = f.Profiles
	}
	var cons *domain.Constraints
	if *consPath != "" {
		c, err := profilefile.LoadConstraints(*consPath, set)
		if err != nil {
			printFileErrors(stderr, err)
			return 1
		}
		cons = c
	}
	env, err := explainEnv(*cwd, *root)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile profiles explain:", err)
		return 1
	}
	cp, err := domain.CompileProfile(set, name, env, cons)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile profiles explain:", err)
		return 1
	}
	for _, w := range cp.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if strings.Contains(target, "://") {
		d := cp.Network.DecideURL(*method, target)
		if *asJSON {
			printJSON(stdout, d)
			return 0
		}
		verdict := "deny"
		if d.Allowed {
			verdict = "allow"
		}
		fmt.Fprintf(stdout, "%-5s %s %s\n", verdict, strings.ToUpper(*method), target)
		if d.Rule != "" {
			fmt.Fprintf(stdout, "  rule: network.domains.%s (%s, profile %s)\n", domain.QuoteKey(d.Rule), d.Reason, name)
		} else {
			fmt.Fprintf(stdout, "  reason: %s (profile %s)\n", d.Reason, name)
		}
		return 0
	}
	lexical := domain.ResolvePath(env.Cwd, target)
	resolved := canonical(lexical)
	d := cp.Explain(resolved)
	if *asJSON {
		printJSON(stdout, struct {
			Given    string              `json:"given"`
			Lexical  string              `json:"lexical"`
			Decision domain.PathDecision `json:"decision"`
		}{target, lexical, d})
		return 0
	}
	fmt.Fprintf(stdout, "%-5s %s\n", d.Access, d.Path)
	if resolved != lexical {
		fmt.Fprintf(stdout, "  (%s resolves to %s through a symlink)\n", lexical, resolved)
	}
	if d.Rule == nil {
		fmt.Fprintln(stdout, "  rule: none matches (no match is deny)")
		return 0
	}
	r := d.Rule
	src := fmt.Sprintf("%s %s", r.Provenance, r.Origin)
	if r.Provenance == domain.RuleFromProfile {
		src = "profile " + r.Origin
	}
	locked := ""
	if r.Locked {
		locked = ", locked"
	}
	access := string(r.Access)
	if r.Overlay {
		access = "overlay (read here; a command writes a copy of its own)"
	}
	fmt.Fprintf(stdout, "  rule: %q = %s (%s, specificity %d%s)\n", r.Key, access, src, d.Specificity, locked)
	if r.Pattern != r.Key {
		fmt.Fprintf(stdout, "  matched as %s\n", r.Pattern)
	}
	return 0
}

// explainEnv is the environment a turn started here would compile against.
func explainEnv(cwd, root string) (domain.ProfileEnv, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return domain.ProfileEnv{}, err
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return domain.ProfileEnv{}, err
	}
	cwd = canonical(cwd)
	if root == "" {
		root = cwd
	} else if root, err = filepath.Abs(root); err != nil {
		return domain.ProfileEnv{}, err
	}
	return domain.ProfileEnv{Home: serverHome(), Cwd: cwd, WorkspaceRoot: canonical(root), TmpDir: os.TempDir()}, nil
}

// canonical follows symlinks through the longest existing prefix of an
// absolute, clean path and appends the missing rest, so the decision is
// made on the path the kernel would reach.
func canonical(p string) string {
	missing := ""
	cur := p
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return domain.CleanPath(r + "/" + missing)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		missing = filepath.Base(cur) + "/" + missing
		cur = parent
	}
}

// loadCatalog loads serve's --profiles and --constraints files; any error in
// either stops the server from starting, every problem listed.
func loadCatalog(profilesPath, constraintsPath string) (*domain.ProfileCatalog, error) {
	cat := &domain.ProfileCatalog{Home: serverHome()}
	if profilesPath != "" {
		f, err := profilefile.Load(profilesPath)
		if err != nil {
			return nil, fmt.Errorf("--profiles:\n%w", err)
		}
		cat.Profiles = f.Profiles
	}
	if constraintsPath != "" {
		set := cat.Profiles
		if set == nil {
			set = domain.ProfileSet{} // built-ins only: a misspelt name still fails
		}
		c, err := profilefile.LoadConstraints(constraintsPath, set)
		if err != nil {
			return nil, fmt.Errorf("--constraints:\n%w", err)
		}
		c.SetResolvedRoots(resolveRoots(c.AllowedRoots, cat.Home))
		cat.Constraints = c
	}
	if err := cat.CheckHome(); err != nil {
		return nil, fmt.Errorf("--profiles and --constraints:\n%w", err)
	}
	return cat, nil
}

// serverHome is the home directory "~" rules resolve against: $HOME, or,
// where it is not set (a system service without User=, env -i), the
// server's user's home in the passwd database; "" when neither is known
// (domain.ProfileCatalog.CheckHome then refuses a "~" deny or bound).
func serverHome() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	if u, err := user.Current(); err == nil && strings.HasPrefix(u.HomeDir, "/") {
		return u.HomeDir
	}
	return ""
}

// resolveRoots returns the allowed roots with "~" read as home and their
// symlinks resolved (one that does not resolve, as written).
func resolveRoots(roots []string, home string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		if r == "~" || strings.HasPrefix(r, "~/") {
			r = home + r[1:]
		}
		if res, err := filepath.EvalSymlinks(r); err == nil {
			r = res
		}
		out[i] = filepath.Clean(r)
	}
	return out
}
