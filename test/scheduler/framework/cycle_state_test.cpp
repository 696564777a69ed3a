#include "pkg/scheduler/framework/cycle_state.h"

#include <gtest/gtest.h>

namespace ks::framework {
namespace {

struct FakeData final : StateData {
  explicit FakeData(std::string d) : data(std::move(d)) {}
  std::unique_ptr<StateData> clone() const override { return std::make_unique<FakeData>(data); }
  std::string data;
};

struct OtherData final : StateData {
  int v = 0;
  std::unique_ptr<StateData> clone() const override {
    auto c = std::make_unique<OtherData>();
    c->v = v;
    return c;
  }
};

TEST(CycleStateTest, ReadWriteErase) {
  CycleState s;
  EXPECT_EQ(s.read<FakeData>(), nullptr);
  s.write(std::make_unique<FakeData>("a"));
  ASSERT_NE(s.read<FakeData>(), nullptr);
  EXPECT_EQ(s.read<FakeData>()->data, "a");
  EXPECT_EQ(s.read<OtherData>(), nullptr);
  s.write(std::make_unique<FakeData>("b"));
  EXPECT_EQ(s.read<FakeData>()->data, "b");
  s.erase<FakeData>();
  EXPECT_EQ(s.read<FakeData>(), nullptr);
  EXPECT_NE(stateKeyOf<FakeData>(), stateKeyOf<OtherData>());
}

// Upstream TestCycleStateClone.
TEST(CycleStateTest, Clone) {
  CycleState s;
  s.write(std::make_unique<FakeData>("modified"));
  auto o = std::make_unique<OtherData>();
  o->v = 7;
  s.write(std::move(o));
  PluginNameSet skip;
  skip.insert("P1");
  s.setSkipFilterPlugins(skip);
  s.setSkipScorePlugins(skip);
  s.setRecordPluginMetrics(true);

  auto c = s.clone();
  ASSERT_NE(c->read<FakeData>(), nullptr);
  EXPECT_EQ(c->read<FakeData>()->data, "modified");
  EXPECT_EQ(c->read<OtherData>()->v, 7);
  EXPECT_NE(c->read<FakeData>(), s.read<FakeData>());  // deep copy
  c->read<FakeData>()->data = "changed";
  EXPECT_EQ(s.read<FakeData>()->data, "modified");
  EXPECT_TRUE(c->skipFilterPlugins().contains("P1"));
  EXPECT_TRUE(c->skipScorePlugins().contains("P1"));
  EXPECT_TRUE(c->shouldRecordPluginMetrics());

  CycleState empty;
  auto ce = empty.clone();
  EXPECT_EQ(ce->read<FakeData>(), nullptr);
}

TEST(CycleStateTest, PluginNameSet) {
  PluginNameSet s;
  EXPECT_TRUE(s.empty());
  s.insert("b");
  s.insert("a");
  s.insert("b");
  EXPECT_EQ(s.size(), 2u);
  EXPECT_TRUE(s.contains("a"));
  EXPECT_FALSE(s.contains("c"));
  EXPECT_EQ(s.names(), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace ks::framework
