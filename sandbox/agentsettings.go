package sandbox

import (
	"path"
	"slices"
	"strings"

	"turnstile/domain"
)

// agentSettingsRoot is a writable grant at which the snapshot protects the
// agents' own settings directories (the reserved protected names but
// ".git": .agents, .codex, .claude by default), with those names.
type agentSettingsRoot struct {
	rule  fsRule
	names []string
}

// readAtAnyDepth are protected items (not reserved) that a host program
// looks up in the directory a person works in and in each one above it,
// the nearest first, so that a subdirectory's is read as the root's is,
// and that make the person's next tool there run a program the file names:
// asdf's (and mise's) .tool-versions, whose version "path:DIR" runs
// DIR/bin's (TestAttack16ToolVersionsPath,
// TestAttack19NestedToolVersionsWritable); yarn's .yarnrc and .yarnrc.yml
// (yarn-path, yarnPath: node runs the script for every yarn command);
// rustup's rust-toolchain and rust-toolchain.toml (a toolchain path: every
// cargo and rustc runs its bin); Maven's .mvn/jvm.config (the JVM options
// of every mvn: -XX:OnOutOfMemoryError runs a command) and
// .mvn/maven.config (its options: -Dmaven.ext.class.path loads a jar as
// an extension); R's .Rprofile
// (sourced by R and Rscript); .NET's global.json (sdk.paths: where the
// dotnet host takes its SDK). An item may have more than one component
// (.mvn/jvm.config): it is protected below the directory holding its
// first. Each is compared in any case (TestAttack136_ToolchainFilesWritable).
var readAtAnyDepth = append([]string{".tool-versions", ".yarnrc", ".yarnrc.yml", "rust-toolchain", "rust-toolchain.toml",
	".mvn/jvm.config", ".mvn/maven.config", ".Rprofile", "global.json",
	// the hundred-and-thirty-ninth review's: R's .Renviron
	// (R_PROFILE_USER), Cargo's config (rustc-wrapper), sbt's .jvmopts and
	// .sbtopts, Bun's bunfig.toml (preload)
	".Renviron", ".cargo/config", ".cargo/config.toml", ".jvmopts", ".sbtopts", "bunfig.toml",
	// the hundred-and-forty-second review's: uv's .python-version, npm's
	// .npmrc, Bazelisk's .bazeliskrc, Bazel's .bazelrc,
	// MSBuild's Directory.Build.rsp (each looked up from the directory a
	// tool runs in or its project's)
	".python-version", ".npmrc", ".bazeliskrc", ".bazelrc", "Directory.Build.rsp",
},
	// mise's configs (the hundred-and-forty-fourth review: a person's
	// trusted sub/mise.toml, rewritten, ran the agent's hook at the next
	// cd: mise trusts a config by its path)
	miseConfigs...)

// anyDepthItem returns the item of readAtAnyDepth that the protected path p
// (clean, absolute) ends in, in any case, and the directory it is protected
// below (p without the item).
func anyDepthItem(p string) (item, dir string, ok bool) {
	// The longest item p ends in (.config/mise.toml, not mise.toml: the
	// directory holding .config is the project's).
	for _, n := range readAtAnyDepth {
		if len(n) > len(item) && len(p) > len(n) && p[len(p)-len(n)-1] == '/' && domain.FoldEqual(p[len(p)-len(n):], n) {
			item = n
		}
	}
	if item == "" {
		return "", "", false
	}
	return item, domain.CleanPath(p[:len(p)-len(item)]), true
}

// agentSettingsRoots returns the writable grants among grants at which fp
// protects a reserved name other than ".git" (repositoryRoots has that
// one) or an item of readAtAnyDepth, each with the names it protects there. As with the repository
// rule, the rule goes with the items of the protected list: a profile that
// replaces the list without them, and an unrestricted filesystem, have
// none.
func agentSettingsRoots(fp *domain.FilesystemPolicy, grants []fsRule) []agentSettingsRoot {
	names := map[string][]string{}
	for _, e := range fp.Entries {
		if e.Kind != domain.PathProtected {
			continue
		}
		p := e.ResolvedPath
		if p == "" {
			p = domain.CleanPath(e.Path)
		}
		base, dir := path.Base(p), path.Dir(p)
		if !e.Reserved {
			var ok bool
			if base, dir, ok = anyDepthItem(p); !ok {
				continue
			}
		}
		if domain.FoldEqual(base, ".git") || slices.Contains(names[dir], base) {
			continue
		}
		names[dir] = append(names[dir], base)
	}
	var out []agentSettingsRoot
	for _, g := range grants {
		if g.Access == domain.AccessWrite && len(names[g.From]) > 0 {
			out = append(out, agentSettingsRoot{rule: g, names: names[g.From]})
		}
	}
	return out
}

// agentSettingsRefusal refuses a file tool's write into a directory named
// as one of the agents' settings directories the snapshot protects at a
// writable root (.claude, .codex, .agents; any case), at any depth below
// that root, and of a file named as one of readAtAnyDepth (any case). The root's own (and the cwd's) are protected paths; a
// subdirectory's are read by the host's agents too: Claude Code discovers
// the .claude/skills of a directory it works in (a skill's frontmatter
// holds hooks, commands Claude Code runs itself without a PreToolUse to
// decide), a session started there reads its .claude/settings.json (hooks,
// disableAllHooks), and Codex reads the .codex/config.toml and
// .agents/skills between its cwd and the repository's root. A file tool
// writes outside the kernel sandbox, so the decision is the boundary, as
// it is for a repository's files (repositoryRefusal). The canonical path
// (where the file lands) and the lexical one (a link named .claude is
// still where the agent looks) are both judged.
func (v *fsView) agentSettingsRefusal(lexical, canon string) *Refusal {
	for _, r := range v.agentRoots {
		for _, c := range [][2]string{{r.rule.Path, canon}, {r.rule.From, lexical}} {
			if name, ok := componentNamed(c[0], c[1], r.names); ok {
				return &Refusal{Code: CodeWriteRequiresWritable, Path: canon,
					Message: "a component of the path is named " + name + " below the writable root " + c[0] +
						": the host's agents and tools read it where a person works, not at the root alone " +
						"(settings, skills and hooks; the programs asdf, yarn, rustup, mvn, R and dotnet run from the files they name), so file tools may not write one (the root's own is a protected path)"}
			}
		}
	}
	return nil
}

// componentNamed reports whether a component of p below root (not root
// itself, nor the last component of p unless p names a directory below
// it: every component is compared) is one of names, in any case, and
// which. A name of more than one component (.mvn/jvm.config) is as many
// consecutive components of p.
func componentNamed(root, p string, names []string) (string, bool) {
	if root == "" || p == root || !domain.PathWithin(p, root) {
		return "", false
	}
	parts := strings.Split(strings.TrimPrefix(p[len(root):], "/"), "/")
	for i := range parts {
		for _, n := range names {
			if namedAt(parts[i:], n) {
				return n, true
			}
		}
	}
	return "", false
}

// namedAt reports whether parts begins with the components of name, each
// in any case.
func namedAt(parts []string, name string) bool {
	for c := range strings.SplitSeq(name, "/") {
		if len(parts) == 0 || !domain.FoldEqual(parts[0], c) {
			return false
		}
		parts = parts[1:]
	}
	return true
}
