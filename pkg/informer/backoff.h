#pragma once
// Capped exponential backoff with jitter (wait.Backoff as the reflector's backoff manager uses it:
// 800ms doubling to 30s, jitter 1.0) and an interruptible sleep, both injectable for tests.

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <stop_token>

namespace ks::informer {

struct BackoffOptions {
  std::chrono::milliseconds initial = std::chrono::milliseconds(800);
  std::chrono::milliseconds max = std::chrono::seconds(30);
  double factor = 2.0;
  double jitter = 1.0;  // each wait is d * (1 + jitter * U[0,1)), never above max
  uint64_t seed = 0;    // random source of the jitter
};

// Not thread-safe: owned by one reflector thread.
class Backoff {
 public:
  explicit Backoff(BackoffOptions options) : options_(options), rng_(options.seed), next_(options.initial) {}

  // The next wait: grows by `factor` per call up to `max`. A server's Retry-After wins when longer.
  std::chrono::milliseconds next(std::chrono::milliseconds retryAfter = std::chrono::milliseconds(0)) {
    std::chrono::milliseconds d = next_;
    next_ = std::min(options_.max, std::chrono::milliseconds(static_cast<int64_t>(
                                       static_cast<double>(next_.count()) * options_.factor)));
    if (options_.jitter > 0) {
      double r = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
      d = std::chrono::milliseconds(
          static_cast<int64_t>(static_cast<double>(d.count()) * (1.0 + options_.jitter * r)));
    }
    d = std::min(d, options_.max);
    return std::max(d, retryAfter);
  }

  // Back to `initial` (after progress was made).
  void reset() { next_ = options_.initial; }

 private:
  BackoffOptions options_;
  std::mt19937_64 rng_;
  std::chrono::milliseconds next_;
};

// Sleeps for `d` unless `stop` is requested first; returns false when stopped.
using Sleeper = std::function<bool(std::chrono::milliseconds d, std::stop_token stop)>;

// The real interruptible sleep.
bool sleepFor(std::chrono::milliseconds d, std::stop_token stop);

}  // namespace ks::informer
