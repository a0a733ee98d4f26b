package domain

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkEvaluateGrantHit is Evaluate alone on an already classified
// action against a supervised snapshot whose turn holds 1,000
// allow_for_turn grants (the action's own among them): a map hit, the last
// step of a decision, not a decision (BenchmarkDecision in
// decision_bench_test.go measures the whole of one).
func BenchmarkEvaluateGrantHit(b *testing.B) {
	s := testSnapshot(b, ModeSupervised)
	grants := make(GrantSet, 1000)
	for i := range 999 {
		a := mustClassify(b, Invocation{ToolName: "exec_command", Arguments: json.RawMessage(fmt.Sprintf(`{"cmd":["make","t%d"]}`, i))}, "/work/repo")
		grants[GrantFor(ModeSupervised, &a)] = struct{}{}
	}
	a := mustClassify(b, sampleInvocations[ActionShellCommand], "/work/repo")
	grants[GrantFor(ModeSupervised, &a)] = struct{}{}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d := Evaluate(&s, &a, grants)
		if !d.Cached {
			b.Fatal("grant missed")
		}
	}
}

// BenchmarkScopeHash hashes a typical exec_command scope.
func BenchmarkScopeHash(b *testing.B) {
	a := mustClassify(b, Invocation{ToolName: "exec_command", Arguments: json.RawMessage(
		`{"cmd":["go","test","-run","TestX","./..."],"workdir":"service","env":{"GOFLAGS":"-count=1"},"timeout_ms":60000}`)}, "/work/repo")
	b.ReportAllocs()
	for b.Loop() {
		if len(a.Scope.Hash()) != 64 {
			b.Fatal("bad hash")
		}
	}
}

// BenchmarkClassify is classification plus scope hashing of one call.
func BenchmarkClassify(b *testing.B) {
	inv := Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":["go","test","./..."],"workdir":"service"}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Classify(inv, "/work/repo", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassifyExecEnv is an exec given an environment (POST /exec's
// env): each value shown by name is redacted once for the request.
func BenchmarkClassifyExecEnv(b *testing.B) {
	inv := Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":["go","test","./..."],"workdir":"service","env":{"PATH":"/usr/local/go/bin:/usr/bin:/bin","HOME":"/home/agent","GOFLAGS":"-mod=mod -count=1","LANG":"C.UTF-8","API_TOKEN":"Zq8vLw3nR2tK9pXsQ"}}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Classify(inv, "/work/repo", nil); err != nil {
			b.Fatal(err)
		}
	}
}
