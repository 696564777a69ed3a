#include "pkg/dra/cel/compile.h"

namespace ks::cel {
namespace {

thread_local uint64_t lastCost = 0;

// "domain/id" -> (domain, id); a name without a domain belongs to the driver.
std::pair<std::string, std::string> splitQualifiedName(const std::string& name, const std::string& driver) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

Result<Value> attributeValue(const DeviceAttributeValue& a) {
  if (a.intValue) return Value::integer(*a.intValue);
  if (a.boolValue) return Value::boolean(*a.boolValue);
  if (a.stringValue) return Value::string(*a.stringValue);
  if (a.versionValue) {
    auto v = Semver::parse(*a.versionValue);
    if (!v.ok()) return Error("parse semantic version: " + v.error().message());
    return Value::semver(std::move(*v));
  }
  return Error("unsupported attribute value");
}

Value domainMap(std::map<std::string, std::vector<std::pair<Value, Value>>> byDomain) {
  std::vector<std::pair<Value, Value>> outer;
  for (auto& [domain, entries] : byDomain)
    outer.emplace_back(Value::string(domain),
                       Value::map(std::make_shared<const EntryMap>(std::move(entries))));
  return Value::map(
      std::make_shared<const DefaultingMap>(std::make_shared<const EntryMap>(std::move(outer))));
}

// The error of ref.Val.ConvertToNative(reflect.TypeOf(true)) for each type but bool (cel-go v0.29.2 and
// k8s.io/apiserver/pkg/cel).
std::string toBoolConversionError(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Int:
      return "unsupported type conversion from 'int' to bool";
    case Value::Kind::Uint:
      return "unsupported type conversion from 'uint' to bool";
    case Value::Kind::Double:
      return "type conversion error from Double to 'bool'";
    case Value::Kind::String:
      return "unsupported native conversion from string to 'bool'";
    case Value::Kind::Bytes:
      return "type conversion error from Bytes to 'bool'";
    case Value::Kind::Null:
      return "type conversion error from 'null_type' to 'bool'";
    case Value::Kind::List:
      return "type conversion error from list to 'bool'";
    case Value::Kind::Map:
      return "type conversion error from map to 'bool'";
    case Value::Kind::Type:
      return "type conversion not supported for 'type'";
    case Value::Kind::Quantity:
      return "type conversion error from 'Quantity' to 'bool'";
    case Value::Kind::Semver:
      return "type conversion error from 'Semver' to 'bool'";
    case Value::Kind::Timestamp:
      return "type conversion error from 'Timestamp' to 'bool'";
    case Value::Kind::Duration:
      return "type conversion error from 'Duration' to 'bool'";
    case Value::Kind::IP:
      return "type conversion error from 'IP' to 'bool'";
    case Value::Kind::CIDR:
      return "type conversion error from 'CIDR' to 'bool'";
    case Value::Kind::URL:
      return "type conversion error from 'URL' to 'bool'";
    case Value::Kind::NamedFormat:
      return "type conversion error from 'Format' to 'bool'";
    default:
      return "unsupported native conversion from " + std::string(v.typeName()) + " to 'bool'";
  }
}

}  // namespace

CompilationResult compileExpression(std::string_view expression) {
  CompilationResult r;
  r.expression_ = std::string(expression);
  // "The unknown type" is the type attribute values are declared as: dyn since v1.37 (the stored-expression
  // environment declares the newest device type, whose attributes may be lists).
  const auto checkOutput = [](const CelType& out) -> std::optional<std::string> {
    if (out.kind != CelType::Kind::Bool && out.kind != CelType::Kind::Dyn)
      return "must evaluate to bool or the unknown type, not " + out.typeName();
    return std::nullopt;
  };
  auto program = Program::compile(expression, checkOutput);
  if (!program.ok()) {
    const std::string& message = program.error().message();
    r.error_ =
        message.starts_with("program instantiation failed: ") || message.starts_with("must evaluate to ")
            ? message
            : "compilation failed: " + message;
    return r;
  }
  r.program_ = std::move(*program);
  return r;
}

Result<bool> CompilationResult::deviceMatches(const Device& device, const EvalOptions& options) const {
  lastCost = 0;
  if (!program_) return Error(error_.value_or("no program"));
  std::map<std::string, std::vector<std::pair<Value, Value>>> attributes;
  for (const auto& [name, attr] : device.attributes) {
    auto v = attributeValue(attr);
    if (!v.ok()) return Error("attribute " + name + ": " + v.error().message());
    auto [domain, id] = splitQualifiedName(name, device.driver);
    attributes[domain].emplace_back(Value::string(std::move(id)), std::move(*v));
  }
  std::map<std::string, std::vector<std::pair<Value, Value>>> capacity;
  for (const auto& [name, q] : device.capacity) {
    auto [domain, id] = splitQualifiedName(name, device.driver);
    capacity[domain].emplace_back(Value::string(std::move(id)), Value::quantity(q));
  }
  std::vector<std::pair<Value, Value>> fields;
  fields.emplace_back(Value::string("driver"), Value::string(device.driver));
  fields.emplace_back(Value::string("allowMultipleAllocations"),
                      Value::boolean(device.allowMultipleAllocations.value_or(false)));
  fields.emplace_back(Value::string("attributes"), domainMap(std::move(attributes)));
  fields.emplace_back(Value::string("capacity"), domainMap(std::move(capacity)));
  const Value deviceValue = Value::map(std::make_shared<const EntryMap>(std::move(fields)));

  const EvalResult r = program_->eval(deviceValue, options);
  lastCost = r.actualCost;
  if (r.value.isError()) return Error(r.value.text());
  if (r.value.kind() != Value::Kind::Bool)
    return Error("CEL result of type " + std::string(r.value.typeName()) +
                 " could not be converted to bool: " + toBoolConversionError(r.value));
  return r.value.asBool();
}

uint64_t CompilationResult::lastActualCost() {
  return lastCost;
}

std::shared_ptr<const CompilationResult> Cache::getOrCompile(const std::string& expression) {
  {
    std::lock_guard lock(mu_);
    if (auto it = index_.find(expression); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
  }
  auto compiled = std::make_shared<const CompilationResult>(compileExpression(expression));
  if (compiled->error()) return compiled;
  std::lock_guard lock(mu_);
  if (index_.contains(expression)) return compiled;
  lru_.emplace_front(expression, compiled);
  index_[expression] = lru_.begin();
  if (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return compiled;
}

}  // namespace ks::cel
