#include "pkg/scheduler/metrics/text_format.h"

#include <prometheus/metric_family.h>

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

namespace {

void writeHelp(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void writeSample(std::string& out, std::string_view name, std::string_view suffix,
                 const std::vector<prometheus::ClientMetric::Label>& labels, std::string_view extraName,
                 std::string_view extraValue, double value) {
  out += name;
  out += suffix;
  if (!labels.empty() || !extraName.empty()) {
    out += '{';
    bool first = true;
    for (const auto& l : labels) {
      if (!first) out += ',';
      first = false;
      out += l.name + "=\"" + escapeLabelValue(l.value) + "\"";
    }
    if (!extraName.empty()) {
      if (!first) out += ',';
      out += std::string(extraName) + "=\"" + std::string(extraValue) + "\"";
    }
    out += '}';
  }
  out += ' ';
  out += formatValue(value);
  out += '\n';
}

std::string_view typeName(prometheus::MetricType t) {
  switch (t) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Histogram:
      return "histogram";
    case prometheus::MetricType::Summary:
      return "summary";
    default:
      return "untyped";
  }
}

}  // namespace

std::string serializeSorted(std::vector<prometheus::MetricFamily> families) {
  // As client_golang's Gather + expfmt: families by name, series by label values, no empty families,
  // buckets then _sum then _count.
  std::stable_sort(families.begin(), families.end(),
                   [](const auto& a, const auto& b) { return a.name < b.name; });
  std::string out;
  for (auto& f : families) {
    if (f.metric.empty()) continue;
    for (auto& m : f.metric) {
      std::sort(m.label.begin(), m.label.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    }
    std::stable_sort(f.metric.begin(), f.metric.end(), [](const auto& a, const auto& b) {
      return std::lexicographical_compare(a.label.begin(), a.label.end(), b.label.begin(), b.label.end(),
                                          [](const auto& x, const auto& y) { return x.value < y.value; });
    });
    out += "# HELP " + f.name + " ";
    writeHelp(out, f.help);
    out += "\n# TYPE " + f.name + " " + std::string(typeName(f.type)) + "\n";
    for (const auto& m : f.metric) {
      switch (f.type) {
        case prometheus::MetricType::Counter:
          writeSample(out, f.name, "", m.label, "", "", m.counter.value);
          break;
        case prometheus::MetricType::Gauge:
          writeSample(out, f.name, "", m.label, "", "", m.gauge.value);
          break;
        case prometheus::MetricType::Histogram: {
          for (const auto& b : m.histogram.bucket) {
            writeSample(out, f.name, "_bucket", m.label, "le", formatValue(b.upper_bound),
                        static_cast<double>(b.cumulative_count));
          }
          writeSample(out, f.name, "_sum", m.label, "", "", m.histogram.sample_sum);
          writeSample(out, f.name, "_count", m.label, "", "", static_cast<double>(m.histogram.sample_count));
          break;
        }
        case prometheus::MetricType::Summary: {
          for (const auto& q : m.summary.quantile) {
            writeSample(out, f.name, "", m.label, "quantile", formatValue(q.quantile), q.value);
          }
          writeSample(out, f.name, "_sum", m.label, "", "", m.summary.sample_sum);
          writeSample(out, f.name, "_count", m.label, "", "", static_cast<double>(m.summary.sample_count));
          break;
        }
        default:
          writeSample(out, f.name, "", m.label, "", "", m.untyped.value);
          break;
      }
    }
  }
  return out;
}

}  // namespace ks::metrics
