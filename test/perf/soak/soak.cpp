// The soak (issue 15, "never grow without bound"): the real kube-scheduler-cpp daemon against a real
// etcd + kube-apiserver on loopback, under steady churn at fixed rates for a fixed duration, sampled every
// 10 s. Run through test/perf/soak/run.sh (which builds this and the daemon and gets the control plane);
// see docs/performance.md, "Soak".
//
// Every wave (--wave-period, 30 s by default), in this order:
//   1. the gate node's "soak.ks/gate" label is set to the previous wave's number, which makes the previous
//      wave's deliberately unschedulable pods (nodeSelector soak.ks/gate=<wave>) schedulable;
//   2. this wave's unschedulable pods (--unschedulable-per-wave) and pods (--pods-per-wave) are created;
//   3. nodes: --nodes-per-wave new nodes are added, those added 2 waves ago are cordoned
//      (spec.unschedulable), those added 4 waves ago are removed, then the pods left on them are deleted
//      (so the cache sees a node go before its pods);
//   4. the pods of the wave before the previous one are deleted (deletecollection, grace period 0);
//   5. all of this wave's schedulable pods and the previous wave's released ones must be bound within the
//      wave period, and then the daemon's pending pods (scheduler_pending_pods, all queues) must come back
//      to exactly this wave's unschedulable pods.
// After the duration the last unschedulable pods are released, and the daemon's cache
// (scheduler_cache_size) must equal the apiserver's nodes and assigned pods, with no assumed pod and
// nothing pending.
//
// Pass / fail (exit 0 / 1): every wave as in 5.; the end state as above; and RSS flat: the median of the
// last 5 samples is less than --max-rss-growth (5%) above the median of the 5 samples that follow the
// warm-up (the first --warmup fraction, 20%, of the duration, but at least 5 wave periods: the churn's
// steady state starts at wave 5).

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
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
#include "test/perf/support/perf_support.h"

namespace ks::soak {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using integration::ApiClient;
using integration::ControlPlane;
using integration::Process;
using perf::fmt;
using perf::median;
using perf::metricValue;
using perf::ProcStats;
using perf::procStats;

constexpr const char* kNamespace = "soak";
constexpr const char* kSchedulerName = "kube-scheduler-cpp";
constexpr const char* kGateLabel = "soak.ks/gate";
constexpr const char* kWaveLabel = "soak.ks/wave";
constexpr const char* kKindLabel = "soak.ks/kind";  // "churn" or "gated"
constexpr auto kSampleInterval = std::chrono::seconds(10);
constexpr int kMedianWindow = 5;

struct Options {
  std::chrono::seconds duration{std::chrono::minutes(30)};
  std::chrono::seconds wavePeriod{30};
  std::string outDir;
  std::string schedulerBinary = KS_SCHEDULER_BINARY;
  int baseNodes = 10;
  int nodesPerWave = 2;
  int podsPerWave = 200;
  int unschedulablePerWave = 5;
  double warmup = 0.2;
  double maxRssGrowth = 0.05;
};

// The churn is in its steady state from this wave on: the pods of wave w-2 are deleted at wave w (from
// wave 3) and the nodes added at wave w-4 removed (from wave 5).
constexpr int kSteadyWave = 5;

// Seconds from the start of the churn to the end of the warm-up: the larger of the --warmup fraction of
// the duration and the start of the steady state (kSteadyWave wave periods).
double warmupSeconds(const Options& o) {
  return std::max(o.warmup * static_cast<double>(o.duration.count()),
                  static_cast<double>(kSteadyWave * o.wavePeriod.count()));
}

const char* kUsage =
    "usage: soak [--duration=30m] [--out=DIR] [--wave-period=30s] [--pods-per-wave=200]\n"
    "            [--unschedulable-per-wave=5] [--base-nodes=10] [--nodes-per-wave=2] [--warmup=0.2]\n"
    "            [--max-rss-growth=0.05] [--scheduler-binary=PATH]\n"
    "Durations: a number with s, m or h. Needs KS_CONTROL_PLANE_BIN (test/integration/controlplane.sh build),\n"
    "or builds the control plane itself. Exit code 0 when every check passed, 1 otherwise, 2 on bad usage.\n";

std::optional<std::chrono::seconds> parseDuration(const std::string& s) {
  if (s.size() < 2) return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() - 1 || n <= 0) return std::nullopt;
  switch (s.back()) {
    case 's': return std::chrono::seconds(n);
    case 'm': return std::chrono::seconds(n * 60);
    case 'h': return std::chrono::seconds(n * 3600);
    default: return std::nullopt;
  }
}

Result<Options> parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) return Error("unknown argument \"" + arg + "\"");
    // "--name=value" or "--name value".
    const size_t eq = arg.find('=');
    std::string name, value;
    if (eq != std::string::npos) {
      name = arg.substr(2, eq - 2);
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      name = arg.substr(2);
      value = argv[++i];
    } else {
      return Error("flag \"" + arg + "\" needs a value");
    }
    auto intValue = [&](int& out, int min) -> VoidResult {
      char* end = nullptr;
      const long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < min || n > 100000) {
        return Error("--" + name + ": want an integer >= " + std::to_string(min) + ", got \"" + value + "\"");
      }
      out = static_cast<int>(n);
      return {};
    };
    auto fraction = [&](double& out) -> VoidResult {
      char* end = nullptr;
      const double d = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(d > 0 && d < 1)) {
        return Error("--" + name + ": want a number between 0 and 1, got \"" + value + "\"");
      }
      out = d;
      return {};
    };
    VoidResult r;
    if (name == "duration" || name == "wave-period") {
      auto d = parseDuration(value);
      if (!d) return Error("--" + name + ": want a duration such as 30s, 30m or 1h, got \"" + value + "\"");
      (name == "duration" ? o.duration : o.wavePeriod) = *d;
    } else if (name == "out") {
      o.outDir = value;
    } else if (name == "scheduler-binary") {
      o.schedulerBinary = value;
    } else if (name == "base-nodes") {
      r = intValue(o.baseNodes, 1);
    } else if (name == "nodes-per-wave") {
      r = intValue(o.nodesPerWave, 0);
    } else if (name == "pods-per-wave") {
      r = intValue(o.podsPerWave, 1);
    } else if (name == "unschedulable-per-wave") {
      r = intValue(o.unschedulablePerWave, 0);
    } else if (name == "warmup") {
      r = fraction(o.warmup);
    } else if (name == "max-rss-growth") {
      r = fraction(o.maxRssGrowth);
    } else {
      return Error("unknown flag \"--" + name + "\"");
    }
    if (!r.ok()) return r.error();
  }
  if (o.wavePeriod < std::chrono::seconds(10)) return Error("--wave-period: at least 10s");
  if (o.duration.count() - warmupSeconds(o) < 2 * kMedianWindow * kSampleInterval.count()) {
    return Error("--duration: the warm-up ends at " + std::to_string(static_cast<long>(warmupSeconds(o))) +
                 " s (the larger of --warmup of the duration and " + std::to_string(kSteadyWave) +
                 " wave periods), which leaves less than " +
                 std::to_string(2 * kMedianWindow * kSampleInterval.count()) +
                 " s to judge RSS: run longer or shorten --wave-period");
  }
  if (o.outDir.empty()) o.outDir = "soak-" + std::to_string(::time(nullptr));
  return o;
}

// ---- Objects ----

json nodeJson(const std::string& name, const std::map<std::string, std::string>& labels) {
  json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
               {"status",
                {{"capacity", {{"cpu", "32"}, {"memory", "64Gi"}, {"pods", "110"}}},
                 {"allocatable", {{"cpu", "32"}, {"memory", "64Gi"}, {"pods", "110"}}}}}};
  for (const auto& [k, v] : labels) node["metadata"]["labels"][k] = v;
  return node;
}

json podJson(const std::string& name, int wave, const char* kind, std::optional<int> gate) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", name},
                {"namespace", kNamespace},
                {"labels", {{kWaveLabel, std::to_string(wave)}, {kKindLabel, kind}}}}},
              {"spec",
               {{"schedulerName", kSchedulerName},
                {"terminationGracePeriodSeconds", 0},
                {"containers",
                 {{{"name", "c"},
                   {"image", "registry.k8s.io/pause:3.10"},
                   {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "16Mi"}}}}}}}}}}};
  if (gate) pod["spec"]["nodeSelector"] = {{kGateLabel, std::to_string(*gate)}};
  return pod;
}

// ---- Measurements ----

// The daemon's figures from /metrics; nullopt fields when the scrape failed.
struct DaemonMetrics {
  double active = 0, backoff = 0, unschedulable = 0, gated = 0;
  double cacheNodes = 0, cachePods = 0, cacheAssumed = 0;
  double pending() const { return active + backoff + unschedulable + gated; }
};

// ---- The soak ----

struct Sample {
  double t = 0;  // seconds since the churn started
  ProcStats proc;
  double cpuPercent = 0;  // over the last interval, of one core
  std::optional<DaemonMetrics> metrics;
  long apiNodes = -1, apiPods = -1, apiAssigned = -1;
  int wave = 0;
};

class Soak {
 public:
  explicit Soak(Options o) : o_(std::move(o)) {}

  // 0 when every check passed, 1 otherwise.
  int run() {
    const auto wallStart = Clock::now();
    std::filesystem::create_directories(o_.outDir);
    log("out dir: " + std::filesystem::absolute(o_.outDir).string());
    auto cp = ControlPlane::start();
    if (!cp.ok()) return fatal("control plane: " + cp.error().message());
    cp_ = std::move(cp).value();
    if (auto r = startDaemon(); !r.ok()) return fatal(r.error().message());
    auto api = ApiClient::create(cp_->kubeconfigPath());
    if (!api.ok()) return fatal(api.error().message());
    api_ = std::move(api).value();
    if (auto r = setUp(); !r.ok()) return fatal(r.error().message());

    log("churn for " + std::to_string(o_.duration.count()) + " s: a wave every " +
        std::to_string(o_.wavePeriod.count()) + " s of " + std::to_string(o_.podsPerWave) + " pods + " +
        std::to_string(o_.unschedulablePerWave) + " unschedulable, " + std::to_string(o_.nodesPerWave) +
        " nodes added / cordoned / removed; " + std::to_string(o_.baseNodes) + " base nodes");
    start_ = Clock::now();
    std::jthread sampler([this](std::stop_token stop) { sampleLoop(stop); });
    int wave = 0;
    while (Clock::now() - start_ < o_.duration && alive()) {
      const auto waveStart = start_ + wave * o_.wavePeriod;
      std::this_thread::sleep_until(waveStart);
      if (Clock::now() - start_ >= o_.duration) break;
      runWave(++wave);
    }
    waves_ = wave;
    const bool endOk = endCheck();
    sampler.request_stop();
    sampler.join();
    takeSample();  // one last sample, after the end check
    const bool rssOk = rssCheck();
    daemon_->stop();
    const bool ok = endOk && rssOk && failures_.empty() && daemonAlive_;
    summary(ok, std::chrono::duration<double>(Clock::now() - wallStart).count());
    return ok ? 0 : 1;
  }

 private:
  int fatal(const std::string& msg) {
    log("FATAL: " + msg);
    if (daemon_) daemon_->stop();
    return 1;
  }

  void log(const std::string& msg) {
    const double t = start_ == Clock::time_point() ? 0 : std::chrono::duration<double>(Clock::now() - start_).count();
    std::lock_guard lock(logMu_);
    std::fprintf(stderr, "[soak %7.1fs] %s\n", t, msg.c_str());
    std::fflush(stderr);
  }

  void fail(const std::string& msg) {
    log("FAIL: " + msg);
    std::lock_guard lock(failMu_);
    failures_.push_back(msg);
  }

  VoidResult startDaemon() {
    const std::string cfg = o_.outDir + "/scheduler-config.yaml";
    std::ofstream(cfg) << integration::schedulerConfig(cp_->kubeconfigPath());
    port_ = integration::freePort();
    std::vector<std::string> argv{o_.schedulerBinary,
                                  "--config=" + cfg,
                                  "--bind-address=127.0.0.1",
                                  "--secure-port=" + std::to_string(port_),
                                  // /metrics needs an authorized user: the harness admin certificate.
                                  "--client-ca-file=" + cp_->caFile(),
                                  "--authentication-skip-lookup=true",
                                  "-v=2"};
    daemon_ = std::make_unique<Process>(argv, o_.outDir + "/kube-scheduler-cpp.log");
    if (!daemon_->started()) return Error("cannot start " + o_.schedulerBinary);
    const bool up = integration::waitFor(
        [&] {
          auto r = httpsGet("/readyz");
          return r && r->first == 200;
        },
        std::chrono::seconds(60));
    if (!up) return Error("the daemon did not get ready in 60 s; log:\n" + integration::tail(daemon_->log()));
    log("daemon ready on port " + std::to_string(port_));
    return {};
  }

  // Whether the daemon still runs (reaps it when it has exited).
  bool alive() { return !daemon_->waitExit(std::chrono::milliseconds(0)).has_value(); }

  std::optional<std::pair<int, std::string>> httpsGet(const std::string& path) const {
    return integration::httpsGet(port_, path, {"--cert", cp_->clientCertFile(), "--key", cp_->clientKeyFile()});
  }

  std::optional<DaemonMetrics> scrape() const {
    auto r = httpsGet("/metrics");
    if (!r || r->first != 200) return std::nullopt;
    const std::string& t = r->second;
    DaemonMetrics m;
    auto v = [&](const char* name, const char* label, const char* value) {
      return metricValue(t, name, label, value).value_or(-1);
    };
    m.active = v("scheduler_pending_pods", "queue", "active");
    m.backoff = v("scheduler_pending_pods", "queue", "backoff");
    m.unschedulable = v("scheduler_pending_pods", "queue", "unschedulable");
    m.gated = v("scheduler_pending_pods", "queue", "gated");
    m.cacheNodes = v("scheduler_cache_size", "type", "nodes");
    m.cachePods = v("scheduler_cache_size", "type", "pods");
    m.cacheAssumed = v("scheduler_cache_size", "type", "assumed_pods");
    return m;
  }

  // Creates `obj` at `path`; any status but 201 is an error.
  VoidResult create(ApiClient& api, const std::string& path, const json& obj) {
    auto r = api.post(path, obj);
    if (!r.ok()) return Error("POST " + path + ": " + r.error().message());
    if (r->status != 201) return Error("POST " + path + ": status " + std::to_string(r->status) + " " + r->body.dump());
    return {};
  }

  VoidResult setUp() {
    if (auto r = create(*api_, "/api/v1/namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"},
                                                      {"metadata", {{"name", kNamespace}}}});
        !r.ok()) {
      return r;
    }
    for (int i = 0; i < o_.baseNodes; ++i) {
      std::map<std::string, std::string> labels;
      if (i == 0) labels[kGateLabel] = "0";
      if (auto r = create(*api_, "/api/v1/nodes", nodeJson(baseNode(i), labels)); !r.ok()) return r;
    }
    return {};
  }

  static std::string baseNode(int i) { return "soak-base-" + std::to_string(i); }
  static std::string churnNode(int wave, int i) {
    return "soak-churn-" + std::to_string(wave) + "-" + std::to_string(i);
  }
  std::string podsPath() const { return std::string("/api/v1/namespaces/") + kNamespace + "/pods"; }

  // Number of pods of `wave` and `kind` with spec.nodeName set, or -1 on an API error.
  int boundCount(int wave, const char* kind) {
    auto r = api_->get(podsPath() + "?labelSelector=" + kWaveLabel + "%3D" + std::to_string(wave) + "," +
                       kKindLabel + "%3D" + kind);
    if (!r.ok() || r->status != 200) return -1;
    int n = 0;
    for (const auto& p : r->body["items"]) n += p["spec"].value("nodeName", "").empty() ? 0 : 1;
    return n;
  }

  void runWave(int wave) {
    const auto t0 = Clock::now();
    currentWave_ = wave;
    // 1. Release the previous wave's unschedulable pods.
    if (wave > 1 && o_.unschedulablePerWave > 0) labelGate(wave - 1);
    // 2. This wave's pods.
    for (int i = 0; i < o_.unschedulablePerWave; ++i) {
      const std::string name = "gated-" + std::to_string(wave) + "-" + std::to_string(i);
      if (auto r = create(*api_, podsPath(), podJson(name, wave, "gated", wave)); !r.ok()) fail(r.error().message());
    }
    for (int i = 0; i < o_.podsPerWave; ++i) {
      const std::string name = "pod-" + std::to_string(wave) + "-" + std::to_string(i);
      if (auto r = create(*api_, podsPath(), podJson(name, wave, "churn", std::nullopt)); !r.ok()) {
        fail(r.error().message());
      }
    }
    // 3. Nodes.
    for (int i = 0; i < o_.nodesPerWave; ++i) {
      if (auto r = create(*api_, "/api/v1/nodes", nodeJson(churnNode(wave, i), {})); !r.ok()) fail(r.error().message());
      if (wave > 2) cordon(churnNode(wave - 2, i));
      if (wave > 4) removeNode(churnNode(wave - 4, i));
    }
    // 4. Old pods.
    if (wave > 2) deleteWave(wave - 2);

    // 5. Everything schedulable bound, then pending back to this wave's unschedulable pods.
    const auto deadline = t0 + o_.wavePeriod - std::chrono::seconds(2);
    int bound = 0, released = 0;
    const int releasedWant = wave > 1 ? o_.unschedulablePerWave : 0;
    const bool allBound = integration::waitFor(
        [&] {
          bound = boundCount(wave, "churn");
          released = wave > 1 ? boundCount(wave - 1, "gated") : 0;
          return bound == o_.podsPerWave && released == releasedWant;
        },
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    const double bindSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!allBound) {
      fail("wave " + std::to_string(wave) + ": " + std::to_string(bound) + "/" + std::to_string(o_.podsPerWave) +
           " pods and " + std::to_string(released) + "/" + std::to_string(releasedWant) +
           " released pods bound within the wave period");
    }
    std::optional<DaemonMetrics> m;
    const bool pendingOk = integration::waitFor(
        [&] {
          m = scrape();
          return m && m->pending() == o_.unschedulablePerWave;
        },
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::max(deadline - Clock::now(), Clock::duration(std::chrono::seconds(3)))),
        std::chrono::milliseconds(500));
    if (!pendingOk) {
      fail("wave " + std::to_string(wave) + ": pending pods " + (m ? fmt("%.0f", m->pending()) : "?") +
           " (active " + (m ? fmt("%.0f", m->active) : "?") + ", backoff " + (m ? fmt("%.0f", m->backoff) : "?") +
           ", unschedulable " + (m ? fmt("%.0f", m->unschedulable) : "?") + "), want exactly " +
           std::to_string(o_.unschedulablePerWave));
    }
    {
      std::lock_guard lock(failMu_);
      bindSeconds_.push_back(bindSeconds);
      waveRows_.push_back(std::to_string(wave) + "," +
                          fmt("%.1f", std::chrono::duration<double>(t0 - start_).count()) + "," +
                          fmt("%.2f", bindSeconds) + "," + std::to_string(bound) + "," + std::to_string(released) +
                          "," + (m ? fmt("%.0f", m->pending()) : "") + "," + (allBound && pendingOk ? "ok" : "FAIL"));
    }
    log("wave " + std::to_string(wave) + ": bound in " + fmt("%.1f", bindSeconds) + " s, pending " +
        (m ? fmt("%.0f", m->pending()) : "?"));
  }

  void labelGate(int value) {
    auto r = api_->patch("/api/v1/nodes/" + baseNode(0),
                         {{"metadata", {{"labels", {{kGateLabel, std::to_string(value)}}}}}});
    if (!r.ok() || r->status != 200) fail("label " + baseNode(0) + ": " + (r.ok() ? r->body.dump() : r.error().message()));
  }

  void cordon(const std::string& node) {
    auto r = api_->patch("/api/v1/nodes/" + node, {{"spec", {{"unschedulable", true}}}});
    if (!r.ok() || r->status != 200) fail("cordon " + node + ": " + (r.ok() ? r->body.dump() : r.error().message()));
  }

  // Removes the node, then the pods still bound to it (as a node lifecycle controller would, later).
  void removeNode(const std::string& node) {
    auto r = api_->del("/api/v1/nodes/" + node);
    if (!r.ok() || r->status != 200) {
      fail("delete node " + node + ": " + (r.ok() ? r->body.dump() : r.error().message()));
      return;
    }
    auto pods = api_->get(podsPath() + "?fieldSelector=spec.nodeName%3D" + node);
    if (!pods.ok() || pods->status != 200) {
      fail("list pods of " + node);
      return;
    }
    for (const auto& p : pods->body["items"]) {
      const std::string name = p["metadata"]["name"];
      auto d = api_->del(podsPath() + "/" + name, {{"gracePeriodSeconds", 0}});
      if (!d.ok() || (d->status != 200 && d->status != 404)) fail("delete pod " + name);
    }
  }

  void deleteWave(int wave) {
    auto r = api_->del(podsPath() + "?labelSelector=" + kWaveLabel + "%3D" + std::to_string(wave),
                       {{"gracePeriodSeconds", 0}});
    if (!r.ok() || r->status != 200) {
      fail("delete wave " + std::to_string(wave) + ": " + (r.ok() ? r->body.dump() : r.error().message()));
    }
  }

  // After the churn: release the last unschedulable pods; the daemon's cache must then match the
  // apiserver, with nothing assumed and nothing pending.
  bool endCheck() {
    if (!alive()) {
      fail("the daemon exited: " + integration::tail(daemon_->log(), 2000));
      daemonAlive_ = false;
      return false;
    }
    if (waves_ > 0 && o_.unschedulablePerWave > 0) {
      labelGate(waves_);
      if (!integration::waitFor([&] { return boundCount(waves_, "gated") == o_.unschedulablePerWave; },
                                std::chrono::seconds(30))) {
        fail("the last wave's unschedulable pods were not bound within 30 s of their release");
      }
    }
    ApiCounts api;
    std::optional<DaemonMetrics> m;
    const bool same = integration::waitFor(
        [&] {
          api = apiCounts(*api_);
          m = scrape();
          return m && api.nodes >= 0 && m->cacheNodes == api.nodes && m->cachePods == api.assigned &&
                 m->cacheAssumed == 0 && m->pending() == 0;
        },
        std::chrono::seconds(30), std::chrono::milliseconds(500));
    std::ostringstream s;
    s << "end: apiserver " << api.nodes << " nodes, " << api.pods << " pods (" << api.assigned
      << " assigned); cache " << (m ? fmt("%.0f", m->cacheNodes) : "?") << " nodes, "
      << (m ? fmt("%.0f", m->cachePods) : "?") << " pods, " << (m ? fmt("%.0f", m->cacheAssumed) : "?")
      << " assumed; pending " << (m ? fmt("%.0f", m->pending()) : "?");
    endLine_ = s.str();
    log(endLine_);
    if (!same) fail("the cache does not match the apiserver at the end (" + endLine_ + ")");
    return same;
  }

  struct ApiCounts {
    long nodes = -1, pods = -1, assigned = -1;
  };

  static ApiCounts apiCounts(ApiClient& api) {
    ApiCounts c;
    auto nodes = api.get("/api/v1/nodes");
    auto pods = api.get("/api/v1/pods");
    if (!nodes.ok() || nodes->status != 200 || !pods.ok() || pods->status != 200) return c;
    c.nodes = static_cast<long>(nodes->body["items"].size());
    c.pods = static_cast<long>(pods->body["items"].size());
    c.assigned = 0;
    for (const auto& p : pods->body["items"]) c.assigned += p["spec"].value("nodeName", "").empty() ? 0 : 1;
    return c;
  }

  // The sampler thread: a sample at 0 s, 10 s, 20 s, ... of the churn, on its own API connection.
  void sampleLoop(const std::stop_token& stop) {
    auto api = ApiClient::create(cp_->kubeconfigPath());
    if (!api.ok()) {
      fail("sampler: " + api.error().message());
      return;
    }
    samplerApi_ = std::move(api).value();
    for (int i = 0; !stop.stop_requested(); ++i) {
      {
        std::unique_lock lock(stopMu_);
        std::condition_variable_any wake;
        // Returns early (true) only when the churn is over.
        if (wake.wait_until(lock, stop, start_ + i * kSampleInterval, [] { return false; })) break;
        if (stop.stop_requested()) break;
      }
      takeSample();
    }
  }

  void takeSample() {
    Sample s;
    s.t = std::chrono::duration<double>(Clock::now() - start_).count();
    s.wave = currentWave_.load();
    if (auto p = procStats(daemon_->pid())) s.proc = *p;
    s.metrics = scrape();
    ApiClient* api = samplerApi_ ? samplerApi_.get() : api_.get();
    const ApiCounts c = apiCounts(*api);
    s.apiNodes = c.nodes;
    s.apiPods = c.pods;
    s.apiAssigned = c.assigned;
    {
      std::lock_guard lock(sampleMu_);
      if (!samples_.empty()) {
        const Sample& prev = samples_.back();
        if (s.t > prev.t) s.cpuPercent = 100 * (s.proc.cpuSeconds - prev.proc.cpuSeconds) / (s.t - prev.t);
      }
      samples_.push_back(s);
      if (s.proc.rssKb == 0) daemonAlive_ = false;
    }
    // Rewritten after every sample, so that an interrupted run keeps its figures.
    writeCsv();
  }

  // RSS flat after the warm-up: median of the last kMedianWindow samples vs median of the kMedianWindow
  // samples that start at the end of the warm-up.
  bool rssCheck() {
    std::lock_guard lock(sampleMu_);
    const double warmupEnd = warmupSeconds(o_);
    std::vector<double> after, last;
    for (const Sample& s : samples_) {
      if (s.t >= warmupEnd && after.size() < kMedianWindow) after.push_back(static_cast<double>(s.proc.rssKb));
    }
    for (size_t i = samples_.size() >= kMedianWindow ? samples_.size() - kMedianWindow : 0; i < samples_.size(); ++i) {
      last.push_back(static_cast<double>(samples_[i].proc.rssKb));
    }
    rssBase_ = median(after);
    rssEnd_ = median(last);
    rssGrowth_ = rssBase_ > 0 ? (rssEnd_ - rssBase_) / rssBase_ : 0;
    if (after.size() < kMedianWindow || rssBase_ <= 0) {
      fail("too few samples after the warm-up to judge RSS (run longer)");
      return false;
    }
    if (rssGrowth_ >= o_.maxRssGrowth) {
      fail("RSS grew " + fmt("%.1f", 100 * rssGrowth_) + "% after the warm-up (" + fmt("%.0f", rssBase_) +
           " kB -> " + fmt("%.0f", rssEnd_) + " kB), limit " + fmt("%.1f", 100 * o_.maxRssGrowth) + "%");
      return false;
    }
    return true;
  }

  // samples.csv and waves.csv. Called by the sampler thread, and by the main thread once it has stopped.
  void writeCsv() {
    {
      std::lock_guard lock(failMu_);
      std::ofstream waves(o_.outDir + "/waves.csv");
      waves << "wave,start_s,bound_s,pods_bound,released_bound,pending_after,result\n";
      for (const std::string& row : waveRows_) waves << row << '\n';
    }
    std::lock_guard lock(sampleMu_);
    std::ofstream out(o_.outDir + "/samples.csv");
    out << "t_s,wave,rss_kb,cpu_s,cpu_pct,threads,pending_active,pending_backoff,pending_unschedulable,"
           "pending_gated,cache_nodes,cache_pods,cache_assumed_pods,api_nodes,api_pods,api_assigned_pods\n";
    for (const Sample& s : samples_) {
      const DaemonMetrics m = s.metrics.value_or(DaemonMetrics{-1, -1, -1, -1, -1, -1, -1});
      out << fmt("%.1f", s.t) << ',' << s.wave << ',' << s.proc.rssKb << ',' << fmt("%.2f", s.proc.cpuSeconds) << ','
          << fmt("%.1f", s.cpuPercent) << ',' << s.proc.threads << ',' << m.active << ',' << m.backoff << ','
          << m.unschedulable << ',' << m.gated << ',' << m.cacheNodes << ',' << m.cachePods << ','
          << m.cacheAssumed << ',' << s.apiNodes << ',' << s.apiPods << ',' << s.apiAssigned << '\n';
    }
  }

  void summary(bool ok, double wallSeconds) {
    std::ostringstream s;
    std::lock_guard lock(sampleMu_);
    s << "soak: " << o_.duration.count() << " s of churn, " << waves_ << " waves, " << samples_.size()
      << " samples (" << o_.outDir << "/samples.csv), wall time " << fmt("%.0f", wallSeconds) << " s\n";
    s << "per minute: RSS, CPU over the minute before (% of one core), pending pods, cache vs apiserver "
         "(assigned pods / nodes):\n";
    const Sample* prev = nullptr;
    for (int minute = 0;; ++minute) {
      const Sample* best = nullptr;
      for (const Sample& x : samples_) {
        if (best == nullptr || std::abs(x.t - 60.0 * minute) < std::abs(best->t - 60.0 * minute)) best = &x;
      }
      if (best == nullptr || std::abs(best->t - 60.0 * minute) > 6) break;
      // Over the whole minute: a single 10 s interval may fall between two waves.
      const double cpu = prev != nullptr && best->t > prev->t
                             ? 100 * (best->proc.cpuSeconds - prev->proc.cpuSeconds) / (best->t - prev->t)
                             : 0;
      prev = best;
      s << "  " << minute << " min: " << best->proc.rssKb << " kB, cpu " << fmt("%.1f", cpu)
        << "%, pending " << (best->metrics ? fmt("%.0f", best->metrics->pending()) : "?") << ", cache "
        << (best->metrics ? fmt("%.0f", best->metrics->cachePods) : "?") << " pods / "
        << (best->metrics ? fmt("%.0f", best->metrics->cacheNodes) : "?") << " nodes vs apiserver "
        << best->apiAssigned << " / " << best->apiNodes << "\n";
    }
    double rssMax = 0;
    for (const Sample& x : samples_) rssMax = std::max(rssMax, static_cast<double>(x.proc.rssKb));
    const double cpuTotal = samples_.empty() ? 0 : samples_.back().proc.cpuSeconds;
    s << "RSS: after warm-up (median of " << kMedianWindow << " from " << fmt("%.0f", warmupSeconds(o_))
      << " s) " << fmt("%.0f", rssBase_) << " kB, end (median of last " << kMedianWindow << ") " << fmt("%.0f", rssEnd_)
      << " kB, growth " << fmt("%+.2f", 100 * rssGrowth_) << "% (limit " << fmt("%.0f", 100 * o_.maxRssGrowth)
      << "%), max " << fmt("%.0f", rssMax) << " kB\n";
    s << "CPU: " << fmt("%.1f", cpuTotal) << " s in total\n";
    std::vector<double> b;
    {
      std::lock_guard flock(failMu_);
      b = bindSeconds_;
    }
    if (!b.empty()) {
      std::sort(b.begin(), b.end());
      s << "waves: created-to-all-bound " << fmt("%.1f", b[b.size() / 2]) << " s median, " << fmt("%.1f", b.back())
        << " s max\n";
    }
    s << endLine_ << "\n";
    {
      std::lock_guard flock(failMu_);
      for (const std::string& f : failures_) s << "FAIL: " << f << "\n";
    }
    s << (ok ? "PASS" : "FAIL") << "\n";
    std::ofstream(o_.outDir + "/summary.txt") << s.str();
    std::fputs(s.str().c_str(), stdout);
  }

  const Options o_;
  std::unique_ptr<ControlPlane> cp_;
  std::unique_ptr<Process> daemon_;
  uint16_t port_ = 0;
  std::unique_ptr<ApiClient> api_;         // the churn (main) thread's
  std::unique_ptr<ApiClient> samplerApi_;  // the sampler thread's
  Clock::time_point start_{};
  std::atomic<int> currentWave_{0};
  int waves_ = 0;
  std::atomic<bool> daemonAlive_{true};
  std::string endLine_;
  double rssBase_ = 0, rssEnd_ = 0, rssGrowth_ = 0;

  std::mutex logMu_;
  std::mutex failMu_;  // failures_, bindSeconds_, waveRows_
  std::vector<std::string> failures_;
  std::vector<double> bindSeconds_;
  std::vector<std::string> waveRows_;  // waves.csv
  std::mutex sampleMu_;  // samples_
  std::mutex stopMu_;    // only for the sampler's interruptible sleep
  std::vector<Sample> samples_;
};

}  // namespace
}  // namespace ks::soak

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(ks::soak::kUsage, stdout);
      return 0;
    }
  }
  auto o = ks::soak::parseArgs(argc, argv);
  if (!o.ok()) {
    std::fprintf(stderr, "soak: %s\n%s", o.error().message().c_str(), ks::soak::kUsage);
    return 2;
  }
  return ks::soak::Soak(std::move(o).value()).run();
}
