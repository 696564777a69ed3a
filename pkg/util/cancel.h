#pragma once
// A stop request that remembers why it was made (Go's context.WithCancelCause): the first cause wins.
// Long waits take its token(); whoever reports their failure reads cause(). Thread-safe.

#include <mutex>
#include <stop_token>
#include <string>

namespace ks {

class CancelWithCause {
 public:
  // Requests stop with `cause`; false (and the first cause kept) if stop was already requested.
  bool cancel(const std::string& cause);
  std::stop_token token() const { return stop_.get_token(); }
  bool cancelled() const;
  // The first cancel()'s cause, empty while not cancelled.
  std::string cause() const;

 private:
  mutable std::mutex mu_;
  bool requested_ = false;  // guarded by mu_
  std::string cause_;       // guarded by mu_
  std::stop_source stop_;
};

}  // namespace ks
