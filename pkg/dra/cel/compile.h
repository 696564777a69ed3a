#pragma once
// DRA's use of CEL, as k8s.io/dynamic-resource-allocation/cel v0.37.2: compile a selector expression
// (the result must be bool or dyn), then evaluate it against one device, whose attributes and capacities
// are grouped by domain (a name without "domain/" belongs to the driver's domain).

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "pkg/api/quantity.h"
#include "pkg/dra/cel/program.h"
#include "pkg/util/result.h"

namespace ks::cel {

struct DeviceAttributeValue {
  std::optional<int64_t> intValue;
  std::optional<bool> boolValue;
  std::optional<std::string> stringValue;
  std::optional<std::string> versionValue;
};

struct Device {
  std::string driver;
  std::optional<bool> allowMultipleAllocations;
  std::map<std::string, DeviceAttributeValue> attributes;  // qualified name -> value
  std::map<std::string, api::Quantity> capacity;           // qualified name -> value
};

class CompilationResult {
 public:
  // The compile error ("compilation failed: ERROR: <input>:1:1: ..."), or nullopt.
  const std::optional<std::string>& error() const { return error_; }
  const std::string& expression() const { return expression_; }

  // Whether the device matches. Errors read as upstream's: "no such key: x", "attribute a: unsupported
  // attribute value", "CEL result of type string could not be converted to bool: ...",
  // "operation cancelled: actual cost limit exceeded".
  Result<bool> deviceMatches(const Device& device, const EvalOptions& options = {}) const;
  // The runtime cost of the last deviceMatches() on this thread (for tests and benchmarks).
  static uint64_t lastActualCost();

 private:
  friend CompilationResult compileExpression(std::string_view expression);
  std::shared_ptr<const Program> program_;
  std::optional<std::string> error_;
  std::string expression_;
};

CompilationResult compileExpression(std::string_view expression);

// Upstream's cache of compiled expressions: an LRU of `capacity` entries keyed by the expression text;
// failed compilations are not kept. Thread-safe.
class Cache {
 public:
  explicit Cache(size_t capacity = 10) : capacity_(capacity) {}
  std::shared_ptr<const CompilationResult> getOrCompile(const std::string& expression);

 private:
  size_t capacity_;
  std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<const CompilationResult>>> lru_;  // most recent first
  std::unordered_map<std::string, decltype(lru_)::iterator> index_;
};

}  // namespace ks::cel
