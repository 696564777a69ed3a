#include "pkg/scheduler/metrics/process_collector.h"

#include "pkg/scheduler/metrics/text_format.h"

#include <dirent.h>
#include <unistd.h>

#include <prometheus/metric_family.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ks::metrics {
namespace {

std::optional<std::string> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<double> parseNumber(const std::string& s) {
  if (s == "unlimited") return 18446744073709551615.0;  // procfs: limitsUnlimited
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

double userHz() {
  const long hz = ::sysconf(_SC_CLK_TCK);
  return hz > 0 ? static_cast<double>(hz) : 100.0;
}

std::optional<double> bootTime(const std::string& procRoot) {
  auto text = slurp(procRoot + "/stat");
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("btime ", 0) == 0) return parseNumber(line.substr(6));
  }
  return std::nullopt;
}

std::optional<ProcessStats::Stat> readStat(const std::string& procDir, const std::string& procRoot) {
  auto text = slurp(procDir + "/stat");
  if (!text) return std::nullopt;
  // The command name may hold spaces and parentheses: fields start after the last ')'.
  const auto close = text->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream in(text->substr(close + 1));
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  // fields[0] is field 3 (state) of proc(5): utime 14, stime 15, starttime 22, vsize 23, rss 24.
  if (fields.size() < 22) return std::nullopt;
  auto field = [&](int n) { return parseNumber(fields[static_cast<size_t>(n - 3)]); };
  auto utime = field(14), stime = field(15), start = field(22), vsize = field(23), rss = field(24);
  if (!utime || !stime || !start || !vsize || !rss) return std::nullopt;
  ProcessStats::Stat s;
  const double hz = userHz();
  s.cpuSeconds = (*utime + *stime) / hz;
  s.virtualMemoryBytes = *vsize;
  s.residentMemoryBytes = *rss * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (auto btime = bootTime(procRoot)) s.startTimeSeconds = *btime + *start / hz;
  return s;
}

std::optional<double> countFds(const std::string& procDir) {
  DIR* dir = ::opendir((procDir + "/fd").c_str());
  if (dir == nullptr) return std::nullopt;
  double n = 0;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name = e->d_name;
    if (name != "." && name != "..") ++n;
  }
  ::closedir(dir);
  return n;
}

std::optional<ProcessStats::Limits> readLimits(const std::string& procDir) {
  auto text = slurp(procDir + "/limits");
  if (!text) return std::nullopt;
  // "Max open files            1024                 1048576              files": the soft limit.
  auto soft = [&](std::string_view name) -> std::optional<double> {
    const auto at = text->find(name);
    if (at == std::string::npos) return std::nullopt;
    std::istringstream in(text->substr(at + name.size()));
    std::string value;
    in >> value;
    return parseNumber(value);
  };
  auto files = soft("Max open files");
  auto address = soft("Max address space");
  if (!files || !address) return std::nullopt;
  return ProcessStats::Limits{*files, *address};
}

std::optional<ProcessStats::Network> readNetstat(const std::string& procDir) {
  auto text = slurp(procDir + "/net/netstat");
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string header, values;
  ProcessStats::Network n;
  // Pairs of lines: "IpExt: InNoRoutes InTruncatedPkts ..." then "IpExt: 0 0 ...".
  while (std::getline(in, header) && std::getline(in, values)) {
    if (header.rfind("IpExt:", 0) != 0) continue;
    std::istringstream hs(header.substr(6)), vs(values.substr(std::min(values.size(), size_t{6})));
    std::string name, value;
    while (hs >> name && vs >> value) {
      if (name == "InOctets") n.receiveBytes = parseNumber(value).value_or(0);
      if (name == "OutOctets") n.transmitBytes = parseNumber(value).value_or(0);
    }
  }
  return n;
}

prometheus::MetricFamily family(std::string name, std::string help, prometheus::MetricType type, double v) {
  prometheus::MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = v;
  } else {
    m.gauge.value = v;
  }
  f.metric.push_back(std::move(m));
  return f;
}

}  // namespace

ProcessStats readProcessStats(const std::string& procDir, const std::string& procRoot) {
  ProcessStats s;
  s.stat = readStat(procDir, procRoot);
  s.openFds = countFds(procDir);
  s.limits = readLimits(procDir);
  s.network = readNetstat(procDir);
  return s;
}

std::vector<prometheus::MetricFamily> processFamilies(const ProcessStats& s) {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  if (s.stat) {
    out.push_back(family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                         MetricType::Counter, s.stat->cpuSeconds));
  }
  if (s.openFds) {
    out.push_back(
        family("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, *s.openFds));
  }
  if (s.limits) {
    out.push_back(family("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge,
                         s.limits->maxFds));
  }
  if (s.stat) {
    out.push_back(family("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge,
                         s.stat->virtualMemoryBytes));
  }
  if (s.limits) {
    out.push_back(family("process_virtual_memory_max_bytes",
                         "Maximum amount of virtual memory available in bytes.", MetricType::Gauge,
                         s.limits->maxVirtualMemoryBytes));
  }
  if (s.stat) {
    out.push_back(family("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::Gauge,
                         s.stat->residentMemoryBytes));
    if (s.stat->startTimeSeconds) {
      out.push_back(family("process_start_time_seconds",
                           "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
                           *s.stat->startTimeSeconds));
    }
  }
  if (s.network) {
    out.push_back(family("process_network_receive_bytes_total",
                         "Number of bytes received by the process over the network.", MetricType::Counter,
                         s.network->receiveBytes));
    out.push_back(family("process_network_transmit_bytes_total",
                         "Number of bytes sent by the process over the network.", MetricType::Counter,
                         s.network->transmitBytes));
  }
  return out;
}

std::string processMetricsText(const ProcessStats& stats) {
  return serializeSorted(processFamilies(stats));
}

}  // namespace ks::metrics
