#pragma once
// CEL runtime values for DRA's environment: null, bool, int, uint, double, string, bytes, list, map,
// type, optional, timestamp, duration, plus Kubernetes' Quantity, Semver, IP, CIDR, URL and
// named format. Errors are values
// too, because CEL's && and || absorb an error that the other side makes irrelevant (`err || true` is true).
//
// A Value is 32 bytes: scalars inline, everything else behind a shared pointer to immutable data, so
// copying one (into a comprehension's variable, out of a device's attribute map) never copies a string.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/dra/cel/net.h"
#include "pkg/dra/cel/semver.h"
#include "pkg/dra/cel/time.h"
#include "pkg/dra/cel/url.h"

namespace ks::cel {

class Value;
class MapValue;
using ValueList = std::vector<Value>;

class Value {
 public:
  enum class Kind : uint8_t {
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    List,
    Map,
    Type,
    Optional,
    Quantity,
    Semver,
    Timestamp,
    Duration,
    IP,
    CIDR,
    URL,
    NamedFormat,
    Error
  };

  Value() = default;  // null
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value uinteger(uint64_t u);
  static Value dbl(double d);
  static Value string(std::string s);
  static Value bytes(std::string b);
  static Value list(ValueList items);
  static Value map(std::shared_ptr<const MapValue> m);
  static Value type(std::string name);  // "int", "list", "kubernetes.Quantity", ...
  static Value optionalOf(Value v);
  static Value optionalNone();
  static Value quantity(api::Quantity q);
  // A Quantity as Kubernetes' add() and sub() return it: a *Quantity in cel-go, which Quantity.Equal does
  // not accept (`q == q.add(0)` is "no such overload").
  static Value quantityRef(api::Quantity q);
  static Value semver(Semver v);
  static Value timestamp(Timestamp t);
  static Value duration(int64_t nanos);
  static Value ip(IPAddress a);
  static Value cidr(IPPrefix p);
  static Value url(GoURL u);
  static Value namedFormat(std::string key);  // Kubernetes' format.<key>()
  static Value error(std::string message);

  Kind kind() const { return kind_; }
  bool isQuantityRef() const { return kind_ == Kind::Quantity && b_; }
  bool isError() const { return kind_ == Kind::Error; }

  bool asBool() const { return b_; }
  int64_t asInt() const { return i_; }
  uint64_t asUint() const { return u_; }
  double asDouble() const { return d_; }
  // String, Bytes, Type, NamedFormat (its key) and Error hold their text here.
  const std::string& text() const { return *static_cast<const std::string*>(ref_.get()); }
  const ValueList& items() const { return *static_cast<const ValueList*>(ref_.get()); }
  const MapValue& mapValue() const { return *static_cast<const MapValue*>(ref_.get()); }
  // Optional: null when none.
  const Value* optionalValue() const { return static_cast<const Value*>(ref_.get()); }
  const api::Quantity& asQuantity() const { return *static_cast<const api::Quantity*>(ref_.get()); }
  const Semver& asSemver() const { return *static_cast<const Semver*>(ref_.get()); }
  const Timestamp& asTimestamp() const { return *static_cast<const Timestamp*>(ref_.get()); }
  int64_t asDurationNanos() const { return i_; }
  const IPAddress& asIP() const { return *static_cast<const IPAddress*>(ref_.get()); }
  const IPPrefix& asCIDR() const { return *static_cast<const IPPrefix*>(ref_.get()); }
  const GoURL& asURL() const { return *static_cast<const GoURL*>(ref_.get()); }

  // The CEL type name of this value ("int", "map", "kubernetes.Quantity", ...), as type() returns it
  // and as error messages print it.
  std::string_view typeName() const;

 private:
  Kind kind_ = Kind::Null;
  union {
    bool b_;
    int64_t i_ = 0;
    uint64_t u_;
    double d_;
  };
  std::shared_ptr<const void> ref_;
};

// A CEL map. Keys are bool, int, uint or string; int, uint and double keys that are numerically equal
// find the same entry, as cel-go's CrossTypeNumericComparisons makes them.
class MapValue {
 public:
  virtual ~MapValue() = default;
  virtual size_t size() const = 0;
  // What `m[key]` and `m.key` (and has(m.key)) see; nullopt = no such key.
  virtual std::optional<Value> find(const Value& key) const = 0;
  // What `key in m` sees. The same as find() except for maps with a default (see DefaultingMap).
  virtual bool contains(const Value& key) const { return find(key).has_value(); }
  // The keys in iteration order (comprehensions). cel-go iterates Go maps in random order; we iterate
  // in a fixed order, which is one of the orders cel-go may produce.
  virtual ValueList keys() const = 0;
};

// A map of literal entries (map literals, device attribute domains): a few dozen entries at most, so a
// sorted vector is both the smallest and the fastest form.
class EntryMap final : public MapValue {
 public:
  // Later duplicates of a key replace earlier ones; callers that must reject duplicates check first.
  explicit EntryMap(std::vector<std::pair<Value, Value>> entries);
  size_t size() const override { return entries_.size(); }
  std::optional<Value> find(const Value& key) const override;
  ValueList keys() const override;
  const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<Value, Value>> entries_;
};

// Upstream's device attribute/capacity mapper: find() of a missing string key answers an empty map (so
// `device.attributes["other.domain"]` is `{}` and `has(device.attributes.x)` is true), while `in` still
// tells whether the domain exists.
class DefaultingMap final : public MapValue {
 public:
  explicit DefaultingMap(std::shared_ptr<const EntryMap> inner);
  size_t size() const override { return inner_->size(); }
  std::optional<Value> find(const Value& key) const override;
  bool contains(const Value& key) const override { return inner_->contains(key); }
  ValueList keys() const override { return inner_->keys(); }

 private:
  std::shared_ptr<const EntryMap> inner_;
};

// CEL equality (`==`): values of unrelated types are unequal (not an error); int, uint and double
// compare numerically; lists and maps element-wise. An error operand gives that error.
Value equals(const Value& a, const Value& b);
bool equalValues(const Value& a, const Value& b);
// Ordering for `<` and friends: -1, 0, 1; nullopt when the two cannot be ordered ("no such overload").
// NaN compares as unordered to everything, which makes every comparison with it false.
std::optional<int> compareValues(const Value& a, const Value& b);
bool isNaN(const Value& v);

// For messages and string(): how cel-go prints a double (shortest round-trip, "1e+06" style exponents).
std::string formatDouble(double d);

}  // namespace ks::cel
