#include "pkg/scheduler/backend/queue/backoff_queue.h"

namespace ks::queue {

using framework::QueuedPodInfo;
using framework::TimePoint;

namespace {

bool rejectedByPlugins(const QueuedPodInfo& p) {
  return !p.unschedulablePlugins.empty() || !p.pendingPlugins.empty();
}

}  // namespace

BackoffQueue::BackoffQueue(const Clock& clock, std::chrono::nanoseconds initialBackoff,
                           std::chrono::nanoseconds maxBackoff, framework::runtime::LessFunc activeQLess,
                           bool popFromBackoffQ, KeyFunc key)
    : clock_(clock),
      initialBackoff_(initialBackoff),
      maxBackoff_(maxBackoff),
      activeQLess_(std::move(activeQLess)),
      popFromBackoffQ_(popFromBackoffQ),
      key_(key),
      backoffQ_(key,
                [this](const QueuedPodInfo& a, const QueuedPodInfo& b) {
                  const TimePoint ta = backoffTime(a);
                  const TimePoint tb = backoffTime(b);
                  if (ta != tb || !popFromBackoffQ_) return ta < tb;
                  return activeQLess_(a, b);  // the same window: as activeQ orders them
                }),
      errorBackoffQ_(key,
                     [this](const QueuedPodInfo& a, const QueuedPodInfo& b) { return lessByExpiry(a, b); }) {}

bool BackoffQueue::lessByExpiry(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  return backoffTime(a) < backoffTime(b);
}

TimePoint BackoffQueue::alignToWindow(TimePoint t) const {
  if (!popFromBackoffQ_) return t;
  // Go's Time.Truncate(1s): down to the whole second.
  return std::chrono::time_point_cast<TimePoint::duration>(std::chrono::floor<std::chrono::seconds>(t));
}

std::chrono::nanoseconds BackoffQueue::backoffDuration(int count) const {
  if (count <= 0) return std::chrono::nanoseconds(0);
  const int shift = count - 1;
  // initial << shift, or max once that would exceed it (Go: initial > max >> shift).
  if (shift >= 63 || initialBackoff_.count() > (maxBackoff_.count() >> shift)) return maxBackoff_;
  return std::chrono::nanoseconds(initialBackoff_.count() << shift);
}

TimePoint BackoffQueue::backoffTime(const QueuedPodInfo& pInfo) const {
  if (maxBackoff_.count() == 0) return TimePoint{};  // backoff disabled
  const int count =
      pInfo.consecutiveErrorsCount > 0 ? pInfo.consecutiveErrorsCount : pInfo.unschedulableCount;
  if (count == 0) return TimePoint{};
  if (pInfo.backoffExpiration != TimePoint{}) return pInfo.backoffExpiration;
  return alignToWindow(pInfo.timestamp +
                       std::chrono::duration_cast<TimePoint::duration>(backoffDuration(count)));
}

bool BackoffQueue::isPodBackingOff(const QueuedPodInfo& pInfo) const {
  return !(backoffTime(pInfo) < alignToWindow(clock_.now()));
}

void BackoffQueue::add(QueuedPodInfo pInfo) {
  const std::string key = key_(pInfo);
  if (rejectedByPlugins(pInfo)) {
    errorBackoffQ_.remove(key);
    backoffQ_.addOrUpdate(std::move(pInfo));
  } else {
    backoffQ_.remove(key);
    errorBackoffQ_.addOrUpdate(std::move(pInfo));
  }
}

bool BackoffQueue::remove(const std::string& key) {
  return backoffQ_.remove(key) || errorBackoffQ_.remove(key);
}

const QueuedPodInfo* BackoffQueue::get(const std::string& key) const {
  if (const QueuedPodInfo* p = backoffQ_.get(key)) return p;
  return errorBackoffQ_.get(key);
}

void BackoffQueue::update(QueuedPodInfo pInfo) {
  const std::string key = key_(pInfo);
  if (backoffQ_.has(key)) {
    backoffQ_.addOrUpdate(std::move(pInfo));
  } else if (errorBackoffQ_.has(key)) {
    errorBackoffQ_.addOrUpdate(std::move(pInfo));
  }
}

void BackoffQueue::popCompleted(heap::Heap<QueuedPodInfo>& q, std::vector<QueuedPodInfo>& out) {
  while (const QueuedPodInfo* head = q.peek()) {
    if (isPodBackingOff(*head)) break;
    out.push_back(*q.pop());
  }
}

std::vector<QueuedPodInfo> BackoffQueue::popAllBackoffCompleted() {
  std::vector<QueuedPodInfo> out;
  popCompleted(backoffQ_, out);
  popCompleted(errorBackoffQ_, out);
  return out;
}

}  // namespace ks::queue
