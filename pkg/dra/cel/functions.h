#pragma once
// The functions of DRA's CEL environment: cel-go's standard library and the Kubernetes and cel-go
// extension libraries that v1.37.2's StoredExpressions environment enables. Each overload has the
// signature the checker resolves against, an implementation, and the runtime cost cel-go (with
// Kubernetes' cost estimator) charges for it.
//
// Functions upstream declares that this evaluator does not implement yet are listed by name: an
// expression using one fails to compile with an error saying so, never evaluates differently.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/dra/cel/types.h"
#include "pkg/dra/cel/value.h"

namespace ks::cel {

// Arguments include the receiver first for member-style overloads.
using FunctionImpl = Value (*)(std::span<const Value> args);

struct Overload {
  std::string id;  // cel-go's overload id ("size_string", "string_contains", ...)
  std::string function;
  bool member = false;
  std::vector<CelType> params;  // the receiver first when member
  CelType result;
  FunctionImpl impl = nullptr;
};

class FunctionRegistry {
 public:
  FunctionRegistry();
  // All overloads of a function name, or null when the environment does not declare the name.
  const std::vector<Overload>* find(std::string_view function) const;
  // True when upstream's environment declares `function` but this evaluator does not implement it.
  bool notImplemented(std::string_view function) const;

  // Declares an overload; parameter and result types as CelType::parse reads them.
  void define(const char* function, const char* id, bool member, std::initializer_list<const char*> params,
              const char* result, FunctionImpl impl);

 private:
  std::unordered_map<std::string, std::vector<Overload>> functions_;
};

const FunctionRegistry& functionRegistry();

// Runtime error texts cel-go produces.
inline constexpr const char* kNoSuchOverload = "no such overload";

// The runtime cost of one call as cel-go v0.29.2 with Kubernetes' cost estimator charges it: the ext
// libraries' trackers (by overload id), then library.CostEstimator.CallCost (by function name), then
// cel-go's defaults (by overload id; "" when the checker left several overloads), else 1. Arguments may
// be errors (their size counts as 1).
uint64_t callCost(std::string_view function, std::string_view overloadId, std::span<const Value> args,
                  const Value& result);

// container[key] for a list or map value, with cel-go's errors ("no such key: k", "index out of bounds:
// 5", "unsupported index type 'string' in list", "unsupported index value 0.1 in list").
Value indexValue(const Value& container, const Value& key);

// Go's regexp.Compile error for `pattern` ("error parsing regexp: missing closing ): `(`"), or nullopt
// when it compiles.
std::optional<std::string> regexError(const std::string& pattern);

// ceil(factor * n), cel-go's traversal cost.
uint64_t traversalCost(double factor, size_t n);

// Size of a string in code points, as CEL's size() counts.
int64_t codePointCount(std::string_view s);

}  // namespace ks::cel
