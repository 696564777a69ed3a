#pragma once
// resource.Quantity with upstream's exact semantics (k8s.io/apimachinery/pkg/api/resource):
// parsing of decimal SI ("1.5G", "100m"), binary SI ("1Gi"), decimal exponent ("1e3"), canonical
// formatting (String()), and the rounding of Value() (up) and MilliValue() (up).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ks::api {

class Quantity {
 public:
  enum class Format : uint8_t { DecimalSI, BinarySI, DecimalExponent };

  // Zero, DecimalSI.
  Quantity() = default;

  // Parses a quantity string exactly as upstream's ParseQuantity; errors read like upstream's
  // ("quantities must match the regular expression ...", "unable to parse quantity's suffix").
  static Result<Quantity> parse(std::string_view s);

  // Exact constructors, as upstream's NewQuantity / NewMilliQuantity / NewScaledQuantity.
  static Quantity fromInt(int64_t value, Format format = Format::DecimalSI);
  static Quantity fromMilli(int64_t milliValue, Format format = Format::DecimalSI);
  static Quantity fromScaled(int64_t value, int32_t scale,
                             Format format = Format::DecimalSI);  // value * 10^scale

  // Value rounded up to an integer (saturating at int64 limits), as upstream's Value().
  int64_t value() const;
  // Value * 1000 rounded up (saturating), as upstream's MilliValue().
  int64_t milliValue() const;
  // Value * 10^-scale rounded up, as upstream's ScaledValue(scale).
  int64_t scaledValue(int32_t scale) const;

  // The exact integer value when there is one that fits (upstream's AsInt64): no fraction, no overflow.
  std::optional<int64_t> asInt64() const;
  // The value as a double, possibly rounded (upstream's AsApproximateFloat64).
  double asApproximateFloat64() const;

  bool isZero() const;
  int sign() const;  // -1, 0, 1
  Format format() const { return format_; }

  // Canonical string, as upstream's String() (e.g. "1500m" -> "1500m", "1.5" -> "1500m", "1024Ki" -> "1Mi").
  std::string toString() const;

  // Exact comparison of the represented numbers (format ignored), as upstream's Cmp.
  int compare(const Quantity& other) const;
  bool operator==(const Quantity& other) const { return compare(other) == 0; }

  void add(const Quantity& other);
  void sub(const Quantity& other);

 private:
  // The number is mantissa_ * 10^scale_ ; values beyond int64 mantissa are kept in the decimal
  // string big_ (upstream falls back to inf.Dec for those), which is non-empty only then.
  int64_t mantissa_ = 0;
  int32_t scale_ = 0;
  std::string big_;
  Format format_ = Format::DecimalSI;
};

}  // namespace ks::api
