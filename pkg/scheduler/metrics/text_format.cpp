#include "pkg/scheduler/metrics/text_format.h"

#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ks::metrics {

std::string formatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  // Shortest round-trip digits; Go's 'g' with precision -1 switches to the exponent form when the
  // decimal exponent is < -4 or >= 6 (eprec = 6 for the shortest format).
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, end);  // d.ddde[+-]XX
  const auto e = sci.find('e');
  const int exp = std::stoi(sci.substr(e + 1));
  if (exp < -4 || exp >= 6) {
    std::string mant = sci.substr(0, e);
    std::string digits = std::to_string(std::abs(exp));
    if (digits.size() < 2) digits = "0" + digits;
    return mant + "e" + (exp < 0 ? "-" : "+") + digits;
  }
  auto [end2, ec2] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return std::string(buf, end2);
}

std::string escapeLabelValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string serializeSorted(std::vector<prometheus::MetricFamily> families) {
  std::stable_sort(families.begin(), families.end(),
                   [](const auto& a, const auto& b) { return a.name < b.name; });
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace ks::metrics
