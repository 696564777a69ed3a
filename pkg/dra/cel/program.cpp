#include "pkg/dra/cel/program.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

#include "pkg/dra/cel/format.h"
#include "pkg/dra/cel/functions.h"

namespace ks::cel {
namespace {

using K = CelType::Kind;

CelType dyn() {
  return CelType::of(K::Dyn);
}

// Type-parameter bindings while matching one overload.
using Bindings = std::map<std::string, CelType>;

// cel-go's legacy nullability: null is assignable to object, opaque, any, timestamp and duration types.
bool nullable(const CelType& t) {
  switch (t.kind) {
    case K::Any:
    case K::Optional:
    case K::Quantity:
    case K::Semver:
    case K::Timestamp:
    case K::Duration:
    case K::Device:
    case K::IP:
    case K::CIDR:
    case K::URL:
    case K::NamedFormat:
      return true;
    default:
      return false;
  }
}

bool assignable(const CelType& param, const CelType& arg, Bindings& b) {
  if (param.kind == K::Param) {
    if (arg.kind == K::Error) return true;
    auto it = b.find(param.param);
    if (it == b.end()) {
      b.emplace(param.param, arg);
      return true;
    }
    // A free variable unifies with the binding; a binding with free variables takes the argument's
    // more specific type.
    if (arg.kind == K::Free) return true;
    if (it->second.containsFree() && !arg.containsFree() && assignable(it->second, arg, b)) {
      it->second = arg;
      return true;
    }
    // cel-go's mostGeneral(arg, bound): a dyn or any argument replaces the binding (the last one wins);
    // a specific argument leaves a dyn or any binding as it is.
    if (arg.isDyn()) {
      it->second = arg;
      return true;
    }
    if (it->second.isDyn()) return true;
    return assignable(it->second, arg, b);
  }
  if (param.isDyn() || arg.isDyn() || arg.kind == K::Error) return true;
  if ((param.kind == K::Null && nullable(arg)) || (arg.kind == K::Null && nullable(param))) return true;
  if (param.kind != arg.kind) return false;
  if (param.kind == K::Type) return true;  // type(list(dyn)) == type(map(dyn, dyn)) checks
  if (param.params.size() != arg.params.size()) return false;
  for (size_t i = 0; i < param.params.size(); ++i)
    if (!assignable(param.params[i], arg.params[i], b)) return false;
  return true;
}

CelType substitute(const CelType& t, const Bindings& b) {
  if (t.kind == K::Param) {
    auto it = b.find(t.param);
    return it == b.end() ? CelType::of(K::Free) : it->second;
  }
  CelType out = t;
  for (CelType& p : out.params) p = substitute(p, b);
  return out;
}

// The first type parameter, as a new value: `t = t.params.at(0)` would free the vector it copies from.
CelType firstParam(const CelType& t) {
  return t.params.at(0);
}

// The type both a and b fit: equal types stay, a free variable takes the other type, anything else is
// dyn.
CelType join(const CelType& a, const CelType& b) {
  if (a == b) return a;
  if (a.kind == K::Error || a.kind == K::Free) return b;
  if (b.kind == K::Error || b.kind == K::Free) return a;
  if ((a.containsFree() || b.containsFree()) && a.kind == b.kind && a.params.size() == b.params.size()) {
    CelType out = a;
    for (size_t i = 0; i < a.params.size(); ++i) out.params[i] = join(a.params[i], b.params[i]);
    return out;
  }
  return dyn();
}

bool isAuthzFunction(std::string_view name) {
  static const std::set<std::string, std::less<>> names = {
      "check",       "allowed",   "reason", "errored", "error",          "group",         "resource",
      "subresource", "namespace", "name",   "path",    "serviceAccount", "fieldSelector", "labelSelector"};
  return names.contains(name);
}

// The type names CEL declares as identifiers (type constants): `type(x) == int`.
std::optional<CelType> typeIdentifier(std::string_view name) {
  static const std::map<std::string, CelType, std::less<>> types = {
      {"int", CelType::of(K::Int)},
      {"uint", CelType::of(K::Uint)},
      {"double", CelType::of(K::Double)},
      {"bool", CelType::of(K::Bool)},
      {"string", CelType::of(K::String)},
      {"bytes", CelType::of(K::Bytes)},
      {"null_type", CelType::of(K::Null)},
      {"type", CelType::of(K::Type)},
      {"list", CelType::list(CelType::of(K::Dyn))},
      {"map", CelType::map(CelType::of(K::Dyn), CelType::of(K::Dyn))},
      {"optional_type", CelType{K::Optional, {CelType::of(K::Dyn)}, {}}},
      {"google.protobuf.Timestamp", CelType::of(K::Timestamp)},
      {"google.protobuf.Duration", CelType::of(K::Duration)},
      {"net.IP", CelType::of(K::IP)},
      {"net.CIDR", CelType::of(K::CIDR)},
      {"timestamp", CelType::of(K::Timestamp)},
      {"duration", CelType::of(K::Duration)},
  };
  auto it = types.find(name);
  if (it == types.end()) return std::nullopt;
  return CelType{K::Type, {it->second}, {}};
}

// The name type() gives values of the type a type identifier names ("timestamp" is an alias).
std::string runtimeTypeName(const std::string& identifier) {
  if (identifier == "timestamp") return "google.protobuf.Timestamp";
  if (identifier == "duration") return "google.protobuf.Duration";
  return identifier;
}

CelType deviceFieldType(std::string_view field, bool& known) {
  known = true;
  if (field == "driver") return CelType::of(K::String);
  if (field == "allowMultipleAllocations") return CelType::of(K::Bool);
  if (field == "attributes")
    return CelType::map(CelType::of(K::String), CelType::map(CelType::of(K::String), CelType::of(K::Dyn)));
  if (field == "capacity")
    return CelType::map(CelType::of(K::String),
                        CelType::map(CelType::of(K::String), CelType::of(K::Quantity)));
  known = false;
  return CelType::of(K::Error);
}

class Checker {
 public:
  Checker(const SourceInfo& source, Issues& issues) : source_(source), issues_(issues) {}

  CelType check(Expr& e) {
    CelType t = checkKind(e);
    types_[&e] = t;
    return t;
  }

 private:
  CelType checkKind(Expr& e) {
    switch (e.kind) {
      case ExprKind::Constant:
        return constantType(e.constant);
      case ExprKind::Ident:
        return ident(e);
      case ExprKind::Select:
        return select(e);
      case ExprKind::Call:
        return call(e);
      case ExprKind::List:
        return list(e);
      case ExprKind::Map:
        return map(e);
      case ExprKind::Comprehension:
        return comprehension(e);
    }
    return dyn();
  }

  static CelType constantType(const Value& v) {
    switch (v.kind()) {
      case Value::Kind::Null:
        return CelType::of(K::Null);
      case Value::Kind::Bool:
        return CelType::of(K::Bool);
      case Value::Kind::Int:
        return CelType::of(K::Int);
      case Value::Kind::Uint:
        return CelType::of(K::Uint);
      case Value::Kind::Double:
        return CelType::of(K::Double);
      case Value::Kind::String:
        return CelType::of(K::String);
      case Value::Kind::Bytes:
        return CelType::of(K::Bytes);
      default:
        return dyn();
    }
  }

  void error(const Expr& at, std::string message) {
    issues_.add(source_.offsetOf(at.id), std::move(message));
  }

  CelType ident(Expr& e) {
    if (e.name.starts_with(".")) {
      // A leading dot names the root scope: `.device`.
      const std::string root = e.name.substr(1);
      if (root == "device") {
        e.name = root;
        return CelType::of(K::Device);
      }
    }
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (it->first == e.name) return it->second;
    if (e.name == "device") return CelType::of(K::Device);
    if (auto t = typeIdentifier(e.name)) return *t;
    if (e.name.starts_with("google.protobuf.") || e.name.starts_with(".google.protobuf.")) {
      // A message literal of a protobuf well-known type (wrappers, Struct, Value, Any, ...): cel-go
      // knows these in every environment; this evaluator does not build them.
      error(e, "message type '" + e.name + "' is not supported by kube-scheduler-cpp's CEL evaluator yet");
      return CelType::of(K::Error);
    }
    error(e, "undeclared reference to '" + e.name + "' (in container '')");
    return CelType::of(K::Error);
  }

  // "a.b.c" for a chain of field selections on an identifier, else nullopt.
  static std::optional<std::string> qualifiedName(const Expr& e) {
    if (e.kind == ExprKind::Ident) return e.name;
    if (e.kind != ExprKind::Select || e.testOnly) return std::nullopt;
    auto operand = qualifiedName(*e.operand);
    if (!operand) return std::nullopt;
    return *operand + "." + e.name;
  }

  CelType select(Expr& e) {
    // A.B where A is not a variable may be a namespaced name: the only ones in DRA's environment that are
    // values are type constants (google.protobuf.Timestamp, net.IP, ...).
    if (auto name = qualifiedName(e); name && !e.testOnly && typeIdentifier(*name)) {
      const Expr* root = e.operand.get();
      while (root->kind == ExprKind::Select) root = root->operand.get();
      if (!isVariable(root->name)) {
        e.kind = ExprKind::Ident;
        e.name = *name;
        e.operand.reset();
        return *typeIdentifier(*name);
      }
    }
    CelType operand = check(*e.operand);
    // Selecting on an optional (after `.?`) selects on its value and stays optional; has() tests the
    // field of its value.
    const bool optional = operand.kind == K::Optional;
    if (optional) operand = firstParam(operand);
    e.optionalChain = optional && !e.testOnly;
    const CelType result = fieldType(e, operand, e.name);
    if (e.testOnly) return CelType::of(K::Bool);
    return optional && result.kind != K::Error ? CelType{K::Optional, {result}, {}} : result;
  }

  CelType fieldType(const Expr& e, const CelType& operand, const std::string& field) {
    CelType result;
    switch (operand.kind) {
      case K::Device: {
        bool known = false;
        result = deviceFieldType(field, known);
        if (!known) error(e, "undefined field '" + field + "'");
        break;
      }
      case K::Map:
        result = operand.params[1];
        break;
      case K::Dyn:
      case K::Any:
      case K::Free:
      case K::Error:
        result = dyn();  // an error operand too, so that checking goes on
        break;
      default:
        error(e, "type '" + operand.toString() + "' does not support field selection");
        result = CelType::of(K::Error);
    }
    return result;
  }

  CelType call(Expr& e) {
    // Namespaced global functions (sets.contains, strings.quote, ...) parse as member calls on an
    // identifier that is not a variable.
    if (e.operand && e.operand->kind == ExprKind::Ident && !isVariable(e.operand->name)) {
      const std::string qualified = e.operand->name + "." + e.name;
      if (functionRegistry().find(qualified) || functionRegistry().notImplemented(qualified)) {
        e.name = qualified;
        e.operand.reset();
      }
    }
    std::vector<CelType> argTypes;
    // Literals anywhere inside a format() call are exempt from the homogeneous-literal validator.
    const bool format = e.name == "format";
    formatDepth_ += format;
    // cel-go checks the arguments before the receiver (which orders its errors).
    for (ExprPtr& a : e.args) argTypes.push_back(check(*a));
    if (e.operand) argTypes.insert(argTypes.begin(), check(*e.operand));
    formatDepth_ -= format;
    if (format && e.operand && e.args.size() == 1) formatCalls_.push_back(&e);

    if (e.name == op::kLogicalAnd || e.name == op::kLogicalOr || e.name == op::kNotStrictlyFalse) {
      // cel-go checks each operand of && and || against bool, at the operand.
      for (size_t i = 0; i < argTypes.size(); ++i) {
        if (argTypes[i].kind != K::Bool && !argTypes[i].isDyn() && argTypes[i].kind != K::Error)
          error(*e.args[i], "expected type 'bool' but found '" + argTypes[i].toString() + "'");
      }
      return CelType::of(K::Bool);
    }
    if (e.name == op::kConditional) {
      // cel-go declares it as (bool, A, A) -> A.
      Bindings b;
      const CelType a = CelType{K::Param, {}, "A"};
      if (!assignable(CelType::of(K::Bool), argTypes[0], b) || !assignable(a, argTypes[1], b) ||
          !assignable(a, argTypes[2], b)) {
        noMatchingOverload(e, argTypes);
        return CelType::of(K::Error);
      }
      return substitute(a, b);
    }

    validateLiteralArgument(e);
    // `.f()` names the root scope's f (a leading dot stays in the name of an undeclared function).
    if (!e.operand && e.name.starts_with(".") && functionRegistry().find(std::string_view(e.name).substr(1)))
      e.name.erase(0, 1);
    if (e.name == op::kOptSelect && argTypes.size() == 2) {
      CelType operand = argTypes[0];
      if (operand.kind == K::Optional) operand = firstParam(operand);
      const CelType field = fieldType(e, operand, e.args[1]->constant.text());
      return field.kind == K::Error ? field : CelType{K::Optional, {field}, {}};
    }
    if ((e.name == op::kOptIndex || e.name == op::kIndex) && argTypes.size() == 2 &&
        (e.name == op::kOptIndex || argTypes[0].kind == K::Optional)) {
      // x[?k] and an index on an optional: the element (or value) type, optional.
      CelType operand = argTypes[0];
      if (operand.kind == K::Optional) operand = firstParam(operand);
      CelType elem;
      if (operand.kind == K::List) {
        elem = operand.params[0];
      } else if (operand.kind == K::Map) {
        elem = operand.params[1];
      } else if (operand.kind == K::Free) {
        elem = operand;
      } else if (operand.isDyn() || operand.kind == K::Error) {
        elem = dyn();
      } else {
        noMatchingOverload(e, argTypes);
        return CelType::of(K::Error);
      }
      return CelType{K::Optional, {elem}, {}};
    }
    const std::vector<Overload>* overloads = functionRegistry().find(e.name);
    if (!overloads && isAuthzFunction(e.name)) {
      // Kubernetes' authz library is declared, but nothing of type Authorizer exists in DRA's environment
      // (`authorizer` is undeclared): after that error nothing more; otherwise no overload fits.
      for (const CelType& t : argTypes)
        if (t.kind == K::Error) return t;
      noMatchingOverload(e, argTypes);
      return CelType::of(K::Error);
    }
    if (!overloads) {
      if (functionRegistry().notImplemented(e.name)) {
        error(e, "function '" + e.name + "' is not supported by kube-scheduler-cpp's CEL evaluator yet");
      } else {
        error(e, "undeclared reference to '" + e.name + "' (in container '')");
      }
      return CelType::of(K::Error);
    }
    std::optional<CelType> result;
    for (const Overload& o : *overloads) {
      if (o.member != (e.operand != nullptr) || o.params.size() != argTypes.size()) continue;
      Bindings b;
      bool ok = true;
      for (size_t i = 0; i < argTypes.size() && ok; ++i) ok = assignable(o.params[i], argTypes[i], b);
      if (!ok) continue;
      e.overloads.push_back(&o);
      const CelType r = substitute(o.result, b);
      result = result ? join(*result, r) : r;
    }
    if (e.overloads.empty()) {
      noMatchingOverload(e, argTypes);
      return CelType::of(K::Error);
    }
    return *result;
  }

  // cel-go's literal validators (ValidateDurationLiterals, ValidateTimestampLiterals,
  // ValidateRegexLiterals): a constant argument of duration() or timestamp() must convert, a constant
  // pattern of matches() must compile. Reported only when checking found no error.
  void validateLiteralArgument(const Expr& e) {
    if (e.name == "matches") {
      const Expr* pattern = e.operand ? (e.args.size() == 1 ? e.args[0].get() : nullptr)
                                      : (e.args.size() == 2 ? e.args[1].get() : nullptr);
      if (pattern && pattern->kind == ExprKind::Constant && pattern->constant.kind() == Value::Kind::String &&
          regexError(pattern->constant.text())) {
        validatorIssues_.emplace_back(pattern, "invalid matches argument");
      }
      return;
    }
    if ((e.name != "duration" && e.name != "timestamp") || e.operand || e.args.empty() ||
        e.args[0]->kind != ExprKind::Constant)
      return;
    if (!literalConverts(e.name, e.args[0]->constant))
      validatorIssues_.emplace_back(e.args[0].get(), "invalid " + e.name + " argument");
  }

  static bool literalConverts(const std::string& function, const Value& literal) {
    for (const Overload& o : *functionRegistry().find(function)) {
      if (o.params.size() == 1 && runtimeKindMatches(o.params[0], literal))
        return !o.impl(std::span<const Value>(&literal, 1)).isError();
    }
    return false;
  }

  void noMatchingOverload(const Expr& e, const std::vector<CelType>& args) {
    std::string list;
    const size_t first = e.operand ? 1 : 0;
    for (size_t i = first; i < args.size(); ++i) list += (i > first ? ", " : "") + args[i].toString();
    const std::string applied = e.operand ? args[0].toString() + ".(" + list + ")" : "(" + list + ")";
    error(e, "found no matching overload for '" + e.name + "' applied to '" + applied + "'");
  }

  // cel-go types a literal with the join of its elements (dyn when they differ); the homogeneous-
  // literal validator (ValidateHomogeneousAggregateLiterals) then reports, only when checking found no
  // error, the first element of each list whose type differs from the first one's, and every map key
  // and value that differs from the first entry's.
  static bool equivalentType(const CelType& a, const CelType& b) {
    if (a.kind != b.kind || a.params.size() != b.params.size()) return false;
    for (size_t i = 0; i < a.params.size(); ++i) {
      // optional.none() leaves its type parameter free (cel-go unifies it; dyn here).
      if (a.kind == K::Optional && (a.params[i].isDyn() || b.params[i].isDyn())) continue;
      if (!equivalentType(a.params[i], b.params[i])) return false;
    }
    return a.kind != K::Param || a.param == b.param;
  }

  CelType list(Expr& e) {
    std::optional<CelType> first, joined;
    bool reported = false;
    for (size_t i = 0; i < e.args.size(); ++i) {
      ExprPtr& a = e.args[i];
      CelType t = check(*a);
      const bool optionalEntry = std::find(e.optionalAt.begin(), e.optionalAt.end(), i) != e.optionalAt.end();
      if (optionalEntry) t = unwrapOptionalEntry(*a, t);
      // ?optional.none(): its free type parameter unifies with the other elements in cel-go.
      if (optionalEntry && (t.kind == K::Dyn || t.kind == K::Free)) continue;
      if (!first) {
        first = joined = t;
        continue;
      }
      if (!reported && formatDepth_ == 0 && !equivalentType(*first, t)) {
        validatorIssues_.emplace_back(
            a.get(), "expected type '" + first->toString() + "' but found '" + t.toString() + "'");
        reported = true;
      }
      if (!(*joined == t)) joined = dyn();
    }
    return CelType::list(joined && joined->kind != K::Error ? *joined : CelType::of(K::Free));
  }

  CelType map(Expr& e) {
    std::optional<CelType> firstKey, firstValue, key, value;
    for (MapEntry& entry : e.entries) {
      const CelType k = check(*entry.key);
      CelType v = check(*entry.value);
      if (entry.optional) v = unwrapOptionalEntry(*entry.value, v);
      if (!firstKey) {
        firstKey = key = k;
      } else {
        if (formatDepth_ == 0 && !equivalentType(*firstKey, k))
          validatorIssues_.emplace_back(entry.key.get(), "expected type '" + firstKey->toString() +
                                                             "' but found '" + k.toString() + "'");
        if (!(*key == k)) key = dyn();
      }
      // ?optional.none(): its free type parameter unifies with the other values, as for lists.
      if (entry.optional && (v.kind == K::Dyn || v.kind == K::Free)) continue;
      if (!firstValue) {
        firstValue = value = v;
        continue;
      }
      if (formatDepth_ == 0 && !equivalentType(*firstValue, v))
        validatorIssues_.emplace_back(entry.value.get(), "expected type '" + firstValue->toString() +
                                                             "' but found '" + v.toString() + "'");
      if (!(*value == v)) value = dyn();
    }
    return CelType::map(key ? *key : CelType::of(K::Free), value ? *value : CelType::of(K::Free));
  }

  // The element type of a `?x` list element or map value: x must be optional (or dyn).
  CelType unwrapOptionalEntry(const Expr& at, const CelType& t) {
    if (t.kind == K::Optional) return firstParam(t);
    if (!t.isDyn())
      error(at, "expected type 'optional_type(" + t.toString() + ")' but found '" + t.toString() + "'");
    return t;
  }

 public:
  // Reports the validators' findings when checking found no error.
  void validate() {
    if (!issues_.empty()) return;
    for (const auto& [at, message] : validatorIssues_) error(*at, message);
    for (const Expr* call : formatCalls_) validateFormatCall(*call);
  }

 private:
  CelType comprehension(Expr& e) {
    const CelType range = check(*e.iterRange);
    CelType var1 = dyn(), var2 = dyn();
    if (range.kind == K::List) {
      if (e.iterVar2.empty()) {
        var1 = range.params[0];
      } else {
        var1 = CelType::of(K::Int);
        var2 = range.params[0];
      }
    } else if (range.kind == K::Map) {
      var1 = range.params[0];
      var2 = range.params[1];
    } else if (!range.isDyn() && range.kind != K::Error) {
      error(*e.iterRange, "expression of type '" + range.toString() +
                              "' cannot be range of a comprehension (must be list, map, or dynamic)");
    }
    const CelType init = check(*e.accuInit);
    // The result accumulator of map/filter starts as `[]`, whose element type the step decides (cel-go
    // unifies a type variable); other accumulators (cel.bind's variable) have their initializer's type.
    const bool resultAccu = e.accuVar == "__result__" || e.accuVar == "@result";
    const bool emptyAggregate = (init.kind == K::List && init.params[0].isDyn()) ||
                                (init.kind == K::Map && init.params[0].isDyn() && init.params[1].isDyn());
    // An empty literal's element types are free: the step decides them.
    scopes_.emplace_back(e.accuVar, init);
    (void)resultAccu;
    (void)emptyAggregate;
    scopes_.emplace_back(e.iterVar, var1);
    if (!e.iterVar2.empty()) scopes_.emplace_back(e.iterVar2, var2);
    check(*e.loopCondition);
    const CelType step = check(*e.loopStep);
    if (!e.iterVar2.empty()) scopes_.pop_back();
    scopes_.pop_back();
    // The accumulator's type is what the step makes of it.
    scopes_.back().second = join(init, step).kind == K::Dyn && (init.kind == K::List || init.kind == K::Map)
                                ? step
                                : join(init, step);
    const CelType result = check(*e.result);
    scopes_.pop_back();
    return result;
  }

  // cel-go's string.format validator: a constant format string applied to a list literal must have a
  // clause for every element, and each element's static type must suit its clause.
  void validateFormatCall(const Expr& call) {
    const Expr& format = *call.operand;
    const Expr& list = *call.args[0];
    if (format.kind != ExprKind::Constant || format.constant.kind() != Value::Kind::String ||
        list.kind != ExprKind::List)
      return;
    size_t clauses = 0;
    FormatOutcome out = interpolateFormat(
        format.constant.text(), list.args.size(), false,
        [&](size_t i, char verb, std::optional<int64_t>) -> FormatOutcome {
          const Expr* bad = verb == 's' ? unformattableAsString(*list.args[i]) : nullptr;
          if (verb != 's' && !typeSuitsClause(types_.at(list.args[i].get()), verb)) bad = list.args[i].get();
          if (!bad) return std::string();
          return FormatFailure{formatTypeError(verb, checkedTypeName(types_.at(bad))), bad};
        },
        &clauses);
    if (auto* f = std::get_if<FormatFailure>(&out)) {
      error(f->at ? *static_cast<const Expr*>(f->at) : call, f->message);
    } else if (list.args.size() > clauses) {
      error(call, "too many arguments supplied to string.format (expected " + std::to_string(clauses) +
                      ", got " + std::to_string(list.args.size()) + ")");
    }
  }

  static bool typeSuitsClause(const CelType& t, char verb) {
    if (t.kind == K::Dyn) return true;
    switch (verb) {
      case 'd':
      case 'o':
        return t.kind == K::Int || t.kind == K::Uint;
      case 'f':
      case 'e':
        return t.kind == K::Double || t.kind == K::String;
      case 'b':
        return t.kind == K::Int || t.kind == K::Uint || t.kind == K::Bool;
      case 'x':
      case 'X':
        return t.kind == K::Int || t.kind == K::Uint || t.kind == K::String || t.kind == K::Bytes;
      default:
        return t.kind == K::List || t.kind == K::Map || t.kind == K::Int || t.kind == K::Uint ||
               t.kind == K::Double || t.kind == K::Bool || t.kind == K::String || t.kind == K::Timestamp ||
               t.kind == K::Bytes || t.kind == K::Duration || t.kind == K::Type || t.kind == K::Null;
    }
  }

  // The first expression of a %s argument (into list and map literals) whose type %s cannot format.
  const Expr* unformattableAsString(const Expr& e) const {
    if (!typeSuitsClause(types_.at(&e), 's')) return &e;
    if (e.kind == ExprKind::List) {
      for (const ExprPtr& a : e.args)
        if (const Expr* bad = unformattableAsString(*a)) return bad;
    }
    if (e.kind == ExprKind::Map) {
      for (const MapEntry& m : e.entries) {
        if (const Expr* bad = unformattableAsString(*m.key)) return bad;
        if (const Expr* bad = unformattableAsString(*m.value)) return bad;
      }
    }
    return nullptr;
  }

  // cel-go's Type.TypeName() of a checked type.
  static std::string checkedTypeName(const CelType& t) {
    switch (t.kind) {
      case K::List:
        return "list";
      case K::Map:
        return "map";
      case K::Optional:
        return "optional_type";
      case K::Type:
        return "type";
      default:
        return t.typeName();
    }
  }

  bool isVariable(const std::string& name) const {
    if (name == "device") return true;
    for (const auto& s : scopes_)
      if (s.first == name) return true;
    return false;
  }

  const SourceInfo& source_;
  Issues& issues_;
  std::vector<std::pair<std::string, CelType>> scopes_;
  std::vector<std::pair<const Expr*, std::string>> validatorIssues_;
  std::unordered_map<const Expr*, CelType> types_;  // every checked expression's type
  std::vector<const Expr*> formatCalls_;
  int formatDepth_ = 0;
};

// The interpreter -----------------------------------------------------------------------------------

// The runtime error when no overload fits the argument values, worded as cel-go's paths word it: the
// standard library's operators are singletons bound to a trait of the first argument ("no such overload:
// _+_" when it lacks the trait, the trait method's plain "no such overload" when it has it but the other
// argument does not fit); every other function dispatches over its overloads ("no such overload:
// charAt(int, int)", the argument types in order, the receiver first).
Value noSuchOverload(const std::string& fn, const std::vector<Value>& args, bool constantPattern) {
  using VK = Value::Kind;
  const auto isReceiver = [](VK k) { return k == VK::String || k == VK::Timestamp || k == VK::Duration; };
  static const std::map<std::string, std::set<VK>, std::less<>> traits = {
      {"_+_", {VK::Int, VK::Uint, VK::Double, VK::String, VK::Bytes, VK::List, VK::Timestamp, VK::Duration}},
      {"_-_", {VK::Int, VK::Uint, VK::Double, VK::Timestamp, VK::Duration}},
      {"_*_", {VK::Int, VK::Uint, VK::Double}},
      {"_/_", {VK::Int, VK::Uint, VK::Double}},
      {"_%_", {VK::Int, VK::Uint}},
      {"_<_", {VK::Bool, VK::Int, VK::Uint, VK::Double, VK::String, VK::Bytes, VK::Timestamp, VK::Duration}},
      {"_<=_", {VK::Bool, VK::Int, VK::Uint, VK::Double, VK::String, VK::Bytes, VK::Timestamp, VK::Duration}},
      {"_>_", {VK::Bool, VK::Int, VK::Uint, VK::Double, VK::String, VK::Bytes, VK::Timestamp, VK::Duration}},
      {"_>=_", {VK::Bool, VK::Int, VK::Uint, VK::Double, VK::String, VK::Bytes, VK::Timestamp, VK::Duration}},
      {"size", {VK::String, VK::Bytes, VK::List, VK::Map}},
      {"matches", {VK::String}},
  };
  // Plain: `in`, `!`, `-` (their bindings check the types themselves), contains/startsWith/endsWith
  // (type guards disabled), and matches/find/findAll with a constant pattern (the regex optimizer's
  // replacement call checks its receiver itself).
  if (fn == op::kIn || fn == op::kLogicalNot || fn == op::kIndex || fn == op::kNegate || fn == "contains" ||
      fn == "startsWith" || fn == "endsWith" ||
      (constantPattern && (fn == "matches" || fn == "find" || fn == "findAll")))
    return Value::error(kNoSuchOverload);
  if (auto it = traits.find(fn); it != traits.end()) {
    // A first argument with the trait, or a traits.Receiver (string, timestamp, duration), answers with
    // the plain error.
    if (!args.empty() && (it->second.contains(args[0].kind()) || isReceiver(args[0].kind())))
      return Value::error(kNoSuchOverload);
    return Value::error(std::string(kNoSuchOverload) + ": " + fn);
  }
  std::string signature;
  for (size_t i = 0; i < args.size(); ++i) signature += (i ? ", " : "") + std::string(args[i].typeName());
  return Value::error(std::string(kNoSuchOverload) + ": " + fn + "(" + signature + ")");
}

class Interpreter {
 public:
  Interpreter(const Value& device, const EvalOptions& options) : device_(device), options_(options) {}

  Value eval(const Expr& e) {
    if (aborted_) return abortValue();
    switch (e.kind) {
      case ExprKind::Constant:
        return e.constant;
      case ExprKind::Ident: {
        if (!isBound(e.name) && typeIdentifier(e.name))  // a constant: no cost
          return Value::type(runtimeTypeName(e.name));
        charge(1);
        return lookup(e.name);
      }
      case ExprKind::Select:
        return select(e);
      case ExprKind::Call:
        return call(e);
      case ExprKind::List:
      case ExprKind::Map: {
        // cel-go's observer charges a literal after its elements (also when one failed).
        Value v = e.kind == ExprKind::List ? listLiteral(e) : mapLiteral(e);
        charge(e.kind == ExprKind::List ? 10 : 30);
        return aborted_ ? abortValue() : v;
      }
      case ExprKind::Comprehension:
        return comprehension(e);
    }
    return Value::error("unknown expression");
  }

  uint64_t cost() const { return cost_; }

 private:
  Value listLiteral(const Expr& e) {
    ValueList items;
    items.reserve(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i) {
      Value v = eval(*e.args[i]);
      if (v.isError()) return v;
      if (std::find(e.optionalAt.begin(), e.optionalAt.end(), i) != e.optionalAt.end() &&
          v.kind() == Value::Kind::Optional) {
        // [?x]: the value when x has one, nothing otherwise.
        if (v.optionalValue()) items.push_back(*v.optionalValue());
        continue;
      }
      items.push_back(std::move(v));
    }
    return Value::list(std::move(items));
  }

  Value mapLiteral(const Expr& e) {
    std::vector<std::pair<Value, Value>> entries;
    for (const MapEntry& m : e.entries) {
      Value k = eval(*m.key);
      if (k.isError()) return k;
      Value v = eval(*m.value);
      if (v.isError()) return v;
      if (m.optional && v.kind() == Value::Kind::Optional) {
        // {?k: v}: the entry only when v has a value.
        if (!v.optionalValue()) continue;
        v = *v.optionalValue();
      }
      entries.emplace_back(std::move(k), std::move(v));  // EntryMap keeps the last value of a key
    }
    return Value::map(std::make_shared<const EntryMap>(std::move(entries)));
  }

 public:
  bool aborted() const { return aborted_; }

 private:
  Value abortValue() const { return Value::error(abortMessage_); }

  void abort(const char* message) {
    if (!aborted_) {
      aborted_ = true;
      abortMessage_ = message;
    }
  }

  // cel-go checks the limit after each step and stops there: the cost of the step that crossed it is
  // the last one counted.
  void charge(uint64_t c) {
    if (aborted_) return;
    cost_ += c;
    if (cost_ > options_.costLimit) abort(kCostLimitExceeded);
  }

  bool isBound(const std::string& name) const {
    if (name == "device") return true;
    for (const auto& v : vars_)
      if (v.first == name) return true;
    return false;
  }

  Value lookup(const std::string& name) {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
      if (it->first == name) return it->second;
    if (name == "device") return device_;
    return Value::error("no such attribute(s): " + name);
  }

  // A select or index whose operand is not itself an identifier, select or index starts a relative
  // attribute in cel-go, which costs 1 more than its qualifiers.
  static bool isAttribute(const Expr& e) {
    return e.kind == ExprKind::Ident || (e.kind == ExprKind::Select && !e.testOnly) ||
           (e.kind == ExprKind::Call && !e.operand &&
            (e.name == op::kIndex || e.name == op::kOptIndex || e.name == op::kOptSelect));
  }

  Value select(const Expr& e) {
    const uint64_t before = cost_;
    Value operand = eval(*e.operand);
    if (aborted_) return abortValue();
    if (!isAttribute(*e.operand)) charge(1);
    if (operand.isError()) {
      // has(x.f) is one test-only attribute in cel-go: resolving it stops at the failure before its last
      // step is counted.
      if (e.testOnly && isAttribute(*e.operand) && cost_ > before) --cost_;
      return operand;
    }
    // A presence test costs nothing; an optional qualifier only when present.
    if (operand.kind() == Value::Kind::Optional && e.testOnly) {
      const Value* inner = operand.optionalValue();
      const bool present = inner && inner->kind() == Value::Kind::Map &&
                           inner->mapValue().find(Value::string(e.name)).has_value();
      // cel-go's optional chain counts its last step only when the tested field is there.
      if (!present && isOptionalChainStep(*e.operand) && cost_ > before) --cost_;
      return Value::boolean(present);
    }
    if (operand.kind() == Value::Kind::Optional && !e.testOnly) {
      // After `.?`, the chain's qualifiers apply only if present: none stays none, a missing key gives none.
      if (!operand.optionalValue()) return operand;
      Value r = qualifyIfPresent(*operand.optionalValue(), Value::string(e.name));
      if (r.kind() == Value::Kind::Optional && r.optionalValue()) charge(1);
      return r;
    }
    if (!e.testOnly) charge(1);
    if (operand.kind() != Value::Kind::Map)
      return e.testOnly ? Value::boolean(false) : Value::error(kNoSuchOverload);
    const Value key = Value::string(e.name);
    auto v = operand.mapValue().find(key);
    if (e.testOnly) return Value::boolean(v.has_value());
    if (!v) return Value::error("no such key: " + e.name);
    return *v;
  }

  static bool isOptionalChainStep(const Expr& e) {
    return (e.kind == ExprKind::Select && e.optionalChain) ||
           (e.kind == ExprKind::Call && !e.operand && (e.name == op::kOptSelect || e.name == op::kOptIndex));
  }

  // An index key. cel-go qualifies by a key that is itself an attribute (a variable, a select chain)
  // directly, so the key's root costs nothing of its own.
  Value evalQualifierKey(const Expr& key) {
    const uint64_t before = cost_;
    Value k = eval(key);
    if (isAttribute(key) && cost_ > before) --cost_;
    return k;
  }

  // A qualifier of an optional chain: optional.of(the value) when `key` is present, else optional.none().
  static Value qualifyIfPresent(const Value& operand, const Value& key) {
    if (operand.kind() == Value::Kind::Map) {
      auto v = operand.mapValue().find(key);
      return v ? Value::optionalOf(*v) : Value::optionalNone();
    }
    if (operand.kind() == Value::Kind::List) {
      std::optional<int64_t> i;
      if (key.kind() == Value::Kind::Int) i = key.asInt();
      if (key.kind() == Value::Kind::Uint && key.asUint() <= INT64_MAX)
        i = static_cast<int64_t>(key.asUint());
      if (key.kind() == Value::Kind::Double && std::trunc(key.asDouble()) == key.asDouble() &&
          std::abs(key.asDouble()) < 9.2e18)
        i = static_cast<int64_t>(key.asDouble());
      if (!i) return Value::error(kNoSuchOverload);
      const auto& items = operand.items();
      if (*i < 0 || *i >= static_cast<int64_t>(items.size())) return Value::optionalNone();
      return Value::optionalOf(items[static_cast<size_t>(*i)]);
    }
    if (operand.isError()) return operand;
    // cel-go's refQualify: an optional qualifier on anything else finds nothing.
    return Value::optionalNone();
  }

  Value logical(const Expr& e, bool isAnd) {
    // cel-go: the result is decided by either side; errors only matter when nothing decides it.
    Value l = eval(*e.args[0]);
    if (aborted_) return abortValue();
    if (l.kind() == Value::Kind::Bool && l.asBool() != isAnd) return l;
    Value r = eval(*e.args[1]);
    if (aborted_) return abortValue();
    if (r.kind() == Value::Kind::Bool && r.asBool() != isAnd) return r;
    if (l.kind() == Value::Kind::Bool && r.kind() == Value::Kind::Bool) return l;
    // cel-go: the first operand that is not a bool gives the error (a non-error, non-bool value gives
    // "no such overload").
    const Value& bad = l.kind() != Value::Kind::Bool ? l : r;
    return bad.isError() ? bad : Value::error(kNoSuchOverload);
  }

  Value call(const Expr& e) {
    const std::string& fn = e.name;
    if (fn == op::kLogicalAnd) return logical(e, true);
    if (fn == op::kLogicalOr) return logical(e, false);
    if (fn == op::kConditional) {
      Value c = eval(*e.args[0]);
      if (aborted_) return abortValue();
      if (c.isError()) return c;
      if (c.kind() != Value::Kind::Bool) return Value::error(kNoSuchOverload);
      const Expr& branch = *e.args[c.asBool() ? 1 : 2];
      const uint64_t before = cost_;
      Value v = eval(branch);
      // cel-go plans a conditional over attribute branches as one conditional attribute: the chosen
      // branch's root costs nothing of its own.
      if (isAttribute(branch) && cost_ > before) --cost_;
      return v;
    }
    if (fn == op::kNotStrictlyFalse) {
      Value v = eval(*e.args[0]);
      if (aborted_) return abortValue();
      charge(1);
      if (aborted_) return abortValue();
      return Value::boolean(v.kind() != Value::Kind::Bool || v.asBool());
    }
    if (fn == op::kOptSelect || fn == op::kOptIndex ||
        (fn == op::kIndex && !e.operand && e.args.size() == 2)) {
      const bool optionalCall = fn != op::kIndex;
      Value operand = eval(*e.args[0]);
      if (aborted_) return abortValue();
      if (!isAttribute(*e.args[0])) charge(1);
      if (operand.isError()) return operand;
      if (optionalCall || operand.kind() == Value::Kind::Optional) {
        Value key = evalQualifierKey(*e.args[1]);
        if (aborted_) return abortValue();
        if (key.isError()) return key;
        Value r = operand.kind() == Value::Kind::Optional
                      ? (operand.optionalValue() ? qualifyIfPresent(*operand.optionalValue(), key) : operand)
                      : qualifyIfPresent(operand, key);
        if (r.kind() == Value::Kind::Optional && r.optionalValue()) charge(1);  // charged when present
        if (aborted_) return abortValue();
        return r;
      }
      // A plain index: the operand is evaluated already. Lists take any numeric index at run time (the
      // checker wants an int; a dyn index may be a uint or an integral double).
      Value key = evalQualifierKey(*e.args[1]);
      if (aborted_) return abortValue();
      if (!key.isError() && (operand.kind() == Value::Kind::List || operand.kind() == Value::Kind::Map)) {
        Value r = indexValue(operand, key);
        charge(1);
        if (aborted_) return abortValue();
        return r;
      }
      std::vector<Value> args{std::move(operand), std::move(key)};
      return dispatch(e, args);
    }
    if ((fn == "or" || fn == "orValue") && e.operand && e.args.size() == 1) {
      // cel-go plans these as short-circuiting steps (not calls, so they cost nothing): an error receiver
      // is the result, another receiver that is not an optional (a dyn value) has no such overload (since
      // v0.27), the alternative is evaluated only when the optional is empty.
      Value opt = eval(*e.operand);
      if (aborted_) return abortValue();
      if (opt.isError()) return opt;
      if (opt.kind() != Value::Kind::Optional) return Value::error(std::string(kNoSuchOverload));
      if (opt.optionalValue()) return fn == "or" ? opt : *opt.optionalValue();
      return eval(*e.args[0]);
    }
    std::vector<Value> args;
    args.reserve(e.args.size() + 1);
    std::vector<const Expr*> argExprs;
    if (e.operand) argExprs.push_back(e.operand.get());
    for (const ExprPtr& a : e.args) argExprs.push_back(a.get());
    const bool shortCircuits = isVarArgsCall(e, argExprs);
    for (size_t i = 0; i < argExprs.size(); ++i) {
      if (aborted_) return abortValue();
      args.push_back(eval(*argExprs[i]));
      // cel-go's var-args call stops at an argument that failed; the later ones are not evaluated, and
      // the call is not charged (its cost tracker misses their values).
      if (shortCircuits && args.back().isError() && i + 1 < argExprs.size()) return args.back();
    }
    return dispatch(e, args);
  }

  // Calls cel-go plans as evalVarArgs: three or more arguments (the receiver counts); the regular
  // expression functions whose pattern is a constant (their optimizer builds a var-args call); and two
  // arguments when the checker left several overloads of a function without a singleton binding (the
  // function's dispatcher is a var-args function).
  static bool isVarArgsCall(const Expr& e, const std::vector<const Expr*>& args) {
    if (args.size() >= 3) return true;
    if (args.size() != 2) return false;
    const bool regex = e.name == "matches" || e.name == "find" || e.name == "findAll";
    if (regex && args[1]->kind == ExprKind::Constant && args[1]->constant.kind() == Value::Kind::String)
      return true;
    return e.overloads.size() > 1 && !hasSingletonBinding(e.name);
  }

  // The standard library's functions bound once for all their overloads (by a trait of the operand).
  static bool hasSingletonBinding(const std::string& fn) {
    static const std::set<std::string, std::less<>> singletons = {op::kLogicalAnd,
                                                                  op::kLogicalOr,
                                                                  op::kEquals,
                                                                  op::kNotEquals,
                                                                  op::kAdd,
                                                                  op::kDivide,
                                                                  op::kModulo,
                                                                  op::kMultiply,
                                                                  op::kSubtract,
                                                                  op::kLess,
                                                                  op::kLessEquals,
                                                                  op::kGreater,
                                                                  op::kGreaterEquals,
                                                                  op::kIndex,
                                                                  op::kIn,
                                                                  "matches",
                                                                  "@sortByAssociatedKeys"};
    return singletons.contains(fn);
  }

  // Calls the overload that fits the evaluated arguments, charging the call.
  Value dispatch(const Expr& e, std::vector<Value>& args) {
    const std::string& fn = e.name;
    if (aborted_) return abortValue();
    // Every evaluated call is charged, also when an argument is an error (cel-go's cost observer).
    const std::string_view overloadId = e.overloads.size() == 1 ? std::string_view(e.overloads[0]->id) : "";
    const auto finish = [&](Value result) {
      if (!e.noCallCost) charge(callCost(fn, overloadId, args, result));
      if (aborted_) return abortValue();
      return result;
    };
    for (const Value& a : args)
      if (a.isError()) return finish(a);
    if (e.noCallCost && !args.empty() && args[0].kind() == Value::Kind::Semver) {
      // cel-go's set membership looks the value up in a Go map: a Semver (it holds slices) cannot be
      // hashed, and the panic surfaces as an internal error.
      return finish(Value::error("internal error: runtime error: hash of unhashable type cel.Semver"));
    }
    for (const Overload* o : e.overloads) {
      bool match = true;
      for (size_t i = 0; i < args.size() && match; ++i) match = runtimeKindMatches(o->params[i], args[i]);
      if (!match) continue;
      return finish(o->impl(args));
    }
    if (fn == op::kNegate && args.size() == 1 && args[0].kind() == Value::Kind::Duration) {
      // `-_` is bound to the Negator trait, which durations have without a declared overload.
      const int64_t d = args[0].asDurationNanos();
      return finish(d == INT64_MIN ? Value::error("integer overflow") : Value::duration(-d));
    }
    const Expr* pattern = e.operand ? (e.args.empty() ? nullptr : e.args[0].get())
                                    : (e.args.size() < 2 ? nullptr : e.args[1].get());
    return finish(noSuchOverload(fn, args, pattern && pattern->kind == ExprKind::Constant));
  }

  Value comprehension(const Expr& e) {
    Value range = eval(*e.iterRange);
    if (aborted_) return abortValue();
    if (range.isError()) return range;
    if (range.kind() != Value::Kind::List && range.kind() != Value::Kind::Map)
      return Value::error(kNoSuchOverload);
    Value accu = eval(*e.accuInit);
    if (aborted_) return abortValue();
    const size_t base = vars_.size();
    vars_.emplace_back(e.accuVar, std::move(accu));
    const size_t accuSlot = base;
    vars_.emplace_back(e.iterVar, Value());
    if (!e.iterVar2.empty()) vars_.emplace_back(e.iterVar2, Value());

    const bool isList = range.kind() == Value::Kind::List;
    const ValueList keys = isList ? ValueList{} : range.mapValue().keys();
    const size_t n = isList ? range.items().size() : keys.size();
    for (size_t i = 0; i < n; ++i) {
      if (++iterations_ % 100 == 0 && options_.interrupted && options_.interrupted()) abort(kInterrupted);
      if (aborted_) break;
      if (isList) {
        if (e.iterVar2.empty()) {
          vars_[base + 1].second = range.items()[i];
        } else {
          vars_[base + 1].second = Value::integer(static_cast<int64_t>(i));
          vars_[base + 2].second = range.items()[i];
        }
      } else {
        vars_[base + 1].second = keys[i];
        if (!e.iterVar2.empty()) {
          auto v = range.mapValue().find(keys[i]);
          vars_[base + 2].second = v ? *v : Value();
        }
      }
      Value cond = eval(*e.loopCondition);
      if (aborted_) break;
      if (cond.kind() == Value::Kind::Bool && !cond.asBool()) break;
      Value step = eval(*e.loopStep);
      vars_[accuSlot].second = std::move(step);
    }
    if (aborted_) {
      vars_.resize(base);
      return abortValue();
    }
    // The result sees the accumulator but not the iteration variables.
    vars_.resize(base + 1);
    Value result = eval(*e.result);
    vars_.resize(base);
    return result;
  }

  const Value& device_;
  const EvalOptions& options_;
  std::vector<std::pair<std::string, Value>> vars_;
  uint64_t cost_ = 0;
  uint64_t iterations_ = 0;
  bool aborted_ = false;
  const char* abortMessage_ = "";
};

// cel-go's OptOptimize (interpreter/decorators.go decOptimize), applied bottom-up while planning: list
// and map literals of constants become constants; type conversions (bool, bytes, double, dyn, int,
// string, type, uint) of a constant are evaluated, and an error there fails the program
// ("program instantiation failed: ..."). Constants cost nothing at run time.
class Folder {
 public:
  explicit Folder(std::string& error) : error_(error) {}

  // Returns whether `e` is a constant after folding.
  bool fold(ExprPtr& e) {
    switch (e->kind) {
      case ExprKind::Constant:
        return true;
      case ExprKind::Ident:
        if (bound(e->name) || !typeIdentifier(e->name)) return false;
        // The checker knows the aliases timestamp and duration; cel-go's planner does not.
        if ((e->name == "timestamp" || e->name == "duration") && error_.empty())
          error_ = "program instantiation failed: reference to undefined type: " + e->name;
        return true;
      case ExprKind::Select:
        fold(e->operand);
        return false;
      case ExprKind::Call: {
        if (e->operand) fold(e->operand);
        bool allConst = !e->operand;
        for (ExprPtr& a : e->args) allConst = fold(a) && allConst;
        if (e->name == op::kIndex && !e->operand && e->args.size() == 2 &&
            e->args[1]->kind == ExprKind::Constant && e->args[1]->constant.kind() == Value::Kind::Bytes) {
          // cel-go makes a constant index an attribute qualifier when planning; bytes cannot be one.
          if (error_.empty()) error_ = "program instantiation failed: invalid qualifier type: types.Bytes";
          return false;
        }
        if ((e->name == "find" || e->name == "findAll") && e->operand && !e->args.empty() &&
            e->args[0]->kind == ExprKind::Constant && e->args[0]->constant.kind() == Value::Kind::String) {
          // The regex optimizer compiles a constant pattern when the program is built.
          if (auto err = regexError(e->args[0]->constant.text()); err && error_.empty())
            error_ = "program instantiation failed: " + *err;
          return false;
        }
        if (e->name == op::kIn && !e->operand && e->args.size() == 2 &&
            e->args[1]->kind == ExprKind::Constant && e->args[1]->constant.kind() == Value::Kind::List) {
          // maybeOptimizeSetMembership: `x in []` is false; `x in <constant list of bool, int, uint,
          // double or string>` is a set lookup, not a charged call.
          const ValueList& items = e->args[1]->constant.items();
          if (items.empty()) {
            auto c = std::make_unique<Expr>();
            c->id = e->id;
            c->kind = ExprKind::Constant;
            c->constant = Value::boolean(false);
            e = std::move(c);
            return true;
          }
          bool primitive = true;
          for (const Value& v : items) {
            const Value::Kind k = v.kind();
            primitive =
                primitive && (k == Value::Kind::Bool || k == Value::Kind::Int || k == Value::Kind::Uint ||
                              k == Value::Kind::Double || k == Value::Kind::String);
          }
          e->noCallCost = primitive;
          return false;
        }
        static const std::set<std::string, std::less<>> conversions = {
            "bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint"};
        if (!allConst || e->args.size() != 1 || !conversions.contains(e->name)) return false;
        return replace(e, true);
      }
      case ExprKind::List: {
        bool allConst = e->optionalAt.empty();
        for (ExprPtr& a : e->args) allConst = fold(a) && allConst;
        return allConst && replace(e, false);
      }
      case ExprKind::Map: {
        bool allConst = true;
        for (MapEntry& m : e->entries) {
          allConst = fold(m.key) && allConst;
          allConst = fold(m.value) && allConst && !m.optional;
        }
        return allConst && replace(e, false);
      }
      case ExprKind::Comprehension: {
        fold(e->iterRange);
        fold(e->accuInit);
        scopes_.push_back(e->accuVar);
        scopes_.push_back(e->iterVar);
        scopes_.push_back(e->iterVar2);
        fold(e->loopCondition);
        fold(e->loopStep);
        scopes_.resize(scopes_.size() - 2);
        fold(e->result);
        scopes_.pop_back();
        return false;
      }
    }
    return false;
  }

 private:
  bool bound(const std::string& name) const {
    return std::find(scopes_.begin(), scopes_.end(), name) != scopes_.end();
  }

  bool replace(ExprPtr& e, bool failOnError) {
    EvalOptions options;
    Interpreter interpreter(Value(), options);
    Value v = interpreter.eval(*e);
    if (v.isError() && failOnError) {
      if (error_.empty()) error_ = "program instantiation failed: " + v.text();
      return false;
    }
    auto c = std::make_unique<Expr>();
    c->id = e->id;
    c->kind = ExprKind::Constant;
    c->constant = std::move(v);
    e = std::move(c);
    return true;
  }

  std::string& error_;
  std::vector<std::string> scopes_;
};

}  // namespace

Result<std::shared_ptr<const Program>> Program::compile(
    std::string_view expression,
    const std::function<std::optional<std::string>(const CelType&)>& checkOutput) {
  Issues issues;
  ParsedExpr parsed = parse(expression, issues);
  if (!issues.empty() || !parsed.expr) return Error(issues.toString(parsed.source));
  Checker checker(parsed.source, issues);
  CelType output = checker.check(*parsed.expr);
  checker.validate();
  if (!issues.empty()) return Error(issues.toString(parsed.source));
  if (checkOutput) {
    if (auto err = checkOutput(output)) return Error(*err);
  }
  std::string planError;
  Folder(planError).fold(parsed.expr);
  if (!planError.empty()) return Error(planError);
  return std::shared_ptr<const Program>(new Program(std::move(parsed), std::move(output)));
}

EvalResult Program::eval(const Value& device, const EvalOptions& options) const {
  Interpreter interpreter(device, options);
  EvalResult r;
  r.value = interpreter.eval(*parsed_.expr);
  r.actualCost = interpreter.cost();
  return r;
}

}  // namespace ks::cel
