#pragma once
// Small string helpers shared by the codecs and the command line.

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
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

// A hash map keyed by strings that looks up by std::string_view without allocating.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

}  // namespace ks
