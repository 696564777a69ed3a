#pragma once
// cel-go's string.format() (ext strings, version 2 and below: the en_US locale of golang.org/x/text for
// %f and %e): the format-string walk shared by the runtime and by the compile-time validator, and the
// runtime formatting of each clause.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "pkg/dra/cel/value.h"

namespace ks::cel {

// A failed format: the message, and (for the validator) the expression it is reported at.
struct FormatFailure {
  std::string message;
  const void* at = nullptr;
};
using FormatOutcome = std::variant<std::string, FormatFailure>;

// Formats the clause for argument `arg` with `verb` (s d f e b x X o) and optional precision.
using ClauseFormatter = std::function<FormatOutcome(size_t arg, char verb, std::optional<int64_t> precision)>;

// Walks `format` as cel-go's parseFormatString: "%%" is a percent sign, every other '%' a clause for the
// next argument. `runtime`: a missing argument fails before the end-of-string check, as at run time
// (the validator's argument list never fails). `clausesSeen` counts the clauses started.
FormatOutcome interpolateFormat(std::string_view format, size_t argCount, bool runtime,
                                const ClauseFormatter& clause, size_t* clausesSeen = nullptr);

// The runtime clause of cel-go's stringFormatter for one argument value.
FormatOutcome formatClause(const Value& arg, char verb, std::optional<int64_t> precision);

// The validator's type errors ("decimal clause can only be used on integers, was given double").
std::string formatTypeError(char verb, std::string_view typeName);

}  // namespace ks::cel
