#!/usr/bin/env python3
"""Regenerates allocator_cases.json from upstream's shared allocator test table.

Copies k8s.io/dynamic-resource-allocation@VERSION out of the Go module cache into a scratch directory,
rewrites the table's runner so that it writes every case (inputs, expected results, expected error
substring) as JSON instead of running it, and runs that with `go test`. Nothing of upstream's text ends up
in this repository; only the data the table evaluates to.

With --diff it instead writes allocator_diff_cases.json: random allocation problems (diff_test.go.in) with
the answers of upstream's incubating allocator. Problems whose answer depends on Go's random pool order
(checked by solving each eight times) or on which upstream panics are left out, so a rerun with the same
seed may keep a slightly different set.

Usage: gen_cases.py [--version v0.37.2] [--out FILE] [--diff [--count 400] [--seed 1]]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', '..', '..', 'scripts'))
from upstream_module import scratch_copy  # noqa: E402

# Replaces the per-case runner loop: serialise instead of allocate.
DUMP_LOOP = r'''
	if true {
		for name, tc := range testcases {
			name = dumpPrefix + name
			f := tc.features
			c := dumpCase{Name: name, Features: map[string]bool{
				"AdminAccess": f.AdminAccess, "CompatibilityGroups": f.CompatibilityGroups,
				"ConsumableCapacity": f.ConsumableCapacity, "DerivedAttributes": f.DerivedAttributes,
				"DeviceBindingAndStatus": f.DeviceBindingAndStatus, "DeviceTaints": f.DeviceTaints,
				"FractionalCapacityRange": f.FractionalCapacityRange, "ListTypeAttributes": f.ListTypeAttributes,
				"OptionalNodeOperations": f.OptionalNodeOperations, "PartitionableDevices": f.PartitionableDevices,
				"PrioritizedList": f.PrioritizedList,
			}, ExpectNumAllocateOneInvocations: tc.expectNumAllocateOneInvocations}
			// The incubating allocator's search effort, where it differs from the best one.
			if n, ok := tc.expectNumAllocateOneInvocationsByChannel[internal.Incubating]; ok {
				c.ExpectNumAllocateOneInvocations = n
			}
			for _, claim := range unwrap(tc.claimsToAllocate...) {
				checkDefaults(t, name, claim)
				c.Claims = append(c.Claims, claim)
			}
			for _, id := range tc.allocatedDevices {
				c.AllocatedDevices = append(c.AllocatedDevices, dumpDeviceID{id.Driver.String(), id.Pool.String(), id.Device.String()})
			}
			for id := range tc.allocatedSharedDeviceIDs {
				c.AllocatedSharedDeviceIDs = append(c.AllocatedSharedDeviceIDs, map[string]string{
					"driver": id.Driver.String(), "pool": id.Pool.String(), "device": id.Device.String(), "shareID": id.ShareID.String()})
			}
			for id, consumed := range tc.allocatedCapacityDevices {
				quantities := map[string]string{}
				for name, q := range consumed {
					quantities[string(name)] = q.String()
				}
				c.AllocatedCapacity = append(c.AllocatedCapacity, map[string]any{
					"driver": id.Driver.String(), "pool": id.Pool.String(), "device": id.Device.String(), "capacity": quantities})
			}
			for _, class := range tc.classes {
				c.Classes = append(c.Classes, class)
			}
			for _, slice := range tc.slices {
				c.Slices = append(c.Slices, slice)
			}
			if tc.node == nil {
				tc.node = node(node1, region1) // as upstream's runner
			}
			c.Node = tc.node
			for _, r := range tc.expectResults {
				switch r := r.(type) {
				case unorderedAllocationResult:
					c.ExpectResults = append(c.ExpectResults, dumpResult{Unordered: true, Result: r.result})
				case resourceapi.AllocationResult:
					c.ExpectResults = append(c.ExpectResults, dumpResult{Unordered: false, Result: r})
				default:
					t.Fatalf("%s: unexpected result type %T", name, r)
				}
			}
			if tc.expectError != nil {
				c.ExpectError = tc.expectError.(errContainsMatcher).substrings
			}
			dumpedCases = append(dumpedCases, c)
		}
		return
	}
'''

HELPERS = r'''
var dumpedCases []dumpCase
var dumpPrefix string

// The interrupt test needs a real allocator; it is ported by hand.
func skipInterrupt(t *testing.T, name string, f func(t *testing.T)) bool { return true }

type unorderedAllocationResult struct{ result resourceapi.AllocationResult }

// allocationResult: results and node selector terms compare in any order.
func allocationResult(selector *v1.NodeSelector, results ...resourceapi.DeviceRequestAllocationResult) any {
	_ = allocationResultMatcher
	return unorderedAllocationResult{resourceapi.AllocationResult{
		Devices:      resourceapi.DeviceAllocationResult{Results: results},
		NodeSelector: selector,
	}}
}

type errContainsMatcher struct{ substrings []string }

func errContains(s string) any { return errContainsMatcher{[]string{s}} }

// gomega.MatchError(gomega.And(gomega.ContainSubstring(a), ...)): every substring.
func errArgs(ms ...any) []any { return ms }

func errContainsAll(ms []any) any {
	var m errContainsMatcher
	for _, sub := range ms {
		m.substrings = append(m.substrings, reflect.ValueOf(sub).Elem().FieldByName("Substr").String())
	}
	return m
}

// The C++ decoder applies the API server's defaults; fail if a case depends on their absence.
func checkDefaults(t *testing.T, name string, claim *resourceapi.ResourceClaim) {
	check := func(mode resourceapi.DeviceAllocationMode, count int64) {
		if mode == "" || (mode == resourceapi.DeviceAllocationModeExactCount && count == 0) {
			t.Fatalf("%s: request relies on an undefaulted allocation mode/count", name)
		}
	}
	for _, r := range claim.Spec.Devices.Requests {
		if r.Exactly != nil {
			check(r.Exactly.AllocationMode, r.Exactly.Count)
			for _, tol := range r.Exactly.Tolerations {
				if tol.Operator == "" {
					t.Fatalf("%s: toleration without operator", name)
				}
			}
		}
		for _, s := range r.FirstAvailable {
			check(s.AllocationMode, s.Count)
		}
	}
}
'''


def patch(src: str) -> str:
    def sub(pattern, repl, text, count=1, flags=0):
        new, n = re.subn(pattern, repl, text, count=count, flags=flags)
        if n == 0:
            sys.exit(f"gen_cases.py: pattern not found: {pattern}")
        return new

    src = sub(r'expectError(\s+)types\.GomegaMatcher', r'expectError\1any', src)
    src = sub(r'gomega\.MatchError\(gomega\.ContainSubstring\(', 'errContains((', src, count=0)
    src = sub(r'gomega\.MatchError\(gomega\.And\(', 'errContainsAll(errArgs(', src, count=0)
    src = sub(r'\nimport \(', '\nimport (\n\t"reflect"', src)
    src = sub(r'\nfunc allocationResult\(', '\nfunc allocationResultMatcher(', src)
    src = sub(r'\tt\.Run\("interrupt", ', '\tskipInterrupt(t, "interrupt", ', src)
    # Replace RunTestAllocator's loop (the rest of that function) with the dumper.
    start = src.index('\tfor name, tc := range testcases {', src.index('\nfunc RunTestAllocator('))
    end = src.index('\ntype informerLister[', start)
    src = src[:start] + DUMP_LOOP + '}\n' + src[end:]
    return src + HELPERS


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--version', default='v0.37.2')
    ap.add_argument('--out')
    ap.add_argument('--diff', action='store_true')
    ap.add_argument('--count', type=int, default=400)
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    if not args.out:
        args.out = os.path.join(HERE, '..', 'allocator_diff_cases.json' if args.diff else 'allocator_cases.json')
    with tempfile.TemporaryDirectory() as tmp:
        work = scratch_copy('k8s.io/dynamic-resource-allocation', args.version, os.path.join(tmp, 'dra'))
        if args.diff:
            pkg = os.path.join(work, 'structured', 'internal', 'incubating')
            shutil.copy(os.path.join(HERE, 'diff_test.go.in'), os.path.join(pkg, 'diff_dump_test.go'))
            env = dict(os.environ, DUMP_DIFF_CASES=os.path.abspath(args.out), DIFF_COUNT=str(args.count),
                       DIFF_SEED=str(args.seed))
            subprocess.check_call(['go', 'test', '-count=1', '-v', '-run', '^TestDumpDiffCases$', '.'], cwd=pkg, env=env)
            print(f'wrote {args.out}')
            return
        pkg = os.path.join(work, 'structured', 'internal', 'allocatortesting')
        path = os.path.join(pkg, 'allocator_testing.go')
        with open(path) as f:
            src = f.read()
        with open(path, 'w') as f:
            f.write(patch(src))
        shutil.copy(os.path.join(HERE, 'dump_test.go.in'), os.path.join(pkg, 'dump_test.go'))
        env = dict(os.environ, DUMP_CASES=os.path.abspath(args.out))
        subprocess.check_call(['go', 'test', '-count=1', '-run', '^TestDumpCases$', '.'], cwd=pkg, env=env)
    print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
