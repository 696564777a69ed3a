// The harness itself against a real etcd + kube-apiserver: kubectl round trips (no shell in between), an
// apiserver restart that keeps data and port, and etcd compaction turning old resourceVersions into 410 Gone.
#include "test/integration/harness/control_plane.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace ks::integration
