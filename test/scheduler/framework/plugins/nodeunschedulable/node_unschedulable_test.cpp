// Ports upstream plugins/nodeunschedulable/node_unschedulable_test.go.
#include <gtest/gtest.h>

#include "pkg/api/taints.h"
#include "pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::nodeunschedulable {
namespace {

using framework::EventObject;
using framework::QueueingHint;
using ks::testing::MakePod;

api::NodePtr node(bool unschedulable, std::vector<api::Taint> taints = {}) {
  api::Node n;
  n.spec.unschedulable = unschedulable;
  n.spec.taints = std::move(taints);
  return std::make_shared<const api::Node>(std::move(n));
}

TEST(NodeUnschedulableTest, Filter) {
  api::Pod tolerating;
  tolerating.spec.tolerations.push_back(
      api::Toleration{std::string(api::kTaintNodeUnschedulable), "", "", "NoSchedule", std::nullopt});
  struct Case {
    std::string name;
    api::Pod pod;
    api::NodePtr node;
    framework::Status want;
  };
  const std::vector<Case> cases = {
      {"Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)", api::Pod{}, node(true),
       framework::Status(framework::Code::UnschedulableAndUnresolvable, "node(s) were unschedulable")},
      {"Schedule pod to normal node", api::Pod{}, node(false), framework::Status()},
      {"Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)", tolerating,
       node(true), framework::Status()},
  };
  plugintesting::FakeHandle h;
  auto p = NodeUnschedulable::create(nullptr, h);
  ASSERT_TRUE(p.ok());
  auto* pl = dynamic_cast<framework::FilterPlugin*>(p->get());
  ASSERT_NE(pl, nullptr);
  for (const auto& c : cases) {
    framework::NodeInfo ni;
    ni.setNode(c.node);
    framework::CycleState state;
    EXPECT_EQ(pl->filter(state, *plugintesting::podInfo(c.pod), ni), c.want) << c.name;
  }
}

TEST(NodeUnschedulableTest, FilterWithoutNode) {
  NodeUnschedulable pl;
  framework::NodeInfo ni;
  framework::CycleState state;
  auto s = pl.filter(state, *plugintesting::podInfo(api::Pod{}), ni);
  EXPECT_EQ(s.code(), framework::Code::Error);
  EXPECT_EQ(s.message(), "node not found");
}

TEST(NodeUnschedulableTest, IsSchedulableAfterNodeChange) {
  const api::Taint notReady{std::string(api::kTaintNodeNotReady), "", "NoExecute", std::nullopt};
  auto aPod = std::make_shared<const api::Pod>();
  struct Case {
    std::string name;
    EventObject oldObj, newObj;
    QueueingHint expectedHint;
    bool expectedErr;
  };
  const std::vector<Case> cases = {
      {"error-wrong-new-object", {}, aPod, QueueingHint::Queue, true},
      {"error-wrong-old-object", aPod, node(true), QueueingHint::Queue, true},
      {"skip-queue-on-unschedulable-node-added", {}, node(true), QueueingHint::QueueSkip, false},
      {"queue-on-schedulable-node-added", {}, node(false), QueueingHint::Queue, false},
      {"skip-unrelated-change-unschedulable-true", node(true), node(true, {notReady}),
       QueueingHint::QueueSkip, false},
      {"skip-unrelated-change-unschedulable-false", node(false), node(false, {notReady}),
       QueueingHint::QueueSkip, false},
      {"queue-on-unschedulable-field-change", node(true), node(false), QueueingHint::Queue, false},
  };
  for (const auto& c : cases) {
    auto got = NodeUnschedulable::isSchedulableAfterNodeChange(api::Pod{}, c.oldObj, c.newObj);
    EXPECT_EQ(!got.ok(), c.expectedErr) << c.name;
    if (got.ok()) {
      EXPECT_EQ(*got, c.expectedHint) << c.name;
    }
  }
}

TEST(NodeUnschedulableTest, IsSchedulableAfterTargetPodTolerationChange) {
  struct Case {
    std::string name;
    api::Pod pod;
    EventObject oldObj, newObj;
    QueueingHint expectedHint;
    bool expectedErr;
  };
  const std::string unsched(api::kTaintNodeUnschedulable);
  const std::vector<Case> cases = {
      {"error-wrong-new-object", api::Pod{}, {}, node(false), QueueingHint::Queue, true},
      {"error-wrong-old-object", api::Pod{}, node(false), std::make_shared<const api::Pod>(),
       QueueingHint::Queue, true},
      {"queue-when-the-unsched-pod-gets-toleration", MakePod().uid("uid").obj(), MakePod().uid("uid").ptr(),
       MakePod().uid("uid").toleration(unsched).ptr(), QueueingHint::Queue, false},
      {"skip-when-the-unsched-pod-gets-unrelated-toleration", MakePod().uid("uid").obj(),
       MakePod().uid("uid").ptr(), MakePod().uid("uid").toleration("unrelated-key").ptr(),
       QueueingHint::QueueSkip, false},
  };
  for (const auto& c : cases) {
    auto got = NodeUnschedulable::isSchedulableAfterTargetPodTolerationChange(c.pod, c.oldObj, c.newObj);
    EXPECT_EQ(!got.ok(), c.expectedErr) << c.name;
    if (got.ok()) {
      EXPECT_EQ(*got, c.expectedHint) << c.name;
    }
  }
}

TEST(NodeUnschedulableTest, EventsToRegister) {
  NodeUnschedulable pl;
  auto events = pl.eventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event.resource, framework::EventResource::Node);
  EXPECT_EQ((*events)[0].event.actionType, framework::action::Add | framework::action::UpdateNodeTaint);
  EXPECT_EQ((*events)[1].event.resource, framework::EventResource::TargetPod);
  EXPECT_EQ((*events)[1].event.actionType, framework::action::UpdatePodToleration);
}

}  // namespace
}  // namespace ks::plugins::nodeunschedulable
