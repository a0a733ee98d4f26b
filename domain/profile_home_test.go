package domain

import (
	"strings"
	"testing"
)

// TestCatalogCheckHome: with no home directory known, a "~" deny of a
// profile, a "~" required_deny and a "~" allowed root refuse the catalog
// (each named); a "~" grant does not (it is dropped, granting less).
// Control: the same catalog with a home passes.
func TestCatalogCheckHome(t *testing.T) {
	cat := &ProfileCatalog{
		Profiles: ProfileSet{
			"reader": {Filesystem: map[string]Access{":root": AccessRead, "~/.ssh": AccessDeny}},
			"coder":  {Filesystem: map[string]Access{"~/code": AccessWrite}},
		},
		Constraints: &Constraints{RequiredDeny: []string{"~/.aws", "/etc/shadow"}, AllowedRoots: []string{"~", "/srv"}},
	}
	err := cat.CheckHome()
	if err == nil {
		t.Fatal("a catalog with ~ denies and bounds passed with no home known")
	}
	for _, want := range []string{`profile reader: filesystem "~/.ssh"`, `required_deny "~/.aws"`, `allowed_roots "~"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not name %s: %v", want, err)
		}
	}
	for _, not := range []string{"coder", "/etc/shadow", "/srv"} {
		if strings.Contains(err.Error(), not) {
			t.Errorf("the refusal names %s, which needs no home: %v", not, err)
		}
	}
	cat.Home = "/home/person"
	if err := cat.CheckHome(); err != nil {
		t.Errorf("control: with a home the catalog was refused: %v", err)
	}
	grants := &ProfileCatalog{Profiles: ProfileSet{"coder": {Filesystem: map[string]Access{"~/code": AccessWrite}}}}
	if err := grants.CheckHome(); err != nil {
		t.Errorf("a catalog whose only ~ rule is a grant was refused with no home: %v", err)
	}
}
