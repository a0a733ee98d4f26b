package sandbox

import "testing"

// TestAttack207_FileAtRootPath (review 207, against b81b2c7a): a command
// over ws/sub (a directory: its marker names the directory's identity) is
// killed outright after planting a repository in ws/sub/evil. The person
// moves ws/sub aside and a FILE now stands at ws/sub (`mv sub other/sub2
// && touch sub`). relocateBelow returned the path as it is whenever a
// regular file stood there ("a file granted as a root") without looking
// at the identity: the catch-up checked the file, not the moved directory,
// and the plant at ws/other/sub2/evil stayed (as before b81b2c7a). A
// marker with an identity is always of a directory root (MarkStarted
// writes none for a file): now a file at its path is a root replaced, and
// all of ws is checked (rootReplaced).
//
// Control: a directory in its place (`mkdir sub`): the plant set aside.
func TestAttack207_FileAtRootPath(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct{ name, person string }{
		{"control-directory-in-its-place", "mv sub other/sub2 && mkdir sub"},
		{"file-in-its-place", "mv sub other/sub2 && echo notes > sub"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, ws := attack207Killed(t, nil, c.person, false)
			if exists(ws + "/other/sub2/evil/.git/HEAD") {
				t.Errorf("the killed command's repository, at ws/other/sub2/evil after the person's %q, was not set aside: the file at the root's path was checked instead of the moved root", c.person)
			}
		})
	}
}
