#pragma once
// What a Reflector logs, with client-go's reflector messages and verbosities (-v=2 is spdlog debug, -v=4
// trace): kept out of reflector.h so that the template does not drag the logger into every user.

#include <string_view>

#include "pkg/client/client.h"

namespace ks::informer::reflectorlog {

// Builds spdlog's default logger if nothing has logged yet. Reflector::start() calls it on the starting
// thread: otherwise the first reflector threads to log would build it concurrently. That is safe (a
// function-local static), but it happens inside the uninstrumented libspdlog, where ThreadSanitizer cannot
// see the ordering, and TSan reports the logger's construction as racing with its use.
void buildLogger();

// After every successful list (V(2) "Caches populated"): a relist shows up as a second line.
void cachesPopulated(std::string_view reflector, std::string_view resourceVersion);
// A list failed (DefaultWatchErrorHandler: "Failed to watch"; a 410 only at V(4) as "Watch closed").
void listFailed(std::string_view reflector, const client::ApiError& err);
// A watch ended with an error; the level says what happens next (410 Gone: relist at once; transport
// errors, 429 and 5xx: rewatch from the same version after a backoff; anything else: relist after one).
void watchEnded(std::string_view reflector, const client::ApiError& err);
// A watch-list failed before its initial state was complete: V(2) when it is retried after a backoff
// (transport errors, 429), V(4) when the reflector falls back to a list.
void watchListFailed(std::string_view reflector, const client::ApiError& err);

}  // namespace ks::informer::reflectorlog
