#include "pkg/util/clock.h"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace ks {

namespace {

class RealClock final : public Clock {
 public:
  RealClock() : thread_([this] { loop(); }) {}
  ~RealClock() override {
    {
      std::lock_guard lock(mu_);
      shutdown_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  TimePoint now() const override { return std::chrono::system_clock::now(); }

  std::unique_ptr<Timer> afterFunc(Duration d, std::function<void()> fn) override {
    const auto deadline = std::chrono::steady_clock::now() + d;
    uint64_t id = 0;
    {
      std::lock_guard lock(mu_);
      id = nextId_++;
      timers_.emplace(std::make_pair(deadline, id), std::move(fn));
    }
    cv_.notify_all();
    return std::make_unique<RealTimer>(*this, deadline, id);
  }

 private:
  using Key = std::pair<std::chrono::steady_clock::time_point, uint64_t>;

  class RealTimer final : public Timer {
   public:
    RealTimer(RealClock& c, std::chrono::steady_clock::time_point deadline, uint64_t id)
        : clock_(c), key_(deadline, id) {}
    bool stop() override {
      std::lock_guard lock(clock_.mu_);
      return clock_.timers_.erase(key_) > 0;
    }

   private:
    RealClock& clock_;
    Key key_;
  };

  void loop() {
    std::unique_lock lock(mu_);
    while (!shutdown_) {
      if (timers_.empty()) {
        cv_.wait(lock);
        continue;
      }
      auto it = timers_.begin();
      if (it->first.first > std::chrono::steady_clock::now()) {
        // Copy the deadline: a concurrent Timer::stop() may erase the entry while we wait.
        const auto deadline = it->first.first;
        cv_.wait_until(lock, deadline);
        continue;
      }
      std::function<void()> fn = std::move(it->second);
      timers_.erase(it);
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, std::function<void()>> timers_;  // guarded by mu_
  uint64_t nextId_ = 0;                          // guarded by mu_
  bool shutdown_ = false;                        // guarded by mu_
  std::thread thread_;
};

}  // namespace

Clock& realClock() {
  // Intentionally leaked: timers may be stopped from static destructors of other objects.
  static RealClock* clock = new RealClock();
  return *clock;
}

}  // namespace ks
