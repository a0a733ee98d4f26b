package sandbox

import (
	"fmt"
	"slices"

	"turnstile/domain"
)

// prepareError is a failure of prepareSpec: the helper was started but not
// given its plan, and the command did not run.
type prepareError struct{ err error }

func (e *prepareError) Error() string { return e.err.Error() }
func (e *prepareError) Unwrap() error { return e.err }

// maxWalkedSocketMasks bounds the socket files found by the walk that a
// command's view masks (each is a mount) when the kernel's list of
// listeners is not available (hostSocketMasks): a command can leave socket
// files behind, nothing listening on them, and an unbounded number made
// every later command slower and, past fs.mount-max, refused (an attack
// review). The walk is breadth-first, so the shallowest are masked.
const maxWalkedSocketMasks = 64

// prepareSpec completes a helper's spec once the helper has been started
// (Run does this while the helper starts, since the helper needs it only
// when it reads its plan): what stays protected inside the writable roots,
// i.e. the names held for the command and the nested repositories the walk
// found (handed to the helper so that it does not walk again), the current
// matches of glob deny rules (masked like deny entries; files created later
// are a named degradation), and, in the namespaces, the host's unix sockets
// to mask. The returned function releases the held names (nil when none).
func prepareSpec(spec *SandboxSpec) (release func(), err error) {
	var walked []walkedSocket // socket files the view's walk found in writable roots
	var roots []string        // the writable roots
	if spec.RestrictFilesystem {
		spec.Entries = append(slices.Clone(spec.Entries), globMaskEntries(spec.Entries, spec.GlobRules, spec.GlobScanMaxDepth)...)
		globRules := spec.GlobRules
		spec.GlobRules = nil
		v := spec.view
		if v == nil || len(spec.Entries) != spec.viewEntries {
			v = newFSView(&domain.FilesystemPolicy{Entries: spec.Entries})
		}
		spec.view = nil
		if v.overflow != "" {
			return nil, refuse(CodeSandboxUnavailable, "", "%s", v.overflow)
		}
		// What commands killed before their check left, judged before this
		// one can change it (catchupfirst.go); the view again if that set
		// anything aside.
		if spec.catchUp.pending() && spec.catchUp.run(spec.Entries, spec.UID, globRules) {
			if v = newFSView(&domain.FilesystemPolicy{Entries: spec.Entries}); v.overflow != "" {
				return nil, refuse(CodeSandboxUnavailable, "", "%s", v.overflow)
			}
		}
		if release, err = holdNames(v); err != nil {
			return nil, err
		}
		spec.Entries, spec.Walked = withNested(spec.Entries, v), true
		if spec.plant = newPlantCheck(v); spec.plant != nil {
			spec.plant.cmdUID = spec.UID
			spec.plant.discoveryLimits = summarizeLimits(v.limits, 1)
			spec.plant.setGlobDeny(globRules)
			spec.plant.watchIndexes(v)
			if spec.plant.overflow != "" {
				if release != nil {
					release()
				}
				return nil, refuse(CodeSandboxUnavailable, "", "%s", spec.plant.overflow)
			}
		}
		walked = v.sockets
		for _, g := range v.grants {
			if g.Access == domain.AccessWrite && g.Kind != domain.PathDevice {
				roots = append(roots, g.Path)
			}
		}
	}
	if spec.InNamespace && !spec.AllowUnixSockets {
		if spec.HostSockets, err = hostSocketMasks(walked, roots); err != nil {
			if release != nil {
				release()
			}
			return nil, refuse(CodeSandboxUnavailable, "", "%s", err)
		}
	}
	return release, nil
}

// summarizeLimits returns at most n of limits, and a line that counts the
// rest (a deep tree reaches the discovery's depth at every directory).
func summarizeLimits(limits []string, n int) []string {
	if len(limits) <= n {
		return slices.Clone(limits)
	}
	out := slices.Clone(limits[:n])
	return append(out, fmt.Sprintf("and %d more bounds of the git dir discovery reached: repositories past them were not held, nor their indexes watched, for this command", len(limits)-n))
}
