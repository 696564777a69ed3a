#pragma once
// A manual clock: now() only moves on step(); step() runs the timers that became due, in deadline
// order, synchronously on the stepping thread and without holding the clock's lock. For virtual time:
// tests, and `simulate` (backoffs pass at once when nothing else can happen).

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "pkg/util/clock.h"

namespace ks {

class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint start = TimePoint(std::chrono::seconds(1'700'000'000))) : now_(start) {}

  TimePoint now() const override {
    std::lock_guard lock(state_->mu);
    return now_;
  }

  std::unique_ptr<Timer> afterFunc(Duration d, std::function<void()> fn) override {
    std::lock_guard lock(state_->mu);
    const Key key{now_ + d, state_->nextId++};
    state_->timers.emplace(key, std::move(fn));
    return std::make_unique<ManualTimer>(state_, key);
  }

  // Advances time by d, firing every timer due by the new time.
  void step(Duration d) {
    TimePoint target;
    {
      std::lock_guard lock(state_->mu);
      target = now_ + d;
    }
    for (;;) {
      std::function<void()> fn;
      {
        std::lock_guard lock(state_->mu);
        auto it = state_->timers.begin();
        if (it == state_->timers.end() || it->first.first > target) {
          now_ = target;
          return;
        }
        now_ = std::max(now_, it->first.first);
        fn = std::move(it->second);
        state_->timers.erase(it);
      }
      fn();
    }
  }

  // Number of armed timers.
  std::size_t pendingTimers() const {
    std::lock_guard lock(state_->mu);
    return state_->timers.size();
  }

 private:
  using Key = std::pair<TimePoint, uint64_t>;
  struct State {
    mutable std::mutex mu;
    std::map<Key, std::function<void()>> timers;
    uint64_t nextId = 0;
  };
  class ManualTimer final : public Timer {
   public:
    ManualTimer(std::shared_ptr<State> s, Key k) : state_(std::move(s)), key_(k) {}
    bool stop() override {
      std::lock_guard lock(state_->mu);
      return state_->timers.erase(key_) > 0;
    }

   private:
    std::shared_ptr<State> state_;
    Key key_;
  };

  std::shared_ptr<State> state_ = std::make_shared<State>();
  TimePoint now_;  // guarded by state_->mu
};

}  // namespace ks
