#pragma once
// Go time.Duration text, as metav1.Duration reads and writes it ("15s", "1m30s", "1h0m0s", "500ms").

#include <chrono>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ks::config {

// time.ParseDuration: an optional sign, then one or more <decimal><unit> with units ns, us, µs, ms, s, m, h;
// "0" alone is allowed. Errors read as Go's: time: invalid duration "abc".
Result<std::chrono::nanoseconds> parseGoDuration(std::string_view text);

// time.Duration.String().
std::string formatGoDuration(std::chrono::nanoseconds d);

}  // namespace ks::config
