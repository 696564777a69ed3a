#pragma once
// Reads samples back from Metrics::scrape() (Prometheus text format) in tests.

#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ks::metrics::testing {

using Labels = std::map<std::string, std::string>;

struct Sample {
  std::string name;
  Labels labels;
  double value = 0;
};

inline std::vector<Sample> parseSamples(const std::string& text) {
  std::vector<Sample> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    Sample s;
    size_t i = line.find_first_of("{ ");
    s.name = line.substr(0, i);
    if (line[i] == '{') {
      ++i;
      while (line[i] != '}') {
        const size_t eq = line.find('=', i);
        const std::string key = line.substr(i, eq - i);
        size_t q = eq + 2;  // skip ="
        std::string value;
        while (line[q] != '"') {
          if (line[q] == '\\') ++q;
          value += line[q++];
        }
        s.labels[key] = value;
        i = q + 1;
        if (line[i] == ',') ++i;
      }
      ++i;
    }
    s.value = std::stod(line.substr(i + 1));
    out.push_back(std::move(s));
  }
  return out;
}

inline bool labelsInclude(const Labels& have, const Labels& want) {
  for (const auto& [k, v] : want) {
    auto it = have.find(k);
    if (it == have.end() || it->second != v) return false;
  }
  return true;
}

// The samples named `name` whose labels include `want`.
inline std::vector<Sample> find(const std::string& text, std::string_view name, const Labels& want = {}) {
  std::vector<Sample> out;
  for (auto& s : parseSamples(text)) {
    if (s.name == name && labelsInclude(s.labels, want)) out.push_back(std::move(s));
  }
  return out;
}

// The sum of those samples (0 when there are none).
inline double sum(const std::string& text, std::string_view name, const Labels& want = {}) {
  double total = 0;
  for (const auto& s : find(text, name, want)) total += s.value;
  return total;
}

}  // namespace ks::metrics::testing
