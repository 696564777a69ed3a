#pragma once
// What the benchmarks that drive real processes (test/perf/soak, test/perf/e2e) measure about them:
// /proc figures of a process, values from a Prometheus text scrape, and small statistics.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace ks::perf {

struct ProcStats {
  long rssKb = 0;         // VmRSS
  long peakRssKb = 0;     // VmHWM: the largest RSS since the process started
  double cpuSeconds = 0;  // utime + stime
  int threads = 0;
};

// nullopt when the process is gone (or /proc cannot be read).
std::optional<ProcStats> procStats(pid_t pid);

// Prometheus text: the value of the sample `name` whose labels include `label`="`value`" (any labels when
// `label` is empty); nullopt if absent.
std::optional<double> metricValue(const std::string& text, const std::string& name, const std::string& label = "",
                                  const std::string& value = "");

double median(std::vector<double> v);
// The nearest-rank percentile (p in [0, 100]) of `v`; 0 for an empty vector.
double percentile(std::vector<double> v, double p);

// printf of one number into a string.
std::string fmt(const char* format, double a);

}  // namespace ks::perf
