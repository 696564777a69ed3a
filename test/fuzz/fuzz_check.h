#pragma once
// FUZZ_CHECK: an invariant the fuzz targets assert. A violation prints what broke (and the values
// involved) and aborts, which libFuzzer records as a crash with the input that caused it.

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace ks::fuzz {

[[noreturn]] inline void checkFailed(const char* expr, const char* file, int line, std::string_view a = {},
                                     std::string_view b = {}) {
  std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", file, line, expr);
  if (!a.empty() || !b.empty()) {
    std::fprintf(stderr, "  first:  %.*s\n  second: %.*s\n", static_cast<int>(a.size()), a.data(),
                 static_cast<int>(b.size()), b.data());
  }
  std::abort();
}

}  // namespace ks::fuzz

#define FUZZ_CHECK(cond)                                             \
  do {                                                               \
    if (!(cond)) ::ks::fuzz::checkFailed(#cond, __FILE__, __LINE__); \
  } while (0)

// Asserts two strings are equal, printing both when not.
#define FUZZ_CHECK_EQ_STR(a, b)                                                          \
  do {                                                                                   \
    if ((a) != (b)) ::ks::fuzz::checkFailed(#a " == " #b, __FILE__, __LINE__, (a), (b)); \
  } while (0)
