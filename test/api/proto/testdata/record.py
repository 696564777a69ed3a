#!/usr/bin/env python3
"""Records how a real kube-apiserver v1.37.2 serves objects in protobuf and in JSON, for the protobuf codec's
unit tests (test/api/proto): each manifest is created on a fresh control plane (its status too, through the
status subresource), then read back. Run it again when a manifest changes; CI only reads its output.

    test/api/proto/testdata/record.py [manifest...]   (default: every manifest in test/api/proto/testdata/objects)

For a manifest objects/<name>.{json,yaml} it writes, next to this script:
    <name>.json        GET of the object, Accept: application/json
    <name>.pb          the same GET, Accept: application/vnd.kubernetes.protobuf
    <name>.list.pb     a list of the object's kind (in its namespace) holding just it, in protobuf
    <name>.watch.pb    a watch of that list from resourceVersion 0 (its ADDED frame), in protobuf
and once: status-notfound.pb / .json (a 404's Status body).
Uses test/integration/controlplane.sh (KS_CONTROL_PLANE_BIN to reuse built binaries); loopback only. The
kube-apiserver runs with FEATURE_GATES and RUNTIME_CONFIG (appended to any KS_APISERVER_EXTRA_FLAGS): the
alpha fields the manifests use would otherwise be dropped silently, scheduling.k8s.io/v1beta1 not served.
"""
import glob
import http.client
import json
import os
import ssl
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../../.."))
CONTROLPLANE = os.path.join(ROOT, "test/integration/controlplane.sh")
PROTOBUF = "application/vnd.kubernetes.protobuf"

# kind -> (API path prefix, plural, namespaced)
KINDS = {
    "Pod": ("/api/v1", "pods", True),
    "Node": ("/api/v1", "nodes", False),
    "Namespace": ("/api/v1", "namespaces", False),
    "PersistentVolume": ("/api/v1", "persistentvolumes", False),
    "PersistentVolumeClaim": ("/api/v1", "persistentvolumeclaims", True),
    "Service": ("/api/v1", "services", True),
    "ReplicationController": ("/api/v1", "replicationcontrollers", True),
    "StorageClass": ("/apis/storage.k8s.io/v1", "storageclasses", False),
    "CSINode": ("/apis/storage.k8s.io/v1", "csinodes", False),
    "CSIDriver": ("/apis/storage.k8s.io/v1", "csidrivers", False),
    "CSIStorageCapacity": ("/apis/storage.k8s.io/v1", "csistoragecapacities", True),
    "VolumeAttachment": ("/apis/storage.k8s.io/v1", "volumeattachments", False),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
    "ReplicaSet": ("/apis/apps/v1", "replicasets", True),
    "StatefulSet": ("/apis/apps/v1", "statefulsets", True),
    "DeviceClass": ("/apis/resource.k8s.io/v1", "deviceclasses", False),
    "ResourceClaim": ("/apis/resource.k8s.io/v1", "resourceclaims", True),
    "ResourceSlice": ("/apis/resource.k8s.io/v1", "resourceslices", False),
    "DeviceTaintRule": ("/apis/resource.k8s.io/v1", "devicetaintrules", False),
    "Workload": ("/apis/scheduling.k8s.io/v1beta1", "workloads", True),
    "PodGroup": ("/apis/scheduling.k8s.io/v1beta1", "podgroups", True),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses", False),
    "RuntimeClass": ("/apis/node.k8s.io/v1", "runtimeclasses", False),
}
# Fields an apiserver drops silently while their gate is off: consumable capacity (capacity requests and
# policies, shareID, consumedCapacity), binding conditions (bindsToNode, binding*Conditions,
# allocationTimestamp), device taints, extended resources (DeviceClass extendedResourceName, a pod's
# status.extendedResourceClaimStatus), partitionable devices (counters, per-device node selection). All are
# on (or GA) in v1.37.2; naming them keeps the recording independent of the defaults. Alpha in v1.37.2 and
# off: user namespaces with the host network (a pod's hostUsers=false with hostNetwork) and bind mount options.
# Gang scheduling (beta GenericWorkload, its group scheduling.k8s.io/v1beta1 enabled by RUNTIME_CONFIG) with
# the alpha gates of the fields Workload and PodGroup carry: composite templates, topology constraints,
# claims shared by a group, a group's preemption policy.
FEATURE_GATES = ("DRAConsumableCapacity=true,DRADeviceBindingConditions=true,DRADeviceTaints=true,"
                 "DRAExtendedResource=true,DRAPartitionableDevices=true,"
                 "UserNamespacesHostNetworkSupport=true,VolumeBindMountOptions=true,"
                 "GenericWorkload=true,CompositePodGroup=true,TopologyAwareWorkloadScheduling=true,"
                 "DRAWorkloadResourceClaims=true,PodGroupPreemptionPolicy=true")
RUNTIME_CONFIG = "scheduling.k8s.io/v1beta1=true"

# Created because a recorded object needs them (a pod's priority and runtime class), not recorded.
PREREQUISITES = {"PriorityClass", "RuntimeClass"}


class Api:
    def __init__(self, env):
        ctx = ssl.create_default_context(cafile=env["KS_CA_FILE"])
        ctx.load_cert_chain(env["KS_CLIENT_CERT_FILE"], env["KS_CLIENT_KEY_FILE"])
        self.port = int(env["KS_APISERVER_PORT"])
        self.ctx = ctx

    def request(self, method, path, accept="application/json", body=None):
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=30)
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = "application/json"
            body = json.dumps(body).encode()
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, data


def load_manifest(path):
    if path.endswith(".json"):
        with open(path) as f:
            return json.load(f)
    out = subprocess.run(["kubectl", "create", "--dry-run=client", "-o", "json", "-f", path],
                         check=True, capture_output=True, text=True, env=os.environ).stdout
    return json.loads(out)


def object_path(kind, ns, name=None):
    prefix, plural, namespaced = KINDS[kind]
    p = prefix + (f"/namespaces/{ns}" if namespaced else "") + "/" + plural
    return p + ("/" + name if name else "")


def must(status, data, what):
    if status // 100 != 2:
        sys.exit(f"record.py: {what}: HTTP {status}: {data[:400]!r}")
    return data


def record(api, path):
    obj = load_manifest(path)
    kind = obj["kind"]
    meta = obj.setdefault("metadata", {})
    for server_field in ("resourceVersion", "uid", "creationTimestamp", "managedFields", "selfLink"):
        meta.pop(server_field, None)
    ns = meta.get("namespace", "default") if KINDS[kind][2] else None
    if ns:
        meta["namespace"] = ns
        api.request("POST", "/api/v1/namespaces", body={"apiVersion": "v1", "kind": "Namespace",
                                                        "metadata": {"name": ns}})
    name = meta["name"]
    status = obj.get("status")
    created = json.loads(must(*api.request("POST", object_path(kind, ns), body=obj), f"create {path}"))
    if status and kind != "Namespace":
        created["status"] = status
        must(*api.request("PUT", object_path(kind, ns, name) + "/status", body=created), f"status of {path}")
    if kind in PREREQUISITES:
        return
    stem = os.path.join(HERE, os.path.splitext(os.path.basename(path))[0])
    get = object_path(kind, ns, name)
    with open(stem + ".json", "wb") as f:
        f.write(must(*api.request("GET", get), f"get {path}"))
    with open(stem + ".pb", "wb") as f:
        f.write(must(*api.request("GET", get, PROTOBUF), f"get {path} as protobuf"))
    lst = object_path(kind, ns) + f"?fieldSelector=metadata.name%3D{name}"
    with open(stem + ".list.pb", "wb") as f:
        f.write(must(*api.request("GET", lst, PROTOBUF), f"list {path}"))
    with open(stem + ".watch.pb", "wb") as f:
        f.write(must(*api.request("GET", lst + "&watch=1&resourceVersion=0&timeoutSeconds=1", PROTOBUF),
                     f"watch {path}"))
    print(f"recorded {os.path.basename(stem)} ({kind})")


def main():
    manifests = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "objects", "*.json")) +
                                       glob.glob(os.path.join(HERE, "objects", "*.yaml")))
    workdir = tempfile.mkdtemp(prefix="ks-proto-record-")
    env = dict(os.environ, KS_APISERVER_EXTRA_FLAGS=(os.environ.get("KS_APISERVER_EXTRA_FLAGS", "") +
                                                     " --feature-gates=" + FEATURE_GATES +
                                                     " --runtime-config=" + RUNTIME_CONFIG).strip())
    subprocess.run([CONTROLPLANE, "up", workdir], check=True, stdout=subprocess.DEVNULL, env=env)
    try:
        env = dict(os.environ)
        with open(os.path.join(workdir, "env")) as f:
            for line in f:
                if line.startswith("export "):
                    k, _, v = line[len("export "):].strip().partition("=")
                    env[k] = v.strip("'")
        os.environ.update(env)
        bin_dir = env.get("KS_CONTROL_PLANE_BIN")
        if bin_dir:
            os.environ["PATH"] = bin_dir + os.pathsep + os.environ["PATH"]
        api = Api(env)
        for m in manifests:
            record(api, m)
        for accept, ext in ((PROTOBUF, "pb"), ("application/json", "json")):
            status, data = api.request("GET", "/api/v1/namespaces/default/pods/no-such-pod", accept)
            if status != 404:
                sys.exit(f"record.py: expected 404 for a missing pod, got {status}")
            with open(os.path.join(HERE, f"status-notfound.{ext}"), "wb") as f:
                f.write(data)
    finally:
        subprocess.run([CONTROLPLANE, "down", workdir], check=False, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
