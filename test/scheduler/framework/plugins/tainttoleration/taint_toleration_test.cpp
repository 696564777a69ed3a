// Ports upstream plugins/tainttoleration/taint_toleration_test.go (v1.34 reason text).
#include <gtest/gtest.h>

#include "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::tainttoleration {
namespace {

using framework::EventObject;
using framework::QueueingHint;

api::NodePtr nodeWithTaints(const std::string& name, std::vector<api::Taint> taints) {
  api::Node n;
  n.metadata.name = name;
  n.spec.taints = std::move(taints);
  return std::make_shared<const api::Node>(std::move(n));
}

api::Pod podWithTolerations(const std::string& name, std::vector<api::Toleration> tolerations) {
  api::Pod p;
  p.metadata.name = name;
  p.spec.tolerations = std::move(tolerations);
  return p;
}

api::Taint taint(std::string key, std::string value, std::string effect) {
  return api::Taint{std::move(key), std::move(value), std::move(effect), std::nullopt};
}
api::Toleration tol(std::string key, std::string op, std::string value, std::string effect) {
  return api::Toleration{std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}

TEST(TaintTolerationTest, Score) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::NodePtr> nodes;
    framework::NodeScoreList expected;
  };
  const std::string P = "PreferNoSchedule";
  const std::vector<Case> cases = {
      {"node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
       podWithTolerations("pod1", {tol("foo", "Equal", "bar", P)}),
       {nodeWithTaints("nodeA", {taint("foo", "bar", P)}),
        nodeWithTaints("nodeB", {taint("foo", "blah", P)})},
       {{"nodeA", framework::kMaxNodeScore}, {"nodeB", 0}}},
      {"the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many "
       "tolerable taints a node has",
       podWithTolerations("pod1",
                          {tol("cpu-type", "Equal", "arm64", P), tol("disk-type", "Equal", "ssd", P)}),
       {nodeWithTaints("nodeA", {}), nodeWithTaints("nodeB", {taint("cpu-type", "arm64", P)}),
        nodeWithTaints("nodeC", {taint("cpu-type", "arm64", P), taint("disk-type", "ssd", P)})},
       {{"nodeA", framework::kMaxNodeScore},
        {"nodeB", framework::kMaxNodeScore},
        {"nodeC", framework::kMaxNodeScore}}},
      {"the more intolerable taints a node has, the lower score it gets.",
       podWithTolerations("pod1", {tol("foo", "Equal", "bar", P)}),
       {nodeWithTaints("nodeA", {}), nodeWithTaints("nodeB", {taint("cpu-type", "arm64", P)}),
        nodeWithTaints("nodeC", {taint("cpu-type", "arm64", P), taint("disk-type", "ssd", P)})},
       {{"nodeA", framework::kMaxNodeScore}, {"nodeB", 50}, {"nodeC", 0}}},
      {"only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations "
       "priority "
       "function",
       podWithTolerations("pod1", {tol("cpu-type", "Equal", "arm64", "NoSchedule"),
                                   tol("disk-type", "Equal", "ssd", "NoSchedule")}),
       {nodeWithTaints("nodeA", {}), nodeWithTaints("nodeB", {taint("cpu-type", "arm64", "NoSchedule")}),
        nodeWithTaints("nodeC", {taint("cpu-type", "arm64", P), taint("disk-type", "ssd", P)})},
       {{"nodeA", framework::kMaxNodeScore}, {"nodeB", framework::kMaxNodeScore}, {"nodeC", 0}}},
      {"Default behaviour No taints and tolerations, lands on node with no taints",
       podWithTolerations("pod1", {}),
       {nodeWithTaints("nodeA", {}), nodeWithTaints("nodeB", {taint("cpu-type", "arm64", P)})},
       {{"nodeA", framework::kMaxNodeScore}, {"nodeB", 0}}},
  };
  for (const auto& c : cases) {
    auto lister = plugintesting::FakeSharedLister::create({}, c.nodes);
    plugintesting::FakeHandle h;
    h.setSnapshotSharedLister(lister.get());
    auto p = TaintToleration::create(nullptr, h);
    ASSERT_TRUE(p.ok());
    auto* pre = dynamic_cast<framework::PreScorePlugin*>(p->get());
    auto* sc = dynamic_cast<framework::ScorePlugin*>(p->get());
    ASSERT_NE(pre, nullptr);
    ASSERT_NE(sc, nullptr);
    framework::CycleState state;
    auto pi = plugintesting::podInfo(c.pod);
    auto nodeInfos = plugintesting::buildNodeInfos(c.nodes);
    EXPECT_TRUE(pre->preScore(state, *pi, nodeInfos).isSuccess()) << c.name;
    framework::NodeScoreList got;
    for (const auto& ni : lister->list()) {
      int64_t score = -1;
      EXPECT_TRUE(sc->score(state, *pi, *ni, score).isSuccess()) << c.name;
      got.push_back({ni->nodeName(), score});
    }
    EXPECT_TRUE(sc->scoreExtensions()->normalizeScore(state, *pi, got).isSuccess()) << c.name;
    EXPECT_EQ(got, c.expected) << c.name;
  }
}

TEST(TaintTolerationTest, ScoreWithoutPreScore) {
  TaintToleration pl;
  framework::CycleState state;
  int64_t score = 0;
  auto ni = plugintesting::nodeInfoWith(*nodeWithTaints("n", {}));
  auto s = pl.score(state, *plugintesting::podInfo(api::Pod{}), *ni, score);
  EXPECT_EQ(s.code(), framework::Code::Error);
  EXPECT_EQ(s.message(), "failed to read \"PreScoreTaintToleration\" from cycleState: not found");
}

TEST(TaintTolerationTest, Filter) {
  const auto U = framework::Code::UnschedulableAndUnresolvable;
  struct Case {
    std::string name;
    api::Pod pod;
    api::NodePtr node;
    framework::Status want;
  };
  const std::vector<Case> cases = {
      {"A pod having no tolerations can't be scheduled onto a node with nonempty taints",
       podWithTolerations("pod1", {}), nodeWithTaints("nodeA", {taint("dedicated", "user1", "NoSchedule")}),
       framework::Status(U, "node(s) had untolerated taint(s)")},
      {"A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
       podWithTolerations("pod1", {tol("dedicated", "", "user1", "NoSchedule")}),
       nodeWithTaints("nodeA", {taint("dedicated", "user1", "NoSchedule")}), framework::Status()},
      {"A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
       podWithTolerations("pod1", {tol("dedicated", "Equal", "user2", "NoSchedule")}),
       nodeWithTaints("nodeA", {taint("dedicated", "user1", "NoSchedule")}),
       framework::Status(U, "node(s) had untolerated taint(s)")},
      {"A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the "
       "taints on the "
       "node",
       podWithTolerations("pod1", {tol("foo", "Exists", "", "NoSchedule")}),
       nodeWithTaints("nodeA", {taint("foo", "bar", "NoSchedule")}), framework::Status()},
      {"A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be "
       "scheduled "
       "onto the node",
       podWithTolerations("pod1", {tol("dedicated", "Equal", "user2", "NoSchedule"),
                                   tol("foo", "Exists", "", "NoSchedule")}),
       nodeWithTaints("nodeA",
                      {taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")}),
       framework::Status()},
      {"A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect "
       "doesn't "
       "match, can't be scheduled onto the node",
       podWithTolerations("pod1", {tol("foo", "Equal", "bar", "PreferNoSchedule")}),
       nodeWithTaints("nodeA", {taint("foo", "bar", "NoSchedule")}),
       framework::Status(U, "node(s) had untolerated taint(s)")},
      {"The pod has a toleration that keys and values match the taint on the node, the effect of toleration "
       "is empty, "
       "and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
       podWithTolerations("pod1", {tol("foo", "Equal", "bar", "")}),
       nodeWithTaints("nodeA", {taint("foo", "bar", "NoSchedule")}), framework::Status()},
      {"The pod has a toleration that key and value don't match the taint on the node, but the effect of "
       "taint on "
       "node is PreferNoSchedule. Pod can be scheduled onto the node",
       podWithTolerations("pod1", {tol("dedicated", "Equal", "user2", "NoSchedule")}),
       nodeWithTaints("nodeA", {taint("dedicated", "user1", "PreferNoSchedule")}), framework::Status()},
      {"The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled "
       "onto the "
       "node",
       podWithTolerations("pod1", {}),
       nodeWithTaints("nodeA", {taint("dedicated", "user1", "PreferNoSchedule")}), framework::Status()},
      // NoExecute taints are filtered as well.
      {"A pod without tolerations can't be scheduled onto a node with a NoExecute taint",
       podWithTolerations("pod1", {}), nodeWithTaints("nodeA", {taint("k", "", "NoExecute")}),
       framework::Status(U, "node(s) had untolerated taint(s)")},
  };
  TaintToleration pl;
  for (const auto& c : cases) {
    framework::CycleState state;
    auto ni = plugintesting::nodeInfoWith(*c.node);
    EXPECT_EQ(pl.filter(state, *plugintesting::podInfo(c.pod), *ni), c.want) << c.name;
  }
}

TEST(TaintTolerationTest, IsSchedulableAfterNodeChange) {
  struct Case {
    std::string name;
    api::Pod pod;
    EventObject oldObj, newObj;
    QueueingHint expectedHint;
    bool wantErr;
  };
  const auto user2 = podWithTolerations("pod1", {tol("dedicated", "Equal", "user2", "NoSchedule")});
  const std::vector<Case> cases = {
      {"backoff-wrong-new-object",
       api::Pod{},
       {},
       std::make_shared<const api::Pod>(),
       QueueingHint::Queue,
       true},
      {"backoff-wrong-old-object", api::Pod{}, std::make_shared<const api::Pod>(),
       nodeWithTaints("nodeA", {taint("dedicated", "user1", "NoSchedule")}), QueueingHint::Queue, true},
      {"skip-queue-on-untoleratedtaint-node-added",
       user2,
       {},
       nodeWithTaints("nodeA", {taint("dedicated", "user1", "NoSchedule")}),
       QueueingHint::QueueSkip,
       false},
      {"queue-on-toleratedtaint-node-added",
       user2,
       {},
       nodeWithTaints("nodeA", {taint("dedicated", "user2", "NoSchedule")}),
       QueueingHint::Queue,
       false},
      {"skip-unrelated-change", user2, nodeWithTaints("nodeA", {taint("dedicated", "user1", "NoSchedule")}),
       nodeWithTaints("nodeA",
                      {taint("dedicated", "user1", "NoSchedule"), taint("dedicated", "user3", "NoSchedule")}),
       QueueingHint::QueueSkip, false},
      {"queue-on-taint-change", user2, nodeWithTaints("nodeA", {taint("dedicated", "user1", "NoSchedule")}),
       nodeWithTaints("nodeA", {taint("dedicated", "user2", "NoSchedule")}), QueueingHint::Queue, false},
  };
  for (const auto& c : cases) {
    auto got = TaintToleration::isSchedulableAfterNodeChange(c.pod, c.oldObj, c.newObj);
    EXPECT_EQ(!got.ok(), c.wantErr) << c.name;
    if (got.ok()) {
      EXPECT_EQ(*got, c.expectedHint) << c.name;
    }
  }
}

// v1.37 Test_isSchedulableAfterTargetPodTolerationChange.
TEST(TaintTolerationTest, IsSchedulableAfterTargetPodTolerationChange) {
  api::Pod pod = podWithTolerations("pod-1", {});
  pod.metadata.namespace_ = "ns-1";
  api::Pod tolerating = podWithTolerations("pod-1", {tol("foo", "", "", "NoSchedule")});
  tolerating.metadata.namespace_ = "ns-1";
  auto got = TaintToleration::isSchedulableAfterTargetPodTolerationChange(
      pod, std::make_shared<const api::Pod>(pod), std::make_shared<const api::Pod>(tolerating));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, QueueingHint::Queue) << "queue-on-toleration-added";
}

TEST(TaintTolerationTest, EventsToRegister) {
  TaintToleration pl;
  auto events = pl.eventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event.resource, framework::EventResource::Node);
  EXPECT_EQ((*events)[0].event.actionType, framework::action::Add | framework::action::UpdateNodeTaint);
  EXPECT_EQ((*events)[1].event.resource, framework::EventResource::TargetPod);
  EXPECT_EQ((*events)[1].event.actionType, framework::action::UpdatePodToleration);
}

}  // namespace
}  // namespace ks::plugins::tainttoleration
