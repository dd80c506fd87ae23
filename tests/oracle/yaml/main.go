// Command yaml prints what sigs.k8s.io/yaml.YAMLToJSON (the version kubectl v1.37 vendors) makes of YAML
// documents: stdin holds a JSON array of YAML texts; stdout a JSON array with, for each, {"json": "<the JSON
// text>"} or {"error": "<why it is refused>"}.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

type result struct {
	JSON  *string `json:"json,omitempty"`
	Error *string `json:"error,omitempty"`
}

func convert(doc string) (r result) {
	defer func() {
		if p := recover(); p != nil { // a panic is a refusal too (kubectl would crash; it does not today)
			msg := fmt.Sprintf("panic: %v", p)
			r = result{Error: &msg}
		}
	}()
	out, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		msg := err.Error()
		return result{Error: &msg}
	}
	s := string(out)
	return result{JSON: &s}
}

func main() {
	var docs []string
	if err := json.NewDecoder(os.Stdin).Decode(&docs); err != nil {
		fmt.Fprintln(os.Stderr, "input: a JSON array of YAML texts:", err)
		os.Exit(2)
	}
	results := make([]result, len(docs))
	for i, d := range docs {
		results[i] = convert(d)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
