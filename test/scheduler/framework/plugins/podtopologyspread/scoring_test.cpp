// Ports upstream plugins/podtopologyspread/scoring_test.go (v1.34.4): TestPreScoreSkip,
// TestPreScoreStateEmptyNodes and TestPodTopologySpreadScore, every case, with the gates exactly as
// upstream sets them (both off unless a case enables them). The benchmark is not ported.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test/scheduler/framework/plugins/podtopologyspread/test_util.h"

namespace ks::plugins::podtopologyspread {
namespace {

using namespace testutil;  // NOLINT

// upstream topologyNormalizingWeight.
double weight(size_t size) {
  return std::log(static_cast<double>(size + 2));
}

// The expected preScoreState.
struct WantPreScoreState {
  std::vector<TopologySpreadConstraint> constraints;
  std::set<std::string> ignoredNodes;
  std::vector<std::map<std::string, int64_t>> topologyValueToPodCounts;
  std::vector<double> topologyNormalizingWeight;
};

void expectPreScoreState(const WantPreScoreState& want, const PreScoreData& got) {
  EXPECT_EQ(want.constraints, got.constraints)
      << "want " << describe(want.constraints) << "\n got " << describe(got.constraints);
  EXPECT_EQ(want.ignoredNodes, std::set<std::string>(got.ignoredNodes.begin(), got.ignoredNodes.end()));
  std::vector<std::map<std::string, int64_t>> gotCounts;
  for (const auto& m : got.topologyValueToPodCounts) gotCounts.emplace_back(m.begin(), m.end());
  EXPECT_EQ(want.topologyValueToPodCounts, gotCounts)
      << "want " << describeMaps(want.topologyValueToPodCounts) << "\n got " << describeMaps(gotCounts);
  EXPECT_EQ(want.topologyNormalizingWeight, got.topologyNormalizingWeight);
}

// Upstream's NewFramework(WithSnapshotSharedLister(NewSnapshot(nil, nodes)), WithInformerFactory(fake
// clientset with objs)), New(...), then informerFactory.Start and WaitForCacheSync: the objects go through
// the in-memory API and the informers.
class InformerEnv {
 public:
  InformerEnv(const std::vector<api::NodePtr>& nodes, const std::vector<api::ReplicaSet>& replicaSets)
      : lister_(plugintesting::FakeSharedLister::create({}, nodes)) {
    handle_.setSnapshotSharedLister(lister_.get());
    handle_.setSharedInformerFactory(&factory_);
    for (const auto& rs : replicaSets) {
      auto created = client_.create(rs);
      EXPECT_TRUE(created.ok());
    }
  }
  ~InformerEnv() { factory_.stop(); }
  InformerEnv(const InformerEnv&) = delete;
  InformerEnv& operator=(const InformerEnv&) = delete;

  std::unique_ptr<PodTopologySpread> plugin(const config::PodTopologySpreadArgs& args,
                                            const Features& features) {
    auto p = PodTopologySpread::create(args, handle_, features);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    factory_.start();
    EXPECT_TRUE(factory_.waitForCacheSync(std::chrono::seconds(30)));
    return p.ok() ? std::move(p).value() : nullptr;
  }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_{client_};
  std::unique_ptr<plugintesting::FakeSharedLister> lister_;
  plugintesting::FakeHandle handle_;
};

TEST(PodTopologySpreadScoringTest, PreScoreSkip) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::NodePtr> nodes;
    std::vector<api::ReplicaSet> objs;
    config::PodTopologySpreadArgs config;
  };
  const std::vector<Case> cases = {
      {
          .name = "the pod doesn't have soft topology spread Constraints",
          .pod = MakePod().name("p").namespace_("default").obj(),
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}})},
          .config = listDefaulting(),
      },
      {
          .name = "default constraints and a replicaset that doesn't match",
          .pod = MakePod()
                     .name("p")
                     .namespace_("default")
                     .label("foo", "bar")
                     .label("baz", "sup")
                     .ownerReference("rs2", "ReplicaSet", "apps/v1")
                     .obj(),
          .nodes = {nodeL("node-a", {{"planet", "mars"}})},
          .objs = {replicaSet("default", "rs1", makeLabelSelector().exists("tar").obj())},
          .config = listDefaulting({defaultConstraint(2, "planet", kScheduleAnywayS)}),
      },
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    InformerEnv env(tt.nodes, tt.objs);
    auto p = env.plugin(tt.config, features(false, false));
    ASSERT_NE(p, nullptr);
    framework::CycleState cs;
    auto s = p->preScore(cs, *plugintesting::podInfo(tt.pod), plugintesting::buildNodeInfos(tt.nodes));
    EXPECT_TRUE(s.isSkip()) << "Expected skip but got " << s.toString();
  }
}

TEST(PodTopologySpreadScoringTest, PreScoreStateEmptyNodes) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::NodePtr> nodes;
    std::vector<api::ReplicaSet> objs;
    config::PodTopologySpreadArgs config;
    WantPreScoreState want;
    bool enableNodeInclusionPolicy = false;
  };
  const auto foo = mustConvert(fooSelector());
  const auto bar = mustConvert(barSelector());
  const std::vector<Case> cases = {
      {
          .name = "normal case",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .config = listDefaulting(),
          .want = {{tsc(1, "zone", foo), tsc(1, kHostname, foo)},
                   {},
                   {{{"zone1", 0}, {"zone2", 0}}, {}},
                   {weight(2), weight(3)}},
      },
      {
          .name = "null selector",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, kNilSelector)
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .config = listDefaulting(),
          .want =
              {{tsc(1, "zone", api::Selector::nothing())}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {weight(2)}},
      },
      {
          .name = "node-x doesn't have label zone",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{kHostname, "node-x"}})},
          .config = listDefaulting(),
          .want = {{tsc(1, "zone", foo), tsc(1, kHostname, bar)},
                   {"node-x"},
                   {{{"zone1", 0}}, {}},
                   {weight(1), weight(2)}},
      },
      {
          .name = "system default constraints and a replicaset",
          .pod = MakePod()
                     .name("p")
                     .namespace_("default")
                     .label("foo", "tar")
                     .label("baz", "sup")
                     .ownerReference("rs1", "ReplicaSet", "apps/v1")
                     .obj(),
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}, {kZone, "mars"}}),
                    nodeL("node-b", {{kHostname, "node-b"}, {kZone, "mars"}}),
                    // Nodes with no zone are not excluded. They are considered a separate zone.
                    nodeL("node-c", {{kHostname, "node-c"}}), nodeL("node-d", {{kHostname, "node-d"}})},
          .objs = {replicaSet("default", "rs1", fooSelector())},
          .config = systemDefaulting(),
          .want = {{tsc(3, kHostname, foo), tsc(5, kZone, foo)},
                   {},
                   {{}, {{"mars", 0}, {"", 0}}},
                   {weight(4), weight(2)}},
      },
      {
          .name = "default constraints and a replicaset",
          .pod = MakePod()
                     .name("p")
                     .namespace_("default")
                     .label("foo", "tar")
                     .label("baz", "sup")
                     .ownerReference("rs1", "ReplicaSet", "apps/v1")
                     .obj(),
          .nodes = {nodeL("node-a", {{"rack", "rack1"}, {kHostname, "node-a"}, {"planet", "mars"}})},
          .objs = {replicaSet("default", "rs1", fooSelector())},
          .config = listDefaulting({defaultConstraint(1, kHostname, kScheduleAnywayS),
                                    defaultConstraint(2, "rack", kDoNotScheduleS),
                                    defaultConstraint(2, "planet", kScheduleAnywayS)}),
          .want = {{tsc(1, kHostname, foo), tsc(2, "planet", foo)},
                   {},
                   {{}, {{"mars", 0}}},
                   {weight(1), weight(1)}},
      },
      {
          .name = "default constraints and a replicaset, but pod has constraints",
          .pod = MakePod()
                     .name("p")
                     .namespace_("default")
                     .label("foo", "bar")
                     .label("baz", "sup")
                     .ownerReference("rs1", "ReplicaSet", "apps/v1")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, barSelector())
                     .spreadConstraint(2, "planet", kScheduleAnywayS,
                                       makeLabelSelector().label("baz", "sup").obj())
                     .obj(),
          .nodes = {nodeL("node-a", {{"planet", "mars"}, {"galaxy", "andromeda"}})},
          .objs = {replicaSet("default", "rs1", fooSelector())},
          .config = listDefaulting({defaultConstraint(2, "galaxy", kScheduleAnywayS)}),
          .want = {{tsc(2, "planet", mustConvert(makeLabelSelector().label("baz", "sup").obj()))},
                   {},
                   {{{"mars", 0}}},
                   {weight(1)}},
      },
      {
          .name = "NodeAffinityPolicy honored with labelSelectors",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "zone", kScheduleAnywayS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .config = listDefaulting(),
          .want = {{tsc(1, "zone", bar)}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {weight(2)}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy ignored with labelSelectors",
          .pod =
              MakePod()
                  .name("p")
                  .label("foo", "")
                  .nodeSelector({{"foo", ""}})
                  .spreadConstraint(1, "zone", kScheduleAnywayS, barSelector(), std::nullopt, kIgnorePolicy)
                  .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .config = listDefaulting(),
          .want = {{tsc(1, "zone", bar, kIgnore, kIgnore)}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {weight(2)}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy honored with nodeAffinity",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityIn("foo", {""})
                     .spreadConstraint(1, "zone", kScheduleAnywayS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .config = listDefaulting(),
          .want = {{tsc(1, "zone", bar)}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {weight(2)}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy ignored with nodeAffinity",
          .pod =
              MakePod()
                  .name("p")
                  .label("foo", "")
                  .nodeAffinityIn("foo", {""})
                  .spreadConstraint(1, "zone", kScheduleAnywayS, barSelector(), std::nullopt, kIgnorePolicy)
                  .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .config = listDefaulting(),
          .want = {{tsc(1, "zone", bar, kIgnore, kIgnore)}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {weight(2)}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeTaintsPolicy honored",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, barSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}}, unschedulableTaints())},
          .config = listDefaulting(),
          .want = {{tsc(1, "zone", bar, kHonor, kHonor)}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {weight(2)}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeTaintsPolicy ignored",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"foo", ""}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}}, unschedulableTaints())},
          .config = listDefaulting(),
          .want = {{tsc(1, "zone", bar)}, {}, {{{"zone1", 0}, {"zone2", 0}}}, {weight(2)}},
          .enableNodeInclusionPolicy = true,
      },
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    InformerEnv env(tt.nodes, tt.objs);
    auto p = env.plugin(tt.config, features(tt.enableNodeInclusionPolicy, false));
    ASSERT_NE(p, nullptr);
    framework::CycleState cs;
    auto s = p->preScore(cs, *plugintesting::podInfo(tt.pod), plugintesting::buildNodeInfos(tt.nodes));
    ASSERT_TRUE(s.isSuccess()) << s.toString();
    const auto* got = cs.read<PreScoreState>();
    ASSERT_NE(got, nullptr);
    expectPreScoreState(tt.want, *got->data);
  }
}

TEST(PodTopologySpreadScoringTest, PodTopologySpreadScore) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::PodPtr> existingPods;
    std::vector<api::NodePtr> nodes;
    std::vector<api::NodePtr> failedNodes;  // nodes + failedNodes = all nodes
    Objects objs;
    framework::NodeScoreList want;
    bool enableNodeInclusionPolicy = false;
    bool enableMatchLabelKeys = false;
  };
  // Legend: X/Y means X matching pods on node1 and Y on node2, both candidates (passed all predicates);
  // X/~Y~ means node2 is not a candidate; X/?Y? means both are candidates but node2 doesn't have every
  // required topologyKey.
  const std::vector<Case> cases = {
      {
          .name = "one constraint on node, no existing pods",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}})},
          .want = {{"node-a", 100}, {"node-b", 100}},
      },
      {
          // if there is only one candidate node, it should be scored to 100
          .name = "one constraint on node, only one node is candidate",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}})},
          .failedNodes = {nodeL("node-b", {{kHostname, "node-b"}})},
          .want = {{"node-a", 100}},
      },
      {
          .name = "one constraint on node, all nodes have the same number of matching pods",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}})},
          .want = {{"node-a", 100}, {"node-b", 100}},
      },
      {
          // matching pods spread as 2/1/0/3.
          .name = "one constraint on node, all 4 nodes are candidates",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-d1", "node-d", kFoo),
                           epod("p-d2", "node-d", kFoo), epod("p-d3", "node-d", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}}),
                    nodeL("node-c", {{kHostname, "node-c"}}), nodeL("node-d", {{kHostname, "node-d"}})},
          .failedNodes = {},
          .want = {{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}},
      },
      {
          .name = "one constraint on node, null selector",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, kNilSelector)
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-d1", "node-d", kFoo),
                           epod("p-d2", "node-d", kFoo), epod("p-d3", "node-d", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}}),
                    nodeL("node-c", {{kHostname, "node-c"}}), nodeL("node-d", {{kHostname, "node-d"}})},
          .want = {{"node-a", 100}, {"node-b", 100}, {"node-c", 100}, {"node-d", 100}},
      },
      {
          .name = "one constraint on node, all 4 nodes are candidates, maxSkew=2",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(2, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          // matching pods spread as 2/1/0/3.
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-d1", "node-d", kFoo),
                           epod("p-d2", "node-d", kFoo), epod("p-d3", "node-d", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}}),
                    nodeL("node-c", {{kHostname, "node-c"}}), nodeL("node-d", {{kHostname, "node-d"}})},
          .failedNodes = {},
          .want = {{"node-a", 33},  // +13, compared to maxSkew=1
                   {"node-b", 66},  // +6, compared to maxSkew=1
                   {"node-c", 100},
                   {"node-d", 16}},  // +16, compared to maxSkew=1
      },
      {
          .name = "one constraint on node, all 4 nodes are candidates, maxSkew=3",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(3, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          // matching pods spread as 4/3/2/1.
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-a3", "node-a", kFoo), epod("p-a4", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-b3", "node-b", kFoo), epod("p-c1", "node-c", kFoo),
                           epod("p-c2", "node-c", kFoo), epod("p-d1", "node-d", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}}),
                    nodeL("node-c", {{kHostname, "node-c"}}), nodeL("node-d", {{kHostname, "node-d"}})},
          .failedNodes = {},
          .want = {{"node-a", 44},  // +16 compared to maxSkew=1
                   {"node-b", 66},  // +9 compared to maxSkew=1
                   {"node-c", 77},  // +6 compared to maxSkew=1
                   {"node-d", 100}},
      },
      {
          .name = "system defaulting, nodes don't have zone, pods match service",
          .pod = MakePod().name("p").label("foo", "").obj(),
          // matching pods spread as 4/3/2/1.
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-a3", "node-a", kFoo), epod("p-a4", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-b3", "node-b", kFoo), epod("p-c1", "node-c", kFoo),
                           epod("p-c2", "node-c", kFoo), epod("p-d1", "node-d", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}}),
                    nodeL("node-c", {{kHostname, "node-c"}}), nodeL("node-d", {{kHostname, "node-d"}})},
          .failedNodes = {},
          .objs = {.services = {service({{"foo", ""}})}},
          // Same scores as if we were using one spreading constraint.
          .want = {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}},
      },
      {
          // matching pods spread as 4/2/1/~3~ (node4 is not a candidate)
          .name = "one constraint on node, 3 out of 4 nodes are candidates",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-a3", "node-a", kFoo), epod("p-a4", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}}),
                    nodeL("node-x", {{kHostname, "node-x"}})},
          .failedNodes = {nodeL("node-y", {{kHostname, "node-y"}})},
          .want = {{"node-a", 33}, {"node-b", 83}, {"node-x", 100}},
      },
      {
          // matching pods spread as 4/?2?/1/~3~, total = 4+?+1 = 5 (as node2 is problematic)
          .name =
              "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-a3", "node-a", kFoo), epod("p-a4", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}),
                    nodeL("node-b", {{"n", "node-b"}}),  // label `n` doesn't match topologyKey
                    nodeL("node-x", {{kHostname, "node-x"}})},
          .failedNodes = {nodeL("node-y", {{kHostname, "node-y"}})},
          .want = {{"node-a", 16}, {"node-b", 0}, {"node-x", 100}},
      },
      {
          // matching pods spread as 4/2/1/~3~
          .name = "one constraint on zone, 3 out of 4 nodes are candidates",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-a3", "node-a", kFoo), epod("p-a4", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .failedNodes = {nodeL("node-y", {{"zone", "zone2"}, {kHostname, "node-y"}})},
          .want = {{"node-a", 75}, {"node-b", 75}, {"node-x", 100}},
      },
      {
          // matching pods spread as 2/~1~/2/~4~.
          .name = "two Constraints on zone and node, 2 out of 4 nodes are candidates",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-x1", "node-x", kFoo),
                           epod("p-x2", "node-x", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo),
                           epod("p-y4", "node-y", kFoo)},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .failedNodes = {nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                          nodeL("node-y", {{"zone", "zone2"}, {kHostname, "node-y"}})},
          .want = {{"node-a", 100}, {"node-x", 63}},
      },
      {
          .name = "two Constraints on zone, 2 out of 4 nodes are candidates",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, "zone", kScheduleAnywayS, barSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFooBar), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFooBar), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFooBar), epod("p-y3", "node-y", kFoo)},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}}), nodeL("node-x", {{"zone", "zone2"}})},
          .failedNodes = {nodeL("node-b", {{"zone", "zone1"}}), nodeL("node-y", {{"zone", "zone2"}})},
          .want = {{"node-a", 85}, {"node-x", 100}},
      },
      {
          // If Constraints hold different labelSelectors, it's a little complex.
          // +----------------------+------------------------+
          // |         zone1        |          zone2         |
          // +----------------------+------------------------+
          // | node-a |    node-b   | node-x |     node-y    |
          // +--------+-------------+--------+---------------+
          // | P{foo} | P{foo, bar} |        | P{foo} P{bar} |
          // +--------+-------------+--------+---------------+
          // For the first constraint (zone): the matching pods spread as 2/2/1/1
          // For the second constraint (node): the matching pods spread as 0/1/0/1
          .name = "two Constraints on zone and node, with different labelSelectors",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, barSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFooBar),
                           epod("p-y1", "node-y", kFoo), epod("p-y2", "node-y", kBar)},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}}),
                    nodeL("node-y", {{"zone", "zone2"}, {kHostname, "node-y"}})},
          .failedNodes = {},
          .want = {{"node-a", 60}, {"node-b", 20}, {"node-x", 100}, {"node-y", 60}},
      },
      {
          // For the first constraint (zone): the matching pods spread as 0/0/2/2
          // For the second constraint (node): the matching pods spread as 0/1/0/1
          .name = "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, barSelector())
                     .obj(),
          .existingPods = {epod("p-b1", "node-b", kBar), epod("p-x1", "node-x", kFoo),
                           epod("p-y1", "node-y", kFooBar)},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}}),
                    nodeL("node-y", {{"zone", "zone2"}, {kHostname, "node-y"}})},
          .failedNodes = {},
          .want = {{"node-a", 100}, {"node-b", 60}, {"node-x", 40}, {"node-y", 0}},
      },
      {
          // For the first constraint (zone): the matching pods spread as 2/2/1/~1~
          // For the second constraint (node): the matching pods spread as 0/1/0/~1~
          .name = "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are "
                  "candidates",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, barSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFooBar),
                           epod("p-y1", "node-y", kFoo), epod("p-y2", "node-y", kBar)},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {kHostname, "node-x"}})},
          .failedNodes = {nodeL("node-y", {{"zone", "zone2"}, {kHostname, "node-y"}})},
          .want = {{"node-a", 50}, {"node-b", 25}, {"node-x", 100}},
      },
      {
          .name = "existing pods in a different namespace do not count",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo, "ns1"), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}})},
          .want = {{"node-a", 100}, {"node-b", 33}},
      },
      {
          .name = "terminating Pods should be excluded",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {MakePod().name("p-a").node("node-a").label("foo", "").terminating().ptr(),
                           epod("p-b", "node-b", kFoo)},
          .nodes = {nodeL("node-a", {{kHostname, "node-a"}}), nodeL("node-b", {{kHostname, "node-b"}})},
          .want = {{"node-a", 100}, {"node-b", 0}},
      },
      {
          // Artificial: the API server rejects non-default minDomains with ScheduleAnyway.
          .name = "minDomains has no effect when ScheduleAnyway",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(2, "node", kScheduleAnywayS, fooSelector(),
                                       10)  // > the number of domains (3)
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-c1", "node-c", kFoo)},
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}})},
          .want = {{"node-a", 75}, {"node-b", 75}, {"node-c", 100}},
      },
      {
          .name = "NodeAffinityPolicy honoed with labelSelectors",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "node", kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-c1", "node-c", kFoo)},
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}})},
          .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy ignored with labelSelectors",
          .pod =
              MakePod()
                  .name("p")
                  .label("foo", "")
                  .nodeSelector({{"foo", ""}})
                  .spreadConstraint(1, "node", kScheduleAnywayS, fooSelector(), std::nullopt, kIgnorePolicy)
                  .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-c1", "node-c", kFoo)},
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}})},
          .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy honoed with nodeAffinity",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityIn("foo", {""})
                     .spreadConstraint(1, "node", kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-c1", "node-c", kFoo)},
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}})},
          .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy ignored with nodeAffinity",
          .pod =
              MakePod()
                  .name("p")
                  .label("foo", "")
                  .nodeAffinityIn("foo", {""})
                  .spreadConstraint(1, "node", kScheduleAnywayS, fooSelector(), std::nullopt, kIgnorePolicy)
                  .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-c1", "node-c", kFoo)},
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}})},
          .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeTaintsPolicy honored",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kScheduleAnywayS, fooSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-c1", "node-c", kFoo)},
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}}, unschedulableTaints())},
          .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeTaintsPolicy ignored",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kScheduleAnywayS, fooSelector())
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-c1", "node-c", kFoo)},
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}}, unschedulableTaints())},
          .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "matchLabelKeys ignored when feature gate disabled",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .label("baz", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector(), std::nullopt, std::nullopt,
                                       std::nullopt, {"baz"})
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, barSelector(), std::nullopt,
                                       std::nullopt, std::nullopt, {"baz"})
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFooBar),
                           epod("p-y1", "node-c", kFoo), epod("p-y2", "node-c", kBar)},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-c", {{"zone", "zone2"}, {kHostname, "node-c"}}),
                    nodeL("node-d", {{"zone", "zone2"}, {kHostname, "node-d"}})},
          .want = {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}},
          .enableMatchLabelKeys = false,
      },
      {
          .name = "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, makeLabelSelector().obj(), std::nullopt,
                                       std::nullopt, std::nullopt, {"foo"})
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, makeLabelSelector().obj(),
                                       std::nullopt, std::nullopt, std::nullopt, {"bar"})
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFooBar),
                           epod("p-y1", "node-c", kFoo), epod("p-y2", "node-c", kBar)},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-c", {{"zone", "zone2"}, {kHostname, "node-c"}}),
                    nodeL("node-d", {{"zone", "zone2"}, {kHostname, "node-d"}})},
          .want = {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}},
          .enableMatchLabelKeys = true,
      },
      {
          .name = "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .label("baz", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, kHostname, kScheduleAnywayS, barSelector(), std::nullopt,
                                       std::nullopt, std::nullopt, {"baz"})
                     .obj(),
          .existingPods = {epod("p-a1", "node-a", kFoo),
                           epod("p-b1", "node-b", {{"foo", ""}, {"bar", ""}, {"baz", ""}}),
                           epod("p-c1", "node-c", kFoo), epod("p-c2", "node-c", kBar),
                           epod("p-d3", "node-c", {{"bar", ""}, {"baz", ""}})},
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {kHostname, "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {kHostname, "node-b"}}),
                    nodeL("node-c", {{"zone", "zone2"}, {kHostname, "node-c"}}),
                    nodeL("node-d", {{"zone", "zone2"}, {kHostname, "node-d"}})},
          .want = {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}},
          .enableMatchLabelKeys = true,
      },
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    std::vector<api::NodePtr> allNodes = tt.nodes;
    allNodes.insert(allNodes.end(), tt.failedNodes.begin(), tt.failedNodes.end());
    PluginEnv env(tt.existingPods, allNodes, tt.objs);
    auto p = env.plugin(systemDefaulting(), features(tt.enableNodeInclusionPolicy, tt.enableMatchLabelKeys));
    ASSERT_NE(p, nullptr);
    framework::CycleState state;
    const auto pi = plugintesting::podInfo(tt.pod);
    auto status = p->preScore(state, *pi, plugintesting::buildNodeInfos(tt.nodes));
    EXPECT_TRUE(status.isSuccess()) << "unexpected error: " << status.toString();

    framework::NodeScoreList gotList;
    for (const auto& n : tt.nodes) {
      auto nodeInfo = env.nodeInfo(n->metadata.name);
      ASSERT_NE(nodeInfo, nullptr);
      int64_t score = 0;
      status = p->score(state, *pi, *nodeInfo, score);
      EXPECT_TRUE(status.isSuccess()) << "unexpected error: " << status.toString();
      gotList.push_back({n->metadata.name, score});
    }
    status = p->scoreExtensions()->normalizeScore(state, *pi, gotList);
    EXPECT_TRUE(status.isSuccess()) << "unexpected error: " << status.toString();
    EXPECT_EQ(tt.want, gotList);
  }
}

// Score and NormalizeScore without PreScore state fail as upstream's getPreScoreState.
TEST(PodTopologySpreadScoringTest, ScoreWithoutPreScore) {
  PluginEnv env({}, {nodeL("node-a", {{kHostname, "node-a"}})});
  auto p = env.plugin(listDefaulting(), Features{});
  ASSERT_NE(p, nullptr);
  framework::CycleState state;
  const auto pi = plugintesting::podInfo(api::Pod{});
  int64_t score = 0;
  const auto want =
      framework::Status::error("error reading \"PreScorePodTopologySpread\" from cycleState: not found");
  EXPECT_EQ(p->score(state, *pi, *env.nodeInfo("node-a"), score), want);
  framework::NodeScoreList scores = {{"node-a", 0}};
  EXPECT_EQ(p->scoreExtensions()->normalizeScore(state, *pi, scores), want);
}

}  // namespace
}  // namespace ks::plugins::podtopologyspread
