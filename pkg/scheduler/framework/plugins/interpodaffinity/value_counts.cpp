#include "pkg/scheduler/framework/plugins/interpodaffinity/value_counts.h"

#include <functional>

namespace ks::plugins::interpodaffinity {

namespace {
uint64_t hashOf(std::string_view value) {
  return std::hash<std::string_view>{}(value);
}
}  // namespace

const ValueCounts::Slot* ValueCounts::lookup(std::string_view value, uint64_t hash, bool forInsert) const {
  if (slots_.empty()) return nullptr;
  const std::size_t mask = slots_.size() - 1;
  const Slot* firstErased = nullptr;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.state == kEmpty) return forInsert ? (firstErased != nullptr ? firstErased : &s) : nullptr;
    if (s.state == kErased) {
      if (firstErased == nullptr) firstErased = &s;
    } else if (s.hash == hash && valueOf(s) == value) {
      return &s;
    }
  }
}

int64_t& ValueCounts::operator[](std::string_view value) {
  // Keep at most 3/4 of the slots used so probes stay short and an empty slot always exists.
  if ((used_ + 1) * 4 > slots_.size() * 3) rehash(slots_.empty() ? 16 : slots_.size() * (size_ * 2 >= used_ ? 2 : 1));
  const uint64_t hash = hashOf(value);
  auto* s = const_cast<Slot*>(lookup(value, hash, true));
  if (s->state == kFull) return s->count;
  if (s->state == kEmpty) ++used_;
  ++size_;
  *s = Slot{hash, static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(value.size()), 0, kFull};
  arena_.append(value);
  return s->count;
}

const int64_t* ValueCounts::find(std::string_view value) const {
  const Slot* s = lookup(value, hashOf(value), false);
  return s == nullptr ? nullptr : &s->count;
}

void ValueCounts::erase(std::string_view value) {
  auto* s = const_cast<Slot*>(lookup(value, hashOf(value), false));
  if (s == nullptr) return;
  s->state = kErased;
  --size_;
}

void ValueCounts::reserve(std::size_t n) {
  std::size_t capacity = 16;
  while (capacity * 3 < n * 4) capacity *= 2;
  if (capacity > slots_.size()) rehash(capacity);
}

void ValueCounts::rehash(std::size_t capacity) {
  std::vector<Slot> old = std::move(slots_);
  std::string oldArena = std::move(arena_);
  slots_.assign(capacity, Slot{});
  arena_.clear();
  arena_.reserve(oldArena.size());
  used_ = size_;
  const std::size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.state != kFull) continue;
    std::size_t i = s.hash & mask;
    while (slots_[i].state != kEmpty) i = (i + 1) & mask;
    slots_[i] = Slot{s.hash, static_cast<uint32_t>(arena_.size()), s.length, s.count, kFull};
    arena_.append(std::string_view(oldArena).substr(s.offset, s.length));
  }
}

bool ValueCounts::operator==(const ValueCounts& o) const {
  if (size_ != o.size_) return false;
  bool equal = true;
  forEach([&](std::string_view value, int64_t count) {
    const int64_t* other = o.find(value);
    if (other == nullptr || *other != count) equal = false;
  });
  return equal;
}

}  // namespace ks::plugins::interpodaffinity
