// Command cel is an oracle for dractl's CEL selectors: it evaluates each case with
// k8s.io/dynamic-resource-allocation's cel package, as kube-apiserver validates a new
// selector (environment.NewExpressions, then the length and cost limits of
// pkg/apis/resource/validation) or as kube-scheduler compiles a stored one
// (environment.StoredExpressions), and matches it against a device the way the
// structured allocator does (runtime errors through cel.EnhanceRuntimeError).
//
// stdin:  {"devices": {NAME: {"driver", "attributes", "capacity", "allowMultipleAllocations"}},
//
//	"envs": {NAME: {"consumableCapacity", "listTypeAttributes", "stored"}},
//	"cases": [{"expr", "device", "env"}]}
//
// stdout: {"results": [{"compileError", "maxCost", "match", "runtimeError"}]}, one per case.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

type device struct {
	Driver                   string                                                    `json:"driver"`
	Attributes               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute `json:"attributes"`
	Capacity                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity  `json:"capacity"`
	AllowMultipleAllocations *bool                                                     `json:"allowMultipleAllocations"`
}

type env struct {
	ConsumableCapacity bool `json:"consumableCapacity"`
	ListTypeAttributes bool `json:"listTypeAttributes"`
	Stored             bool `json:"stored"`
}

type testCase struct {
	Expr   string `json:"expr"`
	Device string `json:"device"`
	Env    string `json:"env"`
}

type input struct {
	Devices map[string]device `json:"devices"`
	Envs    map[string]env    `json:"envs"`
	Cases   []testCase        `json:"cases"`
}

type result struct {
	CompileError *string `json:"compileError"`
	MaxCost      *uint64 `json:"maxCost"`
	Match        *bool   `json:"match"`
	RuntimeError *string `json:"runtimeError"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "cel oracle: reading stdin:", err)
		os.Exit(2)
	}
	devices := map[string]dracel.Device{}
	for name, d := range in.Devices {
		capacity := map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{}
		for k, c := range d.Capacity {
			// kube-scheduler sees quantities after a round trip through their canonical string
			c.Value = resource.MustParse(c.Value.String())
			capacity[k] = c
		}
		devices[name] = dracel.Device{Driver: d.Driver, Attributes: d.Attributes, Capacity: capacity,
			AllowMultipleAllocations: d.AllowMultipleAllocations}
	}
	out := struct {
		Results []result `json:"results"`
	}{Results: make([]result, 0, len(in.Cases))}
	for _, c := range in.Cases {
		e, ok := in.Envs[c.Env]
		if !ok {
			fmt.Fprintf(os.Stderr, "cel oracle: unknown env %q\n", c.Env)
			os.Exit(2)
		}
		d, ok := devices[c.Device]
		if !ok {
			fmt.Fprintf(os.Stderr, "cel oracle: unknown device %q\n", c.Device)
			os.Exit(2)
		}
		out.Results = append(out.Results, evaluate(c.Expr, e, d))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "cel oracle: writing stdout:", err)
		os.Exit(1)
	}
}

func str(s string) *string { return &s }

func evaluate(expr string, e env, d dracel.Device) result {
	var res result
	envType := environment.NewExpressions
	if e.Stored {
		envType = environment.StoredExpressions
	} else if len(expr) > resourceapi.CELSelectorExpressionMaxLength {
		// pkg/apis/resource/validation: validateCELSelector
		res.CompileError = str(field.TooLong(field.NewPath(""), "", resourceapi.CELSelectorExpressionMaxLength).ErrorBody())
		return res
	}
	compiler := dracel.GetCompiler(dracel.Features{
		EnableConsumableCapacity: e.ConsumableCapacity,
		EnableListTypeAttributes: e.ListTypeAttributes,
	})
	compiled := compiler.CompileCELExpression(expr, dracel.Options{EnvType: &envType, DisableCostEstimation: e.Stored})
	if compiled.Error != nil {
		res.CompileError = str(compiled.Error.Detail)
		return res
	}
	if !e.Stored {
		cost := compiled.MaxCost
		res.MaxCost = &cost
		if cost > resourceapi.CELSelectorExpressionMaxCost {
			res.CompileError = str(field.Forbidden(field.NewPath(""), "too complex, exceeds cost limit").ErrorBody())
			return res
		}
	}
	match, _, err := compiled.DeviceMatches(context.Background(), d)
	if err != nil {
		// structured allocator: selectorsMatch
		res.RuntimeError = str(dracel.EnhanceRuntimeError(err).Error())
		return res
	}
	res.Match = &match
	return res
}
