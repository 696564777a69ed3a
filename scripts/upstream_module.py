"""A writable copy of an upstream Go module out of the module cache, for the generators that rewrite a
test of upstream's to dump its table (test/dra/structured/gen, test/api/gen)."""
import os
import shutil
import subprocess
import sys


def scratch_copy(module: str, version: str, dest: str) -> str:
    """Copies <module>@<version> (e.g. k8s.io/component-helpers, v0.37.2) from GOMODCACHE to dest, made
    writable (the cache is read-only), and returns dest. Exits when the cache lacks the module."""
    gomodcache = subprocess.check_output(['go', 'env', 'GOMODCACHE'], text=True).strip()
    src = os.path.join(gomodcache, *module.split('/')[:-1], f'{module.split("/")[-1]}@{version}')
    if not os.path.isdir(src):
        sys.exit(f'{src} missing: go mod download {module}@{version}')
    shutil.copytree(src, dest)
    for root, dirs, files in os.walk(dest):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o755)
    return dest
