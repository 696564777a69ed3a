#include "pkg/scheduler/framework/runtime/waiting_pods_map.h"
#include "pkg/scheduler/framework/runtime/pods_in_prebind_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "test/scheduler/framework/fake_clock.h"

namespace ks::framework::runtime {
namespace {

using namespace std::chrono_literals;

api::PodPtr makePod(const std::string& uid) {
  api::Pod p;
  p.metadata.name = "pod-" + uid;
  p.metadata.uid = uid;
  return std::make_shared<const api::Pod>(std::move(p));
}

TEST(WaitingPodTest, AllowByEveryPendingPluginSucceeds) {
  testing::FakeClock clock;
  auto wp = WaitingPodImpl::create(makePod("u1"), {{"A", 10s}, {"B", 20s}}, clock);
  EXPECT_EQ(wp->pendingPlugins(), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(clock.pendingTimers(), 2u);
  wp->allow("A");
  EXPECT_FALSE(wp->tryResult().has_value());
  wp->allow("unknown");  // not pending: no effect
  EXPECT_FALSE(wp->tryResult().has_value());
  wp->allow("B");
  ASSERT_TRUE(wp->tryResult().has_value());
  EXPECT_TRUE(wp->wait().isSuccess());
  EXPECT_EQ(clock.pendingTimers(), 0u);
}

TEST(WaitingPodTest, RejectDeliversUnschedulableOnce) {
  testing::FakeClock clock;
  auto wp = WaitingPodImpl::create(makePod("u1"), {{"A", 10s}}, clock);
  wp->reject("A", "denied");
  wp->allow("A");
  wp->reject("B", "later");
  Status s = wp->wait();
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.message(), "denied");
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(clock.pendingTimers(), 0u);
}

// Upstream TestWaitingPodReturnFalseOnAllowed: preempt and reject of an allowed pod fail and leave it
// allowed.
TEST(WaitingPodTest, PreemptAndRejectReturnFalseOnAllowedPod) {
  for (const bool preempt : {true, false}) {
    SCOPED_TRACE(preempt ? "Preempt" : "Reject");
    testing::FakeClock clock;
    auto wp = WaitingPodImpl::create(makePod("test-uid"), {{"plugin1", 10s}}, clock);
    wp->allow("plugin1");
    EXPECT_FALSE(preempt ? wp->preempt("preemption-plugin", "preempted") : wp->reject("reject-plugin", "rejected"));
    EXPECT_TRUE(wp->wait().isSuccess());
  }
}

// Upstream TestWaitingPodMultipleActions: once allowed (and waited on), reject and preempt both fail.
TEST(WaitingPodTest, MultipleActionsAfterAllowFail) {
  testing::FakeClock clock;
  auto wp = WaitingPodImpl::create(makePod("test-uid"), {{"plugin1", 10s}}, clock);
  std::thread waiter([&] { EXPECT_TRUE(wp->wait().isSuccess()); });
  wp->allow("plugin1");
  waiter.join();
  EXPECT_FALSE(wp->reject("plugin2", "rejected"));
  EXPECT_FALSE(wp->preempt("preemption-plugin", "preempted"));
}

TEST(WaitingPodTest, PreemptDeliversAnErrorWithThePluginOnce) {
  testing::FakeClock clock;
  auto wp = WaitingPodImpl::create(makePod("u1"), {{"A", 10s}}, clock);
  EXPECT_TRUE(wp->preempt("DefaultPreemption", "preempted"));
  EXPECT_FALSE(wp->reject("A", "denied"));
  Status s = wp->wait();
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "preempted");
  EXPECT_EQ(s.plugin(), "DefaultPreemption");
  EXPECT_EQ(clock.pendingTimers(), 0u);
}

// Upstream TestPodsInBindingMap.
TEST(PodsInPreBindMapTest, AddGetRemoveCancelAndMarkPrebound) {
  {
    SCOPED_TRACE("add and get");
    PodsInPreBindMap m;
    m.add("uid");
    EXPECT_NE(m.get("uid"), nullptr);
  }
  {
    SCOPED_TRACE("add, remove and get");
    PodsInPreBindMap m;
    m.add("uid");
    m.remove("uid");
    EXPECT_EQ(m.get("uid"), nullptr);
  }
  {
    SCOPED_TRACE("Verify CancelPod logic");
    PodsInPreBindMap m;
    auto pod = m.add("uid");
    EXPECT_TRUE(pod->cancelPod("test cancel"));
    EXPECT_TRUE(pod->cancellation().token().stop_requested());
    EXPECT_EQ(pod->cancellation().cause(), "test cancel");
    EXPECT_TRUE(pod->cancelPod("another cancel")) << "a second cancel still reports the pod cancelled";
    EXPECT_EQ(pod->cancellation().cause(), "test cancel") << "the first cause stays";
  }
  {
    SCOPED_TRACE("Verify MarkBound logic");
    PodsInPreBindMap m;
    auto pod = m.add("uid");
    EXPECT_TRUE(pod->markPrebound());
    EXPECT_FALSE(pod->cancelPod("test cancel"));
    EXPECT_FALSE(pod->cancellation().cancelled()) << "not cancelled once prebound";
  }
  {
    SCOPED_TRACE("Verify MarkBound fails on cancelled pod");
    PodsInPreBindMap m;
    auto pod = m.add("uid");
    pod->cancelPod("test cancel");
    EXPECT_FALSE(pod->markPrebound());
  }
}

TEST(WaitingPodTest, TimeoutRejectsWithPluginMessage) {
  testing::FakeClock clock;
  auto wp = WaitingPodImpl::create(makePod("u1"), {{"A", 10s}, {"B", 90s}}, clock);
  wp->allow("A");
  clock.step(89s);
  EXPECT_FALSE(wp->tryResult().has_value());
  clock.step(1s);
  Status s = wp->wait();
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.message(), "rejected due to timeout after waiting 1m30s at plugin B");
  EXPECT_EQ(s.plugin(), "B");
}

TEST(WaitingPodTest, FormatDurationLikeGo) {
  EXPECT_EQ(formatDuration(10s), "10s");
  EXPECT_EQ(formatDuration(90s), "1m30s");
  EXPECT_EQ(formatDuration(std::chrono::minutes(15)), "15m0s");
  EXPECT_EQ(formatDuration(2h), "2h0m0s");
  EXPECT_EQ(formatDuration(500ms), "500ms");
  EXPECT_EQ(formatDuration(1500ms), "1.5s");
  EXPECT_EQ(formatDuration(0s), "0s");
}

TEST(WaitingPodsMapTest, AddGetRemoveIterate) {
  testing::FakeClock clock;
  WaitingPodsMap m;
  m.add(WaitingPodImpl::create(makePod("u1"), {{"A", 1s}}, clock));
  m.add(WaitingPodImpl::create(makePod("u2"), {{"A", 1s}}, clock));
  EXPECT_EQ(m.size(), 2u);
  ASSERT_NE(m.get("u1"), nullptr);
  EXPECT_EQ(m.get("u1")->pod().metadata.uid, "u1");
  EXPECT_EQ(m.get("nope"), nullptr);
  int n = 0;
  m.iterate([&](WaitingPod& wp) {
    wp.allow("A");
    ++n;
  });
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(m.get("u2")->wait().isSuccess());
  m.remove("u1");
  EXPECT_EQ(m.get("u1"), nullptr);
}

// Allow, reject and timeouts racing from several threads: exactly one result, no crash, no deadlock.
TEST(WaitingPodTest, ConcurrentAllowRejectTimeout) {
  for (int round = 0; round < 200; ++round) {
    testing::FakeClock clock;
    auto wp = WaitingPodImpl::create(makePod("u"), {{"A", 5s}, {"B", 5s}, {"C", 5s}}, clock);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    threads.emplace_back([&] {
      while (!go) {
      }
      wp->allow("A");
      wp->allow("B");
    });
    threads.emplace_back([&] {
      while (!go) {
      }
      wp->allow("C");
    });
    threads.emplace_back([&] {
      while (!go) {
      }
      if (round % 2 == 0) wp->reject("X", "deleted");
    });
    threads.emplace_back([&] {
      while (!go) {
      }
      clock.step(5s);
    });
    go = true;
    for (auto& t : threads) t.join();
    Status s = wp->wait();
    EXPECT_TRUE(s.isSuccess() || s.code() == Code::Unschedulable) << s.toString();
    // The delivered result never changes afterwards.
    Status again = *wp->tryResult();
    EXPECT_EQ(again, s);
    if (round % 2 == 1 && s.code() == Code::Unschedulable) {
      EXPECT_NE(s.message().find("rejected due to timeout after waiting 5s at plugin"), std::string::npos);
    }
  }
}

TEST(WaitingPodTest, WaitBlocksUntilAllowedFromAnotherThread) {
  testing::FakeClock clock;
  auto wp = WaitingPodImpl::create(makePod("u"), {{"A", 5s}}, clock);
  std::thread t([&] {
    std::this_thread::sleep_for(10ms);
    wp->allow("A");
  });
  EXPECT_TRUE(wp->wait().isSuccess());
  t.join();
}

}  // namespace
}  // namespace ks::framework::runtime
