#pragma once
// Interning (hash-consing) of immutable values: equal values share one instance, so "is this the same
// value" becomes a pointer comparison and a per-value result can be memoized by address.
//
// The pool holds weak references only: an instance lives as long as somebody holds it, and its deleter
// takes it out of the pool. Thread-safe; one mutex per pool (interning happens where objects are built,
// e.g. once per pod update, not in scheduling loops).

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ks::util {

template <class T, class Hash = std::hash<T>, class Equal = std::equal_to<T>>
class InternPool {
 public:
  // The pool must outlive every instance it handed out: use one static pool per type (leakedInstance).
  static InternPool& leakedInstance() {
    static auto* pool = new InternPool();
    return *pool;
  }

  // The shared instance equal to `value`, created from it when there is none.
  std::shared_ptr<const T> intern(T value) {
    const std::size_t hash = Hash{}(value);
    // Instances locked but not equal are released after the lock: a release may be the last one, and
    // the deleter takes the lock.
    std::vector<std::shared_ptr<const T>> unequal;
    std::lock_guard lock(mu_);
    auto [first, last] = entries_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
      // An expired entry is an instance being deleted: its deleter will erase it.
      auto existing = it->second.weak.lock();
      if (!existing) continue;
      if (Equal{}(*existing, value)) return existing;
      unequal.push_back(std::move(existing));
    }
    std::shared_ptr<const T> created(new T(std::move(value)), Deleter{this, hash});
    entries_.emplace(hash, Entry{created, created.get()});
    return created;
  }

  // Instances alive (for tests).
  std::size_t size() const {
    std::lock_guard lock(mu_);
    return entries_.size();
  }

 private:
  struct Entry {
    std::weak_ptr<const T> weak;
    const T* raw = nullptr;
  };
  struct Deleter {
    InternPool* pool;
    std::size_t hash;
    void operator()(const T* p) const {
      {
        std::lock_guard lock(pool->mu_);
        auto [first, last] = pool->entries_.equal_range(hash);
        for (auto it = first; it != last; ++it) {
          if (it->second.raw == p) {
            pool->entries_.erase(it);
            break;
          }
        }
      }
      delete p;
    }
  };

  mutable std::mutex mu_;
  std::unordered_multimap<std::size_t, Entry> entries_;
};

// Boost-style hash combining.
inline void hashCombine(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace ks::util
