#pragma once
// The parsed form of a CEL expression, shaped like cel-go's AST: macros (has, all, exists, exists_one,
// map, filter, cel.bind) are already expanded into presence tests and comprehensions, so the checker and
// the interpreter see only seven kinds of node. Operators are calls with cel-go's internal names
// ("_&&_", "_[_]", "!_", ...), which is also what compile errors print.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pkg/dra/cel/value.h"

namespace ks::cel {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind : uint8_t { Constant, Ident, Select, Call, List, Map, Comprehension };

struct MapEntry {
  ExprPtr key;
  ExprPtr value;
  bool optional = false;  // {?key: value}
};

struct Expr {
  int64_t id = 0;  // unique per expression; the parser maps it to a source offset
  ExprKind kind = ExprKind::Constant;

  Value constant;    // Constant
  std::string name;  // Ident name, Select field, Call function

  // Select: the operand; Call: the receiver of a member call (null for global calls).
  ExprPtr operand;
  bool testOnly = false;  // Select: has(operand.name)
  bool optionalChain =
      false;  // Select: on an optional value (set by the checker): a step of an optional chain

  std::vector<ExprPtr> args;       // Call arguments, List elements
  std::vector<size_t> optionalAt;  // List: indices of `?elem` entries
  std::vector<MapEntry> entries;   // Map

  // Call: the overloads the checker found for the argument types, tried in order at run time.
  std::vector<const struct Overload*> overloads;
  // Call: `x in <constant list>`, which cel-go plans as a set-membership test that is not charged.
  bool noCallCost = false;

  // Comprehension (cel-go's fold): for iterVar[, iterVar2] in iterRange, accuVar starts at accuInit, and
  // while loopCondition holds, accuVar = loopStep; the value is result.
  std::string iterVar, iterVar2, accuVar;
  ExprPtr iterRange, accuInit, loopCondition, loopStep, result;
};

// Operator function names, as cel-go spells them.
namespace op {
inline constexpr const char* kConditional = "_?_:_";
inline constexpr const char* kLogicalAnd = "_&&_";
inline constexpr const char* kLogicalOr = "_||_";
inline constexpr const char* kLogicalNot = "!_";
inline constexpr const char* kNegate = "-_";
inline constexpr const char* kEquals = "_==_";
inline constexpr const char* kNotEquals = "_!=_";
inline constexpr const char* kLess = "_<_";
inline constexpr const char* kLessEquals = "_<=_";
inline constexpr const char* kGreater = "_>_";
inline constexpr const char* kGreaterEquals = "_>=_";
inline constexpr const char* kIn = "@in";
inline constexpr const char* kAdd = "_+_";
inline constexpr const char* kSubtract = "_-_";
inline constexpr const char* kMultiply = "_*_";
inline constexpr const char* kDivide = "_/_";
inline constexpr const char* kModulo = "_%_";
inline constexpr const char* kIndex = "_[_]";
inline constexpr const char* kOptIndex = "_[?_]";
inline constexpr const char* kOptSelect = "_?._";
inline constexpr const char* kNotStrictlyFalse = "@not_strictly_false";
}  // namespace op

}  // namespace ks::cel
