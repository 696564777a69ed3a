// Command featuregates prints the feature gates upstream kube-scheduler v1.37.2 accepts (the "kube"
// component's gate that cmd/kube-scheduler/app/options.NewOptions registers) at the binary's own version, one
// gate a line, sorted by name: "Name<TAB>default<TAB>prerelease<TAB>lockToDefault"; then the dependencies,
// "dependency<TAB>Name<TAB>NeedsName"; then, for every --emulated-version / --min-compatibility-version pair
// the binary accepts, the gates whose spec differs there from the first table:
// "at<TAB>emulationMinor<TAB>minCompatibilityMinor<TAB>Name<TAB>default<TAB>prerelease<TAB>lockToDefault".
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

	// Dependencies: a gate that is enabled needs these enabled too.
	deps := reflect.ValueOf(versioned).MethodByName("Dependencies").Call(nil)[0]
	var depLines []string
	for _, key := range deps.MapKeys() {
		list := deps.MapIndex(key)
		for i := 0; i < list.Len(); i++ {
			depLines = append(depLines, fmt.Sprintf("dependency\t%s\t%s", key.String(), list.Index(i).String()))
		}
	}
	sort.Strings(depLines)
	for _, l := range depLines {
		fmt.Println(l)
	}

	// The specs at every other --emulated-version / --min-compatibility-version pair the binary accepts
	// (both from binary-3; min compatibility at most the emulation version) where they differ from the
	// table above (emulation: the binary's; min compatibility: binary-1). A gate unknown at that version
	// shows as PRE-ALPHA.
	binary := versioned.EmulationVersion()
	base := map[string]spec{}
	for _, s := range specs {
		base[s.name] = s
	}
	for emu := binary.Minor() - 3; emu <= binary.Minor(); emu++ {
		for mc := binary.Minor() - 3; mc <= emu; mc++ {
			if emu == binary.Minor() && mc == binary.Minor()-1 {
				continue
			}
			if err := versioned.SetEmulationVersionAndMinCompatibilityVersion(
				version.MajorMinor(binary.Major(), emu), version.MajorMinor(binary.Major(), mc)); err != nil {
				panic(err)
			}
			all := reflect.ValueOf(versioned).MethodByName("GetAll").Call(nil)[0]
			for _, s := range specs {
				at := spec{name: s.name, preRelease: "PRE-ALPHA"} // GetAll leaves out gates unknown at the version
				if v := all.MapIndex(reflect.ValueOf(featuregate.Feature(s.name))); v.IsValid() {
					at.preRelease = v.FieldByName("PreRelease").String()
					at.def = v.FieldByName("Default").Bool()
					at.locked = v.FieldByName("LockToDefault").Bool()
				}
				if at != base[s.name] {
					fmt.Printf("at\t%d\t%d\t%s\t%t\t%s\t%t\n", emu, mc, s.name, at.def, at.preRelease, at.locked)
				}
			}
		}
	}
}

type spec struct {
	name, preRelease string
	def, locked      bool
}
