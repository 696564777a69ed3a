#include "pkg/scheduler/framework/parallelize/parallelism.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

namespace ks::framework::parallelize {
namespace {

// Upstream TestChunkSizeFor.
TEST(ParallelismTest, ChunkSizeFor) {
  struct Case {
    int input, parallelism, want;
  };
  for (const auto& c : std::vector<Case>{{1, 16, 1},
                                         {1000, 16, 31},
                                         {10000, 16, 100},
                                         {1000000, 16, 1000},
                                         {1000000, 1000, 1000},
                                         {1000000, 100000, 11},
                                         {1000, 1000, 2},
                                         {1000, 100000, 1},
                                         {0, 16, 1}}) {
    EXPECT_EQ(chunkSizeFor(c.input, c.parallelism), c.want) << c.input << "/" << c.parallelism;
  }
}

TEST(ParallelismTest, RunsEveryPieceOnce) {
  Parallelizer p(4);
  for (int pieces : {0, 1, 7, 100, 10000}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(pieces));
    p.until(pieces, [&](int i) { hits[static_cast<std::size_t>(i)].fetch_add(1); });
    for (int i = 0; i < pieces; ++i) EXPECT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << i;
  }
}

TEST(ParallelismTest, UsesAtMostParallelismThreads) {
  Parallelizer p(3);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> concurrent{0}, maxConcurrent{0};
  p.until(300, [&](int) {
    int c = concurrent.fetch_add(1) + 1;
    int m = maxConcurrent.load();
    while (c > m && !maxConcurrent.compare_exchange_weak(m, c)) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    {
      std::lock_guard lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    concurrent.fetch_sub(1);
  });
  EXPECT_LE(maxConcurrent.load(), 3);
  EXPECT_LE(ids.size(), 3u);
}

// Threads are capped at the CPUs (Go runs the goroutines on GOMAXPROCS threads); chunking still follows
// the configured parallelism.
TEST(ParallelismTest, ThreadsAreCappedByMaxThreadsButChunkingFollowsParallelism) {
  Parallelizer capped(16, 2);
  EXPECT_EQ(capped.parallelism(), 16);
  EXPECT_EQ(capped.threads(), 2);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> runs{0};
  capped.until(500, [&](int) {
    runs.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    std::lock_guard lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(runs.load(), 500);
  EXPECT_LE(ids.size(), 2u);

  EXPECT_EQ(Parallelizer(3, 64).threads(), 3);
  EXPECT_EQ(Parallelizer(4, 0).threads(), 1);
  EXPECT_GE(usableCpus(), 1);
}

TEST(ParallelismTest, CancellationSkipsRemainingPieces) {
  Parallelizer p(2);
  std::stop_source stop;
  std::atomic<int> ran{0};
  ErrorChannel errCh;
  p.until(
      100000,
      [&](int i) {
        ran.fetch_add(1);
        if (i == 10) errCh.sendErrorWithCancel(Error("piece 10 failed"), stop);
      },
      stop.get_token());
  EXPECT_LT(ran.load(), 100000);
  auto err = errCh.receiveError();
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->message(), "piece 10 failed");
  EXPECT_FALSE(errCh.receiveError().has_value());
}

TEST(ParallelismTest, NestedAndConcurrentCallsComplete) {
  Parallelizer p(2);
  std::atomic<int> total{0};
  auto outer = [&] { p.until(8, [&](int) { p.until(8, [&](int) { total.fetch_add(1); }); }); };
  std::thread t1(outer), t2(outer);
  t1.join();
  t2.join();
  EXPECT_EQ(total.load(), 128);
}

TEST(ParallelismTest, ErrorChannelKeepsFirst) {
  ErrorChannel ch;
  EXPECT_FALSE(ch.receiveError().has_value());
  ch.sendError(Error("a"));
  ch.sendError(Error("b"));
  EXPECT_EQ(ch.receiveError()->message(), "a");
}

}  // namespace
}  // namespace ks::framework::parallelize
