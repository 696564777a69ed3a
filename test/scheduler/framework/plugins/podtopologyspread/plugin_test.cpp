// Ports upstream plugins/podtopologyspread/plugin_test.go: Test_isSchedulableAfterNodeChange (v1.34.4),
// Test_isSchedulableAfterAssignedPodChange and Test_isSchedulableAfterTargetPodChange (v1.37.2), every
// case, with the gates as upstream sets them (off unless a case enables NodeInclusionPolicy). Also covers
// construction (args validation, System/List defaulting, the informer factory requirement) and
// EventsToRegister.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/scheduler/framework/plugins/podtopologyspread/test_util.h"

namespace ks::plugins::podtopologyspread {
namespace {

using namespace testutil;  // NOLINT
using framework::EventObject;
using framework::QueueingHint;

EventObject nodeObj(const std::optional<api::Node>& n) {
  if (!n) return std::monostate{};
  return std::make_shared<const api::Node>(*n);
}

EventObject podObj(const std::optional<api::Pod>& p) {
  if (!p) return std::monostate{};
  return std::make_shared<const api::Pod>(*p);
}

api::Node nodeWith(const Labels& labels, std::vector<api::Taint> taints = {}) {
  return *nodeL("node-a", labels, std::move(taints));
}

api::Taint taint(std::string key) {
  return api::Taint{std::move(key), "bbb", "NoSchedule", std::nullopt};
}

TEST(PodTopologySpreadPluginTest, IsSchedulableAfterNodeChange) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Node> oldNode, newNode;
    QueueingHint expectedHint = QueueingHint::QueueSkip;
  };
  const auto zoneOnly = MakePod().name("p").spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector()).obj();
  const auto zoneAndNode = MakePod()
                               .name("p")
                               .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                               .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                               .obj();
  const std::vector<Case> cases = {
      {"node updates label which matches topologyKey", zoneOnly, nodeWith({{"zone", "zone1"}}),
       nodeWith({{"zone", "zone2"}}), QueueingHint::Queue},
      {"node that doesn't match topologySpreadConstraints updates non-related label", zoneOnly,
       nodeWith({{"foo", "bar1"}}), nodeWith({{"foo", "bar2"}}), QueueingHint::QueueSkip},
      {"node that match topologySpreadConstraints adds non-related label", zoneAndNode,
       nodeWith({{"zone", "zone1"}, {"node", "node1"}, {"foo", "bar"}}),
       nodeWith({{"zone", "zone1"}, {"node", "node1"}}), QueueingHint::QueueSkip},
      {"create node with non-related labels", zoneOnly, std::nullopt, nodeWith({{"foo", "bar"}}),
       QueueingHint::QueueSkip},
      {"create node with related labels", zoneOnly, std::nullopt, nodeWith({{"zone", "zone1"}}),
       QueueingHint::Queue},
      {"delete node with non-related labels", zoneOnly, nodeWith({{"foo", "bar"}}), std::nullopt,
       QueueingHint::QueueSkip},
      {"delete node with related labels", zoneOnly, nodeWith({{"zone", "zone1"}}), std::nullopt,
       QueueingHint::Queue},
      {"add node with related labels that only match one of topologySpreadConstraints", zoneAndNode,
       std::nullopt, nodeWith({{"zone", "zone1"}}), QueueingHint::QueueSkip},
      {"add node with related labels that match all topologySpreadConstraints", zoneAndNode, std::nullopt,
       nodeWith({{"zone", "zone1"}, {"node", "node1"}}), QueueingHint::Queue},
      {"update node with related labels that only match one of topologySpreadConstraints", zoneAndNode,
       nodeWith({{"zone", "zone1"}}), nodeWith({{"zone", "zone1"}}), QueueingHint::QueueSkip},
      {"update node with related labels that match all topologySpreadConstraints", zoneAndNode,
       nodeWith({{"zone", "zone1"}, {"node", "node1"}}), nodeWith({{"zone", "zone1"}, {"node", "node2"}}),
       QueueingHint::Queue},
      {"update node with different taints that match all topologySpreadConstraints", zoneAndNode,
       nodeWith({{"zone", "zone1"}, {"node", "node1"}}, {taint("aaa")}),
       nodeWith({{"zone", "zone1"}, {"node", "node1"}}, {taint("ccc")}), QueueingHint::Queue},
      {"update node with different taints that only match one of topologySpreadConstraints", zoneAndNode,
       nodeWith({{"node", "node1"}}, {taint("aaa")}), nodeWith({{"node", "node1"}}, {taint("ccc")}),
       QueueingHint::QueueSkip},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    PluginEnv env({}, {});
    auto p = env.plugin(listDefaulting(), features(false, false));
    ASSERT_NE(p, nullptr);
    auto hint = p->isSchedulableAfterNodeChange(tc.pod, nodeObj(tc.oldNode), nodeObj(tc.newNode));
    ASSERT_TRUE(hint.ok()) << hint.error().message();
    EXPECT_EQ(*hint, tc.expectedHint);
  }
}

struct PodHintCase {
  std::string name;
  api::Pod pod;
  std::optional<api::Pod> oldPod, newPod;
  QueueingHint expectedHint = QueueingHint::QueueSkip;
  bool enableNodeInclusionPolicyInPodTopologySpread = false;
};

void runPodHintCases(const std::vector<PodHintCase>& cases,
                     Result<QueueingHint> (PodTopologySpread::*hint)(const api::Pod&, const EventObject&,
                                                                     const EventObject&) const) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    PluginEnv env({}, {});
    auto p = env.plugin(listDefaulting(), features(tc.enableNodeInclusionPolicyInPodTopologySpread, false));
    ASSERT_NE(p, nullptr);
    auto got = ((*p).*hint)(tc.pod, podObj(tc.oldPod), podObj(tc.newPod));
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(*got, tc.expectedHint);
  }
}

TEST(PodTopologySpreadPluginTest, IsSchedulableAfterAssignedPodChange) {
  const auto zoneFoo = MakePod()
                           .uid("p")
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj();
  const auto zoneFooNodeBar = MakePod()
                                  .uid("p")
                                  .name("p")
                                  .label("foo", "")
                                  .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                                  .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                                  .obj();
  const std::vector<PodHintCase> cases = {
      {
          .name = "add pod with labels match topologySpreadConstraints selector",
          .pod = zoneFoo,
          .newPod = MakePod().uid("p2").node("fake-node").label("foo", "").obj(),
          .expectedHint = QueueingHint::Queue,
      },
      {
          .name = "add un-scheduled pod",
          .pod = zoneFoo,
          .newPod = MakePod().uid("p2").label("foo", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "update un-scheduled pod",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").label("bar", "").obj(),
          .newPod = MakePod().uid("p2").label("foo", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "delete un-scheduled pod",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").label("foo", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "add pod with different namespace",
          .pod = zoneFoo,
          .newPod = MakePod().uid("p2").node("fake-node").namespace_("fake-namespace").label("foo", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "add pod with labels don't match topologySpreadConstraints selector",
          .pod = zoneFoo,
          .newPod = MakePod().uid("p2").node("fake-node").label("bar", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "delete pod with labels that match topologySpreadConstraints selector",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").node("fake-node").label("foo", "").obj(),
          .expectedHint = QueueingHint::Queue,
      },
      {
          .name = "delete nominated pod with labels that don't match topologySpreadConstraints selector",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").nominatedNodeName("fake-node").label("bar", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "delete nominated pod with labels that match topologySpreadConstraints selector",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").nominatedNodeName("fake-node").label("foo", "").obj(),
          .expectedHint = QueueingHint::Queue,
      },
      {
          .name = "delete pod with labels that don't match topologySpreadConstraints selector",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").node("fake-node").label("bar", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "update pod's non-related label",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").node("fake-node").label("foo", "").label("bar", "bar1").obj(),
          .newPod = MakePod().uid("p2").node("fake-node").label("foo", "").label("bar", "bar2").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "add pod's label that matches topologySpreadConstraints selector",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").node("fake-node").obj(),
          .newPod = MakePod().uid("p2").node("fake-node").label("foo", "").obj(),
          .expectedHint = QueueingHint::Queue,
      },
      {
          .name = "delete pod label that matches topologySpreadConstraints selector",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").node("fake-node").label("foo", "").obj(),
          .newPod = MakePod().uid("p2").node("fake-node").obj(),
          .expectedHint = QueueingHint::Queue,
      },
      {
          .name = "change pod's label that matches topologySpreadConstraints selector",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").node("fake-node").label("foo", "foo1").obj(),
          .newPod = MakePod().uid("p2").node("fake-node").label("foo", "foo2").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "change pod's label that doesn't match topologySpreadConstraints selector",
          .pod = zoneFoo,
          .oldPod = MakePod().uid("p2").node("fake-node").label("foo", "").label("bar", "bar1").obj(),
          .newPod = MakePod().uid("p2").node("fake-node").label("foo", "").label("bar", "bar2").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "add pod's label that matches topologySpreadConstraints selector with multi "
                  "topologySpreadConstraints",
          .pod = zoneFooNodeBar,
          .oldPod = MakePod().uid("p2").node("fake-node").label("foo", "").obj(),
          .newPod = MakePod().uid("p2").node("fake-node").label("foo", "").label("bar", "bar2").obj(),
          .expectedHint = QueueingHint::Queue,
      },
      {
          .name = "change pod's label that doesn't match topologySpreadConstraints selector with multi "
                  "topologySpreadConstraints",
          .pod = zoneFooNodeBar,
          .oldPod = MakePod().uid("p2").node("fake-node").label("foo", "").obj(),
          .newPod = MakePod().uid("p2").node("fake-node").label("foo", "").label("baz", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "change pod's label that match topologySpreadConstraints selector with multi "
                  "topologySpreadConstraints",
          .pod = zoneFooNodeBar,
          .oldPod = MakePod().uid("p2").node("fake-node").label("foo", "").label("bar", "").obj(),
          .newPod = MakePod().uid("p2").node("fake-node").label("foo", "").label("bar", "bar2").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
  };
  runPodHintCases(cases, &PodTopologySpread::isSchedulableAfterAssignedPodChange);
}

TEST(PodTopologySpreadPluginTest, IsSchedulableAfterTargetPodChange) {
  auto withZonePolicy = [](const std::optional<std::string>& taintsPolicy) {
    return MakePod()
        .uid("p")
        .name("p")
        .label("foo", "")
        .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt, taintsPolicy)
        .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
        .obj();
  };
  const std::vector<PodHintCase> cases = {
      {
          .name = "the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has "
                  "got a new toleration",
          .pod = withZonePolicy(kHonorPolicy),
          .oldPod = MakePod().uid("p").name("p").label("foo", "").obj(),
          .newPod = MakePod()
                        .uid("p")
                        .name("p")
                        .label("foo", "")
                        .toleration("node.kubernetes.io/unschedulable")
                        .obj(),
          .expectedHint = QueueingHint::Queue,
          .enableNodeInclusionPolicyInPodTopologySpread = true,
      },
      {
          .name = "the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and has "
                  "got a new toleration",
          .pod = withZonePolicy(kIgnorePolicy),
          .oldPod = MakePod().uid("p").name("p").label("foo", "").obj(),
          .newPod = MakePod()
                        .uid("p")
                        .name("p")
                        .label("foo", "")
                        .toleration("node.kubernetes.io/unschedulable")
                        .obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
      {
          .name = "the unschedulable Pod has topologySpreadConstraint and has got a new label matching the "
                  "selector of the constraint",
          .pod = withZonePolicy(kIgnorePolicy),
          .oldPod = MakePod().uid("p").name("p").obj(),
          .newPod = MakePod().uid("p").name("p").label("foo", "").obj(),
          .expectedHint = QueueingHint::Queue,
      },
      {
          .name = "the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label",
          .pod = withZonePolicy(kIgnorePolicy),
          .oldPod = MakePod().uid("p").name("p").obj(),
          .newPod = MakePod().uid("p").name("p").label("unrelated", "").obj(),
          .expectedHint = QueueingHint::QueueSkip,
      },
  };
  runPodHintCases(cases, &PodTopologySpread::isSchedulableAfterTargetPodChange);
}

// A wrong object type is an error, which the queue treats as Queue (upstream util.As).
TEST(PodTopologySpreadPluginTest, HintsRejectOtherObjects) {
  PluginEnv env({}, {});
  auto p = env.plugin(listDefaulting(), Features{});
  ASSERT_NE(p, nullptr);
  const auto pod = MakePod().name("p").spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector()).obj();
  auto h = p->isSchedulableAfterNodeChange(pod, std::monostate{}, podObj(pod));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message(), "expected *v1.Node, but got *v1.Pod");
  auto h2 = p->isSchedulableAfterAssignedPodChange(pod, std::monostate{}, nodeObj(api::Node{}));
  ASSERT_FALSE(h2.ok());
  EXPECT_EQ(h2.error().message(), "expected *v1.Pod, but got *v1.Node");
}

TEST(PodTopologySpreadPluginTest, EventsToRegister) {
  PluginEnv env({}, {});
  auto p = env.plugin(listDefaulting(), Features{});
  ASSERT_NE(p, nullptr);
  auto events = p->eventsToRegister();
  ASSERT_TRUE(events.ok());
  namespace action = framework::action;
  using framework::ClusterEvent;
  using framework::EventResource;
  const std::vector<ClusterEvent> want = {
      {EventResource::AssignedPod, action::Add | action::UpdatePodLabel | action::Delete, {}},
      {EventResource::TargetPod, action::UpdatePodToleration | action::UpdatePodLabel, {}},
      {EventResource::Node,
       action::Add | action::Delete | action::UpdateNodeLabel | action::UpdateNodeTaint,
       {}},
  };
  std::vector<ClusterEvent> got;
  for (const auto& e : *events) {
    got.push_back(e.event);
    EXPECT_TRUE(e.queueingHintFn);
  }
  EXPECT_EQ(got, want);
}

TEST(PodTopologySpreadPluginTest, Create) {
  auto lister = plugintesting::FakeSharedLister::create({}, {});
  {
    // No snapshot lister.
    plugintesting::FakeHandle h;
    auto p = PodTopologySpread::create(nullptr, h);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message(), "SnapshotSharedlister is nil");
  }
  {
    // System defaulting (the default args) needs the informers of the default selector.
    plugintesting::FakeHandle h;
    h.setSnapshotSharedLister(lister.get());
    auto p = PodTopologySpread::create(nullptr, h);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message(), "SharedInformerFactory is nil");
  }
  {
    // List defaulting without constraints needs none.
    plugintesting::FakeHandle h;
    h.setSnapshotSharedLister(lister.get());
    const auto args = listDefaulting();
    auto p = PodTopologySpread::create(&args, h);
    EXPECT_TRUE(p.ok());
  }
  {
    // Args of another plugin.
    plugintesting::FakeHandle h;
    h.setSnapshotSharedLister(lister.get());
    config::NodeAffinityArgs other;
    auto p = PodTopologySpread::create(&other, h);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message(), "want args to be of type PodTopologySpreadArgs");
  }
  {
    // Validated as upstream: System defaulting with constraints is invalid.
    plugintesting::FakeHandle h;
    h.setSnapshotSharedLister(lister.get());
    auto args = systemDefaulting();
    args.defaultConstraints = {defaultConstraint(1, "zone", kDoNotScheduleS)};
    auto p = PodTopologySpread::create(&args, h);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message(),
              "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty");
  }
}

// System defaulting: pods without constraints spread by hostname (maxSkew 3) and zone (maxSkew 5), softly,
// over the pods their services select; without a selector there is nothing to spread.
TEST(PodTopologySpreadPluginTest, SystemDefaultConstraints) {
  Objects objs;
  objs.services = {service({{"app", "web"}}, "default", "web")};
  PluginEnv env({}, {nodeL("node-a", {{kHostname, "node-a"}, {kZone, "z1"}})}, objs);
  auto p = env.plugin(systemDefaulting(), Features{});
  ASSERT_NE(p, nullptr);
  const auto web = MakePod().name("p").namespace_("default").label("app", "web").obj();
  framework::CycleState cs;
  ASSERT_TRUE(p->preScore(cs, *plugintesting::podInfo(web), env.lister().list()).isSuccess());
  const auto sel = api::Selector::fromSet({{"app", "web"}});
  EXPECT_EQ(cs.read<PreScoreState>()->data->constraints,
            (std::vector<TopologySpreadConstraint>{tsc(3, kHostname, sel), tsc(5, kZone, sel)}));
  // No hard default constraints: PreFilter skips.
  framework::PreFilterResult result;
  EXPECT_TRUE(p->preFilter(cs, *plugintesting::podInfo(web), env.lister().list(), result).isSkip());
  // A pod no service selects has no default selector.
  framework::CycleState cs2;
  const auto other = MakePod().name("q").namespace_("default").label("app", "db").obj();
  EXPECT_TRUE(p->preScore(cs2, *plugintesting::podInfo(other), env.lister().list()).isSkip());
}

// The constraints' selectors fail to parse: PreFilter and PreScore report the error as upstream wraps it.
TEST(PodTopologySpreadPluginTest, InvalidSelector) {
  PluginEnv env({}, {nodeL("node-a", {{"zone", "z1"}})});
  auto p = env.plugin(listDefaulting(), Features{});
  ASSERT_NE(p, nullptr);
  api::LabelSelector bad;
  bad.matchExpressions.push_back({"foo", "Bogus", {}});
  const auto hard = MakePod().name("p").spreadConstraint(1, "zone", kDoNotScheduleS, bad).obj();
  framework::CycleState cs;
  framework::PreFilterResult result;
  auto s = p->preFilter(cs, *plugintesting::podInfo(hard), env.lister().list(), result);
  EXPECT_EQ(s.code(), framework::Code::Error);
  EXPECT_EQ(
      s.message(),
      "get constraints from pod: obtaining pod's hard topology spread constraints: \"Bogus\" is not a valid "
      "label selector operator");
  const auto soft = MakePod().name("p").spreadConstraint(1, "zone", kScheduleAnywayS, bad).obj();
  s = p->preScore(cs, *plugintesting::podInfo(soft), env.lister().list());
  EXPECT_EQ(s.code(), framework::Code::Error);
  EXPECT_EQ(
      s.message(),
      "calculating preScoreState: obtaining pod's soft topology spread constraints: \"Bogus\" is not a valid "
      "label selector operator");
}

}  // namespace
}  // namespace ks::plugins::podtopologyspread
