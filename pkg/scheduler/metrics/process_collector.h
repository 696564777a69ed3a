#pragma once
// The process_* metrics of client_golang v1.22.0's process collector (the version kubernetes v1.34.4's
// go.mod pins; component-base registers it raw, so the HELP texts carry no stability prefix), read from
// /proc at scrape time as prometheus/procfs v0.15.1 reads them:
//   process_cpu_seconds_total             stat utime+stime / USER_HZ
//   process_virtual_memory_bytes          stat vsize
//   process_resident_memory_bytes         stat rss * page size
//   process_start_time_seconds            /proc/stat btime + stat starttime / USER_HZ
//   process_open_fds                      entries of fd/
//   process_max_fds                       limits "Max open files" soft limit
//   process_virtual_memory_max_bytes      limits "Max address space" soft limit ("unlimited" = 2^64-1)
//   process_network_receive_bytes_total   net/netstat IpExt InOctets
//   process_network_transmit_bytes_total  net/netstat IpExt OutOctets
// As upstream, a group whose file cannot be read is left out of the scrape (errors are not reported).
// Linux only.

#include <optional>
#include <string>
#include <vector>

namespace prometheus {
struct MetricFamily;
}

namespace ks::metrics {

struct ProcessStats {
  struct Stat {
    double cpuSeconds = 0;
    double virtualMemoryBytes = 0;
    double residentMemoryBytes = 0;
    std::optional<double> startTimeSeconds;  // needs /proc/stat's btime
  };
  struct Limits {
    double maxFds = 0;
    double maxVirtualMemoryBytes = 0;
  };
  struct Network {
    double receiveBytes = 0;
    double transmitBytes = 0;
  };
  std::optional<Stat> stat;
  std::optional<double> openFds;
  std::optional<Limits> limits;
  std::optional<Network> network;
};

// Reads the stats of the process whose /proc directory is `procDir` ("/proc/self"); `procRoot` holds the
// system-wide "stat" (for btime). Missing or malformed files leave their group empty.
ProcessStats readProcessStats(const std::string& procDir = "/proc/self", const std::string& procRoot = "/proc");

// The families for `stats`, in client_golang's order (cpu, open fds, max fds, vsize, max vsize, rss, start
// time, network).
std::vector<prometheus::MetricFamily> processFamilies(const ProcessStats& stats);
// The same as exposition text.
std::string processMetricsText(const ProcessStats& stats);

}  // namespace ks::metrics
