#!/usr/bin/env python3
"""Regenerates resource_helpers_cases.json from upstream's k8s.io/component-helpers/resource tests.

Copies k8s.io/component-helpers@VERSION out of the Go module cache into a scratch directory, renames the
exported helpers of resource/helpers.go to *Impl and drops in dump_test.go.in, whose wrappers record each
call upstream's tests make (pod, options, result) while the tests check the results against their tables.
Only the data the tables evaluate to ends up in this repository. The DRA node-allocatable tests are left
out (DRANodeAllocatableResources is alpha and not modelled).

Usage: gen_resource_cases.py [--version v0.37.2] [--out FILE]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', '..', 'scripts'))
from upstream_module import scratch_copy  # noqa: E402

RENAMES = {
    'PodRequests': 'podRequestsImpl',
    'PodLimits': 'podLimitsImpl',
    'AggregateContainerRequests': 'aggregateContainerRequestsImpl',
    'AggregateContainerLimits': 'aggregateContainerLimitsImpl',
    'IsPodLevelResourcesSet': 'isPodLevelResourcesSetImpl',
    'IsPodLevelLimitsSet': 'isPodLevelLimitsSetImpl',
    'IsSupportedPodLevelResource': 'isSupportedPodLevelResourceImpl',
}


def sub(pattern, repl, text, count=1):
    new, n = re.subn(pattern, repl, text, count=count)
    if n == 0 or (count and n != count):
        sys.exit(f'gen_resource_cases.py: pattern {pattern!r} matched {n} times')
    return new


def patch_helpers(src: str) -> str:
    for name, impl in RENAMES.items():
        src = sub(r'\nfunc ' + name + r'\(', '\nfunc ' + impl + '(', src)
    return src


def patch_tests(src: str) -> str:
    # Name the subtest being recorded; the two loops without t.Run name their cases in a field.
    src = sub(r'\bt\.Run\(', 'dumpRun(t, ', src, count=0)
    src = sub(r'(for idx, tc := range cases \{\n)(\t\tresRequests := PodRequests\(tc\.pod, PodResourcesOptions\{\}\))',
              r'\1\t\tdumpSub = tc.cName\n\2', src)
    src = sub(r'(for idx, tc := range cases \{\n)(\t\tresRequests := PodRequests\(tc\.pod, PodResourcesOptions\{ExcludeOverhead: true\}\))',
              r'\1\t\tdumpSub = tc.name\n\2', src)
    return src


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--version', default='v0.37.2')
    ap.add_argument('--out', default=os.path.join(HERE, '..', 'resource_helpers_cases.json'))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = scratch_copy('k8s.io/component-helpers', args.version, os.path.join(tmp, 'component-helpers'))
        pkg = os.path.join(work, 'resource')
        for name, patcher in (('helpers.go', patch_helpers), ('helpers_test.go', patch_tests)):
            path = os.path.join(pkg, name)
            with open(path) as f:
                src = f.read()
            with open(path, 'w') as f:
                f.write(patcher(src))
        shutil.copy(os.path.join(HERE, 'dump_test.go.in'), os.path.join(pkg, 'dump_test.go'))
        env = dict(os.environ, DUMP_CASES=os.path.abspath(args.out), GOFLAGS='-mod=mod')
        subprocess.check_call(['go', 'test', '-count=1', '-run', '^TestDumpCases$', '.'], cwd=pkg, env=env)
    print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
