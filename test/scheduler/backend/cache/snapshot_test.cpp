// Ported from upstream pkg/scheduler/backend/cache/snapshot_test.go (1.34: TestGetNodeImageStates,
// TestCreateImageExistenceMap, TestCreateUsedPVCSet, TestNewSnapshot; v1.37.2: the mutation session's
// TestSnapshot_Mutations, TestSnapshot_MultipleMutations, TestSnapshot_EndMutationsWithoutStartMutations,
// TestSnapshot_AddRemovePodWithoutMutations, TestSnapshot_AddRemovePod), plus checks of our own that a
// session (with pods assumed and forgotten inside it) leaves the snapshot as the cache would build it.

#include "pkg/scheduler/backend/cache/snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "pkg/scheduler/backend/cache/cache.h"
#include "test/scheduler/backend/cache/test_util.h"
#include "test/support/pod_group_objects.h"
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

// ---- mutation sessions ----

std::vector<std::string> listNames(const std::vector<framework::NodeInfoPtr>& infos) {
  std::vector<std::string> out;
  for (const auto& i : infos) out.push_back(i->nodeName());
  return out;
}

std::string groupString(const PodGroupStateData& d) {
  std::string out = "gen=" + std::to_string(d.generation) + " all=[";
  for (const auto& [uid, _] : d.allPods) out += uid + ",";
  out += "] unscheduled=[";
  for (const auto& uid : d.unscheduledPods) out += uid + ",";
  out += "] assumed=[";
  for (const auto& [uid, _] : d.assumedPods) out += uid + ",";
  out += "] assigned=[";
  for (const auto& uid : d.assignedPods) out += uid + ",";
  return out + "] podGroup=" + (d.podGroup ? d.podGroup->metadata.name : "<nil>");
}

// Everything a mutation session may change, the NodeInfos and group states by address and content
// (generations included), the lists in order.
struct SnapshotState {
  std::map<std::string, framework::NodeInfoPtr> infos;
  std::map<std::string, framework::NodeInfo> contents;
  std::vector<framework::NodeInfoPtr> list, affinity, antiAffinity;
  std::map<std::string, int32_t> pvcs;
  std::map<std::string, std::pair<const PodGroupStateSnapshot*, std::string>> groups;
  std::size_t assumedPods = 0;
  int64_t generation = 0;
};

SnapshotState capture(const Snapshot& s) {
  SnapshotState out;
  for (const auto& [name, info] : s.nodeInfoMapForTest()) {
    out.infos.emplace(name, info);
    out.contents.emplace(name, *info);
  }
  out.list = s.list();
  out.affinity = s.havePodsWithAffinityList();
  out.antiAffinity = s.havePodsWithRequiredAntiAffinityList();
  out.pvcs = s.usedPVCCountsForTest();
  for (const auto& [key, state] : s.podGroupStatesForTest()) {
    out.groups.emplace(key, std::make_pair(state.get(), groupString(state->data())));
  }
  out.assumedPods = s.assumedPodCount();
  out.generation = s.generation();
  return out;
}

// "" when equal.
std::string diff(const SnapshotState& want, const SnapshotState& got) {
  std::string out;
  if (want.infos != got.infos) out += "nodeInfoMap entries (names or addresses) differ\n";
  for (const auto& [name, info] : want.contents) {
    auto it = got.contents.find(name);
    if (it == got.contents.end()) continue;
    if (std::string d = testing::diffNodeInfo(info, it->second, /*checkGeneration=*/true); !d.empty()) {
      out += "node " + name + ": " + d;
    }
  }
  if (want.list != got.list) out += "nodeInfoList differs\n";
  if (want.affinity != got.affinity) {
    out += "havePodsWithAffinityNodeInfoList: want " + ::testing::PrintToString(listNames(want.affinity)) +
           " got " + ::testing::PrintToString(listNames(got.affinity)) + "\n";
  }
  if (want.antiAffinity != got.antiAffinity) {
    out += "havePodsWithRequiredAntiAffinityNodeInfoList: want " +
           ::testing::PrintToString(listNames(want.antiAffinity)) + " got " +
           ::testing::PrintToString(listNames(got.antiAffinity)) + "\n";
  }
  if (want.pvcs != got.pvcs) {
    out += "usedPVCs: want " + ::testing::PrintToString(want.pvcs) + " got " +
           ::testing::PrintToString(got.pvcs) + "\n";
  }
  if (want.groups != got.groups) {
    out += "podGroupStates: want " + ::testing::PrintToString(want.groups) + " got " +
           ::testing::PrintToString(got.groups) + "\n";
  }
  if (want.assumedPods != got.assumedPods) out += "assumed pod count differs\n";
  if (want.generation != got.generation) out += "generation differs\n";
  return out;
}

api::PodPtr podWithAffinity() {
  return MakePod()
      .name("p-aff")
      .namespace_("ns")
      .uid("p-aff")
      .podAffinity("key", matchLabels("key", "value"))
      .node("node-1")
      .ptr();
}
api::PodPtr podWithAntiAffinity() {
  return MakePod()
      .name("p-anti")
      .namespace_("ns")
      .uid("p-anti")
      .podAntiAffinity("key", matchLabels("key", "value"))
      .node("node-1")
      .ptr();
}

// Upstream TestSnapshot_Mutations. Upstream's cases write the snapshot's fields directly between
// StartMutations and EndMutations; here the session is what backs up what it touches, so each case makes
// its change through the session's operations (the case that reorders nodeInfoList has no such operation:
// a session never changes list()). The non-host-scoped anti-affinity list doesn't exist here.
TEST(SnapshotMutations, Mutations) {
  struct Case {
    std::string name;
    std::vector<api::PodPtr> initialPods;
    std::vector<api::NodePtr> initialNodes;
    std::function<void(Snapshot&)> modify;
  };
  auto add = [](Snapshot& s, const api::PodPtr& pod) {
    ASSERT_TRUE(s.addPod(framework::PodInfo::create(pod), pod->spec.nodeName).ok());
  };
  auto remove = [](Snapshot& s, const api::PodPtr& pod) {
    auto r = s.removePod(*pod, pod->spec.nodeName);
    ASSERT_TRUE(r.ok()) << r.error().message();
  };
  const auto pvcPod = MakePod().name("p1").namespace_("ns").uid("p1").node("node-1").pvc("pvc-1").ptr();
  const std::vector<Case> cases = {
      {"Modify NodeInfo (Add Pod)",
       {},
       {MakeNode().name("node-1").ptr()},
       [&](Snapshot& s) { add(s, MakePod().name("p1").uid("p1").node("node-1").ptr()); }},
      {"Modify havePodsWithAffinityNodeInfoList (Add)",
       {},
       {MakeNode().name("node-1").label("key", "value").ptr()},
       [&](Snapshot& s) { add(s, podWithAffinity()); }},
      {"Modify havePodsWithRequiredAntiAffinityNodeInfoList (Remove)",
       {podWithAntiAffinity()},
       {MakeNode().name("node-1").label("key", "value").ptr()},
       [&](Snapshot& s) { remove(s, podWithAntiAffinity()); }},
      {"Modify usedPVCRefCounts (Add/Modify)",
       {pvcPod},
       {MakeNode().name("node-1").ptr()},
       [&](Snapshot& s) {
         add(s, MakePod().name("p2").namespace_("ns").uid("p2").node("node-2").pvc("pvc-1").ptr());
         add(s, MakePod().name("p3").namespace_("ns").uid("p3").node("node-1").pvc("pvc-2").ptr());
       }},
      {"Modify usedPVCRefCounts (Remove)",
       {pvcPod},
       {MakeNode().name("node-1").ptr()},
       [&](Snapshot& s) { remove(s, pvcPod); }},
      {"Add a pod on a node the snapshot doesn't have",
       {},
       {MakeNode().name("node-1").ptr()},
       [&](Snapshot& s) { add(s, MakePod().name("p1").uid("p1").node("node-9").ptr()); }},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Snapshot s = newSnapshot(tc.initialPods, tc.initialNodes);
    const SnapshotState before = capture(s);
    ASSERT_TRUE(s.startMutations().ok());
    tc.modify(s);
    EXPECT_NE(diff(before, capture(s)), "");
    ASSERT_TRUE(s.endMutations().ok());
    EXPECT_EQ(diff(before, capture(s)), "");
  }
}

TEST(SnapshotMutations, MultipleMutations) {
  Snapshot s = newSnapshot({}, {});
  ASSERT_TRUE(s.startMutations().ok());
  auto r = s.startMutations();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "cannot stack mutations");
  ASSERT_TRUE(s.endMutations().ok());
  EXPECT_TRUE(s.startMutations().ok());
}

TEST(SnapshotMutations, EndMutationsWithoutStartMutations) {
  Snapshot s = newSnapshot({}, {});
  auto r = s.endMutations();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "no mutation session started");
}

TEST(SnapshotMutations, AddRemovePodWithoutMutations) {
  const auto node = MakeNode().name("node-1").ptr();
  const auto pod = MakePod().name("p1").uid("p1").node("node-1").ptr();
  Snapshot s = newSnapshot({pod}, {node});
  auto added = s.addPod(framework::PodInfo::create(pod), "node-1");
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().message(), "AddPod() called outside of mutation session");
  auto removed = s.removePod(*pod, "node-1");
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.error().message(), "RemovePod() called outside of mutation session");
  EXPECT_EQ((*s.get("node-1"))->pods().size(), 1u);
}

// Upstream TestSnapshot_AddRemovePod without the non-host-scoped anti-affinity list
// (InterPodAffinityHostnameFastPath is refused here), so its cases run once. The PVC counts here count
// nodes, not pods; no case tells them apart.
TEST(SnapshotMutations, AddRemovePod) {
  const auto affinityPod = podWithAffinity();
  const auto antiAffinityPod = podWithAntiAffinity();
  const auto hostScopedAntiAffinity =
      MakePod()
          .name("p-anti-host")
          .namespace_("ns")
          .uid("p-anti-host")
          .podAntiAffinity("kubernetes.io/hostname", matchLabels("key", "value"))
          .node("node-1")
          .ptr();
  const auto pvcPod = MakePod().name("p-pvc").namespace_("ns").uid("p-pvc").pvc("pvc-1").node("node-1").ptr();
  auto plain = [](const std::string& name, const std::string& uid, const std::string& node) {
    return MakePod().name(name).uid(uid).node(node).ptr();
  };
  auto affinity = [](const std::string& name, const std::string& uid, const std::string& node,
                     const std::string& key = "key") {
    api::LabelSelector sel;
    if (key == "key") sel = matchLabels("key", "value");
    return MakePod().name(name).uid(uid).podAffinity(key, sel).node(node).ptr();
  };
  auto shared = [](const std::string& name, const std::string& uid, const std::string& node) {
    return MakePod().name(name).uid(uid).namespace_("ns").pvc("shared-pvc").node(node).ptr();
  };
  auto member = [](const std::string& name, const std::string& uid, const std::string& node) {
    return std::make_shared<const api::Pod>(
        ks::testing::inPodGroup(MakePod().name(name).uid(uid).namespace_("ns").node(node).obj(), "pg1"));
  };

  struct Op {
    bool add;
    api::PodPtr pod;
    std::string nodeName = "";  // the pod's when empty
    std::string err = "";       // the error expected, if any
  };
  using Names = std::set<std::string>;
  struct Case {
    std::string name;
    std::vector<api::PodPtr> initialPods;
    std::vector<std::string> initialNodes;
    std::vector<framework::PodGroupPtr> initialPodGroups;
    std::vector<Op> ops;
    Names affinity, antiAffinity;
    std::optional<std::map<std::string, int32_t>> pvcs;
    std::map<std::string, Names> podsOnNode;
    std::vector<std::string> missingNodes;
    std::optional<std::map<std::string, Names>> podGroups;  // scheduled members by name
  };
  const std::vector<Case> cases = {
      {"AddPod with affinity",
       {},
       {"node-1"},
       {},
       {{true, affinityPod}},
       {"node-1"},
       {},
       {},
       {{"node-1", {"p-aff"}}}},
      {"AddPod with anti-affinity",
       {},
       {"node-1"},
       {},
       {{true, antiAffinityPod}},
       {"node-1"},
       {"node-1"},
       {},
       {{"node-1", {"p-anti"}}}},
      {"AddPod with PVC updates usedPVCRefCounts",
       {},
       {"node-1"},
       {},
       {{true, pvcPod}},
       {},
       {},
       std::map<std::string, int32_t>{{"ns/pvc-1", 1}},
       {{"node-1", {"p-pvc"}}}},
      {"RemovePod removes node from affinity list",
       {affinityPod},
       {"node-1"},
       {},
       {{false, affinityPod}},
       {},
       {},
       {},
       {{"node-1", {}}}},
      {"RemovePod removes node from anti-affinity list",
       {antiAffinityPod},
       {"node-1"},
       {},
       {{false, antiAffinityPod}},
       {},
       {},
       {},
       {{"node-1", {}}}},
      {"RemovePod with PVC updates usedPVCRefCounts",
       {pvcPod},
       {"node-1"},
       {},
       {{false, pvcPod}},
       {},
       {},
       std::map<std::string, int32_t>{},
       {{"node-1", {}}}},
      {"Multiple nodes and pods",
       {plain("p1", "p1", "node-1")},
       {"node-1", "node-2"},
       {},
       {{true, plain("p2", "p2", "node-2")}, {true, affinityPod}, {false, plain("p1", "p1", "node-1")}},
       {"node-1"},
       {},
       {},
       {{"node-1", {"p-aff"}}, {"node-2", {"p2"}}}},
      {"AddPod, RemovePod, AddPod sequence",
       {},
       {"node-1"},
       {},
       {{true, affinityPod}, {false, affinityPod}, {true, affinityPod}},
       {"node-1"},
       {},
       {},
       {{"node-1", {"p-aff"}}}},
      {"Remove non-existent pod",
       {},
       {"node-1"},
       {},
       {{false, affinityPod, "", "no corresponding pod p-aff in pods of node node-1"}},
       {},
       {},
       {},
       {{"node-1", {}}}},
      {"AddPod with host-scoped anti-affinity",
       {},
       {"node-1"},
       {},
       {{true, hostScopedAntiAffinity}},
       {"node-1"},
       {"node-1"},
       {},
       {{"node-1", {"p-anti-host"}}}},
      {"AddPod with anti-affinity, initial host-scoped anti-affinity",
       {hostScopedAntiAffinity},
       {"node-1"},
       {},
       {{true, antiAffinityPod}},
       {"node-1"},
       {"node-1"},
       {},
       {{"node-1", {"p-anti-host", "p-anti"}}}},
      {"AddPod with host-scoped anti-affinity, initial affinity",
       {affinityPod},
       {"node-1"},
       {},
       {{true, hostScopedAntiAffinity}},
       {"node-1"},
       {"node-1"},
       {},
       {{"node-1", {"p-aff", "p-anti-host"}}}},
      {"RemovePod with anti-affinity, leaving initial host-scoped anti-affinity",
       {antiAffinityPod, hostScopedAntiAffinity},
       {"node-1"},
       {},
       {{false, antiAffinityPod}},
       {"node-1"},
       {"node-1"},
       {},
       {{"node-1", {"p-anti-host"}}}},
      {"Remove pod from non-existent node",
       {},
       {"node-1"},
       {},
       {{false, affinityPod, "non-existent-node", "node \"non-existent-node\" not found in the snapshot"}},
       {},
       {},
       {},
       {{"node-1", {}}}},
      {"Node lifecycle: temp node created and deleted",
       {},
       {"real-node"},
       {},
       {{true, plain("p-real", "uid-real", "real-node")},
        {true, plain("p-temp", "uid-temp", "temp-node")},
        {false, plain("p-real", "uid-real", "real-node")},
        {false, plain("p-temp", "uid-temp", "temp-node")}},
       {},
       {},
       {},
       {{"real-node", {}}},
       {"temp-node"}},
      {"Partial removal of affinity pods",
       {},
       {"node-1"},
       {},
       {{true, affinity("p-aff-1", "uid-1", "node-1")},
        {true, affinity("p-aff-2", "uid-2", "node-1")},
        {false, affinity("p-aff-1", "uid-1", "node-1")}},
       {"node-1"},
       {},
       {},
       {{"node-1", {"p-aff-2"}}}},
      {"Shared PVC reference counting",
       {},
       {"node-1", "node-2"},
       {},
       {{true, shared("p-pvc-1", "uid-1", "node-1")},
        {true, shared("p-pvc-2", "uid-2", "node-2")},
        {false, shared("p-pvc-1", "uid-1", "node-1")}},
       {},
       {},
       std::map<std::string, int32_t>{{"ns/shared-pvc", 1}},
       {}},
      {"Affinity list middle removal",
       {},
       {"node-1", "node-2", "node-3"},
       {},
       {{true, affinity("p-aff-1", "uid-1", "node-1", "k")},
        {true, affinity("p-aff-2", "uid-2", "node-2", "k")},
        {true, affinity("p-aff-3", "uid-3", "node-3", "k")},
        {false, affinity("p-aff-2", "uid-2", "node-2", "k")}},
       {"node-1", "node-3"},
       {},
       {},
       {{"node-1", {"p-aff-1"}}, {"node-3", {"p-aff-3"}}}},
      {"PodGroup state updates",
       {},
       {"node-1", "node-2"},
       {ks::testing::makePodGroup("ns", "pg1")},
       {{true, member("p1", "uid-1", "node-1")},
        {true, member("p2", "uid-2", "node-2")},
        {false, member("p1", "uid-1", "node-1")}},
       {},
       {},
       {},
       {{"node-2", {"p2"}}},
       {},
       std::map<std::string, Names>{{"ns/pg1", {"p2"}}}},
  };
  auto scheduledByGroup = [](const Snapshot& s) {
    std::map<std::string, Names> out;
    for (const auto& [key, state] : s.podGroupStatesForTest()) {
      Names names;
      for (const auto& p : state->scheduledPods()) names.insert(p->metadata.name);
      out[key] = names;
    }
    return out;
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<api::NodePtr> nodes;
    for (const auto& n : tc.initialNodes) nodes.push_back(MakeNode().name(n).ptr());
    Snapshot s = newSnapshotWithPodGroups(tc.initialPods, nodes, tc.initialPodGroups);
    const SnapshotState before = capture(s);
    ASSERT_TRUE(s.startMutations().ok());
    for (const auto& op : tc.ops) {
      const std::string nodeName = op.nodeName.empty() ? op.pod->spec.nodeName : op.nodeName;
      VoidResult r =
          op.add ? s.addPod(framework::PodInfo::create(op.pod), nodeName) : s.removePod(*op.pod, nodeName);
      if (!op.err.empty()) {
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().message(), op.err);
      } else {
        ASSERT_TRUE(r.ok()) << r.error().message();
      }
    }
    for (const auto& name : tc.missingNodes) {
      EXPECT_FALSE(s.get(name).ok()) << name;
      EXPECT_FALSE(s.nodeInfoMapForTest().contains(name)) << name;
    }
    auto sortedNames = [](const std::vector<framework::NodeInfoPtr>& l) {
      std::vector<std::string> names = listNames(l);
      // A node appears in a list at most once.
      EXPECT_EQ(Names(names.begin(), names.end()).size(), names.size());
      return Names(names.begin(), names.end());
    };
    EXPECT_EQ(sortedNames(s.havePodsWithAffinityList()), tc.affinity);
    EXPECT_EQ(sortedNames(s.havePodsWithRequiredAntiAffinityList()), tc.antiAffinity);
    if (tc.pvcs) {
      EXPECT_EQ(s.usedPVCCountsForTest(), *tc.pvcs);
    }
    if (tc.podGroups) {
      EXPECT_EQ(scheduledByGroup(s), *tc.podGroups);
    }
    for (const auto& [nodeName, want] : tc.podsOnNode) {
      auto info = s.get(nodeName);
      ASSERT_TRUE(info.ok()) << nodeName;
      Names got;
      for (const auto& p : (*info)->pods()) got.insert(p->pod().metadata.name);
      EXPECT_EQ(got, want) << nodeName;
    }
    ASSERT_TRUE(s.endMutations().ok());
    EXPECT_EQ(diff(before, capture(s)), "");
  }
}

std::unique_ptr<CacheImpl> newCache(std::vector<std::string>* logged = nullptr) {
  CacheOptions opts;
  opts.genericWorkload = true;
  opts.logError = [logged](std::string_view m) {
    if (logged != nullptr) logged->emplace_back(m);
  };
  return std::make_unique<CacheImpl>(std::move(opts));
}

// What pod-group preemption does: inside one session, victims are removed, the group is placed with
// assumePod and forgotten again (in reverse order), pods are added back. Afterwards the snapshot is
// exactly what it was (objects, contents, generations), equals a fresh snapshot of the cache, and the next
// updateSnapshot copies only what the cache changed (group states it didn't change keep their object).
TEST(SnapshotMutations, SessionWithAssumeAndForgetRestoresTheSnapshot) {
  std::vector<std::string> logged;
  auto cache = newCache(&logged);
  cache->addNode(MakeNode().name("node-1").ptr());
  cache->addNode(MakeNode().name("node-2").ptr());
  api::LabelSelector sel = matchLabels("app", "x");
  const auto victim = MakePod()
                          .name("victim")
                          .uid("victim")
                          .namespace_("ns")
                          .node("node-1")
                          .pvc("c1")
                          .podAntiAffinity("zone", sel)
                          .ptr();
  const auto other =
      MakePod().name("other").uid("other").namespace_("ns").node("node-2").podAffinity("zone", sel).ptr();
  const auto boundMember = ks::testing::podGroupMember("ns", "v1", "v1", "victims", "node-2");
  ASSERT_TRUE(cache->addPod(victim).ok());
  ASSERT_TRUE(cache->addPod(other).ok());
  ASSERT_TRUE(cache->addPod(boundMember).ok());
  cache->addPodGroup(ks::testing::makePodGroup("ns", "victims", 1));
  cache->addPodGroup(ks::testing::makePodGroup("ns", "pg", 2));
  cache->addPodGroupMember(ks::testing::podGroupMember("ns", "m1", "m1", "pg"));
  cache->addPodGroupMember(ks::testing::podGroupMember("ns", "m2", "m2", "pg"));
  Snapshot snapshot;
  ASSERT_TRUE(cache->updateSnapshot(snapshot).ok());
  ASSERT_EQ(testing::compareCacheWithSnapshot(*cache, snapshot), "");
  const SnapshotState before = capture(snapshot);

  const auto placed1 = std::make_shared<const api::Pod>(ks::testing::inPodGroup(
      MakePod().name("m1").uid("m1").namespace_("ns").node("node-1").pvc("c2").podAffinity("zone", sel).obj(),
      "pg"));
  const auto placed2 = std::make_shared<const api::Pod>(
      ks::testing::inPodGroup(MakePod().name("m2").uid("m2").namespace_("ns").node("node-3").obj(), "pg"));
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    ASSERT_TRUE(snapshot.startMutations().ok());
    ASSERT_TRUE(snapshot.removePod(*victim, "node-1").ok());
    ASSERT_TRUE(snapshot.removePod(*boundMember, "node-2").ok());
    EXPECT_FALSE(snapshot.isPVCUsedByPods("ns/c1"));
    EXPECT_TRUE(snapshot.havePodsWithRequiredAntiAffinityList().empty());
    EXPECT_EQ(snapshot.podGroupState("ns", "victims")->allPodsCount(), 0);
    // The group's placement, as the pod-group cycle runs it inside the session.
    ASSERT_TRUE(snapshot.assumePod(framework::PodInfo::create(placed1)).ok());
    ASSERT_TRUE(snapshot.assumePod(framework::PodInfo::create(placed2)).ok());
    EXPECT_EQ(snapshot.podGroupState("ns", "pg")->scheduledPodsCount(), 2);
    EXPECT_TRUE(snapshot.isPVCUsedByPods("ns/c2"));
    EXPECT_EQ(listNames(snapshot.havePodsWithAffinityList()), (std::vector<std::string>{"node-2", "node-1"}));
    EXPECT_TRUE(snapshot.nodeInfoMapForTest().contains("node-3"));
    ASSERT_TRUE(snapshot.forgetPod(*placed2).ok());
    ASSERT_TRUE(snapshot.forgetPod(*placed1).ok());
    EXPECT_FALSE(snapshot.nodeInfoMapForTest().contains("node-3"));
    EXPECT_EQ(snapshot.assumedPodCount(), 0u);
    // A victim reprieved, then the preemptor simulated on its node.
    ASSERT_TRUE(snapshot.addPod(framework::PodInfo::create(victim), "node-1").ok());
    ASSERT_TRUE(snapshot.addPod(framework::PodInfo::create(placed1), "node-1").ok());
    EXPECT_EQ(snapshot.podGroupState("ns", "pg")->scheduledPodsCount(), 1);
    ASSERT_TRUE(snapshot.endMutations().ok());
    EXPECT_EQ(diff(before, capture(snapshot)), "");
    EXPECT_EQ(testing::compareCacheWithSnapshot(*cache, snapshot), "");
  }

  // The cache changes node-1 only; the update copies it and nothing else.
  ASSERT_TRUE(cache->addPod(MakePod().name("new").uid("new").namespace_("ns").node("node-1").ptr()).ok());
  ASSERT_TRUE(cache->updateSnapshot(snapshot).ok());
  EXPECT_EQ(testing::compareCacheWithSnapshot(*cache, snapshot), "");
  const SnapshotState after = capture(snapshot);
  EXPECT_EQ(after.infos, before.infos);
  EXPECT_EQ(testing::diffNodeInfo(before.contents.at("node-2"), after.contents.at("node-2"), true), "");
  EXPECT_NE(after.contents.at("node-1").generation(), before.contents.at("node-1").generation());
  EXPECT_EQ(after.groups, before.groups);  // same objects, same generations: not copied again

  Snapshot fresh;
  ASSERT_TRUE(cache->updateSnapshot(fresh).ok());
  EXPECT_EQ(testing::compareCacheWithSnapshot(*cache, fresh), "");
  EXPECT_EQ(snapshot.usedPVCCountsForTest(), fresh.usedPVCCountsForTest());
  EXPECT_EQ(listNames(snapshot.list()), listNames(fresh.list()));
  EXPECT_EQ(listNames(snapshot.havePodsWithAffinityList()), listNames(fresh.havePodsWithAffinityList()));
  EXPECT_EQ(listNames(snapshot.havePodsWithRequiredAntiAffinityList()),
            listNames(fresh.havePodsWithRequiredAntiAffinityList()));
  for (const auto& [key, state] : fresh.podGroupStatesForTest()) {
    ASSERT_TRUE(snapshot.podGroupStatesForTest().contains(key)) << key;
    EXPECT_EQ(groupString(snapshot.podGroupStatesForTest().at(key)->data()), groupString(state->data()))
        << key;
  }
  EXPECT_EQ(snapshot.podGroupStatesForTest().size(), fresh.podGroupStatesForTest().size());
  EXPECT_TRUE(logged.empty()) << ::testing::PrintToString(logged);
}

// Pods assumed before a session stay assumed after it, whatever the session did with them; pods the
// session assumed and left are dropped with it. The LIFO bookkeeping holds throughout.
TEST(SnapshotMutations, AssumedPodsAcrossASession) {
  const auto node1 = MakeNode().name("node-1").ptr();
  auto affinity = [](const std::string& name) {
    return MakePod()
        .name(name)
        .uid(name)
        .node("node-1")
        .podAffinity("zone", matchLabels("a", "b"))
        .pvc(name)
        .ptr();
  };
  const auto a = affinity("a");
  const auto b = affinity("b");
  const auto c = affinity("c");
  Snapshot s = newSnapshot({}, {node1});
  ASSERT_TRUE(s.assumePod(framework::PodInfo::create(a)).ok());
  const SnapshotState before = capture(s);
  ASSERT_TRUE(s.startMutations().ok());
  ASSERT_TRUE(s.assumePod(framework::PodInfo::create(b)).ok());
  ASSERT_TRUE(s.forgetPod(*b).ok());
  ASSERT_TRUE(s.forgetPod(*a).ok());  // assumed before the session
  EXPECT_TRUE(s.havePodsWithAffinityList().empty());
  ASSERT_TRUE(s.assumePod(framework::PodInfo::create(c)).ok());  // left assumed
  ASSERT_TRUE(s.endMutations().ok());
  EXPECT_EQ(diff(before, capture(s)), "");
  EXPECT_EQ(s.assumedPodCount(), 1u);
  EXPECT_FALSE(s.forgetPod(*c).ok());
  ASSERT_TRUE(s.forgetPod(*a).ok());
  EXPECT_TRUE(s.havePodsWithAffinityList().empty());
  EXPECT_TRUE((*s.get("node-1"))->pods().empty());
  EXPECT_TRUE(s.usedPVCCountsForTest().empty());
}

// updateSnapshot ends a session left open (and says so) before copying the cache.
TEST(SnapshotMutations, UpdateSnapshotEndsASessionLeftOpen) {
  std::vector<std::string> logged;
  auto cache = newCache(&logged);
  cache->addNode(MakeNode().name("node-1").ptr());
  Snapshot snapshot;
  ASSERT_TRUE(cache->updateSnapshot(snapshot).ok());
  ASSERT_TRUE(snapshot.startMutations().ok());
  ASSERT_TRUE(
      snapshot.addPod(framework::PodInfo::create(MakePod().name("p").uid("p").node("node-1").ptr()), "node-1")
          .ok());
  ASSERT_TRUE(cache->addPod(MakePod().name("q").uid("q").node("node-1").ptr()).ok());
  ASSERT_TRUE(cache->updateSnapshot(snapshot).ok());
  EXPECT_FALSE(snapshot.inMutationSession());
  EXPECT_EQ(testing::compareCacheWithSnapshot(*cache, snapshot), "");
  EXPECT_EQ(logged, std::vector<std::string>{"Found a mutation session in the snapshot that was not ended"});
}

}  // namespace
}  // namespace ks::cache
