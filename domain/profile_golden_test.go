package domain

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profileCase is one testdata/profiles/*.in.json: profiles, the one to
// compile, the turn's environment, optional constraints, and the paths and
// URLs to explain. Its output is the matching *.out.json golden file.
type profileCase struct {
	Profiles    map[string]*Profile `json:"profiles"`
	Select      string              `json:"select"`
	Env         ProfileEnv          `json:"env"`
	Constraints *Constraints        `json:"constraints"`
	Paths       []string            `json:"paths"`
	URLs        [][2]string         `json:"urls"`
}

type profileResult struct {
	Error    string            `json:"error,omitempty"`
	Compiled *CompiledProfile  `json:"compiled,omitempty"`
	Paths    []explainedPath   `json:"paths,omitempty"`
	URLs     []NetworkDecision `json:"urls,omitempty"`
}

type explainedPath struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	Rule   string `json:"rule"`
}

func describeRule(d PathDecision) string {
	if d.Rule == nil {
		return "no matching rule (deny)"
	}
	r := d.Rule
	s := r.Key + " = " + string(r.Access) + " [" + string(r.Provenance) + " " + r.Origin + "]"
	if r.Locked {
		s += " locked"
	}
	return s
}

// TestGoldenProfiles compiles every testdata/profiles/*.in.json and compares
// the compiled profile and the explained paths and URLs with *.out.json
// (regenerate with -update).
func TestGoldenProfiles(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "profiles", "*.in.json"))
	if err != nil || len(ins) < 8 {
		t.Fatalf("want the profile cases in testdata/profiles, found %d (%v)", len(ins), err)
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var c profileCase
			dec := json.NewDecoder(strings.NewReader(string(raw)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			set := ProfileSet{}
			for n, p := range c.Profiles {
				p.Name = n
				set[n] = p
			}
			var res profileResult
			if errs := set.Validate(); len(errs) > 0 {
				var msgs []string
				for _, e := range errs {
					msgs = append(msgs, e.Error())
				}
				res.Error = strings.Join(msgs, "\n")
			} else if cp, err := CompileProfile(set, c.Select, c.Env, c.Constraints); err != nil {
				res.Error = err.Error()
			} else {
				res.Compiled = cp
				for _, p := range c.Paths {
					d := cp.Explain(p)
					res.Paths = append(res.Paths, explainedPath{Path: d.Path, Access: d.Access, Rule: describeRule(d)})
				}
				for _, u := range c.URLs {
					res.URLs = append(res.URLs, cp.Network.DecideURL(u[0], u[1]))
				}
			}
			golden(t, filepath.Join("profiles", name+".out.json"), res)
		})
	}
}
