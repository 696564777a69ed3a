#pragma once
// HeapOptional<T>: std::optional's interface with the value on the heap, for large fields that are rarely
// set (a pod's affinity, its pod-level resources): unset, it costs one pointer instead of sizeof(T). The
// informers keep every pod of the cluster, so bytes per pod are what start-up memory is made of (a 100k-pod
// cluster: ~27 MB for these two fields alone as std::optional). Copies are deep; comparisons compare
// values.

#include <memory>
#include <optional>
#include <utility>

namespace ks::api {

template <typename T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  HeapOptional(const T& v) : p_(std::make_unique<T>(v)) {}  // NOLINT(google-explicit-constructor)
  HeapOptional(T&& v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT(google-explicit-constructor)
  HeapOptional(const std::optional<T>& v) {  // NOLINT(google-explicit-constructor)
    if (v) p_ = std::make_unique<T>(*v);
  }
  HeapOptional(const HeapOptional& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(const HeapOptional& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }
  HeapOptional& operator=(const T& v) {
    p_ = std::make_unique<T>(v);
    return *this;
  }
  HeapOptional& operator=(T&& v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }
  HeapOptional& operator=(const std::optional<T>& v) {
    p_ = v ? std::make_unique<T>(*v) : nullptr;
    return *this;
  }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& value() {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  const T& value() const {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  template <typename... Args>
  T& emplace(Args&&... args) {
    p_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *p_;
  }
  void reset() { p_.reset(); }

  friend bool operator==(const HeapOptional& a, const HeapOptional& b) {
    if (!a.p_ || !b.p_) return !a.p_ && !b.p_;
    return *a.p_ == *b.p_;
  }
  friend bool operator==(const HeapOptional& a, std::nullopt_t) { return !a.p_; }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace ks::api
