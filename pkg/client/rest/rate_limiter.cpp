#include "pkg/client/rest/rate_limiter.h"

#include <algorithm>
#include <condition_variable>
#include <thread>

namespace ks::client::rest {

namespace {

class RealClock : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
  bool sleepFor(Duration d, std::stop_token stop) override {
    if (d <= Duration::zero()) return !stop.stop_requested();
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait_for(lock, stop, d, [] { return false; });
    return !stop.stop_requested();
  }
};

}  // namespace

Clock& Clock::real() {
  static RealClock clock;
  return clock;
}

TokenBucketRateLimiter::TokenBucketRateLimiter(double qps, int burst, Clock& clock)
    : qps_(qps), burst_(std::max(burst, 1)), clock_(clock), tokens_(std::max(burst, 1)), last_(clock.now()) {}

void TokenBucketRateLimiter::advance(Clock::TimePoint now) {
  if (now > last_) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
}

Clock::Duration TokenBucketRateLimiter::reserve() {
  if (qps_ <= 0) return Clock::Duration::zero();
  std::lock_guard lock(mu_);
  advance(clock_.now());
  tokens_ -= 1;
  if (tokens_ >= 0) return Clock::Duration::zero();
  return std::chrono::duration_cast<Clock::Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

bool TokenBucketRateLimiter::tryAccept() {
  if (qps_ <= 0) return true;
  std::lock_guard lock(mu_);
  advance(clock_.now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

bool TokenBucketRateLimiter::accept(std::stop_token stop) {
  const Clock::Duration wait = reserve();
  if (wait <= Clock::Duration::zero()) return !stop.stop_requested();
  return clock_.sleepFor(wait, stop);
}

}  // namespace ks::client::rest
