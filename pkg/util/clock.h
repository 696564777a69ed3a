#pragma once
// Injected time: now() and one-shot timers, so Permit timeouts, queue backoff, the cache's assumed-pod
// expiry and leader election are tested without sleeping. RealClock runs timer callbacks on one
// clock-owned thread; tests and `simulate` use ManualClock (manual_clock.h), which fires due timers
// synchronously when stepped.

#include <chrono>
#include <functional>
#include <memory>

namespace ks {

class Timer {
 public:
  virtual ~Timer() = default;
  // Prevents the callback from running. Returns true if this call stopped it, false if it already ran
  // (or is running) or was stopped before. Safe to call from any thread, including from a timer
  // callback.
  virtual bool stop() = 0;
};

class Clock {
 public:
  using TimePoint = std::chrono::system_clock::time_point;
  using Duration = std::chrono::nanoseconds;

  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  // Runs fn once, after d, on a thread owned by the clock (never on the calling thread, never while
  // the clock holds a lock), unless the returned timer is stopped first.
  virtual std::unique_ptr<Timer> afterFunc(Duration d, std::function<void()> fn) = 0;
};

// The wall clock with a single timer thread. The process-wide instance lives as long as the process.
Clock& realClock();

}  // namespace ks
