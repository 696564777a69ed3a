// The binding pool: every submitted task runs exactly once, waitIdle() sees them all done, close() drains
// the queue and refuses new work. Run under ThreadSanitizer by the sanitizer lane (label concurrency).
#include "pkg/util/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace ks {
namespace {

TEST(WorkerPoolTest, RunsEveryTaskOnceFromManySubmitters) {
  WorkerPool pool(4);
  std::atomic<int> ran{0};
  std::vector<std::thread> submitters;
  for (int t = 0; t < 4; ++t) {
    submitters.emplace_back([&] {
      for (int i = 0; i < 500; ++i) ASSERT_TRUE(pool.submit([&] { ran.fetch_add(1); }));
    });
  }
  for (auto& t : submitters) t.join();
  pool.waitIdle();
  EXPECT_EQ(ran.load(), 2000);
  EXPECT_EQ(pool.inFlight(), 0u);
}

TEST(WorkerPoolTest, CloseDrainsQueuedTasksThenRefusesNewOnes) {
  WorkerPool pool(1);
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i) {
    pool.submit([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      ran.fetch_add(1);
    });
  }
  pool.close();
  EXPECT_EQ(ran.load(), 50);
  EXPECT_FALSE(pool.submit([&] { ran.fetch_add(1); }));
  pool.close();  // idempotent
  EXPECT_EQ(ran.load(), 50);
}

TEST(WorkerPoolTest, TasksMaySubmitMoreTasks) {
  WorkerPool pool(2);
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i) {
    pool.submit([&] {
      ran.fetch_add(1);
      pool.submit([&] { ran.fetch_add(1); });
    });
  }
  // waitIdle() returns once nothing is queued or running, including the follow-up tasks.
  while (ran.load() < 200) pool.waitIdle();
  EXPECT_EQ(ran.load(), 200);
}

}  // namespace
}  // namespace ks
