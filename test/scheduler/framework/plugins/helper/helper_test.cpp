// Ports upstream plugins/helper normalize_score_test.go and shape_score behaviour, plus util.As.
#include <gtest/gtest.h>

#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/plugins/helper/normalize_score.h"
#include "pkg/scheduler/framework/plugins/helper/taint.h"
#include "test/support/wrappers.h"

namespace ks::plugins::helper {
namespace {

struct NormalizeCase {
  bool reverse;
  std::vector<int64_t> scores;
  std::vector<int64_t> expected;
};

TEST(DefaultNormalizeScoreTest, UpstreamCases) {
  const std::vector<NormalizeCase> cases = {
      {false, {1, 2, 3, 4}, {25, 50, 75, 100}},
      {true, {1, 2, 3, 4}, {75, 50, 25, 0}},
      {false, {1000, 10, 20, 30}, {100, 1, 2, 3}},
      {true, {1000, 10, 20, 30}, {0, 99, 98, 97}},
      {false, {1, 1, 1, 1}, {100, 100, 100, 100}},
      {false, {1000, 1, 1, 1}, {100, 0, 0, 0}},
      {true, {0, 1, 1, 1}, {100, 0, 0, 0}},
      // All zero: unchanged, or maxPriority when reversed.
      {false, {0, 0}, {0, 0}},
      {true, {0, 0}, {100, 100}},
  };
  for (std::size_t i = 0; i < cases.size(); i++) {
    framework::NodeScoreList scores;
    for (int64_t s : cases[i].scores) scores.push_back({"", s});
    EXPECT_TRUE(defaultNormalizeScore(framework::kMaxNodeScore, cases[i].reverse, scores).isSuccess());
    std::vector<int64_t> got;
    for (const auto& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, cases[i].expected) << "case_" << i;
  }
}

TEST(BrokenLinearFunctionTest, Segments) {
  auto f = buildBrokenLinearFunction({{10, 1}, {20, 5}, {30, 5}, {50, 0}});
  EXPECT_EQ(f(-5), 1);
  EXPECT_EQ(f(10), 1);
  EXPECT_EQ(f(15), 3);  // 1 + 4*5/10
  EXPECT_EQ(f(20), 5);
  EXPECT_EQ(f(25), 5);
  EXPECT_EQ(f(40), 3);  // 5 + (-5)*10/20 = 2.5 -> 5 - 2 (Go truncates toward zero)
  EXPECT_EQ(f(50), 0);
  EXPECT_EQ(f(1000), 0);
}

TEST(TaintFilterTest, DoNotSchedule) {
  EXPECT_TRUE(doNotScheduleTaintsFilter(api::Taint{"k", "", "NoSchedule", std::nullopt}));
  EXPECT_TRUE(doNotScheduleTaintsFilter(api::Taint{"k", "", "NoExecute", std::nullopt}));
  EXPECT_FALSE(doNotScheduleTaintsFilter(api::Taint{"k", "", "PreferNoSchedule", std::nullopt}));
}

TEST(AsTypedTest, TypesAndErrors) {
  auto node = ks::testing::MakeNode().name("n").ptr();
  auto pod = ks::testing::MakePod().name("p").ptr();
  auto r = asTyped<api::Node>(framework::EventObject{}, framework::EventObject{node});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first, nullptr);
  EXPECT_EQ(r->second, node.get());

  auto bad = asTyped<api::Node>(framework::EventObject{}, framework::EventObject{pod});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "expected *v1.Node, but got *v1.Pod");

  auto badOld = asTyped<api::Node>(framework::EventObject{pod}, framework::EventObject{node});
  ASSERT_FALSE(badOld.ok());
}

}  // namespace
}  // namespace ks::plugins::helper
