#include "pkg/dra/cel/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ks::cel {

namespace {

template <typename T>
std::shared_ptr<const void> box(T v) {
  return std::make_shared<const T>(std::move(v));
}

bool isNumeric(Value::Kind k) {
  return k == Value::Kind::Int || k == Value::Kind::Uint || k == Value::Kind::Double;
}

// Numeric comparison across int, uint and double, as cel-go's CrossTypeNumericComparisons does it.
std::optional<int> compareNumbers(const Value& a, const Value& b) {
  using K = Value::Kind;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  const K ka = a.kind(), kb = b.kind();
  if (ka == K::Int && kb == K::Int) return cmp(a.asInt(), b.asInt());
  if (ka == K::Uint && kb == K::Uint) return cmp(a.asUint(), b.asUint());
  if (ka == K::Int && kb == K::Uint)
    return a.asInt() < 0 ? -1 : cmp(static_cast<uint64_t>(a.asInt()), b.asUint());
  if (ka == K::Uint && kb == K::Int)
    return b.asInt() < 0 ? 1 : cmp(a.asUint(), static_cast<uint64_t>(b.asInt()));
  // With a double on either side.
  const double da = ka == K::Double
                        ? a.asDouble()
                        : (ka == K::Int ? static_cast<double>(a.asInt()) : static_cast<double>(a.asUint()));
  const double db = kb == K::Double
                        ? b.asDouble()
                        : (kb == K::Int ? static_cast<double>(b.asInt()) : static_cast<double>(b.asUint()));
  if (std::isnan(da) || std::isnan(db)) return std::nullopt;
  // cel-go's compareDoubleInt / compareDoubleUint: outside the integer's range the double decides;
  // inside it, both compare as doubles (so 9223372036854775807 == 9223372036854775807.0 orders equal).
  if (ka == K::Double && kb != K::Double) {
    if (kb == K::Int) {
      if (da < -9223372036854775808.0) return -1;
      if (da > 9223372036854775807.0) return 1;
      return cmp(da, db);
    }
    if (da < 0) return -1;
    if (da > 18446744073709551615.0) return 1;
    return cmp(da, db);
  }
  if (kb == K::Double && ka != K::Double) {
    auto r = compareNumbers(b, a);
    if (!r) return r;
    return -*r;
  }
  return cmp(da, db);
}

}  // namespace

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.b_ = b;
  return v;
}
Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::Int;
  v.i_ = i;
  return v;
}
Value Value::uinteger(uint64_t u) {
  Value v;
  v.kind_ = Kind::Uint;
  v.u_ = u;
  return v;
}
Value Value::dbl(double d) {
  Value v;
  v.kind_ = Kind::Double;
  v.d_ = d;
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.ref_ = box(std::move(s));
  return v;
}
Value Value::bytes(std::string b) {
  Value v;
  v.kind_ = Kind::Bytes;
  v.ref_ = box(std::move(b));
  return v;
}
Value Value::list(ValueList items) {
  Value v;
  v.kind_ = Kind::List;
  v.ref_ = box(std::move(items));
  return v;
}
Value Value::map(std::shared_ptr<const MapValue> m) {
  Value v;
  v.kind_ = Kind::Map;
  v.ref_ = std::move(m);
  return v;
}
Value Value::type(std::string name) {
  Value v;
  v.kind_ = Kind::Type;
  v.ref_ = box(std::move(name));
  return v;
}
Value Value::optionalOf(Value inner) {
  Value v;
  v.kind_ = Kind::Optional;
  v.ref_ = box(std::move(inner));
  return v;
}
Value Value::optionalNone() {
  Value v;
  v.kind_ = Kind::Optional;
  return v;
}
Value Value::quantity(api::Quantity q) {
  Value v;
  v.kind_ = Kind::Quantity;
  v.b_ = false;
  v.ref_ = box(std::move(q));
  return v;
}
Value Value::quantityRef(api::Quantity q) {
  Value v = quantity(std::move(q));
  v.b_ = true;
  return v;
}
Value Value::semver(Semver s) {
  Value v;
  v.kind_ = Kind::Semver;
  v.ref_ = box(std::move(s));
  return v;
}
Value Value::timestamp(Timestamp t) {
  Value v;
  v.kind_ = Kind::Timestamp;
  v.ref_ = box(t);
  return v;
}
Value Value::duration(int64_t nanos) {
  Value v;
  v.kind_ = Kind::Duration;
  v.i_ = nanos;
  return v;
}
Value Value::ip(IPAddress a) {
  Value v;
  v.kind_ = Kind::IP;
  v.ref_ = box(a);
  return v;
}
Value Value::cidr(IPPrefix p) {
  Value v;
  v.kind_ = Kind::CIDR;
  v.ref_ = box(p);
  return v;
}
Value Value::url(GoURL u) {
  Value v;
  v.kind_ = Kind::URL;
  v.ref_ = box(std::move(u));
  return v;
}
Value Value::namedFormat(std::string key) {
  Value v;
  v.kind_ = Kind::NamedFormat;
  v.ref_ = box(std::move(key));
  return v;
}
Value Value::error(std::string message) {
  Value v;
  v.kind_ = Kind::Error;
  v.ref_ = box(std::move(message));
  return v;
}

std::string_view Value::typeName() const {
  switch (kind_) {
    case Kind::Null:
      return "null_type";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Uint:
      return "uint";
    case Kind::Double:
      return "double";
    case Kind::String:
      return "string";
    case Kind::Bytes:
      return "bytes";
    case Kind::List:
      return "list";
    case Kind::Map:
      return "map";
    case Kind::Type:
      return "type";
    case Kind::Optional:
      return "optional_type";
    case Kind::Quantity:
      return "kubernetes.Quantity";
    case Kind::Semver:
      return "kubernetes.Semver";
    case Kind::Timestamp:
      return "google.protobuf.Timestamp";
    case Kind::Duration:
      return "google.protobuf.Duration";
    case Kind::IP:
      return "net.IP";
    case Kind::CIDR:
      return "net.CIDR";
    case Kind::URL:
      return "kubernetes.URL";
    case Kind::NamedFormat:
      return "kubernetes.NamedFormat";
    case Kind::Error:
      return "error";
  }
  return "unknown";
}

EntryMap::EntryMap(std::vector<std::pair<Value, Value>> entries) {
  entries_.reserve(entries.size());
  for (auto& entry : entries) {  // not a structured binding: clang 14 (the fuzz build) can't capture one
    auto same = std::find_if(entries_.begin(), entries_.end(),
                             [&](const auto& e) { return equalValues(e.first, entry.first); });
    if (same != entries_.end()) {
      same->second = std::move(entry.second);
    } else {
      entries_.push_back(std::move(entry));
    }
  }
}

std::optional<Value> EntryMap::find(const Value& key) const {
  // Doubles are valid lookup keys when they hold an integral value (cel-go's numeric key equivalence).
  for (const auto& [k, v] : entries_) {
    if (k.kind() == key.kind() || (isNumeric(k.kind()) && isNumeric(key.kind()))) {
      if (equalValues(k, key)) return v;
    }
  }
  return std::nullopt;
}

ValueList EntryMap::keys() const {
  ValueList out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.first);
  return out;
}

DefaultingMap::DefaultingMap(std::shared_ptr<const EntryMap> inner) : inner_(std::move(inner)) {}

std::optional<Value> DefaultingMap::find(const Value& key) const {
  if (auto v = inner_->find(key)) return v;
  static const Value empty =
      Value::map(std::make_shared<const EntryMap>(std::vector<std::pair<Value, Value>>{}));
  return empty;
}

bool isNaN(const Value& v) {
  return v.kind() == Value::Kind::Double && std::isnan(v.asDouble());
}

bool equalValues(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (isNumeric(a.kind()) && isNumeric(b.kind())) {
    auto c = compareNumbers(a, b);
    return c && *c == 0;
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::Null:
      return true;
    case K::Bool:
      return a.asBool() == b.asBool();
    case K::String:
    case K::Bytes:
    case K::Type:
    case K::NamedFormat:
      return a.text() == b.text();
    case K::List: {
      const ValueList& x = a.items();
      const ValueList& y = b.items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!equalValues(x[i], y[i])) return false;
      return true;
    }
    case K::Map: {
      const MapValue& x = a.mapValue();
      const MapValue& y = b.mapValue();
      if (x.size() != y.size()) return false;
      for (const Value& k : x.keys()) {
        if (!y.contains(k)) return false;
        auto vx = x.find(k);
        auto vy = y.find(k);
        if (!vx || !vy || !equalValues(*vx, *vy)) return false;
      }
      return true;
    }
    case K::Optional: {
      const Value* x = a.optionalValue();
      const Value* y = b.optionalValue();
      if (!x || !y) return x == y;
      return equalValues(*x, *y);
    }
    case K::Quantity:
      return a.asQuantity().compare(b.asQuantity()) == 0;
    case K::Semver:
      return a.asSemver().compare(b.asSemver()) == 0;
    case K::Timestamp:
      return a.asTimestamp() == b.asTimestamp();
    case K::Duration:
      return a.asDurationNanos() == b.asDurationNanos();
    case K::IP:
      return a.asIP() == b.asIP();
    case K::CIDR:
      return a.asCIDR() == b.asCIDR();
    case K::URL:  // as Kubernetes compares them: by their text
      return a.asURL().toString() == b.asURL().toString();
    default:
      return false;
  }
}

Value equals(const Value& a, const Value& b) {
  if (a.isError()) return a;
  if (b.isError()) return b;
  return Value::boolean(equalValues(a, b));
}

std::optional<int> compareValues(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (isNumeric(a.kind()) && isNumeric(b.kind())) return compareNumbers(a, b);
  if (a.kind() != b.kind()) return std::nullopt;
  switch (a.kind()) {
    case K::Bool:
      return a.asBool() == b.asBool() ? 0 : (a.asBool() ? 1 : -1);
    case K::String:
    case K::Bytes: {
      const int c = a.text().compare(b.text());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case K::Timestamp:
      return a.asTimestamp().compare(b.asTimestamp());
    case K::Duration:
      return a.asDurationNanos() < b.asDurationNanos() ? -1
                                                       : (a.asDurationNanos() > b.asDurationNanos() ? 1 : 0);
    default:
      return std::nullopt;
  }
}

std::string formatDouble(double d) {
  // Go's strconv.FormatFloat(d, 'g', -1, 64) as cel-go's string(double) uses: the shortest text that
  // reads back, exponent form below 1e-4 and from 1e6.
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general);
  std::string s(buf, p);
  // Go's 'g' with the shortest precision uses the exponent form when exponent < -4 || exponent >= 6
  // (strconv: "if precision was the shortest possible, use precision 6 for this decision"). Rebuild
  // from the shortest digits.
  auto [q, ec2] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, q);
  const size_t e = sci.find('e');
  const int exp = std::stoi(sci.substr(e + 1));
  std::string mant = sci.substr(0, e);
  const bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  if (exp < -4 || exp >= 6) {
    std::string out = neg ? "-" : "";
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const std::string digitsOfExp = std::to_string(std::abs(exp));
    return out + "e" + (exp < 0 ? "-" : "+") + (digitsOfExp.size() < 2 ? "0" : "") + digitsOfExp;
  }
  std::string out;
  if (exp < 0) {
    out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
    out = digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." + digits.substr(static_cast<size_t>(exp) + 1);
  }
  return (neg ? "-" : "") + out;
}

}  // namespace ks::cel
