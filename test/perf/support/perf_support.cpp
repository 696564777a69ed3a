#include "test/perf/support/perf_support.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test/integration/harness/process.h"

namespace ks::perf {

std::optional<ProcStats> procStats(pid_t pid) {
  ProcStats s;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  bool haveRss = false;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      s.rssKb = std::strtol(line.c_str() + 6, nullptr, 10);
      haveRss = true;
    } else if (line.rfind("VmHWM:", 0) == 0) {
      s.peakRssKb = std::strtol(line.c_str() + 6, nullptr, 10);
    } else if (line.rfind("Threads:", 0) == 0) {
      s.threads = static_cast<int>(std::strtol(line.c_str() + 8, nullptr, 10));
    }
  }
  if (!haveRss) return std::nullopt;
  // /proc/<pid>/stat: the command may hold spaces, so fields are counted after its closing ')';
  // utime and stime are fields 14 and 15 (in clock ticks).
  const std::string stat = integration::readFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(paren + 2));
  std::vector<std::string> f;
  for (std::string x; fields >> x;) f.push_back(x);
  if (f.size() < 13) return std::nullopt;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  s.cpuSeconds = (std::strtod(f[11].c_str(), nullptr) + std::strtod(f[12].c_str(), nullptr)) / ticks;
  return s;
}

std::optional<double> metricValue(const std::string& text, const std::string& name, const std::string& label,
                                  const std::string& value) {
  std::istringstream in(text);
  std::string line;
  const std::string want = label.empty() ? "" : label + "=\"" + value + "\"";
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind(name, 0) != 0) continue;
    const size_t after = name.size();
    if (after >= line.size() || (line[after] != '{' && line[after] != ' ')) continue;
    size_t valuePos = after;
    if (line[after] == '{') {
      const size_t close = line.find('}', after);
      if (close == std::string::npos) continue;
      const std::string labels = line.substr(after + 1, close - after - 1);
      if (!want.empty() && labels.find(want) == std::string::npos) continue;
      valuePos = close + 1;
    } else if (!want.empty()) {
      continue;
    }
    return std::strtod(line.c_str() + valuePos, nullptr);
  }
  return std::nullopt;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size()));
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return v[std::min(i, v.size() - 1)];
}

std::string fmt(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

}  // namespace ks::perf
