// The harness itself against a real etcd + kube-apiserver: kubectl round trips (no shell in between), an
// apiserver restart that keeps data and port, a SIGKILLed apiserver started again, etcd compaction turning
// old resourceVersions into 410 Gone, and kube-controller-manager's disruption and PV binder controllers at
// work, stopped and started again.
#include "test/integration/harness/control_plane.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "test/integration/harness/process.h"

namespace ks::integration {
namespace {

constexpr const char* kNode = R"({
  "apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "cp-test-node", "labels": {"topology.kubernetes.io/zone": "z1"}},
  "status": {
    "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
    "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
    "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "fake"}]
  }
})";

TEST(ControlPlaneTest, KubectlWorksAcrossApiserverRestart) {
  auto started = ControlPlane::start();
  ASSERT_TRUE(started.ok()) << started.error().message();
  ControlPlane& cp = **started;
  EXPECT_TRUE(cp.serverUrl().starts_with("https://127.0.0.1:")) << cp.serverUrl();

  auto readyz = cp.kubectl({"get", "--raw", "/readyz"});
  ASSERT_TRUE(readyz.ok()) << readyz.error().message();
  EXPECT_EQ(*readyz, "ok");

  auto ns = cp.kubectl({"create", "namespace", "cp-test"});
  ASSERT_TRUE(ns.ok()) << ns.error().message();
  auto node = cp.kubectl({"create", "-f", "-"}, kNode);
  ASSERT_TRUE(node.ok()) << node.error().message();

  auto alloc = cp.kubectl({"get", "node", "cp-test-node", "-o", "jsonpath={.status.allocatable.cpu}"});
  ASSERT_TRUE(alloc.ok()) << alloc.error().message();
  EXPECT_EQ(*alloc, "4");
  // TaintNodesByCondition is off (there is no node lifecycle controller to lift the not-ready taint).
  auto taints = cp.kubectl({"get", "node", "cp-test-node", "-o", "jsonpath={.spec.taints}"});
  ASSERT_TRUE(taints.ok()) << taints.error().message();
  EXPECT_EQ(*taints, "");

  // Arguments reach kubectl verbatim, with no shell in between.
  auto annotate = cp.kubectl({"annotate", "node", "cp-test-node", "note=a $(echo b); c"});
  ASSERT_TRUE(annotate.ok()) << annotate.error().message();
  auto note = cp.kubectl({"get", "node", "cp-test-node", "-o", "jsonpath={.metadata.annotations.note}"});
  ASSERT_TRUE(note.ok()) << note.error().message();
  EXPECT_EQ(*note, "a $(echo b); c");

  auto missing = cp.kubectl({"get", "namespace", "does-not-exist"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("NotFound"), std::string::npos) << missing.error().message();

  auto rvBefore = cp.kubectl({"get", "namespace", "cp-test", "-o", "jsonpath={.metadata.resourceVersion}"});
  ASSERT_TRUE(rvBefore.ok()) << rvBefore.error().message();
  const std::string url = cp.serverUrl();

  auto restarted = cp.restartApiserver();
  ASSERT_TRUE(restarted.ok()) << restarted.error().message();
  EXPECT_EQ(cp.serverUrl(), url);

  auto after = cp.kubectl({"get", "namespace", "cp-test", "-o", "jsonpath={.metadata.resourceVersion}"});
  ASSERT_TRUE(after.ok()) << after.error().message();
  EXPECT_EQ(*after, *rvBefore);  // same etcd data
  auto node2 = cp.kubectl({"get", "node", "cp-test-node", "-o", "name"});
  ASSERT_TRUE(node2.ok()) << node2.error().message();
  EXPECT_EQ(*node2, "node/cp-test-node\n");
  auto ns2 = cp.kubectl({"create", "namespace", "cp-test-2"});
  ASSERT_TRUE(ns2.ok()) << ns2.error().message();

  // A crash: SIGKILL, then nobody answers on the port until startApiserver(); a second start is refused.
  auto killed = cp.killApiserver();
  ASSERT_TRUE(killed.ok()) << killed.error().message();
  auto down = cp.kubectl({"get", "namespace", "cp-test-2", "--request-timeout=5s"});
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.error().message().find("refused"), std::string::npos) << down.error().message();
  EXPECT_FALSE(cp.killApiserver().ok());
  auto again = cp.startApiserver();
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(cp.serverUrl(), url);
  EXPECT_FALSE(cp.startApiserver().ok());
  auto ns3 = cp.kubectl({"get", "namespace", "cp-test-2", "-o", "name"});
  ASSERT_TRUE(ns3.ok()) << ns3.error().message();
  EXPECT_EQ(*ns3, "namespace/cp-test-2\n");
}

TEST(ControlPlaneTest, CompactionMakesOldResourceVersionsGoneWithoutWatchCache) {
  auto started = ControlPlane::start({.extraApiserverFlags = {"--watch-cache=false"}});
  ASSERT_TRUE(started.ok()) << started.error().message();
  ControlPlane& cp = **started;

  ASSERT_TRUE(cp.kubectl({"create", "namespace", "cp-compact"}).ok());
  auto rv = cp.kubectl({"get", "namespace", "cp-compact", "-o", "jsonpath={.metadata.resourceVersion}"});
  ASSERT_TRUE(rv.ok()) << rv.error().message();
  ASSERT_TRUE(cp.kubectl({"label", "namespace", "cp-compact", "step=1"}).ok());
  ASSERT_TRUE(cp.kubectl({"label", "namespace", "cp-compact", "step=2", "--overwrite"}).ok());

  // Before compaction a watch from rv replays the two label changes.
  const std::string watchPath =
      "/api/v1/namespaces?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dcp-compact"
      "&resourceVersion=" +
      *rv;
  auto replay = cp.kubectl({"get", "--raw", watchPath});
  ASSERT_TRUE(replay.ok()) << replay.error().message();
  EXPECT_NE(replay->find(R"("step":"2")"), std::string::npos) << *replay;

  auto compacted = cp.compact();
  ASSERT_TRUE(compacted.ok()) << compacted.error().message();
  EXPECT_GT(*compacted, std::stoll(*rv));

  auto gone = cp.kubectl({"get", "--raw", watchPath});
  ASSERT_TRUE(gone.ok()) << gone.error().message();  // the 410 arrives as a watch ERROR event
  EXPECT_NE(gone->find(R"("code":410)"), std::string::npos) << *gone;
  EXPECT_NE(gone->find("Expired"), std::string::npos) << *gone;

  // The flag survives a restart; the cluster keeps working.
  ASSERT_TRUE(cp.restartApiserver().ok());
  auto still = cp.kubectl({"get", "namespace", "cp-compact", "-o", "jsonpath={.metadata.labels.step}"});
  ASSERT_TRUE(still.ok()) << still.error().message();
  EXPECT_EQ(*still, "2");
}

// Two bound pods labelled app=x (nodeName set: they count as scheduled) and a PDB that keeps one of them.
constexpr const char* kPodsAndPdb = R"({
  "apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p0", "namespace": "cp-kcm", "labels": {"app": "x"}},
     "spec": {"nodeName": "cp-test-node", "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p1", "namespace": "cp-kcm", "labels": {"app": "x"}},
     "spec": {"nodeName": "cp-test-node", "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
     "metadata": {"name": "pdb-x", "namespace": "cp-kcm"},
     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}}
  ]
})";

// What the kubelet would report for a started pod; the disruption controller counts Ready=True pods.
constexpr const char* kRunningReady = R"({"status": {"phase": "Running",
  "conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}]}})";

// A statically provisioned volume and a claim for it; storageClassName "" on both means "no class, no
// provisioner": only the PV binder can bind them.
std::string pvAndClaim(const std::string& suffix) {
  return R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-)" +
         suffix + R"("},
     "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
              "hostPath": {"path": "/tmp/ks-cp-test-pv"}}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "pvc-)" +
         suffix + R"(", "namespace": "cp-kcm"},
     "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
              "resources": {"requests": {"storage": "1Gi"}}}}
  ]})";
}

TEST(ControlPlaneTest, ControllerManagerRunsDisruptionAndPvBinderAcrossRestart) {
  using namespace std::chrono_literals;
  auto started =
      ControlPlane::start({.controllers = {"disruption-controller", "persistentvolume-binder-controller"}});
  ASSERT_TRUE(started.ok()) << started.error().message();
  ControlPlane& cp = **started;
  auto kcmLog = [&] { return tail(readFile(cp.controllerManagerLog())); };
  auto get = [&](const std::vector<std::string>& args) {
    auto r = cp.kubectl(args);
    return r.ok() ? *r : "error: " + r.error().message();
  };

  ASSERT_TRUE(cp.kubectl({"create", "namespace", "cp-kcm"}).ok());
  auto node = cp.kubectl({"create", "-f", "-"}, kNode);
  ASSERT_TRUE(node.ok()) << node.error().message();
  auto created = cp.kubectl({"create", "-f", "-"}, kPodsAndPdb);
  ASSERT_TRUE(created.ok()) << created.error().message();
  for (const char* pod : {"p0", "p1"}) {
    auto patched = cp.kubectl(
        {"patch", "pod", pod, "-n", "cp-kcm", "--subresource=status", "--type=merge", "-p", kRunningReady});
    ASSERT_TRUE(patched.ok()) << patched.error().message();
  }
  const std::string pdbFields =
      "jsonpath={.status.expectedPods} {.status.currentHealthy} {.status.desiredHealthy} "
      "{.status.disruptionsAllowed}";
  const std::vector<std::string> pdbStatus = {"get", "pdb", "pdb-x", "-n", "cp-kcm", "-o", pdbFields};
  const bool pdbReady = waitFor([&] { return get(pdbStatus) == "2 2 1 1"; }, 60s);
  EXPECT_TRUE(pdbReady) << get(pdbStatus) << "\n" << kcmLog();

  const std::vector<std::string> phases = {
      "get", "pv/pv-a", "pvc/pvc-a", "-n", "cp-kcm", "-o", "jsonpath={range .items[*]}{.status.phase} {end}"};
  auto pvA = cp.kubectl({"create", "-f", "-"}, pvAndClaim("a"));
  ASSERT_TRUE(pvA.ok()) << pvA.error().message();
  EXPECT_TRUE(waitFor([&] { return get(phases) == "Bound Bound "; }, 60s)) << get(phases) << "\n" << kcmLog();
  EXPECT_EQ(get({"get", "pvc", "pvc-a", "-n", "cp-kcm", "-o", "jsonpath={.spec.volumeName}"}), "pv-a");

  // Stopped, the binder leaves a new claim pending (it binds within a second when running); started again,
  // it catches up.
  auto stopped = cp.stopControllerManager();
  ASSERT_TRUE(stopped.ok()) << stopped.error().message();
  auto pvB = cp.kubectl({"create", "-f", "-"}, pvAndClaim("b"));
  ASSERT_TRUE(pvB.ok()) << pvB.error().message();
  std::this_thread::sleep_for(2s);
  const std::vector<std::string> claimB = {
      "get", "pvc", "pvc-b", "-n", "cp-kcm", "-o", "jsonpath={.status.phase}"};
  EXPECT_EQ(get(claimB), "Pending");

  auto again = cp.startControllerManager({"persistentvolume-binder-controller"});
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_TRUE(waitFor([&] { return get(claimB) == "Bound"; }, 60s)) << get(claimB) << "\n" << kcmLog();
  auto twice = cp.startControllerManager({"persistentvolume-binder-controller"});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message().find("already runs"), std::string::npos) << twice.error().message();
}

}  // namespace
}  // namespace ks::integration
