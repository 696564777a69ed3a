// Ported from upstream pkg/scheduler/backend/cache/snapshot_test.go (1.34: TestGetNodeImageStates,
// TestCreateImageExistenceMap, TestCreateUsedPVCSet, TestNewSnapshot).

#include "pkg/scheduler/backend/cache/snapshot.h"

#include <gtest/gtest.h>

#include "test/support/wrappers.h"

namespace ks::cache {
namespace {

using ks::testing::MakeNode;
using ks::testing::MakePod;

constexpr int64_t kMB = 1024 * 1024;

api::NodePtr nodeWithImages(const std::string& name,
                            const std::vector<std::pair<std::string, int64_t>>& images) {
  api::Node n = MakeNode().name(name).obj();
  for (const auto& [img, size] : images) n.status.images.push_back(api::ContainerImage{{img}, size});
  return std::make_shared<const api::Node>(std::move(n));
}

framework::ImageStateSummary summary(int64_t size, int numNodes) {
  framework::ImageStateSummary s;
  s.size = size;
  s.numNodes = numNodes;
  return s;
}

TEST(Snapshot, GetNodeImageStates) {
  {
    auto node = nodeWithImages("node-0", {{"gcr.io/10:v1", 10 * kMB}, {"gcr.io/200:v1", 200 * kMB}});
    ImageExistenceMap existence = {{"gcr.io/10:v1", {"node-0", "node-1"}}, {"gcr.io/200:v1", {"node-0"}}};
    std::map<std::string, framework::ImageStateSummary> want = {{"gcr.io/10:v1", summary(10 * kMB, 2)},
                                                                {"gcr.io/200:v1", summary(200 * kMB, 1)}};
    EXPECT_EQ(getNodeImageStates(*node, existence), want);
  }
  {
    auto node = nodeWithImages("node-0", {});
    ImageExistenceMap existence = {{"gcr.io/10:v1", {"node-1"}}, {"gcr.io/200:v1", {}}};
    EXPECT_TRUE(getNodeImageStates(*node, existence).empty());
  }
}

TEST(Snapshot, CreateImageExistenceMap) {
  {
    std::vector<api::NodePtr> nodes = {
        nodeWithImages("node-0", {{"gcr.io/10:v1", 10 * kMB}}),
        nodeWithImages("node-1", {{"gcr.io/10:v1", 10 * kMB}, {"gcr.io/200:v1", 200 * kMB}})};
    ImageExistenceMap want = {{"gcr.io/10:v1", {"node-0", "node-1"}}, {"gcr.io/200:v1", {"node-1"}}};
    EXPECT_EQ(createImageExistenceMap(nodes), want);
  }
  {
    std::vector<api::NodePtr> nodes = {
        nodeWithImages("node-0", {}),
        nodeWithImages("node-1", {{"gcr.io/10:v1", 10 * kMB}, {"gcr.io/200:v1", 200 * kMB}})};
    ImageExistenceMap want = {{"gcr.io/10:v1", {"node-1"}}, {"gcr.io/200:v1", {"node-1"}}};
    EXPECT_EQ(createImageExistenceMap(nodes), want);
  }
}

TEST(Snapshot, CreateUsedPVCSet) {
  using Set = std::set<std::string, std::less<>>;
  struct Case {
    std::string name;
    std::vector<api::PodPtr> pods;
    Set expected;
  };
  const std::vector<Case> cases = {
      {"empty pods list", {}, {}},
      {"pods not scheduled",
       {MakePod().name("foo").namespace_("foo").ptr(), MakePod().name("bar").namespace_("bar").ptr()},
       {}},
      {"scheduled pods that do not use any PVC",
       {MakePod().name("foo").namespace_("foo").node("node-1").ptr(),
        MakePod().name("bar").namespace_("bar").node("node-2").ptr()},
       {}},
      {"scheduled pods that use PVC",
       {MakePod().name("foo").namespace_("foo").node("node-1").pvc("pvc1").ptr(),
        MakePod().name("bar").namespace_("bar").node("node-2").pvc("pvc2").ptr()},
       {"foo/pvc1", "bar/pvc2"}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(createUsedPVCSet(tc.pods), tc.expected);
  }
}

api::LabelSelector matchLabels(const std::string& k, const std::string& v) {
  api::LabelSelector s;
  s.matchLabels[k] = v;
  return s;
}

TEST(Snapshot, NewSnapshot) {
  auto podWithAnnotations =
      MakePod().name("foo").namespace_("ns").uid("a").node("node-1").annotation("custom", "annotation").ptr();
  auto podWithPort = MakePod().name("foo").namespace_("foo").uid("p").node("node-0").hostPort(8080).ptr();
  auto podWithAntiAffinity = MakePod()
                                 .name("baz")
                                 .namespace_("ns")
                                 .uid("aa")
                                 .podAntiAffinity("another", matchLabels("another", "label"))
                                 .node("node-0")
                                 .ptr();
  std::vector<api::PodPtr> podsWithAffinity = {
      MakePod()
          .name("bar")
          .namespace_("ns")
          .uid("af0")
          .podAffinity("baz", matchLabels("baz", "qux"))
          .node("node-2")
          .ptr(),
      MakePod()
          .name("bar")
          .namespace_("ns")
          .uid("af1")
          .podAffinity("key", matchLabels("key", "value"))
          .node("node-0")
          .ptr(),
  };
  std::vector<api::PodPtr> podsWithPVCs = {
      MakePod().name("foo").namespace_("foo").uid("v0").node("node-0").pvc("pvc0").ptr(),
      MakePod().name("bar").namespace_("bar").uid("v1").node("node-1").pvc("pvc1").ptr(),
      MakePod().name("baz").namespace_("baz").uid("v2").node("node-2").pvc("pvc2").ptr(),
  };
  auto nodeNamed = [](const std::string& name) { return MakeNode().name(name).ptr(); };

  struct Case {
    std::string name;
    std::vector<api::PodPtr> pods;
    std::vector<api::NodePtr> nodes;
    std::vector<std::vector<api::PodPtr>> expectedPods;  // per node, in order
    int expectedNumNodes = 0;
    int expectedPodsWithAffinity = 0;
    int expectedPodsWithAntiAffinity = 0;
    std::set<std::string, std::less<>> expectedUsedPVCSet;
  };
  const std::vector<Case> cases = {
      {"no pods no nodes", {}, {}, {}, 0, 0, 0, {}},
      {"single pod single node", {podWithPort}, {nodeNamed("node-0")}, {{podWithPort}}, 1, 0, 0, {}},
      {"multiple nodes, pods with PVCs",
       podsWithPVCs,
       {nodeNamed("node-0"), nodeNamed("node-1"), nodeNamed("node-2")},
       {{podsWithPVCs[0]}, {podsWithPVCs[1]}, {podsWithPVCs[2]}},
       3,
       0,
       0,
       {"foo/pvc0", "bar/pvc1", "baz/pvc2"}},
      {"multiple nodes, pod with affinity",
       {podWithAnnotations, podsWithAffinity[0]},
       {nodeNamed("node-0"), nodeNamed("node-1"), MakeNode().name("node-2").label("baz", "qux").ptr()},
       {{}, {podWithAnnotations}, {podsWithAffinity[0]}},
       3,
       1,
       0,
       {}},
      {"multiple nodes, pod with affinity, pod with anti-affinity",
       {podsWithAffinity[1], podWithAntiAffinity},
       {MakeNode().name("node-0").label("key", "value").ptr(),
        MakeNode().name("node-1").label("another", "label").ptr()},
       {{podsWithAffinity[1], podWithAntiAffinity}, {}},
       2,
       1,
       1,
       {}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Snapshot s = newSnapshot(tc.pods, tc.nodes);
    EXPECT_EQ(s.numNodes(), tc.expectedNumNodes);
    for (std::size_t i = 0; i < tc.nodes.size(); ++i) {
      auto info = s.get(tc.nodes[i]->metadata.name);
      ASSERT_TRUE(info.ok()) << info.error().message();
      ASSERT_EQ((*info)->pods().size(), tc.expectedPods[i].size());
      for (std::size_t j = 0; j < tc.expectedPods[i].size(); ++j) {
        EXPECT_EQ((*info)->pods()[j]->pod(), *tc.expectedPods[i][j]);
      }
      // list() follows the given node order.
      EXPECT_EQ(s.list()[i]->nodeName(), tc.nodes[i]->metadata.name);
    }
    EXPECT_EQ(static_cast<int>(s.havePodsWithAffinityList().size()), tc.expectedPodsWithAffinity);
    EXPECT_EQ(static_cast<int>(s.havePodsWithRequiredAntiAffinityList().size()),
              tc.expectedPodsWithAntiAffinity);
    for (const auto& key : tc.expectedUsedPVCSet) EXPECT_TRUE(s.isPVCUsedByPods(key)) << key;
    EXPECT_EQ(s.usedPVCSetForTest(), tc.expectedUsedPVCSet);
  }
}

TEST(Snapshot, AffinityTermsParsed) {
  auto pod = MakePod()
                 .name("bar")
                 .namespace_("ns")
                 .uid("u")
                 .podAffinity("baz", matchLabels("baz", "qux"))
                 .node("node-2")
                 .ptr();
  Snapshot s = newSnapshot({pod}, {MakeNode().name("node-2").ptr()});
  auto info = s.get("node-2");
  ASSERT_TRUE(info.ok());
  const auto& terms = (*info)->pods()[0]->requiredAffinityTerms();
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].namespaces, std::set<std::string>{"ns"});
  EXPECT_EQ(terms[0].topologyKey, "baz");
}

TEST(Snapshot, GetMissingOrNodeLess) {
  // A pod on a node that isn't given makes a node-less info: listed (as upstream), but get() fails.
  auto pod = MakePod().name("p").namespace_("ns").uid("u").node("ghost").ptr();
  Snapshot s = newSnapshot({pod}, {MakeNode().name("n1").ptr()});
  EXPECT_EQ(s.numNodes(), 2);
  EXPECT_EQ(s.list()[0]->nodeName(), "n1");
  EXPECT_EQ(s.list()[1]->node(), nullptr);
  auto r = s.get("ghost");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "nodeinfo not found for node name \"ghost\"");
  EXPECT_EQ(s.get("nope").error().message(), "nodeinfo not found for node name \"nope\"");
  // SharedLister views are the snapshot itself.
  const framework::SharedLister& lister = s;
  EXPECT_EQ(&lister.nodeInfos(), static_cast<const framework::NodeInfoLister*>(&s));
  EXPECT_FALSE(lister.storageInfos().isPVCUsedByPods("ns/x"));
}

TEST(Snapshot, ImageNumNodes) {
  std::vector<api::NodePtr> nodes = {nodeWithImages("n0", {{"img:a", 10}}),
                                     nodeWithImages("n1", {{"img:a", 10}, {"img:b", 5}})};
  Snapshot s = newSnapshot({}, nodes);
  EXPECT_EQ((*s.get("n0"))->imageStates().at("img:a").numNodes, 2);
  EXPECT_EQ((*s.get("n1"))->imageStates().at("img:b").numNodes, 1);
}

}  // namespace
}  // namespace ks::cache
