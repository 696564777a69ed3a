#pragma once
// A keyed binary heap, as upstream's backend/heap: O(log n) addOrUpdate / remove / pop, O(1) peek and
// lookup by key. The queue keeps activeQ and backoffQ in two of these, keyed by pod UID.
// Not thread-safe: the owner (the scheduling queue) locks around it.

#include <cassert>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ks::heap {

template <typename T>
class Heap {
 public:
  using KeyFunc = std::function<std::string(const T&)>;
  // Returns true when `a` must be popped before `b`.
  using LessFunc = std::function<bool(const T&, const T&)>;

  Heap(KeyFunc key, LessFunc less) : key_(std::move(key)), less_(std::move(less)) {}

  // Inserts the item, or replaces the item with the same key and restores heap order.
  void addOrUpdate(T item) {
    std::string key = key_(item);
    if (auto it = index_.find(key); it != index_.end()) {
      size_t i = it->second;
      items_[i].item = std::move(item);
      fix(i);
      return;
    }
    items_.push_back(Entry{std::move(key), std::move(item)});
    index_[items_.back().key] = items_.size() - 1;
    up(items_.size() - 1);
  }

  // Removes the item with this key; returns false when absent.
  bool remove(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    removeAt(it->second);
    return true;
  }

  // The item that pop() would return, or nullptr when empty.
  const T* peek() const { return items_.empty() ? nullptr : &items_.front().item; }

  std::optional<T> pop() {
    if (items_.empty()) return std::nullopt;
    return removeAt(0);
  }

  const T* get(const std::string& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].item;
  }

  bool has(const std::string& key) const { return index_.count(key) != 0; }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

  // All items in heap (not sorted) order.
  std::vector<T> list() const {
    std::vector<T> out;
    out.reserve(items_.size());
    for (const auto& e : items_) out.push_back(e.item);
    return out;
  }

  template <typename F>
  void forEach(F&& f) const {
    for (const auto& e : items_) f(e.item);
  }

 private:
  struct Entry {
    std::string key;
    T item;
  };

  bool lessAt(size_t a, size_t b) const { return less_(items_[a].item, items_[b].item); }

  void swapAt(size_t a, size_t b) {
    std::swap(items_[a], items_[b]);
    index_[items_[a].key] = a;
    index_[items_[b].key] = b;
  }

  void up(size_t i) {
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!lessAt(i, parent)) break;
      swapAt(i, parent);
      i = parent;
    }
  }

  // Returns true when the item moved.
  bool down(size_t i) {
    size_t start = i;
    for (;;) {
      size_t left = 2 * i + 1;
      if (left >= items_.size()) break;
      size_t best = left;
      if (size_t right = left + 1; right < items_.size() && lessAt(right, left)) best = right;
      if (!lessAt(best, i)) break;
      swapAt(i, best);
      i = best;
    }
    return i != start;
  }

  void fix(size_t i) {
    if (!down(i)) up(i);
  }

  T removeAt(size_t i) {
    assert(i < items_.size());
    size_t last = items_.size() - 1;
    if (i != last) swapAt(i, last);
    Entry removed = std::move(items_.back());
    items_.pop_back();
    index_.erase(removed.key);
    if (i < items_.size()) fix(i);
    return std::move(removed.item);
  }

  KeyFunc key_;
  LessFunc less_;
  std::vector<Entry> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ks::heap
