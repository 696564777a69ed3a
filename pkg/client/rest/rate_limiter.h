#pragma once
// Client-side rate limiting as client-go's flowcontrol.NewTokenBucketRateLimiter (golang.org/x/time/rate):
// a bucket of `burst` tokens refilled at `qps` per second; every request takes one token and waits
// for it when the bucket is empty. Time is injected so tests run without sleeping.

#include <chrono>
#include <mutex>
#include <stop_token>

namespace ks::client::rest {

class Clock {
 public:
  using Duration = std::chrono::nanoseconds;
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  // Sleeps `d` or until `stop` is requested; returns false when stopped.
  virtual bool sleepFor(Duration d, std::stop_token stop) = 0;
  static Clock& real();
};

class TokenBucketRateLimiter {
 public:
  // qps <= 0 disables limiting; burst < 1 is treated as 1.
  TokenBucketRateLimiter(double qps, int burst, Clock& clock = Clock::real());

  // Takes a token now (possibly going into debt) and returns how long the caller must wait before
  // using it. Thread-safe.
  Clock::Duration reserve();
  // Takes a token only when one is available now.
  bool tryAccept();
  // Blocks until a token is available; returns false when `stop` was requested first (the token
  // stays spent, as rate.Limiter.Wait's reservation is not returned either).
  bool accept(std::stop_token stop = {});

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void advance(Clock::TimePoint now);  // requires mu_

  const double qps_;
  const int burst_;
  Clock& clock_;
  std::mutex mu_;
  double tokens_;  // may go negative: outstanding reservations
  Clock::TimePoint last_;
};

}  // namespace ks::client::rest
