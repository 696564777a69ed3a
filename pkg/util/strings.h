#pragma once
// Small string helpers shared by the codecs and the command line.

#include <string>
#include <string_view>
#include <vector>

namespace ks {

// Splits on every occurrence of `sep`; empty fields are kept ("a,,b" -> {"a", "", "b"}).
std::vector<std::string_view> split(std::string_view s, char sep);

// Removes leading and trailing ASCII whitespace.
std::string_view trim(std::string_view s);

// ASCII letters lower-cased, other bytes as they are (HTTP header names, scheme and token comparisons).
std::string asciiLower(std::string_view s);

// Joins with `sep` between elements.
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// Quotes a string as Go's %q does for printable ASCII: "a\"b" (used in error messages copied from upstream).
std::string quote(std::string_view s);

}  // namespace ks
