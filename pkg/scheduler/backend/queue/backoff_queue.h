#pragma once
// The backoff queue (upstream backend/queue/backoff_queue.go): two heaps behind one face.
//
//   podBackoffQ       entities rejected by plugins, waiting out initial * 2^(unschedulableCount-1) (capped).
//                     With pop-from-backoffQ its expiries are truncated to 1-second ordering windows and
//                     entities within a window are ordered as activeQ orders them, so that popping from it
//                     when activeQ is empty takes the most important entity of the earliest window.
//   podErrorBackoffQ  entities whose last attempt ended in an error (no rejecting plugin), ordered by
//                     expiry. Never popped early: an error entity always waits out its backoff (1 s, 2 s ...).
//
// An entity counts as backing off while its (window-aligned) expiry is not before the start of the
// current window, so the effective backoff is in (d, d + 1 s] and whole windows are flushed at once by a
// flush that runs on whole seconds of the clock.
//
// The entity is a pod (BackoffQueue) or a pod group (PodGroupBackoffQueue). A group's maximum backoff is
// the pods' one times the square root of its queued members (upstream calculateBackoffDuration), and its
// expiry is fixed when it enters the queue (upstream caches it in BackoffExpiration), so members that
// join it meanwhile do not move it within the heap.
//
// Not thread-safe: PriorityQueue guards it with its own mutex.

#include <chrono>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "pkg/scheduler/backend/heap/heap.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/util/clock.h"

namespace ks::queue {

// The length of one ordering window of podBackoffQ, and the period of the backoff flush.
inline constexpr std::chrono::seconds kBackoffQOrderingWindow{1};

// The number of pods an entity stands for (upstream QueuedEntityInfo.Size).
inline size_t entitySize(const framework::QueuedPodInfo& /*pod*/) { return 1; }
inline size_t entitySize(const framework::QueuedPodGroupInfo& group) { return group.size(); }

// The backoff of the count-th failure: initial << (count-1), capped at max scaled by sqrt(size) for an
// entity of several pods (Go: Duration(float64(max) * math.Sqrt(float64(size))), truncated).
inline std::chrono::nanoseconds entityBackoffDuration(int count, size_t size, std::chrono::nanoseconds initial,
                                                      std::chrono::nanoseconds max) {
  if (count <= 0) return std::chrono::nanoseconds(0);
  if (size > 1) {
    const double scaled = static_cast<double>(max.count()) * std::sqrt(static_cast<double>(size));
    max = scaled >= 9.2e18 ? std::chrono::nanoseconds::max() : std::chrono::nanoseconds(static_cast<int64_t>(scaled));
  }
  const int shift = count - 1;
  // initial << shift, or max once that would exceed it (Go: initial > max >> shift).
  if (shift >= 63 || initial.count() > (max.count() >> shift)) return max;
  return std::chrono::nanoseconds(initial.count() << shift);
}

template <typename T>
class BasicBackoffQueue {
 public:
  using KeyFunc = typename heap::Heap<T>::KeyFunc;
  using LessFunc = std::function<bool(const T&, const T&)>;

  // `activeQLess` orders entities within a window (with popFromBackoffQ); `clock` must outlive the queue.
  BasicBackoffQueue(const Clock& clock, std::chrono::nanoseconds initialBackoff, std::chrono::nanoseconds maxBackoff,
                    LessFunc activeQLess, bool popFromBackoffQ, KeyFunc key)
      : clock_(clock),
        initialBackoff_(initialBackoff),
        maxBackoff_(maxBackoff),
        activeQLess_(std::move(activeQLess)),
        popFromBackoffQ_(popFromBackoffQ),
        key_(key),
        backoffQ_(key,
                  [this](const T& a, const T& b) {
                    const framework::TimePoint ta = backoffTime(a);
                    const framework::TimePoint tb = backoffTime(b);
                    if (ta != tb || !popFromBackoffQ_) return ta < tb;
                    return activeQLess_(a, b);  // the same window: as activeQ orders them
                  }),
        errorBackoffQ_(key, [this](const T& a, const T& b) { return backoffTime(a) < backoffTime(b); }) {}

  // True while the entity's backoff has not ended (within the current window it still counts as backing off).
  bool isPodBackingOff(const T& pInfo) const { return !(backoffTime(pInfo) < alignToWindow(clock_.now())); }
  // When the entity's backoff ends: the zero time when it has none (never attempted, or max backoff 0).
  framework::TimePoint backoffTime(const T& pInfo) const {
    if (maxBackoff_.count() == 0) return framework::TimePoint{};  // backoff disabled
    const int count = pInfo.consecutiveErrorsCount > 0 ? pInfo.consecutiveErrorsCount : pInfo.unschedulableCount;
    if (count == 0) return framework::TimePoint{};
    if (pInfo.backoffExpiration != framework::TimePoint{}) return pInfo.backoffExpiration;
    return alignToWindow(pInfo.timestamp + std::chrono::duration_cast<framework::TimePoint::duration>(
                                               entityBackoffDuration(count, entitySize(pInfo), initialBackoff_,
                                                                     maxBackoff_)));
  }
  // The time truncated to the ordering window (unchanged without pop-from-backoffQ).
  framework::TimePoint alignToWindow(framework::TimePoint t) const {
    if (!popFromBackoffQ_) return t;
    // Go's Time.Truncate(1s): down to the whole second.
    return std::chrono::time_point_cast<framework::TimePoint::duration>(std::chrono::floor<std::chrono::seconds>(t));
  }

  // Adds (or replaces) the entity in podErrorBackoffQ when it has no rejecting plugins, else in
  // podBackoffQ; it is never in both.
  void add(T pInfo) {
    if constexpr (std::is_same_v<T, framework::QueuedPodGroupInfo>) pInfo.backoffExpiration = backoffTime(pInfo);
    const std::string key = key_(pInfo);
    if (!pInfo.unschedulablePlugins.empty() || !pInfo.pendingPlugins.empty()) {
      errorBackoffQ_.remove(key);
      backoffQ_.addOrUpdate(std::move(pInfo));
    } else {
      backoffQ_.remove(key);
      errorBackoffQ_.addOrUpdate(std::move(pInfo));
    }
  }
  bool remove(const std::string& key) { return backoffQ_.remove(key) || errorBackoffQ_.remove(key); }
  // Removes and returns the entity.
  std::optional<T> take(const std::string& key) {
    const T* p = get(key);
    if (p == nullptr) return std::nullopt;
    std::optional<T> out(*p);
    remove(key);
    return out;
  }
  const T* get(const std::string& key) const {
    if (const T* p = backoffQ_.get(key)) return p;
    return errorBackoffQ_.get(key);
  }
  bool has(const std::string& key) const { return get(key) != nullptr; }
  // Replaces the entity in whichever heap holds it (its key is unchanged).
  void update(T pInfo) {
    const std::string key = key_(pInfo);
    if (backoffQ_.has(key)) {
      backoffQ_.addOrUpdate(std::move(pInfo));
    } else if (errorBackoffQ_.has(key)) {
      errorBackoffQ_.addOrUpdate(std::move(pInfo));
    }
  }

  // The head of podBackoffQ (never podErrorBackoffQ), and popping it; nullopt when empty.
  const T* peekBackoff() const { return backoffQ_.peek(); }
  std::optional<T> popBackoff() { return backoffQ_.pop(); }
  // Pops every entity of both heaps whose backoff has ended, podBackoffQ's first.
  std::vector<T> popAllBackoffCompleted() {
    std::vector<T> out;
    popCompleted(backoffQ_, out);
    popCompleted(errorBackoffQ_, out);
    return out;
  }

  size_t size() const { return backoffQ_.size() + errorBackoffQ_.size(); }
  bool empty() const { return size() == 0; }
  // Entities that pop() may take from here: podBackoffQ only.
  size_t sizeBackoff() const { return backoffQ_.size(); }
  template <typename F>
  void forEach(F&& f) const {
    backoffQ_.forEach(f);
    errorBackoffQ_.forEach(f);
  }

 private:
  void popCompleted(heap::Heap<T>& q, std::vector<T>& out) {
    while (const T* head = q.peek()) {
      if (isPodBackingOff(*head)) break;
      out.push_back(*q.pop());
    }
  }

  const Clock& clock_;
  const std::chrono::nanoseconds initialBackoff_;
  const std::chrono::nanoseconds maxBackoff_;
  const LessFunc activeQLess_;
  const bool popFromBackoffQ_;
  const KeyFunc key_;
  heap::Heap<T> backoffQ_;
  heap::Heap<T> errorBackoffQ_;
};

using BackoffQueue = BasicBackoffQueue<framework::QueuedPodInfo>;
using PodGroupBackoffQueue = BasicBackoffQueue<framework::QueuedPodGroupInfo>;

}  // namespace ks::queue
