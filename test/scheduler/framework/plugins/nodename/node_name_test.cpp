// Ports upstream plugins/nodename/node_name_test.go.
#include <gtest/gtest.h>

#include "pkg/scheduler/framework/plugins/nodename/node_name.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::nodename {
namespace {

using ks::testing::MakeNode;
using ks::testing::MakePod;

TEST(NodeNameTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Node node;
    framework::Status want;
  };
  const std::vector<Case> cases = {
      {"no host specified", api::Pod{}, api::Node{}, framework::Status()},
      {"host matches", MakePod().node("foo").obj(), MakeNode().name("foo").obj(), framework::Status()},
      {"host doesn't match", MakePod().node("bar").obj(), MakeNode().name("foo").obj(),
       framework::Status(framework::Code::UnschedulableAndUnresolvable,
                         "node(s) didn't match the requested node name")},
  };
  plugintesting::FakeHandle h;
  auto p = NodeName::create(nullptr, h);
  ASSERT_TRUE(p.ok());
  auto* pl = dynamic_cast<framework::FilterPlugin*>(p->get());
  ASSERT_NE(pl, nullptr);
  for (const auto& c : cases) {
    framework::CycleState state;
    EXPECT_EQ(pl->filter(state, *plugintesting::podInfo(c.pod), *plugintesting::nodeInfoWith(c.node)), c.want)
        << c.name;
  }
}

TEST(NodeNameTest, FilterWithoutNode) {
  NodeName pl;
  framework::NodeInfo ni;
  framework::CycleState state;
  EXPECT_EQ(pl.filter(state, *plugintesting::podInfo(api::Pod{}), ni).code(), framework::Code::Error);
}

TEST(NodeNameTest, EventsToRegister) {
  NodeName pl;
  auto events = pl.eventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event.resource, framework::EventResource::Node);
  EXPECT_EQ((*events)[0].event.actionType, framework::action::Add);
  EXPECT_FALSE(static_cast<bool>((*events)[0].queueingHintFn));
}

}  // namespace
}  // namespace ks::plugins::nodename
