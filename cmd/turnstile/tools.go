package main

import (
	"encoding/json"
	"fmt"
	"io"

	"turnstile/domain"
)

func toolsCmd(args []string, stdout, stderr io.Writer) int {
	usage := "usage: turnstile tools [--json]\n\nPrints the tool catalogue: each tool name the classifier knows, the action kind it\nbecomes, the arguments it reads and an example (docs/tools.md is the same table). A tool\nnot listed is unclassified: decided by the mode's default_behavior, flagged\n\"unclassified\": true in its decision."
	asJSON := false
	for _, a := range args {
		switch a {
		case "-h", "--help":
			fmt.Fprintln(stdout, usage)
			return 0
		case "--json", "-json":
			asJSON = true
		default:
			fmt.Fprintf(stderr, "turnstile tools: unexpected argument %q\n\n%s\n", a, usage)
			return 2
		}
	}
	if !asJSON {
		fmt.Fprint(stdout, domain.ToolsMarkdown())
		return 0
	}
	type tool struct {
		Name      string            `json:"tool_name"`
		Pattern   bool              `json:"pattern,omitempty"`
		Kind      domain.ActionKind `json:"action"`
		Arguments map[string]any    `json:"arguments_schema"`
		Example   json.RawMessage   `json:"example"`
	}
	var out []tool
	for _, t := range domain.ToolCatalogue {
		out = append(out, tool{t.Name, t.Pattern, t.Kind, domain.ToolArgumentsSchema(t), json.RawMessage(t.Example)})
	}
	printJSON(stdout, out)
	return 0
}
