#include "pkg/client/rest/retry.h"

#include <algorithm>
#include <cmath>

namespace ks::client::rest {

std::chrono::milliseconds backoffDelay(int retry, const RetryParams& params, double rand01) {
  const double base =
      static_cast<double>(params.initialBackoff.count()) * std::pow(2.0, std::max(retry - 1, 0));
  const double capped = std::min(base, static_cast<double>(params.maxBackoff.count()));
  const double jittered = capped + std::clamp(rand01, 0.0, 1.0) * params.jitter * capped;
  return std::chrono::milliseconds(static_cast<int64_t>(jittered));
}

std::optional<std::chrono::milliseconds> retryDelay(RequestKind kind, const AttemptOutcome& outcome,
                                                    int retry, const RetryParams& params, double rand01) {
  if (retry > params.maxRetries) return std::nullopt;
  const int32_t s = outcome.status;
  bool retryable = false;
  if (s == 429 || s == 500 || s == 502 || s == 503 || s == 504) {
    retryable = true;
  } else if (s == 0) {
    retryable = kind != RequestKind::NonIdempotent || !outcome.mayHaveBeenSent;
  }
  if (!retryable) return std::nullopt;
  if (s != 0 && outcome.retryAfter.count() > 0) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(outcome.retryAfter);
  }
  if (retry > params.maxBackoffRetries) return std::nullopt;
  return backoffDelay(retry, params, rand01);
}

}  // namespace ks::client::rest
