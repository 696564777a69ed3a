#include "pkg/app/heap_trimmer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ks::app {
namespace {

using namespace std::chrono_literals;

TEST(HeapTrimmerTest, TrimsEveryPeriodUntilDestroyed) {
  std::atomic<int> trims{0};
  {
    HeapTrimmer trimmer(5ms, [&trims] { trims.fetch_add(1); });
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (trims.load() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  }
  const int atDestruction = trims.load();
  EXPECT_GE(atDestruction, 3);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(trims.load(), atDestruction) << "no trim after the destructor returned";
}

TEST(HeapTrimmerTest, DestructorDoesNotWaitForThePeriod) {
  int trims = 0;
  const auto start = std::chrono::steady_clock::now();
  { HeapTrimmer trimmer(1h, [&trims] { ++trims; }); }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(trims, 0);
}

}  // namespace
}  // namespace ks::app
