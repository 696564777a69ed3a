// Fuzzes the label selector string syntax (labels.Parse, pkg/api/labels.h). A parsed selector prints
// (String()) to a string that parses to the same selector, and matching against a label set built from
// its own keys must agree between the two.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/api/labels.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto selector = ks::api::Selector::parse(text);
  if (!selector.ok()) {
    FUZZ_CHECK(!selector.error().message().empty());
    return 0;
  }
  const std::string printed = selector->toString();
  auto again = ks::api::Selector::parse(printed);
  if (!again.ok())
    ks::fuzz::checkFailed("parse(toString(s)) ok", __FILE__, __LINE__, printed, again.error().message());
  FUZZ_CHECK_EQ_STR(printed, again->toString());
  FUZZ_CHECK(*again == *selector);
  // Label sets built from the selector's own keys and values, so matching gets past the key lookup.
  ks::api::Labels labels;
  for (const auto& r : selector->requirements()) {
    (void)selector->requiresExactMatch(r.key());
    labels[r.key()] = r.values().empty() ? "1" : r.values().front();
  }
  (void)selector->matches({});
  (void)selector->matches(labels);
  FUZZ_CHECK(selector->matches(labels) == again->matches(labels));
  return 0;
}
