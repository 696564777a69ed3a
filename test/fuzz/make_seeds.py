#!/usr/bin/env python3
"""Regenerates the seed corpora of test/fuzz/corpus/ from the repository's own fixtures: the API objects of
test/api/json/testdata (as objects, lists and watch events), the YAML under config/ and deploy/, the
KubeSchedulerConfiguration and kubeconfig texts embedded in the unit tests, the protobuf recordings of
test/api/proto/testdata. Seeds are files named
seed-*; inputs added by hand (crash reproducers, named crash-*) are left alone."""
import glob
import gzip
import hashlib
import json
import os
import re

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "test", "fuzz", "corpus")


def kinds_def():
    """The entries of pkg/api/kinds.def in its order, as (category, type): ("WATCHED", "Pod"), ..."""
    with open(os.path.join(ROOT, "pkg", "api", "kinds.def")) as f:
        return re.findall(r"^KS_(WATCHED|STORED|CODEC)_KIND\((\w+)", f.read(), re.M)


# The kind order of api_json_fuzz.cpp's dispatch table (every kind of kinds.def); Status and LabelSelector
# come last.
KINDS = [kind for _, kind in kinds_def()] + ["Status", "LabelSelector"]
SLOTS = len(KINDS)
LIST_KINDS = len(KINDS) - 2  # the kinds with list and watch decoding

# Kinds the testdata has no file for.
EXTRA = [
    {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "s", "namespace": "d"},
     "spec": {"selector": {"app": "a"}}},
    {"kind": "ReplicaSet", "apiVersion": "apps/v1", "metadata": {"name": "r", "namespace": "d"},
     "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "a"},
              "matchExpressions": [{"key": "t", "operator": "In", "values": ["x"]}]}}},
    {"kind": "ReplicationController", "apiVersion": "v1", "metadata": {"name": "rc"},
     "spec": {"replicas": 1, "selector": {"app": "a"}}},
    {"kind": "StatefulSet", "apiVersion": "apps/v1", "metadata": {"name": "ss", "uid": "u1"},
     "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "a"}}}},
    {"kind": "VolumeAttachment", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "va"},
     "spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv1"}},
     "status": {"attached": True}},
    {"kind": "LabelSelector", "matchLabels": {"a": "b"},
     "matchExpressions": [{"key": "k", "operator": "NotIn", "values": ["1", "2"]},
                          {"key": "e", "operator": "Exists"}]},
]


# The kind order of proto_fuzz.cpp's dispatch table (the watched kinds of kinds.def); Status comes last.
PROTO_KINDS = [kind for category, kind in kinds_def() if category == "WATCHED"] + ["Status"]
PROTO_SLOTS = len(PROTO_KINDS)


def pb_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_bytes(number, value):
    if isinstance(value, str):
        value = value.encode()
    return pb_varint(number << 3 | 2) + pb_varint(len(value)) + value


def pb_frame(event_type, enveloped):
    """A protobuf watch frame: 4-byte big-endian length, WatchEvent{type, object: RawExtension{raw}}."""
    msg = pb_bytes(1, event_type) + pb_bytes(2, pb_bytes(1, enveloped))
    return len(msg).to_bytes(4, "big") + msg


def proto_seeds():
    """proto_fuzz: each recording as an object, a list and a watch stream (whole and cut into chunks)."""
    data = os.path.join(ROOT, "test/api/proto/testdata")
    cuts = bytes([4, 1, 9, 0, 130])  # four chunk lengths: 1, 9, 0, 130; the rest is the last chunk
    status = None
    for path in sorted(glob.glob(os.path.join(data, "*.json"))):
        stem = path[:-len(".json")]
        with open(path) as f:
            kind = json.load(f).get("kind")
        if kind not in PROTO_KINDS:
            continue
        k = PROTO_KINDS.index(kind)
        tag = "%s-%s" % (os.path.basename(stem), "%s")
        with open(stem + ".pb", "rb") as f:
            obj = f.read()
        write("proto_fuzz", bytes([k]) + obj, tag % "object")
        if kind == "Status":
            status = obj
            continue
        for shape, suffix in [(1, ".list.pb"), (2, ".watch.pb")]:
            with open(stem + suffix, "rb") as f:
                body = f.read()
            name = "list" if shape == 1 else "watch"
            write("proto_fuzz", bytes([shape * PROTO_SLOTS + k, 0]) + body, tag % name)
            write("proto_fuzz", bytes([shape * PROTO_SLOTS + k]) + cuts + body, tag % (name + "-chunks"))
    # A watch stream with a BOOKMARK (a Pod with only metadata.resourceVersion) and an ERROR (the 404 Status).
    bookmark = b"k8s\0" + pb_bytes(1, pb_bytes(1, "v1") + pb_bytes(2, "Pod")) + pb_bytes(2, pb_bytes(1, pb_bytes(6, "9")))
    stream = pb_frame("BOOKMARK", bookmark)
    if status is not None:
        stream += pb_frame("ERROR", status)
    write("proto_fuzz", bytes([2 * PROTO_SLOTS + PROTO_KINDS.index("Pod"), 0]) + stream, "bookmark-error-watch")


def write(target, data, tag):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    name = "seed-%s-%s" % (tag, hashlib.sha1(data).hexdigest()[:10])
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def clean(target):
    for f in glob.glob(os.path.join(CORPUS, target, "seed-*")):
        os.remove(f)


def api_objects():
    objs = []
    for path in sorted(glob.glob(os.path.join(ROOT, "test/api/json/testdata/*"))):
        with open(path) as f:
            text = f.read()
        try:
            docs = [json.loads(text)] if path.endswith(".json") else [d for d in yaml.safe_load_all(text) if d]
        except (ValueError, yaml.YAMLError):
            # One JSON document per line (watch streams).
            docs = [json.loads(l) for l in text.splitlines() if l.strip().startswith("{")]
            docs = [d.get("object", d) for d in docs]
        for d in docs:
            if d.get("kind", "").endswith("List"):
                objs.extend(d.get("items", []))
                for item in d.get("items", []):
                    item.setdefault("kind", d["kind"][:-4])
            else:
                objs.append(d)
    # The scheduling.k8s.io recordings, which the JSON codec's tests read where test/api/proto keeps them.
    for stem in ("workload", "workload_composite", "podgroup"):
        with open(os.path.join(ROOT, "test/api/proto/testdata", stem + ".json")) as f:
            objs.append(json.load(f))
    return objs + EXTRA


def compact(o):
    return json.dumps(o, separators=(",", ":"), default=str)


def raw_strings(pattern, marker):
    """C++ raw string literals R"(...)" in files matching `pattern` that contain `marker`."""
    out = []
    for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
        with open(path) as f:
            src = f.read()
        out += [s for s in re.findall(r'R"\((.*?)\)"', src, re.S) if marker in s]
    return out


def main():
    targets = ["api_json_fuzz", "yaml_fuzz", "node_affinity_fuzz", "scheduler_config_fuzz", "watch_stream_fuzz",
               "kubeconfig_fuzz", "cel_fuzz", "http_response_fuzz", "http_request_fuzz", "proto_fuzz"]
    for t in targets:
        clean(t)
    proto_seeds()
    objs = api_objects()
    pods = [o for o in objs if o.get("kind") == "Pod"]
    nodes = [o for o in objs if o.get("kind") == "Node"]
    for o in objs:
        kind = o.get("kind")
        if kind not in KINDS:
            continue
        k = KINDS.index(kind)
        body = compact(o)
        write("api_json_fuzz", bytes([k]) + body.encode(), kind.lower())
        if k < LIST_KINDS:
            lst = {"kind": kind + "List", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": [o]}
            write("api_json_fuzz", bytes([SLOTS + k]) + compact(lst).encode(), kind.lower() + "-list")
            ev = {"type": "MODIFIED", "object": o}
            write("api_json_fuzz", bytes([2 * SLOTS + k]) + compact(ev).encode(), kind.lower() + "-watch")
    status = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired", "code": 410,
              "message": "too old resource version"}
    pod_watch = 2 * SLOTS + KINDS.index("Pod")
    write("api_json_fuzz", bytes([pod_watch]) + compact({"type": "ERROR", "object": status}).encode(), "error")
    write("api_json_fuzz", bytes([pod_watch]) + b'{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}',
          "bookmark")

    # node affinity: each pod with affinity against each node, plus a hand-made pair covering all operators.
    affinity_pod = {"metadata": {"name": "p"}, "spec": {"nodeSelector": {"zone": "a"}, "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]},
                                  {"key": "gpu", "operator": "DoesNotExist"},
                                  {"key": "cpu", "operator": "Gt", "values": ["3"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n2"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}},
            {"weight": 5, "preference": {"matchExpressions": [{"key": "cpu", "operator": "Lt", "values": ["9"]}]}}],
    }}}}
    affinity_node = {"metadata": {"name": "n1", "labels": {"zone": "a", "cpu": "4", "disk": "ssd"}}}
    write("node_affinity_fuzz", compact({"pod": affinity_pod, "node": affinity_node}), "ops")
    for p in pods:
        for n in nodes:
            write("node_affinity_fuzz", compact({"pod": p, "node": n}), "fixture")

    # watch stream: a split count, the chunk lengths, then a stream of events (one with \r\n).
    lines = [compact({"type": "ADDED", "object": o}) for o in pods[:2]]
    lines.append(compact({"type": "ERROR", "object": status}))
    stream = ("\n".join(lines) + "\r\n\n").encode()
    write("watch_stream_fuzz", bytes([3, 17, 200, 1]) + stream, "chunks")
    write("watch_stream_fuzz", bytes([0]) + stream, "whole")
    # Bit 4 of byte 0 decodes the lines as Node events (here with one cut, 40 bytes in).
    node_lines = [compact({"type": "MODIFIED", "object": o}) for o in nodes[:2]]
    write("watch_stream_fuzz", bytes([0x11, 40]) + ("\n".join(node_lines) + "\n").encode(), "nodes")

    # YAML: every YAML file of config/ and deploy/ and the API testdata.
    yaml_texts = []
    for pattern in ["config/*.yaml", "deploy/**/*.yaml", "test/api/json/testdata/*.yaml"]:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
            with open(path) as f:
                yaml_texts.append(f.read())
    yaml_texts.append("a: &x {b: 1}\nc:\n  <<: *x\n  d: [0x1F, 0o17, 1_000, .5, ~, yes, 'q', \"e\\n\"]\n---\n- |\n  block\n")
    for t in yaml_texts:
        write("yaml_fuzz", t, "file")

    # Scheduler configuration: the files and the tests' embedded texts (with the tests' header).
    header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    configs = []
    for path in ["config/demo-scheduler.yaml"]:
        with open(os.path.join(ROOT, path)) as f:
            configs.append(f.read())
    for s in raw_strings("test/scheduler/apis/config/*.cpp", "profiles") + raw_strings("test/**/*.cpp", "KubeSchedulerConfiguration"):
        configs.append(s if "kind: KubeSchedulerConfiguration" in s else header + s)
    for c in configs:
        write("scheduler_config_fuzz", c, "config")
        write("yaml_fuzz", c, "config")

    # kubeconfig: the tests' embedded kubeconfigs.
    for s in raw_strings("test/**/*.cpp", "clusters:"):
        write("kubeconfig_fuzz", s, "kubeconfig")
    write("kubeconfig_fuzz", "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
          "- name: ctx\n  context: {cluster: k, user: u, namespace: ns}\nclusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:6443\n"
          "    certificate-authority-data: LS0tLS1CRUdJTg==\nusers:\n- name: u\n  user: {token: abc}\n", "handmade")

    # DRA CEL selectors: the CEL tests' expressions, plus a few that reach the libraries and the cost limit.
    for s in raw_strings("test/dra/cel/*.cpp", "device."):
        write("cel_fuzz", s, "test")
    for s in ['device.attributes["dra.example.com"].model.startsWith("a") && device.capacity["dra.example.com"]'
              '.memory.compareTo(quantity("1Gi")) > 0',
              'cel.bind(d, device.attributes["dra.example.com"], d.driverVersion.isGreaterThan(semver("1.0.0")))',
              '[1, 2, 3].map(x, [1, 2, 3].map(y, [1, 2, 3].map(z, x * y * z))).size() == 3',
              'device.attributes.all(k, device.attributes[k].exists(a, a.matches("^[a-z]+$")))',
              '"abc".indexOf("c") == 2 && sets.contains([1, 2], [2]) && optional.of(1).orValue(0) == 1',
              'has(device.attributes["dra.example.com"].cores) ? device.attributes["dra.example.com"].cores / 0 > 1 : false']:
        write("cel_fuzz", s, "handmade")

    # HTTP responses as the apiserver frames them (byte 0: no extra read splits), and a gzipped list.
    body = b'{"kind":"PodList","items":[]}' * 20
    for r in [b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
              b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n6;ext=1\r\nsecond\r\n0\r\n"
              b"Trailer: x\r\n\r\n",
              b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 429 Too Many Requests\r\nRetry-After: 3\r\n\r\n{}",
              b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(gzip.compress(body, mtime=0))
              + gzip.compress(body, mtime=0)]:
        write("http_response_fuzz", b"\x00" + r, "handmade")

    # HTTP requests as the secure port gets them (byte 0: no extra read splits): probes, a scrape with a
    # token, a query with escapes, a body, a HEAD, a pipelined second request.
    for r in [b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:10259\r\nUser-Agent: kube-probe/1.34\r\n\r\n",
              b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer abc.def\r\nAccept-Encoding: gzip\r\n\r\n",
              b"GET /livez/ping?verbose&exclude=etcd%2Cx+y HTTP/1.1\r\nhost:x\r\n\r\n",
              b"POST /configz HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
              b"HEAD /readyz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
              b"GET /a%20b HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET /second HTTP/1.1\r\n\r\n"]:
        write("http_request_fuzz", b"\x00" + r, "handmade")


if __name__ == "__main__":
    main()
