#pragma once
// Counts keyed by a topology value (a node label's value), for the per-cycle maps of InterPodAffinity:
// PreFilter and PreScore merge a domain per node, thousands per cycle. One open-addressing table and one
// character arena hold them, so a merge allocates a few times instead of once per domain.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks::plugins::interpodaffinity {

class ValueCounts {
 public:
  // The count of `value`, inserted at 0 when absent.
  int64_t& operator[](std::string_view value);
  // The count of `value`, or nullptr.
  const int64_t* find(std::string_view value) const;
  // Removes `value` (nothing when absent).
  void erase(std::string_view value);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Room for `n` values without rehashing.
  void reserve(std::size_t n);

  // fn(value, count) for every value, in no particular order.
  template <class Fn>
  void forEach(Fn&& fn) const {
    for (const auto& s : slots_) {
      if (s.state == kFull) fn(valueOf(s), s.count);
    }
  }

  // The same values with the same counts.
  bool operator==(const ValueCounts& o) const;

 private:
  enum State : uint8_t { kEmpty, kFull, kErased };
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0;  // of the value in arena_
    uint32_t length = 0;
    int64_t count = 0;
    State state = kEmpty;
  };

  std::string_view valueOf(const Slot& s) const { return std::string_view(arena_).substr(s.offset, s.length); }
  // The slot holding `value`, or (with `forInsert`) the one to insert it at; nullptr when absent.
  const Slot* lookup(std::string_view value, uint64_t hash, bool forInsert) const;
  void rehash(std::size_t capacity);

  std::vector<Slot> slots_;  // capacity a power of two (or 0)
  std::string arena_;
  std::size_t size_ = 0;
  std::size_t used_ = 0;  // full and erased slots: what probing walks over
};

}  // namespace ks::plugins::interpodaffinity
