// Command allocator is an oracle for dractl's allocator: it runs
// k8s.io/dynamic-resource-allocation's structured.NewAllocator(...).Allocate on
// each scenario, with the Kubernetes v1.37 default features unless the scenario
// overrides some of them.
//
// The AllocatedState is built from the already allocated claims the way
// kube-scheduler's DRA plugin does: adminAccess results are skipped, a result
// with a shareID (ConsumableCapacity on) is a shared device ID plus its consumed
// capacity, any other result an allocated device.
//
// stdin:  {"scenarios": [{"name", "features", "node", "classes", "slices", "allocated", "claims"}]}
// stdout: {"results": [{"results": [AllocationResult...] or null, "error": string or null}]}
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

type scenario struct {
	Name      string                       `json:"name"`
	Features  map[string]bool              `json:"features"`
	Node      *v1.Node                     `json:"node"`
	Classes   []*resourceapi.DeviceClass   `json:"classes"`
	Slices    []*resourceapi.ResourceSlice `json:"slices"`
	Allocated []*resourceapi.ResourceClaim `json:"allocated"`
	Claims    []*resourceapi.ResourceClaim `json:"claims"`
}

type outcome struct {
	Results []resourceapi.AllocationResult `json:"results"`
	Error   *string                        `json:"error"`
}

// The v1.37 defaults (pkg/features/kube_features.go): beta features on, alpha off.
func features(overrides map[string]bool) (structured.Features, error) {
	f := structured.Features{
		AdminAccess:             true,
		PrioritizedList:         true,
		PartitionableDevices:    true,
		DeviceTaints:            true,
		DeviceBindingAndStatus:  true,
		ConsumableCapacity:      true,
		FractionalCapacityRange: true,
	}
	fields := map[string]*bool{
		"AdminAccess":             &f.AdminAccess,
		"PrioritizedList":         &f.PrioritizedList,
		"PartitionableDevices":    &f.PartitionableDevices,
		"DeviceTaints":            &f.DeviceTaints,
		"DeviceBindingAndStatus":  &f.DeviceBindingAndStatus,
		"ConsumableCapacity":      &f.ConsumableCapacity,
		"FractionalCapacityRange": &f.FractionalCapacityRange,
		"ListTypeAttributes":      &f.ListTypeAttributes,
	}
	for name, on := range overrides {
		p, ok := fields[name]
		if !ok {
			return f, fmt.Errorf("unknown feature %q", name)
		}
		*p = on
	}
	return f, nil
}

type classLister []*resourceapi.DeviceClass

func (l classLister) List() ([]*resourceapi.DeviceClass, error) { return l, nil }

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	for _, c := range l {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}

// pkg/scheduler/framework/plugins/dynamicresources/allocateddevices.go: foreachAllocatedDevice
func allocatedState(f structured.Features, claims []*resourceapi.ResourceClaim) structured.AllocatedState {
	state := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	for _, c := range claims {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue
			}
			id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
			if f.ConsumableCapacity && r.ShareID != nil {
				state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, r.ShareID))
				if r.ConsumedCapacity != nil {
					state.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
				}
				continue
			}
			state.AllocatedDevices.Insert(id)
		}
	}
	return state
}

func run(ctx context.Context, sc scenario) (outcome, error) {
	f, err := features(sc.Features)
	if err != nil {
		return outcome{}, err
	}
	allocator, err := structured.NewAllocator(ctx, f, allocatedState(f, sc.Allocated), classLister(sc.Classes),
		sc.Slices, cel.NewCache(10, cel.Features{EnableConsumableCapacity: f.ConsumableCapacity,
			EnableListTypeAttributes: f.ListTypeAttributes}))
	if err != nil {
		msg := err.Error()
		return outcome{Error: &msg}, nil
	}
	results, err := allocator.Allocate(ctx, sc.Node, sc.Claims)
	if err != nil {
		msg := err.Error()
		return outcome{Error: &msg}, nil
	}
	return outcome{Results: results}, nil
}

func main() {
	var in struct {
		Scenarios []scenario `json:"scenarios"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "allocator oracle: reading stdin:", err)
		os.Exit(2)
	}
	out := struct {
		Results []outcome `json:"results"`
	}{Results: make([]outcome, 0, len(in.Scenarios))}
	ctx := context.Background()
	for _, sc := range in.Scenarios {
		o, err := run(ctx, sc)
		if err != nil {
			fmt.Fprintf(os.Stderr, "allocator oracle: scenario %s: %v\n", sc.Name, err)
			os.Exit(2)
		}
		out.Results = append(out.Results, o)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "allocator oracle: writing stdout:", err)
		os.Exit(1)
	}
}
