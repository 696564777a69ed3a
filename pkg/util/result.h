#pragma once
// Result<T>: a value or an Error, for functions that fail recoverably (bad input, network, API errors).
// Exceptions from third-party libraries are caught at their adapter and turned into an Error with context.

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ks {

// An error whose message already says what went wrong and where ("spec.containers[0].resources: ...").
class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}

  const std::string& message() const { return message_; }

  // Returns this error with "<context>: " in front of its message (e.g. a file name or field path).
  Error wrap(std::string_view context) const {
    std::string m(context);
    m += ": ";
    m += message_;
    return Error(std::move(m));
  }

  bool operator==(const Error&) const = default;

 private:
  std::string message_;
};

// E is the error type: Error by default; the API client uses its typed ApiError.
template <typename T, typename E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(E error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const E& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, E> v_;
};

// Result<void>: success or an error.
template <typename E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(E error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const E& error() const {
    assert(!ok());
    return *error_;
  }

 private:
  std::optional<E> error_;
};

using VoidResult = Result<void>;

}  // namespace ks
