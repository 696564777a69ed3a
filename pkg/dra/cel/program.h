#pragma once
// A checked, runnable CEL program: check() resolves identifiers, fields and overloads against DRA's
// declarations (the `device` variable and the function registry) and reports cel-go's compile errors;
// Program::eval() interprets the checked tree with cel-go's runtime cost accounting, the cost limit and
// an interruption check every 100 comprehension iterations.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/dra/cel/ast.h"
#include "pkg/dra/cel/parser.h"
#include "pkg/dra/cel/types.h"
#include "pkg/util/result.h"

namespace ks::cel {

inline constexpr const char* kCostLimitExceeded = "operation cancelled: actual cost limit exceeded";
inline constexpr const char* kInterrupted = "operation interrupted";

struct EvalOptions {
  uint64_t costLimit = 1'000'000;  // resourceapi.CELSelectorExpressionMaxCost
  // Polled every 100 comprehension iterations (celconfig.CheckFrequency); true ends the evaluation
  // with "operation interrupted".
  std::function<bool()> interrupted;
};

struct EvalResult {
  Value value;  // an Error value when evaluation failed
  uint64_t actualCost = 0;
};

class Program {
 public:
  // Parses and checks `expression` in DRA's environment (one variable, `device`). On failure the error
  // is cel-go's Issues text ("ERROR: <input>:1:1: ...").
  // `checkOutput` (optional) runs after checking and before planning: an error there is returned as is,
  // as upstream checks the output type before it builds the program.
  static Result<std::shared_ptr<const Program>> compile(
      std::string_view expression,
      const std::function<std::optional<std::string>(const CelType&)>& checkOutput = {});

  const CelType& outputType() const { return outputType_; }
  // Evaluates with `device` bound to `device` (a map with driver, attributes, capacity and
  // allowMultipleAllocations).
  EvalResult eval(const Value& device, const EvalOptions& options) const;

 private:
  Program(ParsedExpr parsed, CelType output) : parsed_(std::move(parsed)), outputType_(std::move(output)) {}
  ParsedExpr parsed_;
  CelType outputType_;
};

}  // namespace ks::cel
