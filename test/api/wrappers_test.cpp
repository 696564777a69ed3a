// Tests for the test-support builders (test/support/wrappers.h).

#include "test/support/wrappers.h"

#include <gtest/gtest.h>

namespace ks::testing {
namespace {

TEST(WrappersTest, PodBuilder) {
  api::Pod p = MakePod()
                   .name("p")
                   .namespace_("ns")
                   .uid("u")
                   .priority(5)
                   .node("n1")
                   .label("k", "v")
                   .req({{"cpu", "1"}, {"memory", "1Gi"}})
                   .initReq({{"cpu", "2"}})
                   .sidecarReq({{"cpu", "500m"}})
                   .overhead({{"cpu", "100m"}})
                   .hostPort(8080)
                   .toleration("dedicated")
                   .nodeSelector({{"zone", "a"}})
                   .nodeAffinityIn("disk", {"ssd"})
                   .podAffinityExists("app", "zone")
                   .podAntiAffinityIn("app", "kubernetes.io/hostname", {"web"}, AffinityKind::Preferred)
                   .spreadConstraint(1, "zone", "DoNotSchedule", api::LabelSelector{{{"app", "web"}}, {}})
                   .schedulingGates({"g1", "g2"})
                   .pvc("claim")
                   .schedulerName("my-scheduler")
                   .nominatedNodeName("n2")
                   .obj();
  EXPECT_EQ(p.metadata.name, "p");
  EXPECT_EQ(p.metadata.namespace_, "ns");
  EXPECT_EQ(p.metadata.uid, "u");
  EXPECT_EQ(p.spec.priority, 5);
  EXPECT_EQ(p.spec.nodeName, "n1");
  EXPECT_EQ(p.metadata.labels.at("k"), "v");
  ASSERT_EQ(p.spec.containers.size(), 2u);
  EXPECT_EQ(p.spec.containers[0].name, "con0");
  EXPECT_EQ(p.spec.containers[0].resources.requests.at("memory").toString(), "1Gi");
  EXPECT_EQ(p.spec.containers[1].ports.at(0).hostPort, 8080);
  ASSERT_EQ(p.spec.initContainers.size(), 2u);
  EXPECT_FALSE(p.spec.initContainers[0].restartPolicy.has_value());
  EXPECT_EQ(p.spec.initContainers[1].restartPolicy, "Always");
  EXPECT_EQ(p.spec.overhead.at("cpu").milliValue(), 100);
  EXPECT_EQ(p.spec.tolerations.at(0).op, "Exists");
  EXPECT_EQ(p.spec.tolerations.at(0).effect, "NoSchedule");
  EXPECT_EQ(p.spec.nodeSelector.at("zone"), "a");
  const auto& terms =
      p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms;
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].matchExpressions.at(0).op, "In");
  EXPECT_EQ(p.spec.affinity->podAffinity->requiredDuringSchedulingIgnoredDuringExecution.at(0).topologyKey,
            "zone");
  EXPECT_EQ(p.spec.affinity->podAntiAffinity->preferredDuringSchedulingIgnoredDuringExecution.at(0).weight,
            1);
  EXPECT_EQ(p.spec.topologySpreadConstraints.at(0).maxSkew, 1);
  EXPECT_EQ(p.spec.schedulingGates.size(), 2u);
  EXPECT_EQ(p.spec.volumes.at(0).persistentVolumeClaim->claimName, "claim");
  EXPECT_EQ(p.spec.schedulerName, "my-scheduler");
  EXPECT_EQ(p.status.nominatedNodeName, "n2");
  EXPECT_EQ(MakePod().name("x").ptr()->metadata.name, "x");
}

TEST(WrappersTest, NodeBuilder) {
  api::Node n = MakeNode()
                    .name("n1")
                    .label("zone", "a")
                    .capacity({{"cpu", "4"}, {"memory", "8Gi"}})
                    .taints({api::Taint{"k", "v", "NoSchedule", std::nullopt}})
                    .unschedulable()
                    .images({{"nginx:1", 100}})
                    .obj();
  EXPECT_EQ(n.metadata.name, "n1");
  EXPECT_EQ(n.status.capacity.at("pods").value(), 32);
  EXPECT_EQ(n.status.allocatable.at("cpu").milliValue(), 4000);
  EXPECT_EQ(n.status.allocatable.at("memory").toString(), "8Gi");
  EXPECT_EQ(n.spec.taints.size(), 1u);
  EXPECT_TRUE(n.spec.unschedulable);
  EXPECT_EQ(n.status.images.at(0).sizeBytes, 100);
  EXPECT_EQ(MakeNode().obj().status.allocatable.at("pods").value(), 32);
}

TEST(WrappersDeathTest, BadQuantityAborts) {
  EXPECT_DEATH(mustParse("1.2.3"), "cannot parse quantity '1.2.3'");
}

}  // namespace
}  // namespace ks::testing
