// Ports upstream plugins/queuesort/priority_sort_test.go.
#include <gtest/gtest.h>

#include "pkg/scheduler/framework/plugins/queuesort/priority_sort.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::queuesort {
namespace {

using ks::testing::MakePod;

framework::QueuedPodInfo queued(int32_t priority, framework::TimePoint ts = {}) {
  framework::QueuedPodInfo q;
  q.podInfo = plugintesting::podInfo(MakePod().priority(priority).obj());
  q.timestamp = ts;
  return q;
}

TEST(PrioritySortTest, Less) {
  PrioritySort sort;
  const int32_t low = 10, high = 100;
  const auto t1 = std::chrono::system_clock::now();
  const auto t2 = t1 + std::chrono::seconds(1);
  struct Case {
    std::string name;
    framework::QueuedPodInfo p1, p2;
    bool expected;
  };
  const std::vector<Case> cases = {
      {"p1.priority less than p2.priority", queued(low), queued(high), false},
      {"p1.priority greater than p2.priority", queued(high), queued(low), true},
      {"equal priority. p1 is added to schedulingQ earlier than p2", queued(high, t1), queued(high, t2),
       true},
      {"equal priority. p2 is added to schedulingQ earlier than p1", queued(high, t2), queued(high, t1),
       false},
  };
  for (const auto& c : cases) EXPECT_EQ(sort.less(c.p1, c.p2), c.expected) << c.name;
}

TEST(PrioritySortTest, NameAndFactory) {
  plugintesting::FakeHandle h;
  auto p = PrioritySort::create(nullptr, h);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->name(), "PrioritySort");
  EXPECT_NE(dynamic_cast<framework::QueueSortPlugin*>(p->get()), nullptr);
}

}  // namespace
}  // namespace ks::plugins::queuesort
