#pragma once
// What the drivers that load a real apiserver and time a scheduler against it share (test/perf/e2e,
// test/perf/startup): scheduler_perf's node and pod templates, API calls from many threads with retries
// of what an overloaded apiserver answers, a CPU sampler of a process, and timestamped progress lines.

#include <sys/types.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/util/result.h"
#include "test/integration/harness/api_client.h"
#include "test/integration/harness/control_plane.h"

namespace ks::perf {

using Clock = std::chrono::steady_clock;

// "[<driver> <seconds since the first line>s] <line>" on stdout, flushed. setLogDriver names the driver.
void setLogDriver(std::string driver);
void log(const std::string& line);

double seconds(Clock::duration d);

// The drivers' flags, "--name=value" or "--name": calls handle(name, value) for each; prints `usage` for
// --help (and exits 0) and "<driver>: bad flag ..." with the usage when handle returns false. False on a
// bad flag.
bool parseFlags(int argc, char** argv, const char* driver, const char* usage,
                const std::function<bool(const std::string& name, const std::string& value)>& handle);

// `value` as a positive number into `field` (of any arithmetic type); false when it is not one.
template <typename T>
bool positiveNumber(const std::string& value, T& field) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || v <= 0) return false;
  field = static_cast<T>(v);
  return true;
}
inline bool positiveSeconds(const std::string& value, std::chrono::seconds& field) {
  int s = 0;
  if (!positiveNumber(value, s)) return false;
  field = std::chrono::seconds(s);
  return true;
}

// scheduler_perf's templates/node-default.yaml: 4 CPU, 32Gi, 110 pods, Ready.
nlohmann::json nodeJson(const std::string& name);
// scheduler_perf's templates/pod-default.yaml (one pause container, 100m / 500Mi), labelled
// `labelKey`=`labelValue`, for `schedulerName`; bound to `nodeName` when it is not empty.
nlohmann::json podJson(const std::string& ns, const std::string& name, const std::string& labelKey,
                       const std::string& labelValue, const std::string& schedulerName,
                       const std::string& nodeName = "");

// What a driver compares and where: the two schedulers' binaries and a running etcd + kube-apiserver.
struct Setup {
  std::string upstreamBinary;  // the pinned kube-scheduler: ks::kUpstreamVersion, controlplane.sh's build
  std::string ourBinary;       // $KS_E2E_OUR_BINARY, else the build's
  std::unique_ptr<integration::ControlPlane> controlPlane;
};
// "upstream kube-scheduler v1.37.2": the reference's column title (ks::kUpstreamVersion).
std::string upstreamTitle();

// Creates `out`, finds the binaries (`builtOurs` unless $KS_E2E_OUR_BINARY is set) and starts the control
// plane; the error says which step failed.
Result<Setup> setUp(const std::string& out, const std::string& builtOurs);

// One request with retries of what an overloaded apiserver answers (429, 5xx, transport errors); true
// when it ended in `want` (or 409 AlreadyExists for a create that may have landed before a retry).
bool call(integration::ApiClient& api, const std::string& method, const std::string& path,
          const nlohmann::json& body, int want);

// Runs work(api, i) for i in [0, n) on `threads` threads, each with its own connection; false when a
// call failed or a connection could not be made.
bool parallel(const std::string& kubeconfig, int n, int threads,
              const std::function<bool(integration::ApiClient&, int)>& work);

// The results table of a driver, in Markdown: a caption, then a row per figure with a column per run.
class ResultsTable {
 public:
  ResultsTable(std::string caption, const std::vector<std::string>& columns);
  void row(const std::string& label, const std::vector<std::string>& cells);
  // Prints the table and writes it to <out>/results.md.
  void write(const std::string& out) const;

 private:
  std::string text_;
};

// Samples a process's CPU seconds every 50 ms, so that the CPU spent between two instants can be read.
class CpuSampler {
 public:
  explicit CpuSampler(pid_t pid);
  ~CpuSampler();
  CpuSampler(const CpuSampler&) = delete;
  CpuSampler& operator=(const CpuSampler&) = delete;
  // CPU seconds at the last sample taken at or before `t` (0 before the first).
  double at(Clock::time_point t) const;

 private:
  const pid_t pid_;
  mutable std::mutex mu_;
  std::vector<std::pair<Clock::time_point, double>> samples_;  // guarded by mu_
  std::jthread thread_;
};

}  // namespace ks::perf
