#pragma once
// A bounded map whose entries expire after a per-entry TTL, for the token and SubjectAccessReview caches
// (upstream: token/cache's expiring cache and the webhook authorizer's LRU-expire cache). Thread-safe.
// When full, expired entries go first, then the ones closest to expiry.

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace ks::server::auth {

using Clock = std::function<std::chrono::steady_clock::time_point()>;

inline Clock steadyClock() {
  return [] { return std::chrono::steady_clock::now(); };
}

template <typename V>
class TtlCache {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  TtlCache(size_t maxEntries, Clock clock) : maxEntries_(maxEntries), clock_(std::move(clock)) {}

  std::optional<V> get(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    if (clock_() >= it->second.expiry) {
      erase(it);
      return std::nullopt;
    }
    return it->second.value;
  }

  void set(const std::string& key, V value, std::chrono::steady_clock::duration ttl) {
    if (ttl <= std::chrono::steady_clock::duration::zero() || maxEntries_ == 0) return;
    std::lock_guard lock(mu_);
    const TimePoint now = clock_();
    if (auto it = entries_.find(key); it != entries_.end()) erase(it);
    while (entries_.size() >= maxEntries_ && !byExpiry_.empty()) {
      // byExpiry_ is ordered by expiry: its first entry is expired if any is, else the closest to it.
      erase(entries_.find(byExpiry_.begin()->second));
    }
    const TimePoint expiry = now + ttl;
    auto pos = byExpiry_.emplace(expiry, key);
    entries_.emplace(key, Entry{std::move(value), expiry, pos});
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return entries_.size();
  }

 private:
  struct Entry {
    V value;
    TimePoint expiry;
    std::multimap<TimePoint, std::string>::iterator pos;
  };

  void erase(typename std::unordered_map<std::string, Entry>::iterator it) {
    byExpiry_.erase(it->second.pos);
    entries_.erase(it);
  }

  const size_t maxEntries_;
  const Clock clock_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;       // guarded by mu_
  std::multimap<TimePoint, std::string> byExpiry_;       // guarded by mu_
};

}  // namespace ks::server::auth
