#pragma once
// Go's time.Duration text ("15s", "1m30s", "1h0m0s", "500ms"), as metav1.Duration reads and writes it
// and as CEL's duration() parses it.

#include <chrono>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ks {

// time.ParseDuration: an optional sign, then one or more <decimal><unit> with units ns, us, µs, ms, s, m, h;
// "0" alone is allowed. Errors read as Go's: time: invalid duration "abc".
Result<std::chrono::nanoseconds> parseGoDuration(std::string_view text);

// time.Duration.String().
std::string formatGoDuration(std::chrono::nanoseconds d);

}  // namespace ks
