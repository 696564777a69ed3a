#pragma once
// The backoff queue (upstream backend/queue/backoff_queue.go): two heaps behind one face.
//
//   podBackoffQ       pods rejected by plugins, waiting out initial * 2^(unschedulableCount-1) (capped).
//                     With pop-from-backoffQ its expiries are truncated to 1-second ordering windows and
//                     pods within a window are ordered as activeQ orders them, so that popping from it
//                     when activeQ is empty takes the most important pod of the earliest window.
//   podErrorBackoffQ  pods whose last attempt ended in an error (no rejecting plugin), ordered by expiry.
//                     Never popped early: an error pod always waits out its backoff (1 s, 2 s, 4 s ...).
//
// A pod counts as backing off while its (window-aligned) expiry is not before the start of the current
// window, so the effective backoff is in (d, d + 1 s] and whole windows are flushed at once by a flush
// that runs on whole seconds of the clock.
//
// Not thread-safe: PriorityQueue guards it with its own mutex.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "pkg/scheduler/backend/heap/heap.h"
#include "pkg/util/clock.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/framework/types.h"

namespace ks::queue {

// The length of one ordering window of podBackoffQ, and the period of the backoff flush.
inline constexpr std::chrono::seconds kBackoffQOrderingWindow{1};

class BackoffQueue {
 public:
  using KeyFunc = heap::Heap<framework::QueuedPodInfo>::KeyFunc;

  // `activeQLess` orders pods within a window (with popFromBackoffQ); `clock` must outlive the queue.
  BackoffQueue(const Clock& clock, std::chrono::nanoseconds initialBackoff,
               std::chrono::nanoseconds maxBackoff, framework::runtime::LessFunc activeQLess,
               bool popFromBackoffQ, KeyFunc key);

  // True while the pod's backoff has not ended (within the current window it still counts as backing off).
  bool isPodBackingOff(const framework::QueuedPodInfo& pInfo) const;
  // When the pod's backoff ends: the zero time when it has none (never attempted, or max backoff 0).
  framework::TimePoint backoffTime(const framework::QueuedPodInfo& pInfo) const;
  // The time truncated to the ordering window (unchanged without pop-from-backoffQ).
  framework::TimePoint alignToWindow(framework::TimePoint t) const;

  // Adds (or replaces) the pod in podErrorBackoffQ when it has no rejecting plugins, else in podBackoffQ;
  // it is never in both.
  void add(framework::QueuedPodInfo pInfo);
  bool remove(const std::string& key);
  const framework::QueuedPodInfo* get(const std::string& key) const;
  bool has(const std::string& key) const { return get(key) != nullptr; }
  // Replaces the pod's entry in whichever heap holds it (its key is unchanged).
  void update(framework::QueuedPodInfo pInfo);

  // Pops the head of podBackoffQ (never podErrorBackoffQ); nullopt when empty.
  std::optional<framework::QueuedPodInfo> popBackoff() { return backoffQ_.pop(); }
  // Pops every pod of both heaps whose backoff has ended, podBackoffQ's first.
  std::vector<framework::QueuedPodInfo> popAllBackoffCompleted();

  size_t size() const { return backoffQ_.size() + errorBackoffQ_.size(); }
  // Pods that pop() may take from here: podBackoffQ only.
  size_t sizeBackoff() const { return backoffQ_.size(); }
  template <typename F>
  void forEach(F&& f) const {
    backoffQ_.forEach(f);
    errorBackoffQ_.forEach(f);
  }

 private:
  std::chrono::nanoseconds backoffDuration(int count) const;
  bool lessByExpiry(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const;
  void popCompleted(heap::Heap<framework::QueuedPodInfo>& q, std::vector<framework::QueuedPodInfo>& out);

  const Clock& clock_;
  const std::chrono::nanoseconds initialBackoff_;
  const std::chrono::nanoseconds maxBackoff_;
  const framework::runtime::LessFunc activeQLess_;
  const bool popFromBackoffQ_;
  const KeyFunc key_;
  heap::Heap<framework::QueuedPodInfo> backoffQ_;
  heap::Heap<framework::QueuedPodInfo> errorBackoffQ_;
};

}  // namespace ks::queue
