#include "pkg/leaderelection/leader_elector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/leaderelection/healthz_adaptor.h"
#include "test/scheduler/framework/fake_clock.h"

namespace ks::leaderelection {
namespace {

using namespace std::chrono_literals;
using client::ApiError;
using client::MemoryClient;
using client::Operation;
using framework::testing::FakeClock;

constexpr char kNs[] = "kube-system";
constexpr char kName[] = "kube-scheduler";

// The LeaseClient a candidate uses: forwards to the shared in-memory API, and lets a test fail this
// candidate's writes only, or run something just before one of its writes (to lose a race for real).
class TestLeaseClient final : public client::LeaseClient {
 public:
  explicit TestLeaseClient(client::LeaseClient& inner) : inner_(inner) {}

  client::ApiResult<api::Lease> getLease(const std::string& ns, const std::string& name) override {
    ++gets;
    return inner_.getLease(ns, name);
  }
  client::ApiResult<api::Lease> createLease(const api::Lease& lease) override {
    if (auto hook = std::exchange(beforeCreate, nullptr)) hook();
    return inner_.createLease(lease);
  }
  client::ApiResult<api::Lease> updateLease(const api::Lease& lease) override {
    ++updates;
    if (failUpdates) return ApiError(503, "ServiceUnavailable", "injected");
    if (auto hook = std::exchange(beforeUpdate, nullptr)) hook();
    return inner_.updateLease(lease);
  }

  std::atomic<bool> failUpdates{false};
  std::atomic<int> gets{0};
  std::atomic<int> updates{0};
  std::function<void()> beforeCreate;  // one-shot; single-threaded tests only
  std::function<void()> beforeUpdate;  // one-shot; single-threaded tests only

 private:
  client::LeaseClient& inner_;
};

class CountingMetrics final : public LeaderMetrics {
 public:
  void leaderOn(const std::string&) override { status = 1; }
  void leaderOff(const std::string&) override { status = 0; }
  void slowpathExercised(const std::string&) override { ++slowpath; }
  std::atomic<int> status{-1};
  std::atomic<int> slowpath{0};
};

// One candidate: its client view, its elector and what its callbacks saw.
struct Candidate {
  Candidate(std::string id, MemoryClient& api, FakeClock& clock, bool releaseOnCancel = false)
      : client(api), clock_(clock) {
    LeaderElectionConfig c;
    c.leaseNamespace = kNs;
    c.leaseName = kName;
    c.identity = std::move(id);
    c.name = "kube-scheduler";
    c.releaseOnCancel = releaseOnCancel;
    c.metrics = &metrics;
    c.callbacks.onStartedLeading = [this](std::stop_token stop) {
      ++started;
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock l(m);
      cv.wait(l, stop, [] { return false; });
      leadingStopped = true;
    };
    c.callbacks.onStoppedLeading = [this] {
      std::lock_guard lock(mu);
      stoppedAt = clock_.now();
      ++stopped;
    };
    // Called on the run thread right after an acquisition, so the time is deterministic (the
    // onStartedLeading thread may run later, in real time, while a test steps the clock).
    c.callbacks.onNewLeader = [this, self = c.identity](const std::string& leader) {
      std::lock_guard lock(mu);
      newLeaders.push_back(leader);
      if (leader == self) acquiredAt = clock_.now();
    };
    auto le = LeaderElector::create(std::move(c), client, clock, [] { return 0.0; });
    EXPECT_TRUE(le.ok()) << le.error().message();
    elector = std::move(le).value();
  }

  ~Candidate() { stop(); }

  void start() {
    thread = std::jthread([this](std::stop_token stop) { elector->run(stop); });
  }
  void stop() {
    if (thread.joinable()) {
      thread.request_stop();
      thread.join();
    }
  }

  std::vector<std::string> leadersSeen() {
    std::lock_guard lock(mu);
    return newLeaders;
  }
  std::optional<api::Time> acquiredTime() {
    std::lock_guard lock(mu);
    return acquiredAt;
  }
  // Waits (real time) for the onStartedLeading thread to have started `n` times.
  bool waitStarted(int n) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (started < n && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(100us);
    return started == n;
  }
  std::optional<api::Time> stoppedTime() {
    std::lock_guard lock(mu);
    return stoppedAt;
  }

  TestLeaseClient client;
  CountingMetrics metrics;
  std::unique_ptr<LeaderElector> elector;
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::atomic<bool> leadingStopped{false};
  std::jthread thread;

 private:
  FakeClock& clock_;
  std::mutex mu;
  std::vector<std::string> newLeaders;  // guarded by mu
  std::optional<api::Time> acquiredAt;  // guarded by mu
  std::optional<api::Time> stoppedAt;   // guarded by mu
};

class LeaderElectorTest : public ::testing::Test {
 protected:
  LeaderElectorTest() : api_(apiOptions(clock_)) {}

  static client::MemoryClientOptions apiOptions(FakeClock& clock) {
    client::MemoryClientOptions o;
    o.now = [&clock] { return clock.now(); };
    return o;
  }

  api::Lease lease() {
    auto l = api_.getLease(kNs, kName);
    EXPECT_TRUE(l.ok());
    return l.ok() ? l.value() : api::Lease{};
  }

  // Waits (real time) until the elector is blocked on a clock timer or has returned.
  static void waitIdle(const LeaderElector& e) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!e.idleForTest()) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "elector did not settle";
      std::this_thread::sleep_for(100us);
    }
  }
  static void settle(const std::vector<Candidate*>& cs) {
    for (Candidate* c : cs) waitIdle(*c->elector);
  }

  // Moves the fake clock forward by `d` in steps of `step`, letting the electors run after each.
  void advance(Duration d, const std::vector<Candidate*>& cs, Duration step = 100ms) {
    settle(cs);
    for (Duration done{0}; done < d; done += step) {
      clock_.step(step);
      settle(cs);
    }
  }

  FakeClock clock_;
  MemoryClient api_;
};

// --- Config validation -------------------------------------------------------------------------------

LeaderElectionConfig validConfig() {
  LeaderElectionConfig c;
  c.leaseNamespace = kNs;
  c.leaseName = kName;
  c.identity = "me";
  c.callbacks.onStartedLeading = [](std::stop_token) {};
  c.callbacks.onStoppedLeading = [] {};
  return c;
}

TEST(LeaderElectionConfigTest, DefaultsAreValid) {
  EXPECT_TRUE(validate(validConfig()).ok());
}

TEST(LeaderElectionConfigTest, ErrorsAsUpstream) {
  struct Case {
    std::function<void(LeaderElectionConfig&)> mutate;
    std::string error;
  };
  const std::vector<Case> cases = {
      {[](auto& c) { c.leaseDuration = 10s; }, "leaseDuration must be greater than renewDeadline"},
      {[](auto& c) { c.leaseDuration = 5s; }, "leaseDuration must be greater than renewDeadline"},
      {[](auto& c) { c.retryPeriod = 9s; }, "renewDeadline must be greater than retryPeriod*JitterFactor"},
      // 1.2 * 8333333334ns > 10s: exactly at the limit fails.
      {[](auto& c) { c.retryPeriod = Duration(8333333334); },
       "renewDeadline must be greater than retryPeriod*JitterFactor"},
      {[](auto& c) {
         c.leaseDuration = 0s;
         c.renewDeadline = -1s;
         c.retryPeriod = -1s;
       },
       "leaseDuration must be greater than zero"},
      {[](auto& c) {
         c.renewDeadline = 0s;
         c.retryPeriod = -1s;
       },
       "renewDeadline must be greater than zero"},
      {[](auto& c) { c.retryPeriod = 0s; }, "retryPeriod must be greater than zero"},
      {[](auto& c) { c.callbacks.onStartedLeading = nullptr; }, "OnStartedLeading callback must not be nil"},
      {[](auto& c) { c.callbacks.onStoppedLeading = nullptr; }, "OnStoppedLeading callback must not be nil"},
      {[](auto& c) { c.leaseName.clear(); }, "Lock must not be nil."},
      {[](auto& c) { c.identity.clear(); }, "Lock identity is empty"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    LeaderElectionConfig c = validConfig();
    cases[i].mutate(c);
    VoidResult r = validate(c);
    ASSERT_FALSE(r.ok()) << "case " << i;
    EXPECT_EQ(r.error().message(), cases[i].error) << "case " << i;
  }
  // Just above the limit is fine.
  LeaderElectionConfig ok = validConfig();
  ok.retryPeriod = Duration(8333333333);
  EXPECT_TRUE(validate(ok).ok());
}

TEST(LeaderElectionConfigTest, CreateValidates) {
  MemoryClient api;
  LeaderElectionConfig c = validConfig();
  c.renewDeadline = 20s;
  auto le = LeaderElector::create(std::move(c), api);
  ASSERT_FALSE(le.ok());
  EXPECT_EQ(le.error().message(), "leaseDuration must be greater than renewDeadline");
}

TEST(LeaseRecordTest, RoundTripAndZeroValues) {
  LeaderElectionRecord r{"a", 15, api::Time(10s), api::Time(12s), 3};
  api::LeaseSpec spec = recordToLeaseSpec(r);
  EXPECT_EQ(spec.holderIdentity, "a");
  EXPECT_EQ(spec.leaseDurationSeconds, 15);
  EXPECT_EQ(spec.leaseTransitions, 3);
  EXPECT_EQ(leaseSpecToRecord(spec), r);
  EXPECT_EQ(leaseSpecToRecord(api::LeaseSpec{}), LeaderElectionRecord{});
}

// --- Single ticks (tryAcquireOrRenew), deterministic --------------------------------------------------

TEST_F(LeaderElectorTest, CreatesLeaseWhenAbsent) {
  Candidate a("a", api_, clock_);
  const api::Time t0 = clock_.now();
  EXPECT_FALSE(a.elector->isLeader());
  EXPECT_EQ(a.elector->getLeader(), "");
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_TRUE(a.elector->isLeader());
  EXPECT_EQ(a.elector->getLeader(), "a");
  api::Lease l = lease();
  EXPECT_EQ(l.spec.holderIdentity, "a");
  EXPECT_EQ(l.spec.leaseDurationSeconds, 15);
  EXPECT_EQ(l.spec.acquireTime, t0);
  EXPECT_EQ(l.spec.renewTime, t0);
  EXPECT_EQ(l.spec.leaseTransitions, 0);
  EXPECT_EQ(api_.callCount(Operation::CreateLease), 1);
  a.elector->maybeReportTransition();
  EXPECT_THAT(a.leadersSeen(), ::testing::ElementsAre("a"));
}

TEST_F(LeaderElectorTest, RenewKeepsAcquireTimeAndUsesFastPath) {
  Candidate a("a", api_, clock_);
  const api::Time t0 = clock_.now();
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  const int64_t gets = api_.callCount(Operation::GetLease);
  clock_.step(2s);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_EQ(api_.callCount(Operation::GetLease), gets);  // optimistic update, no read
  api::Lease l = lease();
  EXPECT_EQ(l.spec.acquireTime, t0);
  EXPECT_EQ(l.spec.renewTime, t0 + 2s);
  EXPECT_EQ(l.spec.leaseTransitions, 0);
  EXPECT_EQ(a.metrics.slowpath, 0);
  EXPECT_EQ(a.elector->observedTimeForTest(), t0 + 2s);
}

TEST_F(LeaderElectorTest, FastPathConflictFallsBackToSlowPath) {
  Candidate a("a", api_, clock_);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  // Someone else writes the Lease (not its holder): a's remembered resourceVersion is stale.
  api::Lease other = lease();
  other.metadata.annotations["touched"] = "yes";
  ASSERT_TRUE(api_.updateLease(other).ok());
  clock_.step(2s);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_EQ(a.metrics.slowpath, 1);
  api::Lease l = lease();
  EXPECT_EQ(l.spec.holderIdentity, "a");
  EXPECT_EQ(l.spec.renewTime, clock_.now());
  EXPECT_EQ(l.metadata.annotations.at("touched"), "yes");
}

// Upstream's renew loop runs tryAcquireOrRenew under a context that ends at renewDeadline: once it has
// passed, the slow path's read and write fail without reaching the server.
TEST_F(LeaderElectorTest, NothingIsSentPastTheRenewDeadline) {
  Candidate a("a", api_, clock_);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  a.client.failUpdates = true;
  clock_.step(2s);
  // Before the deadline a failed optimistic update falls back to reading the lease, then writing it.
  const int gets = a.client.gets, updates = a.client.updates;
  EXPECT_FALSE(a.elector->tryAcquireOrRenew(clock_.now() + 1s));
  EXPECT_EQ(a.client.gets, gets + 1);
  EXPECT_EQ(a.client.updates, updates + 2);
  // At the deadline the failed optimistic update is the last request.
  EXPECT_FALSE(a.elector->tryAcquireOrRenew(clock_.now()));
  EXPECT_EQ(a.client.gets, gets + 1);
  EXPECT_EQ(a.client.updates, updates + 3);
}

TEST_F(LeaderElectorTest, OtherHolderRespectedUntilObservedTimePlusLeaseDuration) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  clock_.step(1s);
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(b.elector->getLeader(), "a");
  EXPECT_FALSE(b.elector->isLeader());
  const api::Time observed = b.elector->observedTimeForTest();
  EXPECT_EQ(observed, clock_.now());
  // a stops renewing. b keeps reading the same record: it stays respected for 15 s from b's own
  // first observation, not from the lease's renewTime.
  clock_.step(14s);
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  clock_.step(999ms);
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(b.elector->observedTimeForTest(), observed);
  clock_.step(1ms);
  ASSERT_TRUE(b.elector->tryAcquireOrRenew());
  api::Lease l = lease();
  EXPECT_EQ(l.spec.holderIdentity, "b");
  EXPECT_EQ(l.spec.leaseTransitions, 1);
  EXPECT_EQ(l.spec.acquireTime, clock_.now());
  EXPECT_EQ(l.spec.renewTime, clock_.now());
  // a finds out on its next attempt and does not take it back.
  EXPECT_FALSE(a.elector->tryAcquireOrRenew());
  EXPECT_EQ(a.elector->getLeader(), "b");
  EXPECT_FALSE(a.elector->isLeader());
}

TEST_F(LeaderElectorTest, ForeignTimestampsAreIgnored) {
  // A holder whose clock is an hour behind: its renewTime says "expired", but b only trusts the
  // time it saw the record change.
  api::Lease l;
  l.metadata.namespace_ = kNs;
  l.metadata.name = kName;
  l.spec = recordToLeaseSpec({"old", 15, clock_.now() - 1h, clock_.now() - 1h, 4});
  ASSERT_TRUE(api_.createLease(l).ok());
  Candidate b("b", api_, clock_);
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  clock_.step(14s);
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  clock_.step(1s);
  EXPECT_TRUE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(lease().spec.leaseTransitions, 5);
}

TEST_F(LeaderElectorTest, RenewalsSeenByStandbyKeepItWaiting) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  for (int i = 0; i < 30; ++i) {
    clock_.step(2s);
    ASSERT_TRUE(a.elector->tryAcquireOrRenew());
    clock_.step(1s);
    ASSERT_FALSE(b.elector->tryAcquireOrRenew());
  }
  EXPECT_EQ(lease().spec.holderIdentity, "a");
  EXPECT_EQ(lease().spec.leaseTransitions, 0);
}

TEST_F(LeaderElectorTest, SameSecondChangeIsNotAChange) {
  // Upstream compares the JSON record, whose times have second precision.
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  clock_.step(100ms);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  const api::Time observed = b.elector->observedTimeForTest();
  clock_.step(500ms);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());  // renewTime x.6 s: same second as x.1 s
  clock_.step(100ms);
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(b.elector->observedTimeForTest(), observed);
  clock_.step(1s);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());  // next second: a change
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(b.elector->observedTimeForTest(), clock_.now());
}

TEST_F(LeaderElectorTest, LeaseTransitionsCountChangesOfHolder) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_EQ(lease().spec.leaseTransitions, 0);
  ASSERT_TRUE(a.elector->release());
  ASSERT_TRUE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(lease().spec.leaseTransitions, 1);
  clock_.step(2s);
  ASSERT_TRUE(b.elector->tryAcquireOrRenew());  // renewals do not count
  EXPECT_EQ(lease().spec.leaseTransitions, 1);
  ASSERT_TRUE(b.elector->release());
  EXPECT_EQ(lease().spec.leaseTransitions, 1);  // releasing does not count
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_EQ(lease().spec.leaseTransitions, 2);
}

TEST_F(LeaderElectorTest, ReleaseEmptiesHolderWithOneSecondLease) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  clock_.step(1s);
  ASSERT_TRUE(a.elector->release());
  EXPECT_FALSE(a.elector->isLeader());
  EXPECT_EQ(a.elector->getLeader(), "");
  api::Lease l = lease();
  EXPECT_EQ(l.spec.holderIdentity, "");
  EXPECT_EQ(l.spec.leaseDurationSeconds, 1);
  EXPECT_EQ(l.spec.acquireTime, clock_.now());
  EXPECT_EQ(l.spec.renewTime, clock_.now());
  EXPECT_EQ(l.spec.leaseTransitions, 0);
  // Not leading: nothing to release.
  EXPECT_TRUE(b.elector->release());
  // b takes it over at once, not 15 s after its last observation.
  ASSERT_TRUE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(lease().spec.holderIdentity, "b");
  b.elector->maybeReportTransition();
  EXPECT_THAT(b.leadersSeen(), ::testing::ElementsAre("b"));
}

TEST_F(LeaderElectorTest, LostCreateRaceIsAConflict) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  // b reads 404, then a creates the Lease before b's create lands: b's create gets 409.
  b.client.beforeCreate = [&] { ASSERT_TRUE(a.elector->tryAcquireOrRenew()); };
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_FALSE(b.elector->isLeader());
  EXPECT_EQ(lease().spec.holderIdentity, "a");
  // Next tick: b reads a's record and waits.
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(b.elector->getLeader(), "a");
}

TEST_F(LeaderElectorTest, LostTakeoverRaceIsAConflict) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  Candidate c("c", api_, clock_);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_FALSE(c.elector->tryAcquireOrRenew());
  clock_.step(15s);
  // Both see the expired lease; c's update lands between b's read and b's write.
  b.client.beforeUpdate = [&] { ASSERT_TRUE(c.elector->tryAcquireOrRenew()); };
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(lease().spec.holderIdentity, "c");
  EXPECT_EQ(lease().spec.leaseTransitions, 1);
  // b retries later: c's record is new to b, so b waits.
  EXPECT_FALSE(b.elector->tryAcquireOrRenew());
  EXPECT_EQ(b.elector->getLeader(), "c");
}

TEST_F(LeaderElectorTest, InjectedConflictRetriedLater) {
  Candidate a("a", api_, clock_);
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  api_.injectFailures(Operation::UpdateLease, 2, ApiError(409, "Conflict", "injected"));
  clock_.step(2s);
  EXPECT_FALSE(a.elector->tryAcquireOrRenew());  // fast path and slow path both 409
  EXPECT_TRUE(a.elector->isLeader());            // still the observed holder
  clock_.step(2s);
  EXPECT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_EQ(lease().spec.renewTime, clock_.now());
}

TEST_F(LeaderElectorTest, ReadErrorIsNotCreation) {
  Candidate a("a", api_, clock_);
  api_.injectFailures(Operation::GetLease, 1, ApiError(500, "InternalError", "boom"));
  EXPECT_FALSE(a.elector->tryAcquireOrRenew());
  EXPECT_EQ(api_.callCount(Operation::CreateLease), 0);
  EXPECT_TRUE(a.elector->tryAcquireOrRenew());
}

TEST_F(LeaderElectorTest, CheckFailsWhenLeaderStopsRenewing) {
  Candidate a("a", api_, clock_);
  HealthzAdaptor adaptor(20s);
  EXPECT_EQ(HealthzAdaptor::name(), "leaderElection");
  EXPECT_TRUE(adaptor.check().ok());  // no elector yet
  adaptor.setLeaderElection(a.elector.get());
  EXPECT_TRUE(adaptor.check().ok());  // not leading
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  clock_.step(35s);  // leaseDuration + timeout, exactly: still healthy
  EXPECT_TRUE(adaptor.check().ok());
  clock_.step(1ms);
  VoidResult r = adaptor.check();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "failed election to renew leadership on lease kube-scheduler");
  EXPECT_TRUE(a.elector->check(1h).ok());
  ASSERT_TRUE(a.elector->tryAcquireOrRenew());
  EXPECT_TRUE(adaptor.check().ok());
  adaptor.setLeaderElection(nullptr);
  EXPECT_TRUE(adaptor.check().ok());
}

// --- The loops (run) on the fake clock ---------------------------------------------------------------

TEST_F(LeaderElectorTest, SingleCandidateAcquiresAndRenews) {
  Candidate a("a", api_, clock_);
  const api::Time t0 = clock_.now();
  a.start();
  settle({&a});
  EXPECT_TRUE(a.elector->isLeader());
  EXPECT_EQ(a.metrics.status, 1);
  EXPECT_TRUE(a.waitStarted(1));
  EXPECT_EQ(a.acquiredTime(), t0);
  advance(20s, {&a});
  // Renewed right after acquiring (upstream's renew loop starts with an attempt), then every
  // retryPeriod: t0, t0+2, ..., t0+20.
  api::Lease l = lease();
  EXPECT_EQ(l.spec.acquireTime, t0);
  EXPECT_EQ(l.spec.renewTime, t0 + 20s);
  EXPECT_EQ(api_.callCount(Operation::UpdateLease), 11);
  EXPECT_TRUE(a.elector->check(20s).ok());
  a.stop();
  EXPECT_EQ(a.stopped, 1);
  EXPECT_TRUE(a.leadingStopped);
  EXPECT_EQ(lease().spec.holderIdentity, "a");  // releaseOnCancel is off
}

TEST_F(LeaderElectorTest, TwoCandidatesExactlyOneLeads) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  a.start();
  b.start();
  advance(60s, {&a, &b});
  ASSERT_NE(a.elector->isLeader(), b.elector->isLeader());
  Candidate& leader = a.elector->isLeader() ? a : b;
  Candidate& standby = a.elector->isLeader() ? b : a;
  const std::string id = leader.elector->config().identity;
  EXPECT_TRUE(leader.waitStarted(1));
  EXPECT_EQ(standby.started, 0);
  EXPECT_EQ(standby.elector->getLeader(), id);
  EXPECT_THAT(standby.leadersSeen(), ::testing::ElementsAre(id));
  EXPECT_THAT(leader.leadersSeen(), ::testing::ElementsAre(id));
  EXPECT_EQ(lease().spec.leaseTransitions, 0);
  EXPECT_EQ(lease().spec.holderIdentity, id);
}

TEST_F(LeaderElectorTest, LeaderThatCannotRenewStepsDownBeforeTakeover) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  a.start();
  settle({&a});
  ASSERT_TRUE(a.elector->isLeader());
  advance(1s, {&a});  // b polls at odd seconds, a renews at even ones
  b.start();
  advance(9s, {&a, &b});
  EXPECT_EQ(b.elector->getLeader(), "a");

  a.client.failUpdates = true;
  const api::Time lastRenew = *lease().spec.renewTime;
  advance(40s, {&a, &b});

  EXPECT_EQ(a.stopped, 1);
  EXPECT_TRUE(a.leadingStopped);
  EXPECT_EQ(a.metrics.status, 0);
  ASSERT_TRUE(a.stoppedTime().has_value());
  ASSERT_TRUE(b.acquiredTime().has_value());
  EXPECT_TRUE(b.waitStarted(1));
  const api::Time aStopped = *a.stoppedTime();
  const api::Time bStarted = *b.acquiredTime();
  EXPECT_EQ(lease().spec.acquireTime, bStarted);
  // a gives up renewDeadline after its first failed attempt (lastRenew + retryPeriod + renewDeadline),
  // which is before the lease can expire for anyone.
  EXPECT_EQ(aStopped, lastRenew + 2s + 10s);
  EXPECT_LT(aStopped, lastRenew + 15s);
  // b takes over only after a full leaseDuration without seeing a change: it last saw one at
  // lastRenew + 1 s, and polls every 2 s.
  EXPECT_GE(bStarted, lastRenew + 15s);
  EXPECT_EQ(bStarted, lastRenew + 1s + 15s + 1s);
  EXPECT_LT(aStopped, bStarted);
  EXPECT_EQ(lease().spec.holderIdentity, "b");
  EXPECT_EQ(lease().spec.leaseTransitions, 1);
  EXPECT_THAT(b.leadersSeen(), ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(a.leadersSeen(), ::testing::ElementsAre("a"));
}

TEST_F(LeaderElectorTest, ReleaseOnCancelLetsOtherAcquireImmediately) {
  Candidate a("a", api_, clock_, /*releaseOnCancel=*/true);
  Candidate b("b", api_, clock_);
  a.start();
  settle({&a});
  b.start();
  advance(5s, {&a, &b});
  ASSERT_TRUE(a.elector->isLeader());
  a.stop();
  EXPECT_EQ(a.stopped, 1);
  EXPECT_EQ(lease().spec.holderIdentity, "");
  EXPECT_EQ(lease().spec.leaseDurationSeconds, 1);
  const api::Time released = clock_.now();
  advance(3s, {&b});
  ASSERT_TRUE(b.elector->isLeader());
  ASSERT_TRUE(b.acquiredTime().has_value());
  EXPECT_LE(*b.acquiredTime(), released + 2s);  // its next retry, not 15 s later
  EXPECT_EQ(lease().spec.leaseTransitions, 1);
  EXPECT_THAT(b.leadersSeen(), ::testing::ElementsAre("a", "b"));
}

TEST_F(LeaderElectorTest, WithoutReleaseOtherWaitsLeaseDuration) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  a.start();
  settle({&a});
  b.start();
  advance(5s, {&a, &b});
  a.stop();
  const api::Time lastRenew = *lease().spec.renewTime;
  advance(20s, {&b});
  ASSERT_TRUE(b.elector->isLeader());
  ASSERT_TRUE(b.acquiredTime().has_value());
  EXPECT_GE(*b.acquiredTime(), lastRenew + 15s);
}

TEST_F(LeaderElectorTest, StopWhileAcquiringCallsOnlyOnStopped) {
  Candidate a("a", api_, clock_);
  Candidate b("b", api_, clock_);
  a.start();
  settle({&a});
  b.start();
  advance(3s, {&a, &b});
  b.stop();
  EXPECT_EQ(b.started, 0);
  EXPECT_EQ(b.stopped, 1);
  EXPECT_TRUE(a.elector->isLeader());
}

TEST_F(LeaderElectorTest, AcquireRetriesWithJitter) {
  // With jitter draw 0.5 the acquire loop waits 2 s + 0.5 * 1.2 * 2 s = 3.2 s between attempts.
  api::Lease l;
  l.metadata.namespace_ = kNs;
  l.metadata.name = kName;
  l.spec = recordToLeaseSpec({"other", 15, clock_.now(), clock_.now(), 0});
  ASSERT_TRUE(api_.createLease(l).ok());
  LeaderElectionConfig c = validConfig();
  auto le = LeaderElector::create(std::move(c), api_, clock_, [] { return 0.5; });
  ASSERT_TRUE(le.ok());
  LeaderElector& e = *le.value();
  std::jthread t([&e](std::stop_token stop) { e.run(stop); });
  waitIdle(e);
  EXPECT_EQ(api_.callCount(Operation::GetLease), 1);
  clock_.step(3199ms);
  waitIdle(e);
  EXPECT_EQ(api_.callCount(Operation::GetLease), 1);
  clock_.step(1ms);
  waitIdle(e);
  EXPECT_EQ(api_.callCount(Operation::GetLease), 2);
  t.request_stop();
}

// --- Real time, short durations ----------------------------------------------------------------------

TEST(LeaderElectorRealClockTest, HandOverWithReleaseOnCancel) {
  MemoryClient api;
  std::atomic<int> aLeading{0};
  std::atomic<int> bLeading{0};
  auto config = [](std::string id, std::atomic<int>& leading) {
    LeaderElectionConfig c = validConfig();
    c.identity = std::move(id);
    // Records compare at second precision (as upstream's raw JSON), so leases under ~2 s are
    // marginal with a real clock.
    c.leaseDuration = 3s;
    c.renewDeadline = 1s;
    c.retryPeriod = 50ms;
    c.releaseOnCancel = true;
    c.callbacks.onStartedLeading = [&leading](std::stop_token) { leading = 1; };
    return c;
  };
  auto a = LeaderElector::create(config("a", aLeading), api);
  auto b = LeaderElector::create(config("b", bLeading), api);
  ASSERT_TRUE(a.ok() && b.ok());
  // Polls (real time) until pred holds.
  auto waitFor = [](const std::function<bool()>& pred) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!pred() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
    return pred();
  };
  std::jthread ta([&](std::stop_token s) { a.value()->run(s); });
  ASSERT_TRUE(waitFor([&] { return aLeading == 1; }));
  std::jthread tb([&](std::stop_token s) { b.value()->run(s); });
  // b has read a's lease, which is valid: its attempt fails.
  ASSERT_TRUE(waitFor([&] { return b.value()->observedTimeForTest() != api::Time{}; }));
  EXPECT_EQ(bLeading, 0);
  EXPECT_TRUE(a.value()->isLeader());
  ta.request_stop();
  ta.join();
  // a gave the lease up on its way out, so b need not wait for the 3 s lease to expire.
  auto released = api.getLease(kNs, kName);
  ASSERT_TRUE(released.ok());
  EXPECT_NE(released->spec.holderIdentity, "a");
  ASSERT_TRUE(waitFor([&] { return bLeading == 1; }));
  auto l = api.getLease(kNs, kName);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->spec.holderIdentity, "b");
  EXPECT_EQ(l->spec.leaseTransitions, 1);
}

}  // namespace
}  // namespace ks::leaderelection
