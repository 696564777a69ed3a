#pragma once
// Turning API server error responses into typed ApiErrors, as client-go's transformResponse:
// a metav1.Status body gives code, reason, message and details.retryAfterSeconds; other bodies
// get the reason the HTTP code implies. A Retry-After header (integer seconds) wins over details.

#include <string>
#include <string_view>

#include "pkg/client/client.h"

namespace ks::client::rest {

ApiError apiErrorFromResponse(int32_t httpStatus, std::string_view body,
                              std::string_view retryAfterHeader = {});

// metav1.StatusReason for an HTTP code without a Status body ("" when none applies).
std::string_view reasonForCode(int32_t httpStatus);

// True for the 409 a Binding gets when the pod is already bound to `node`: after a retried bind
// whose first attempt may have been applied, this means our own binding succeeded.
bool isAlreadyAssignedTo(const ApiError& error, std::string_view node);

}  // namespace ks::client::rest
