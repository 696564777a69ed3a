#pragma once
// The bearer token, as client-go's cachingTokenSource over a file token source: a token file is
// re-read at most every `refresh` (projected service account tokens are rotated by the kubelet);
// when a re-read fails, the last good token is kept.

#include <chrono>
#include <mutex>
#include <string>

#include "pkg/client/rest/rate_limiter.h"
#include "pkg/util/result.h"

namespace ks::client::rest {

class TokenSource {
 public:
  // `staticToken` is used when `file` is empty or was never read successfully.
  TokenSource(std::string staticToken, std::string file, std::chrono::nanoseconds refresh,
              Clock& clock = Clock::real());

  // The token to send now ("" = none). Thread-safe.
  std::string token();

 private:
  const std::string staticToken_;
  const std::string file_;
  const std::chrono::nanoseconds refresh_;
  Clock& clock_;
  std::mutex mu_;
  std::string cached_;
  bool haveCached_ = false;
  Clock::TimePoint readAt_{};
};

}  // namespace ks::client::rest
