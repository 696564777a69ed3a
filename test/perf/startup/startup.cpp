// The start-up benchmark (issue 16): how long upstream kube-scheduler (v1.37.2, the release this project
// follows: ks::kUpstreamVersion, the binary test/integration/controlplane.sh builds) and kube-scheduler-cpp
// take, each started alone against the same real etcd + kube-apiserver (loopback) holding a large cluster, to
// answer /readyz = ok, with what CPU and memory; and what a forced relist (410) costs ours. Run through
// test/perf/startup/run.sh, which builds this and the daemon and gets the pinned binaries; see
// docs/performance.md, "Start-up and relist".
//
// The cluster: --nodes nodes of scheduler_perf's node-default template and --pods pods of pod-default
// already bound to them (round robin), in --namespaces namespaces, written by --loader-threads clients.
// Then, per run (upstream, ours; --runs), one after the other:
//   the scheduler is exec'd with the same configuration (the default plugins minus those
//   kube-scheduler-cpp lacks, no leader election, serving on a free 127.0.0.1 port) and /readyz polled every
//   20 ms: time to ready is exec -> the first 200; CPU to ready is utime + stime at that moment (sampled
//   every 50 ms); peak RSS is VmHWM and settled RSS VmRSS, both --settle seconds after ready.
// Then, for ours (--relist, on by default), a relist forced the way a real one happens: a ConfigMap is
// written (so the cluster's resourceVersion moves past what the informers have seen) and kube-apiserver is
// restarted; its new watch cache starts at the current revision, so each informer's rewatch gets 410
// "too old resource version" and lists again. This run starts ours with --v=4 so that its log has the
// reflector's "Watch closed ... code=410" line; the relist's time is from that line to the pod informer's
// next "Caches populated" line (log timestamps), its CPU what the process spent in between.
//
// Output: the table on stdout and in <out>/results.md, the figures in <out>/results.json, each
// scheduler's config and log in <out>. Exit 0 when every run got ready, 1 otherwise, 2 on bad flags.

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/harness/api_client.h"
#include "test/integration/harness/control_plane.h"
#include "test/integration/harness/objects.h"
#include "test/integration/harness/process.h"
#include "test/perf/support/load.h"
#include "test/perf/support/perf_support.h"

namespace ks::startup {
namespace {

using json = nlohmann::json;
using integration::ApiClient;
using integration::ControlPlane;
using integration::Process;
using perf::Clock;
using perf::log;
using perf::seconds;

struct Options {
  int nodes = 5000;
  int pods = 100000;
  int namespaces = 10;
  int loaderThreads = 12;
  std::vector<std::string> runs = {"upstream", "ours"};
  bool relist = true;
  bool hold = false;  // keep the loaded cluster after the runs, until stdin ends (for profiling)
  std::chrono::seconds settle{15};
  std::chrono::seconds timeout{600};
  std::string out;
};

const char* kUsage =
    "usage: startup [--nodes=N] [--pods=N] [--namespaces=N] [--loader-threads=N] [--runs=upstream,ours]\n"
    "               [--relist=true|false] [--settle=SECONDS] [--timeout=SECONDS] [--hold] --out=DIR\n"
    "Defaults: 5000 nodes, 100000 bound pods in 10 namespaces, 12 loaders, both runs, a forced relist of\n"
    "ours, settled RSS 15 s after ready, 600 s to get ready.\n"
    "--hold keeps the loaded cluster after the runs (its kubeconfig is printed) until stdin ends, e.g. to\n"
    "profile a scheduler against it; --runs= (empty) with --hold only loads.\n"
    "KS_E2E_OUR_BINARY overrides the kube-scheduler-cpp binary; KS_CONTROL_PLANE_BIN the upstream ones.\n";

std::optional<Options> parseArgs(int argc, char** argv) {
  Options o;
  const bool ok =
      perf::parseFlags(argc, argv, "startup", kUsage, [&](const std::string& key, const std::string& value) {
        if (key == "--nodes") return perf::positiveNumber(value, o.nodes);
        if (key == "--pods") return perf::positiveNumber(value, o.pods);
        if (key == "--namespaces") return perf::positiveNumber(value, o.namespaces);
        if (key == "--loader-threads") return perf::positiveNumber(value, o.loaderThreads);
        if (key == "--settle") return perf::positiveSeconds(value, o.settle);
        if (key == "--timeout") return perf::positiveSeconds(value, o.timeout);
        if (key == "--out") return (o.out = value, true);
        if (key == "--hold") return (o.hold = true, true);
        if (key == "--relist") {
          o.relist = value == "true";
          return value == "true" || value == "false";
        }
        if (key == "--runs") {  // empty: only load (with --hold)
          o.runs.clear();
          std::stringstream in(value);
          bool known = true;
          for (std::string r; std::getline(in, r, ',');) {
            known = known && (r == "upstream" || r == "ours");
            o.runs.push_back(r);
          }
          return known;
        }
        return false;
      });
  if (!ok) return std::nullopt;
  if (o.out.empty()) {
    std::fprintf(stderr, "startup: --out is required\n%s", kUsage);
    return std::nullopt;
  }
  return o;
}

// The time of day of a klog text header ("I1125 02:53:40.123456 ..."), in seconds; nullopt otherwise.
std::optional<double> klogTimeOfDay(const std::string& line) {
  int h = 0, m = 0;
  double s = 0;
  if (line.size() < 21 || std::sscanf(line.c_str() + 6, "%d:%d:%lf", &h, &m, &s) != 3) return std::nullopt;
  return h * 3600.0 + m * 60.0 + s;
}

struct Relist {
  double seconds = 0;     // the 410 line -> the pod informer's next "Caches populated"
  double cpuSeconds = 0;  // what the process spent in between
};

// Finds, in `log` from `from` on, the pod reflector's 410 line and the next "Caches populated" line of the
// pod reflector; their times of day.
std::optional<std::pair<double, double>> relistSpan(const std::string& log, size_t from) {
  std::istringstream in(log.substr(std::min(from, log.size())));
  std::optional<double> closed;
  for (std::string line; std::getline(in, line);) {
    if (!closed && line.find("Watch closed reflector=\"pods\" code=410") != std::string::npos) {
      closed = klogTimeOfDay(line);
    } else if (closed && line.find("Caches populated reflector=\"pods\"") != std::string::npos) {
      auto populated = klogTimeOfDay(line);
      if (!populated) return std::nullopt;
      double end = *populated;
      if (end < *closed) end += 24 * 3600;  // past midnight
      return std::make_pair(*closed, end);
    }
  }
  return std::nullopt;
}

// The time of day now, in the klog header's clock (local time, as the daemon writes it).
double timeOfDayNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  localtime_r(&t, &tm);
  const double frac =
      std::chrono::duration<double>(now - std::chrono::system_clock::from_time_t(t)).count();
  return tm.tm_hour * 3600.0 + tm.tm_min * 60.0 + tm.tm_sec + frac;
}

struct RunResult {
  std::string run;
  bool ready = false;
  double readySeconds = 0;
  double cpuToReady = 0;
  double peakRssMb = 0, settledRssMb = 0;
  std::optional<Relist> relist;
};

class Benchmark {
 public:
  explicit Benchmark(Options o) : o_(std::move(o)) {}

  int run() {
    auto setup = perf::setUp(o_.out, KS_SCHEDULER_BINARY);
    if (!setup.ok()) return fail(setup.error().message());
    upstreamBinary_ = std::move(setup->upstreamBinary);
    ourBinary_ = std::move(setup->ourBinary);
    cp_ = std::move(setup->controlPlane);
    if (!load()) return fail("loading the cluster failed");

    std::vector<RunResult> results;
    for (const auto& r : o_.runs) results.push_back(startOnce(r, false));
    const bool relist = o_.relist && std::find(o_.runs.begin(), o_.runs.end(), "ours") != o_.runs.end();
    if (relist) {
      RunResult withRelist = startOnce("ours", true);
      for (auto& r : results) {
        if (r.run == "ours") r.relist = withRelist.relist;
      }
    }
    report(results);
    if (o_.hold) {
      log("holding the cluster; kubeconfig " + cp_->kubeconfigPath() + "; end stdin to stop");
      for (std::string line; std::getline(std::cin, line);) {
      }
    }
    const bool ok = std::all_of(results.begin(), results.end(), [&](const RunResult& r) {
      return r.ready && (!relist || r.run != "ours" || r.relist.has_value());
    });
    return ok ? 0 : 1;
  }

 private:
  int fail(const std::string& why) {
    log("FAILED: " + why);
    return 1;
  }

  bool load() {
    const std::string kc = cp_->kubeconfigPath();
    auto t0 = Clock::now();
    if (!perf::parallel(kc, o_.nodes, o_.loaderThreads, [](ApiClient& api, int i) {
          return perf::call(api, "POST", "/api/v1/nodes", perf::nodeJson("node-" + std::to_string(i)), 201);
        })) {
      return false;
    }
    log(std::to_string(o_.nodes) + " nodes created in " + perf::fmt("%.1f", seconds(Clock::now() - t0)) + " s");
    if (!perf::parallel(kc, o_.namespaces, o_.loaderThreads, [](ApiClient& api, int i) {
          const json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", nsName(i)}}}};
          return perf::call(api, "POST", "/api/v1/namespaces", ns, 201);
        })) {
      return false;
    }
    t0 = Clock::now();
    const bool ok = perf::parallel(kc, o_.pods, o_.loaderThreads, [&](ApiClient& api, int i) {
      const std::string ns = nsName(i % o_.namespaces);
      if (i > 0 && i % 10000 == 0) log(std::to_string(i) + " pods created");
      return perf::call(api, "POST", "/api/v1/namespaces/" + ns + "/pods",
                        perf::podJson(ns, "p-" + std::to_string(i), "startup.ks/pod", "bound", "startup-nobody",
                                      "node-" + std::to_string(i % o_.nodes)),
                        201);
    });
    log(std::to_string(o_.pods) + " bound pods created in " + perf::fmt("%.1f", seconds(Clock::now() - t0)) +
        " s");
    return ok;
  }

  static std::string nsName(int i) { return "startup-" + std::to_string(i); }

  RunResult startOnce(const std::string& run, bool relist) {
    const std::string label = relist ? run + "-relist" : run;
    RunResult r{.run = run};
    const std::string config = o_.out + "/" + label + "-config.yaml";
    std::ofstream(config) << integration::schedulerConfig(cp_->kubeconfigPath(), "", "", "startup-" + run);
    const uint16_t port = integration::freePort();
    std::vector<std::string> argv = {run == "upstream" ? upstreamBinary_ : ourBinary_, "--config=" + config,
                                     "--bind-address=127.0.0.1", "--secure-port=" + std::to_string(port)};
    if (relist) argv.push_back("--v=4");
    log(label + ": starting " + argv[0]);
    const auto start = Clock::now();
    Process proc(argv, o_.out + "/" + label + ".log");
    if (!proc.started()) return r;
    perf::CpuSampler cpu(proc.pid());
    auto ready = [port] {
      auto got = integration::httpsGet(port, "/readyz");
      return got && got->first == 200;
    };
    while (!ready()) {
      if (!proc.running() || Clock::now() - start > o_.timeout) {
        log(label + ": not ready (" + (proc.running() ? "timeout" : "exited") + "), log " + proc.logPath());
        proc.stop(std::chrono::seconds(10));
        return r;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const auto readyAt = Clock::now();
    r.ready = true;
    r.readySeconds = seconds(readyAt - start);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a sample past readyAt
    r.cpuToReady = cpu.at(readyAt);
    log(label + ": ready after " + perf::fmt("%.2f", r.readySeconds) + " s, CPU " + perf::fmt("%.2f", r.cpuToReady) +
        " s");
    std::this_thread::sleep_for(o_.settle);
    if (auto s = perf::procStats(proc.pid())) {
      r.peakRssMb = static_cast<double>(s->peakRssKb) / 1024.0;
      r.settledRssMb = static_cast<double>(s->rssKb) / 1024.0;
    }
    log(label + ": RSS peak " + perf::fmt("%.0f", r.peakRssMb) + " MiB, settled " +
        perf::fmt("%.0f", r.settledRssMb) + " MiB");
    if (relist) r.relist = forceRelist(proc, cpu, label);
    proc.stop(std::chrono::seconds(30));
    return r;
  }

  // A ConfigMap write, then a kube-apiserver restart (see the file's comment); waits for the pod informer's
  // relist in the daemon's log.
  std::optional<Relist> forceRelist(Process& proc, const perf::CpuSampler& cpu, const std::string& label) {
    const size_t logFrom = proc.log().size();
    auto api = ApiClient::create(cp_->kubeconfigPath());
    if (!api.ok()) return std::nullopt;
    const json cm = {{"apiVersion", "v1"},
                     {"kind", "ConfigMap"},
                     {"metadata", {{"name", "startup-relist-" + std::to_string(relists_++)}, {"namespace", "default"}}}};
    if (!perf::call(**api, "POST", "/api/v1/namespaces/default/configmaps", cm, 201)) return std::nullopt;
    log(label + ": restarting kube-apiserver");
    // Steady-clock instants of the daemon's log times, for the CPU sampler.
    const double todAtStart = timeOfDayNow();
    const auto steadyAtStart = Clock::now();
    if (auto restarted = cp_->restartApiserver(); !restarted.ok()) {
      log(label + ": " + restarted.error().message());
      return std::nullopt;
    }
    std::optional<std::pair<double, double>> span;
    const bool seen = integration::waitFor(
        [&] { return (span = relistSpan(proc.log(), logFrom)).has_value(); }, o_.timeout,
        std::chrono::milliseconds(100));
    if (!seen) {
      log(label + ": no relist of the pods seen in " + proc.logPath());
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a sample past the end
    auto steadyOf = [&](double tod) {
      double d = tod - todAtStart;
      if (d < -12 * 3600) d += 24 * 3600;
      return steadyAtStart + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(d));
    };
    Relist rl;
    rl.seconds = span->second - span->first;
    rl.cpuSeconds = cpu.at(steadyOf(span->second)) - cpu.at(steadyOf(span->first));
    log(label + ": pods relisted in " + perf::fmt("%.2f", rl.seconds) + " s, CPU " + perf::fmt("%.2f", rl.cpuSeconds) +
        " s");
    return rl;
  }

  void report(const std::vector<RunResult>& results) {
    auto title = [](const std::string& run) {
      return run == "upstream" ? perf::upstreamTitle() : std::string("kube-scheduler-cpp");
    };
    std::vector<std::string> columns;
    for (const auto& r : results) columns.push_back(title(r.run));
    perf::ResultsTable table(std::to_string(o_.nodes) + " nodes, " + std::to_string(o_.pods) + " bound pods in " +
                                 std::to_string(o_.namespaces) +
                                 " namespaces; each scheduler started alone, same configuration.",
                             columns);
    auto row = [&](const std::string& what, const std::function<std::string(const RunResult&)>& f) {
      std::vector<std::string> cells;
      for (const auto& r : results) cells.push_back(r.ready ? f(r) : "not ready");
      table.row(what, cells);
    };
    row("time to /readyz (s)", [](const RunResult& r) { return perf::fmt("%.2f", r.readySeconds); });
    row("CPU to ready (s)", [](const RunResult& r) { return perf::fmt("%.2f", r.cpuToReady); });
    row("peak RSS (MiB)", [](const RunResult& r) { return perf::fmt("%.0f", r.peakRssMb); });
    row("settled RSS, " + std::to_string(o_.settle.count()) + " s after ready (MiB)",
        [](const RunResult& r) { return perf::fmt("%.0f", r.settledRssMb); });
    row("relist after 410: time / CPU (s)", [](const RunResult& r) {
      return r.relist ? perf::fmt("%.2f", r.relist->seconds) + " / " + perf::fmt("%.2f", r.relist->cpuSeconds)
                      : std::string("—");
    });
    table.write(o_.out);

    json j = json::array();
    for (const auto& r : results) {
      json e = {{"run", r.run},
                {"ready", r.ready},
                {"nodes", o_.nodes},
                {"pods", o_.pods},
                {"readySeconds", r.readySeconds},
                {"cpuToReadySeconds", r.cpuToReady},
                {"peakRssMiB", r.peakRssMb},
                {"settledRssMiB", r.settledRssMb}};
      if (r.relist) e["relist"] = {{"seconds", r.relist->seconds}, {"cpuSeconds", r.relist->cpuSeconds}};
      j.push_back(std::move(e));
    }
    std::ofstream(o_.out + "/results.json") << j.dump(2) << '\n';
  }

  const Options o_;
  std::string upstreamBinary_, ourBinary_;
  std::unique_ptr<ControlPlane> cp_;
  int relists_ = 0;
};

}  // namespace
}  // namespace ks::startup

int main(int argc, char** argv) {
  ks::perf::setLogDriver("startup");
  auto o = ks::startup::parseArgs(argc, argv);
  if (!o) return 2;
  return ks::startup::Benchmark(std::move(*o)).run();
}
