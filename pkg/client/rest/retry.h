#pragma once
// When to retry a failed request, as client-go's rest/with_retry.go with the scheduler's needs:
//  - 429 TooManyRequests: any verb, waiting Retry-After when the server sent it;
//  - 5xx responses: any verb (the server answered, so a POST such as a Binding either was not
//    applied or a retry ends in a recognisable 409 — see isAlreadyAssignedTo);
//  - transport errors: reads and idempotent writes always; non-idempotent POSTs only when the
//    request cannot have reached the server (connection refused);
// a server's Retry-After is waited for as sent, up to RetryParams::maxRetries retries (client-go's 10);
// otherwise exponential backoff and jitter, at most min(maxRetries, maxBackoffRetries) retries.
// Note: the transport (http_transport.h) re-sends any request once, invisibly, when a reused pooled
// connection dies before any byte of the response (it assumes the server closed the idle connection),
// as the cpprestsdk transport it replaced did. A POST can therefore reach the server twice; RestClient::bind copes (see
// isAlreadyAssignedTo).

#include <chrono>
#include <cstdint>
#include <optional>

#include "pkg/client/rest/config.h"

namespace ks::client::rest {

enum class RequestKind : uint8_t {
  Read,           // GET (list, get)
  Idempotent,     // PUT with resourceVersion, PATCH that sets fields, DELETE
  NonIdempotent,  // POST (create, binding)
};

struct AttemptOutcome {
  int32_t status = 0;           // HTTP status; 0 = transport error
  bool mayHaveBeenSent = true;  // transport errors only: false when the connection was refused
  std::chrono::seconds retryAfter{0};
};

// The delay of the n-th retry (n >= 1): initialBackoff * 2^(n-1) capped at maxBackoff, plus
// rand01 * jitter of it.
std::chrono::milliseconds backoffDelay(int retry, const RetryParams& params, double rand01);

// Whether retry number `retry` (1 for the first retry) should happen after `outcome`, and after
// how long; nullopt = give up and return the error.
std::optional<std::chrono::milliseconds> retryDelay(RequestKind kind, const AttemptOutcome& outcome,
                                                    int retry, const RetryParams& params, double rand01);

}  // namespace ks::client::rest
