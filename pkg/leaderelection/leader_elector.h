#pragma once
// Lease-based leader election, as client-go's tools/leaderelection with a resourcelock.LeaseLock.
//
// The election record lives in a coordination.k8s.io/v1 Lease. A candidate only acts on timestamps it
// captured itself: it remembers when it last saw the record change (observedTime) and respects another
// holder until observedTime + leaseDurationSeconds. Clock skew between candidates does not matter; only
// the rate of their clocks does (see upstream's package comment).
//
//   run(stop):  acquire: tryAcquireOrRenew every retryPeriod (+ up to 1.2 x retryPeriod jitter)
//               until it succeeds
//            -> onStartedLeading(token) on its own thread
//               renew: every retryPeriod, retry tryAcquireOrRenew (every retryPeriod) for at most
//               renewDeadline; a miss ends leadership. Since renewDeadline < leaseDuration, the leader
//               stops before any other candidate may take the lease over.
//            -> (releaseOnCancel) write an empty holder with leaseDurationSeconds=1
//            -> token stopped, onStoppedLeading(), the onStartedLeading thread joined; run returns.
//
// Optimistic concurrency: every write carries the resourceVersion last read; a 409 (someone else
// wrote, or created the Lease first) fails this attempt and the loop retries later. A 404 on read
// creates the Lease.
//
// Threads: run() blocks its caller. tryAcquireOrRenew() / release() are what run() calls on each tick;
// they are public so tests can drive single ticks, and must not run concurrently with run() or each
// other. isLeader() / getLeader() / check() may be called from any thread (HTTP handlers).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "pkg/api/coordination.h"
#include "pkg/client/client.h"
#include "pkg/util/clock.h"
#include "pkg/util/result.h"

namespace ks::leaderelection {

using Duration = std::chrono::nanoseconds;

// Jitter of the acquire loop: each wait is retryPeriod + rand[0,1) * kJitterFactor * retryPeriod.
inline constexpr double kJitterFactor = 1.2;

// resourcelock.LeaderElectionRecord: the lock-independent view of the Lease spec.
struct LeaderElectionRecord {
  std::string holderIdentity;  // "" = nobody (released)
  int32_t leaseDurationSeconds = 0;
  api::Time acquireTime{};
  api::Time renewTime{};
  int32_t leaderTransitions = 0;
  bool operator==(const LeaderElectionRecord&) const = default;
};

// resourcelock.LeaseSpecToLeaderElectionRecord: absent fields read as zero values.
LeaderElectionRecord leaseSpecToRecord(const api::LeaseSpec& spec);
// resourcelock.LeaderElectionRecordToLeaseSpec: every field set.
api::LeaseSpec recordToLeaseSpec(const LeaderElectionRecord& record);

// resourcelock.LeaseLock: the Lease namespace/name plus the Lease last read or written, whose
// resourceVersion is the precondition of the next update. Not thread-safe (the elector's run thread).
class LeaseLock {
 public:
  LeaseLock(client::LeaseClient& client, std::string ns, std::string name)
      : client_(client), namespace_(std::move(ns)), name_(std::move(name)) {}

  // GET the Lease; remembers it. Returns its record, or the API error (404 when absent).
  client::ApiResult<LeaderElectionRecord> get();
  // POST a Lease carrying `record`; remembers it. 409 AlreadyExists when another candidate won.
  client::ApiResult<void> create(const LeaderElectionRecord& record);
  // PUT the remembered Lease with its spec replaced by `record`; remembers the result. 409 Conflict
  // when it changed since it was remembered; an error without a prior get() or create().
  client::ApiResult<void> update(const LeaderElectionRecord& record);
  // "namespace/name".
  std::string describe() const { return namespace_ + "/" + name_; }

 private:
  client::LeaseClient& client_;
  const std::string namespace_;
  const std::string name_;
  std::optional<api::Lease> lease_;
};

// Lifecycle callbacks. onStartedLeading and onStoppedLeading are required.
struct LeaderCallbacks {
  // Runs on a thread of its own once the lease is acquired; `stop` is requested when leadership ends
  // (renewal failed or run()'s token stopped). The elector joins this thread before run() returns,
  // after onStoppedLeading.
  std::function<void(std::stop_token stop)> onStartedLeading;
  // Called on run()'s thread when run() ends, whether or not the lease was ever acquired (as upstream's
  // deferred call). After a failed renewal it runs before the lease can expire for others.
  std::function<void()> onStoppedLeading;
  // Optional. Called on run()'s thread (no lock held) when the observed holder changes, including the
  // first observation and "" after a release. Must return quickly: renewals wait for it.
  std::function<void(const std::string& identity)> onNewLeader;
};

// client-go's leader metrics (leader_election_master_status{name}, leader_election_slowpath_total{name});
// the metrics package implements it. Optional; called on run()'s thread.
class LeaderMetrics {
 public:
  virtual ~LeaderMetrics() = default;
  virtual void leaderOn(const std::string& name) = 0;
  virtual void leaderOff(const std::string& name) = 0;
  virtual void slowpathExercised(const std::string& name) = 0;
};

struct LeaderElectionConfig {
  // The lock: coordination.k8s.io/v1 Lease <leaseNamespace>/<leaseName>.
  std::string leaseNamespace;
  std::string leaseName;
  // This candidate's holderIdentity; kube-scheduler uses defaultIdentity() (identity.h).
  std::string identity;
  // How long others wait, from the last change of the record they observed, before taking over.
  Duration leaseDuration = std::chrono::seconds(15);
  // How long the leader keeps retrying a renewal before it gives up leadership.
  Duration renewDeadline = std::chrono::seconds(10);
  // The wait between attempts.
  Duration retryPeriod = std::chrono::seconds(2);
  LeaderCallbacks callbacks;
  // Release the lease when run()'s token is stopped, so another candidate takes over at once. Only
  // safe if everything the lease guards has finished when the token is stopped.
  bool releaseOnCancel = false;
  // The name of the lock in metrics and health checks ("kube-scheduler").
  std::string name;

  // Optional hooks. recordEvent gets upstream's LeaderElection event text ("<identity> became leader",
  // "<identity> stopped leading"); the log hooks get upstream's info / error log lines.
  LeaderMetrics* metrics = nullptr;
  std::function<void(const std::string& message)> recordEvent;
  std::function<void(std::string_view message)> logInfo;
  std::function<void(std::string_view message)> logError;
};

// Upstream's NewLeaderElector checks, with its messages: leaseDuration > renewDeadline >
// kJitterFactor * retryPeriod, all > 0, both required callbacks set, a lock name and an identity.
VoidResult validate(const LeaderElectionConfig& config);

class LeaderElector {
 public:
  // Validates `config` (validate()). `client` and `clock` must outlive the elector. `random` yields
  // uniform doubles in [0, 1) for the acquire jitter; empty: a randomly seeded generator.
  static Result<std::unique_ptr<LeaderElector>> create(LeaderElectionConfig config,
                                                       client::LeaseClient& client,
                                                       Clock& clock = realClock(),
                                                       std::function<double()> random = {});

  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;
  ~LeaderElector();

  // Runs the election until `stop` is requested or leadership is lost (see the file comment). Blocks.
  // Call at most once per elector; kube-scheduler exits when it returns.
  void run(std::stop_token stop);

  // The identity of the last observed holder; "" when none has been observed (or it was released).
  std::string getLeader() const;
  // True when the last observed holder is this candidate.
  bool isLeader() const;
  // HealthzAdaptor's check: an error when we believe we lead but the record has not been renewed for
  // more than leaseDuration + maxTolerableExpiredLease (a stuck renew loop); OK otherwise.
  VoidResult check(Duration maxTolerableExpiredLease) const;

  const LeaderElectionConfig& config() const { return config_; }

  // One attempt to acquire the lease, or to renew it when we hold it. Returns true on success. Past
  // `deadline` (the renew loop's renewDeadline) it sends nothing more and returns false, as a call under
  // upstream's expired timeout context fails before it reaches the server.
  bool tryAcquireOrRenew(std::optional<api::Time> deadline = std::nullopt);
  // Gives the lease up if we hold it: holder "", leaseDurationSeconds 1. Returns false if the write
  // failed.
  bool release();
  // Calls onNewLeader when the observed holder differs from the one last reported.
  void maybeReportTransition();

  // True while run() is blocked waiting for a timer of the clock, or has returned. With a fake clock,
  // tests step the clock and then wait for this before stepping again.
  bool idleForTest() const;
  // When the record was last observed to change (set by our own writes too).
  api::Time observedTimeForTest() const;

 private:
  LeaderElector(LeaderElectionConfig config, client::LeaseClient& client, Clock& clock,
                std::function<double()> random);

  bool acquire(std::stop_token stop);
  void renew(std::stop_token stop);
  // Waits `d` of the clock's time. Returns false, early, if `stop` is requested.
  bool sleepFor(Duration d, std::stop_token stop);
  Duration jitteredRetryPeriod();

  LeaderElectionRecord getObservedRecord() const;
  void setObservedRecord(const LeaderElectionRecord& record);
  bool isLeaseValid(api::Time now) const;
  void logInfo(std::string_view message) const;
  void logError(std::string_view message) const;
  void recordEvent(std::string_view what) const;

  const LeaderElectionConfig config_;
  Clock& clock_;
  std::function<double()> random_;
  LeaseLock lock_;

  // Run-thread state (tryAcquireOrRenew / maybeReportTransition).
  // The record as last read from the API, with times at the second precision of upstream's raw JSON
  // record: a read only counts as a change when it differs from this.
  std::optional<LeaderElectionRecord> observedRawRecord_;
  std::string reportedLeader_;

  mutable std::mutex mu_;
  LeaderElectionRecord observedRecord_;  // guarded by mu_
  api::Time observedTime_{};             // guarded by mu_

  // One wait of sleepFor(), shared with the clock's timer callback (which may outlive the wait).
  struct Sleep;
  mutable std::mutex idleMu_;
  std::shared_ptr<Sleep> sleeping_;  // guarded by idleMu_; the wait run() is blocked in, if any
  bool finished_ = false;            // guarded by idleMu_; run() has returned
};

}  // namespace ks::leaderelection
