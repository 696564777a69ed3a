#include "pkg/leaderelection/leader_elector.h"

#include <algorithm>
#include <condition_variable>
#include <random>
#include <thread>
#include <utility>

namespace ks::leaderelection {

// --- Record <-> Lease spec ---------------------------------------------------------------------------

LeaderElectionRecord leaseSpecToRecord(const api::LeaseSpec& spec) {
  LeaderElectionRecord r;
  if (spec.holderIdentity) r.holderIdentity = *spec.holderIdentity;
  if (spec.leaseDurationSeconds) r.leaseDurationSeconds = *spec.leaseDurationSeconds;
  if (spec.leaseTransitions) r.leaderTransitions = *spec.leaseTransitions;
  if (spec.acquireTime) r.acquireTime = *spec.acquireTime;
  if (spec.renewTime) r.renewTime = *spec.renewTime;
  return r;
}

api::LeaseSpec recordToLeaseSpec(const LeaderElectionRecord& record) {
  api::LeaseSpec spec;
  spec.holderIdentity = record.holderIdentity;
  spec.leaseDurationSeconds = record.leaseDurationSeconds;
  spec.acquireTime = record.acquireTime;
  spec.renewTime = record.renewTime;
  spec.leaseTransitions = record.leaderTransitions;
  return spec;
}

// --- LeaseLock ---------------------------------------------------------------------------------------

client::ApiResult<LeaderElectionRecord> LeaseLock::get() {
  client::ApiResult<api::Lease> got = client_.getLease(namespace_, name_);
  if (!got.ok()) return got.error();
  lease_ = std::move(got).value();
  return leaseSpecToRecord(lease_->spec);
}

client::ApiResult<void> LeaseLock::create(const LeaderElectionRecord& record) {
  api::Lease lease;
  lease.metadata.name = name_;
  lease.metadata.namespace_ = namespace_;
  lease.spec = recordToLeaseSpec(record);
  client::ApiResult<api::Lease> created = client_.createLease(lease);
  if (!created.ok()) return created.error();
  lease_ = std::move(created).value();
  return {};
}

client::ApiResult<void> LeaseLock::update(const LeaderElectionRecord& record) {
  if (!lease_) return client::ApiError(0, "", "lease not initialized, call get or create first");
  api::Lease next = *lease_;
  next.spec = recordToLeaseSpec(record);
  client::ApiResult<api::Lease> updated = client_.updateLease(next);
  if (!updated.ok()) return updated.error();
  lease_ = std::move(updated).value();
  return {};
}

// --- Validation --------------------------------------------------------------------------------------

VoidResult validate(const LeaderElectionConfig& c) {
  // The order and texts are upstream's NewLeaderElector (Go truncates JitterFactor*RetryPeriod).
  if (c.leaseDuration <= c.renewDeadline) return Error("leaseDuration must be greater than renewDeadline");
  const auto jittered =
      Duration(static_cast<Duration::rep>(kJitterFactor * static_cast<double>(c.retryPeriod.count())));
  if (c.renewDeadline <= jittered)
    return Error("renewDeadline must be greater than retryPeriod*JitterFactor");
  if (c.leaseDuration < Duration(1)) return Error("leaseDuration must be greater than zero");
  if (c.renewDeadline < Duration(1)) return Error("renewDeadline must be greater than zero");
  if (c.retryPeriod < Duration(1)) return Error("retryPeriod must be greater than zero");
  if (!c.callbacks.onStartedLeading) return Error("OnStartedLeading callback must not be nil");
  if (!c.callbacks.onStoppedLeading) return Error("OnStoppedLeading callback must not be nil");
  if (c.leaseName.empty()) return Error("Lock must not be nil.");
  if (c.identity.empty()) return Error("Lock identity is empty");
  return {};
}

// --- LeaderElector -----------------------------------------------------------------------------------

struct LeaderElector::Sleep {
  std::mutex mu;
  std::condition_variable_any cv;
  bool fired = false;  // guarded by mu
};

Result<std::unique_ptr<LeaderElector>> LeaderElector::create(LeaderElectionConfig config,
                                                             client::LeaseClient& client,
                                                             Clock& clock,
                                                             std::function<double()> random) {
  if (VoidResult v = validate(config); !v.ok()) return v.error();
  if (!random) {
    auto rng = std::make_shared<std::mt19937_64>(std::random_device{}());
    random = [rng] { return std::uniform_real_distribution<double>(0.0, 1.0)(*rng); };
  }
  std::unique_ptr<LeaderElector> le(new LeaderElector(std::move(config), client, clock, std::move(random)));
  if (le->config_.metrics != nullptr) le->config_.metrics->leaderOff(le->config_.name);
  return le;
}

LeaderElector::LeaderElector(LeaderElectionConfig config, client::LeaseClient& client,
                             Clock& clock, std::function<double()> random)
    : config_(std::move(config)),
      clock_(clock),
      random_(std::move(random)),
      lock_(client, config_.leaseNamespace, config_.leaseName) {}

LeaderElector::~LeaderElector() = default;

void LeaderElector::run(std::stop_token stop) {
  if (acquire(stop)) {
    std::stop_source leading;
    std::stop_callback forward(stop, [&leading] { leading.request_stop(); });
    std::thread worker([cb = config_.callbacks.onStartedLeading, token = leading.get_token()] { cb(token); });
    renew(stop);
    leading.request_stop();
    config_.callbacks.onStoppedLeading();
    worker.join();
  } else {
    config_.callbacks.onStoppedLeading();
  }
  std::lock_guard lock(idleMu_);
  finished_ = true;
}

bool LeaderElector::acquire(std::stop_token stop) {
  const std::string desc = lock_.describe();
  logInfo("attempting to acquire leader lease " + desc + "...");
  for (;;) {
    if (stop.stop_requested()) return false;
    const bool succeeded = tryAcquireOrRenew();
    maybeReportTransition();
    if (succeeded) {
      recordEvent("became leader");
      if (config_.metrics != nullptr) config_.metrics->leaderOn(config_.name);
      logInfo("successfully acquired lease " + desc);
      return true;
    }
    if (!sleepFor(jitteredRetryPeriod(), stop)) return false;
  }
}

void LeaderElector::renew(std::stop_token stop) {
  const std::string desc = lock_.describe();
  while (!stop.stop_requested()) {
    // PollImmediateUntil(retryPeriod, tryAcquireOrRenew) bounded by renewDeadline (and `stop`).
    const api::Time deadline = clock_.now() + config_.renewDeadline;
    bool renewed = false;
    for (;;) {
      // An attempt that returns after the deadline counts as failed, as a request cancelled by
      // upstream's timeout context would.
      if (tryAcquireOrRenew(deadline) && clock_.now() <= deadline) {
        renewed = true;
        break;
      }
      const api::Time now = clock_.now();
      if (now >= deadline) break;
      if (!sleepFor(std::min<Duration>(config_.retryPeriod, deadline - now), stop)) break;
      if (clock_.now() >= deadline) break;
    }
    maybeReportTransition();
    if (!renewed) {
      if (config_.metrics != nullptr) config_.metrics->leaderOff(config_.name);
      if (!stop.stop_requested())
        logInfo("failed to renew lease " + desc + ": timed out waiting for the condition");
      break;
    }
    if (!sleepFor(config_.retryPeriod, stop)) break;
  }
  if (config_.releaseOnCancel) release();
  recordEvent("stopped leading");
}

bool LeaderElector::release() {
  if (!isLeader()) return true;
  const api::Time now = clock_.now();
  LeaderElectionRecord record;
  record.leaderTransitions = getObservedRecord().leaderTransitions;
  record.leaseDurationSeconds = 1;
  record.renewTime = now;
  record.acquireTime = now;
  if (client::ApiResult<void> r = lock_.update(record); !r.ok()) {
    logError("Failed to release lock: " + r.error().message());
    return false;
  }
  setObservedRecord(record);
  return true;
}

bool LeaderElector::tryAcquireOrRenew(std::optional<api::Time> deadline) {
  const api::Time now = clock_.now();
  auto expired = [&] { return deadline && clock_.now() >= *deadline; };
  LeaderElectionRecord record;
  record.holderIdentity = config_.identity;
  record.leaseDurationSeconds =
      static_cast<int32_t>(std::chrono::duration_cast<std::chrono::seconds>(config_.leaseDuration).count());
  record.renewTime = now;
  record.acquireTime = now;

  // 1. Fast path: the leader updates optimistically, assuming the record it saw last is current.
  if (isLeader() && isLeaseValid(now)) {
    const LeaderElectionRecord old = getObservedRecord();
    record.acquireTime = old.acquireTime;
    record.leaderTransitions = old.leaderTransitions;
    client::ApiResult<void> r = lock_.update(record);
    if (r.ok()) {
      setObservedRecord(record);
      return true;
    }
    logError("Failed to update lock optimitically: " + r.error().message() + ", falling back to slow path");
  }
  if (expired()) {
    logError("error retrieving resource lock " + lock_.describe() + ": context deadline exceeded");
    return false;
  }

  // 2. Read the record, or create it.
  client::ApiResult<LeaderElectionRecord> got = lock_.get();
  if (!got.ok()) {
    if (!got.error().isNotFound()) {
      logError("error retrieving resource lock " + lock_.describe() + ": " + got.error().message());
      return false;
    }
    if (client::ApiResult<void> c = lock_.create(record); !c.ok()) {
      logError("error initially creating leader election record: " + c.error().message());
      return false;
    }
    setObservedRecord(record);
    return true;
  }

  // 3. Only a change of the record restarts the other holder's lease, measured on our clock.
  const LeaderElectionRecord& old = got.value();
  LeaderElectionRecord raw = old;
  raw.acquireTime = std::chrono::floor<std::chrono::seconds>(raw.acquireTime);
  raw.renewTime = std::chrono::floor<std::chrono::seconds>(raw.renewTime);
  if (observedRawRecord_ != raw) {
    setObservedRecord(old);
    observedRawRecord_ = std::move(raw);
  }
  if (!old.holderIdentity.empty() && isLeaseValid(now) && !isLeader()) return false;
  if (expired()) {
    logError("Failed to update lock: context deadline exceeded");
    return false;
  }

  // 4. Take over or renew.
  if (isLeader()) {
    record.acquireTime = old.acquireTime;
    record.leaderTransitions = old.leaderTransitions;
    if (config_.metrics != nullptr) config_.metrics->slowpathExercised(config_.name);
  } else {
    record.leaderTransitions = old.leaderTransitions + 1;
  }
  if (client::ApiResult<void> u = lock_.update(record); !u.ok()) {
    logError("Failed to update lock: " + u.error().message());
    return false;
  }
  setObservedRecord(record);
  return true;
}

void LeaderElector::maybeReportTransition() {
  const std::string holder = getObservedRecord().holderIdentity;
  if (holder == reportedLeader_) return;
  reportedLeader_ = holder;
  if (config_.callbacks.onNewLeader) config_.callbacks.onNewLeader(reportedLeader_);
}

std::string LeaderElector::getLeader() const {
  return getObservedRecord().holderIdentity;
}

bool LeaderElector::isLeader() const {
  return getObservedRecord().holderIdentity == config_.identity;
}

VoidResult LeaderElector::check(Duration maxTolerableExpiredLease) const {
  if (!isLeader()) return {};  // a hot standby is healthy
  api::Time observed;
  {
    std::lock_guard lock(mu_);
    observed = observedTime_;
  }
  if (clock_.now() - observed > config_.leaseDuration + maxTolerableExpiredLease) {
    return Error("failed election to renew leadership on lease " + config_.name);
  }
  return {};
}

bool LeaderElector::idleForTest() const {
  std::lock_guard lock(idleMu_);
  if (finished_) return true;
  if (!sleeping_) return false;
  std::lock_guard sl(sleeping_->mu);
  return !sleeping_->fired;
}

api::Time LeaderElector::observedTimeForTest() const {
  std::lock_guard lock(mu_);
  return observedTime_;
}

bool LeaderElector::sleepFor(Duration d, std::stop_token stop) {
  auto sleep = std::make_shared<Sleep>();
  std::unique_ptr<Timer> timer = clock_.afterFunc(d, [sleep] {
    std::lock_guard lock(sleep->mu);
    sleep->fired = true;
    sleep->cv.notify_all();
  });
  {
    std::lock_guard lock(idleMu_);
    sleeping_ = sleep;
  }
  {
    std::unique_lock lock(sleep->mu);
    sleep->cv.wait(lock, stop, [&] { return sleep->fired; });
  }
  timer->stop();
  {
    std::lock_guard lock(idleMu_);
    sleeping_.reset();
  }
  return !stop.stop_requested();
}

Duration LeaderElector::jitteredRetryPeriod() {
  const double extra = random_() * kJitterFactor * static_cast<double>(config_.retryPeriod.count());
  return config_.retryPeriod + Duration(static_cast<Duration::rep>(extra));
}

LeaderElectionRecord LeaderElector::getObservedRecord() const {
  std::lock_guard lock(mu_);
  return observedRecord_;
}

void LeaderElector::setObservedRecord(const LeaderElectionRecord& record) {
  const api::Time now = clock_.now();
  std::lock_guard lock(mu_);
  observedRecord_ = record;
  observedTime_ = now;
}

bool LeaderElector::isLeaseValid(api::Time now) const {
  std::lock_guard lock(mu_);
  return observedTime_ + std::chrono::seconds(observedRecord_.leaseDurationSeconds) > now;
}

void LeaderElector::logInfo(std::string_view message) const {
  if (config_.logInfo) config_.logInfo(message);
}

void LeaderElector::logError(std::string_view message) const {
  if (config_.logError) config_.logError(message);
}

void LeaderElector::recordEvent(std::string_view what) const {
  if (config_.recordEvent) config_.recordEvent(config_.identity + " " + std::string(what));
}

}  // namespace ks::leaderelection
