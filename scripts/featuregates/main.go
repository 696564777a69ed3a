// Command featuregates prints the feature gates upstream kube-scheduler v1.37.2 accepts (the "kube"
// component's gate that cmd/kube-scheduler/app/options.NewOptions registers) at the binary's own version, one
// gate a line, sorted by name: "Name<TAB>default<TAB>prerelease<TAB>lockToDefault"; then, for every
// --min-compatibility-version the binary accepts (binary-3 .. binary), the gates whose default differs there
// from the default above: "minCompatibility<TAB>minor<TAB>Name<TAB>default".
//
// It imports only k8s.io/kubernetes packages (the go.mod's one requirement, so the build needs nothing
// beyond the module cache controlplane.sh fills) and reads the gate through reflection.
// scripts/featuregates/generate.sh runs it and writes pkg/features/kube_features.inc.
package main

import (
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"

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

	versioned, ok := gate.(featuregate.MutableVersionedFeatureGate)
	if !ok {
		panic("the kube feature gate is not versioned")
	}
	emulation := versioned.EmulationVersion()
	for minor := emulation.Minor() - 3; minor <= emulation.Minor(); minor++ {
		compat := version.MajorMinor(emulation.Major(), minor)
		if err := versioned.SetEmulationVersionAndMinCompatibilityVersion(emulation, compat); err != nil {
			panic(err)
		}
		at := reflect.ValueOf(versioned).MethodByName("GetAll").Call(nil)[0]
		for _, s := range specs {
			v := at.MapIndex(reflect.ValueOf(featuregate.Feature(s.name)))
			if !v.IsValid() {
				continue
			}
			if def := v.FieldByName("Default").Bool(); def != s.def {
				fmt.Printf("minCompatibility\t%d\t%s\t%t\n", minor, s.name, def)
			}
		}
	}
}
