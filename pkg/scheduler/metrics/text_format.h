#pragma once
// Pieces of the Prometheus text format as client_golang's expfmt writes them, for expositions we write
// ourselves (/metrics/resources) and to order families as client_golang does.

#include <string>
#include <string_view>
#include <vector>

namespace prometheus {
struct MetricFamily;
}

namespace ks::metrics {

// Go's strconv.FormatFloat(v, 'g', -1, 64) as expfmt uses it: shortest round-trip form, exponent with at
// least two digits ("2.68435456e+09", "0.5", "1e+06"), "+Inf", "-Inf", "NaN".
std::string formatValue(double v);

// Escapes '\\', '"' and newlines.
std::string escapeLabelValue(std::string_view v);

// The text exposition of `families` as client_golang writes it: families sorted by name (empty ones left
// out), series by label values, values by formatValue, histogram buckets before _sum and _count.
std::string serializeSorted(std::vector<prometheus::MetricFamily> families);

}  // namespace ks::metrics
