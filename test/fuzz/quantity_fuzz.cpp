// Fuzzes resource.Quantity parsing (pkg/api/quantity.h), as every resource request and capacity goes
// through it. What parses is formatted; the canonical string must parse to an equal quantity and format
// to itself, and the integer accessors must not overflow.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/api/quantity.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = ks::api::Quantity::parse(text);
  if (!q.ok()) {
    FUZZ_CHECK(!q.error().message().empty());
    return 0;
  }
  const std::string canonical = q->toString();
  auto again = ks::api::Quantity::parse(canonical);
  if (!again.ok())
    ks::fuzz::checkFailed("parse(toString(q)) ok", __FILE__, __LINE__, canonical, again.error().message());
  FUZZ_CHECK_EQ_STR(canonical, again->toString());
  FUZZ_CHECK(again->compare(*q) == 0);
  FUZZ_CHECK(again->sign() == q->sign());
  (void)q->value();
  (void)q->milliValue();
  (void)q->scaledValue(-9);
  (void)q->scaledValue(3);
  ks::api::Quantity sum = *q;
  sum.add(*again);
  sum.sub(*again);
  FUZZ_CHECK(sum.compare(*q) == 0);
  return 0;
}
