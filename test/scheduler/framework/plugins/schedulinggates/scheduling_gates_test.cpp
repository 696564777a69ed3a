// Ports upstream plugins/schedulinggates/scheduling_gates_test.go.
#include <gtest/gtest.h>

#include "pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::schedulinggates {
namespace {

using ks::testing::MakePod;

TEST(SchedulingGatesTest, PreEnqueue) {
  struct Case {
    std::string name;
    api::Pod pod;
    framework::Status want;
  };
  const std::vector<Case> cases = {
      {"pod does not carry scheduling gates", MakePod().name("p").obj(), framework::Status()},
      {"pod carries scheduling gates", MakePod().name("p").schedulingGates({"foo", "bar"}).obj(),
       framework::Status(framework::Code::UnschedulableAndUnresolvable,
                         "waiting for scheduling gates: [foo bar]")},
  };
  plugintesting::FakeHandle h;
  auto p = SchedulingGates::create(nullptr, h);
  ASSERT_TRUE(p.ok());
  auto* pl = dynamic_cast<framework::PreEnqueuePlugin*>(p->get());
  ASSERT_NE(pl, nullptr);
  for (const auto& c : cases) {
    EXPECT_EQ(pl->preEnqueue(*plugintesting::podInfo(c.pod)), c.want) << c.name;
  }
}

TEST(SchedulingGatesTest, IsSchedulableAfterUpdateTargetPodSchedulingGatesEliminated) {
  auto pod = MakePod().name("p").schedulingGates({"foo"}).obj();
  auto oldObj = MakePod().name("p").schedulingGates({"foo"}).ptr();
  auto newObj = MakePod().name("p").ptr();
  auto hint =
      SchedulingGates::isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated(pod, oldObj, newObj);
  ASSERT_TRUE(hint.ok());
  EXPECT_EQ(*hint, framework::QueueingHint::Queue);
}

TEST(SchedulingGatesTest, EventsToRegister) {
  SchedulingGates pl;
  auto events = pl.eventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event.resource, framework::EventResource::TargetPod);
  EXPECT_EQ((*events)[0].event.actionType, framework::action::UpdatePodSchedulingGatesEliminated);
  EXPECT_TRUE(static_cast<bool>((*events)[0].queueingHintFn));
}

}  // namespace
}  // namespace ks::plugins::schedulinggates
