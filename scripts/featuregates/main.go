// Command featuregates prints the feature gates upstream kube-scheduler v1.37.2 accepts (the "kube"
// component's gate that cmd/kube-scheduler/app/options.NewOptions registers) at the binary's own version, one
// gate a line, sorted by name: "Name<TAB>default<TAB>prerelease<TAB>lockToDefault".
//
// It imports only k8s.io/kubernetes packages (the go.mod's one requirement, so the build needs nothing
// beyond the module cache controlplane.sh fills) and reads the gate through reflection.
// scripts/featuregates/generate.sh runs it and writes pkg/features/kube_features.inc.
package main

import (
	"fmt"
	"reflect"
	"sort"

	// app's init adds the logs and metrics gates (logsapi.AddFeatureGates, metrics features.AddFeatureGates).
	_ "k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
)

func main() {
	o := options.NewOptions()
	gate := o.ComponentGlobalsRegistry.FeatureGateFor("kube")
	getAll := reflect.ValueOf(gate).MethodByName("GetAll")
	if !getAll.IsValid() {
		panic("the kube feature gate has no GetAll method")
	}
	all := getAll.Call(nil)[0]
	type spec struct {
		name, preRelease string
		def, locked      bool
	}
	var specs []spec
	for _, key := range all.MapKeys() {
		v := all.MapIndex(key)
		specs = append(specs, spec{
			name:       key.String(),
			preRelease: v.FieldByName("PreRelease").String(),
			def:        v.FieldByName("Default").Bool(),
			locked:     v.FieldByName("LockToDefault").Bool(),
		})
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].name < specs[j].name })
	for _, s := range specs {
		fmt.Printf("%s\t%t\t%s\t%t\n", s.name, s.def, s.preRelease, s.locked)
	}
}
