// The end-to-end throughput benchmark (issue 13): upstream kube-scheduler (v1.37.2, the release this project
// follows: ks::kUpstreamVersion, the binary test/integration/controlplane.sh builds) and kube-scheduler-cpp,
// one after the other on the same real etcd + kube-apiserver (loopback), on scheduler_perf's SchedulingBasic
// shape, plus that apiserver's bare Binding capacity measured in the same run. Run through
// test/perf/e2e/run.sh, which builds this and the daemon and gets the pinned binaries; see
// docs/performance.md, "End to end".
//
// The cluster: --nodes nodes of scheduler_perf's node-default template (4 CPU, 32Gi, 110 pods). Then, per
// run (bare, bare-events, upstream, ours; --runs), in a namespace of its own:
//   1. burst: --pods pods of pod-default (100m / 500Mi) are created pending, for a scheduler name nobody
//      serves yet; then the scheduler starts (or, for "bare", --bind-concurrency threads POST a Binding for
//      each pod, round robin over the nodes, with no scheduling at all: the apiserver's limit). pods/s =
//      pods / (last bind - first bind), binds seen on a watch of the pods. "bare-events" also creates, after
//      each Binding, the events.k8s.io Event a scheduler reports for it ("Scheduled", through a client of
//      its own, as the schedulers do): the limit for a scheduler that writes what upstream writes;
//   2. latency (schedulers only): with the scheduler still running, --latency-pods more pods are created at
//      --latency-rate pods/s, far below either scheduler's capacity; create->bound is from the create
//      request's send to the bind seen on the watch;
//   3. the scheduler is stopped (SIGTERM) and the run's pods deleted, so every run starts from the same
//      cluster.
// Both schedulers get the same configuration: clientConnection qps/burst --qps, no leader election, no
// serving (--secure-port=0), the default plugins minus those kube-scheduler-cpp lacks (objects.h).
// "upstream-extender" and "ours-extender" add one HTTP extender (issue 32): a no-op filter on 127.0.0.1
// (nodeCacheCapable, so it gets node names; it passes every node), served by this process for both, so
// the extender round trip's cost per pod is the difference to the plain run.
// CPU is utime + stime from /proc, over the burst (first to last bind) and over the whole run; peak RSS
// is VmHWM just before the scheduler is stopped.
//
// Output: the table on stdout and in <out>/results.md, the figures in <out>/results.json, each
// scheduler's config and log in <out>. Exit 0 when every run finished, 1 when one did not (timeout,
// scheduler exited), 2 on bad flags.

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/client/rest/config.h"
#include "pkg/client/rest/rest_client.h"
#include "test/integration/harness/api_client.h"
#include "test/integration/harness/control_plane.h"
#include "test/integration/harness/extender_server.h"
#include "test/integration/harness/objects.h"
#include "test/integration/harness/process.h"
#include "test/perf/support/load.h"
#include "test/perf/support/perf_support.h"

namespace ks::e2e {
namespace {

using json = nlohmann::json;
using integration::ApiClient;
using perf::call;
using perf::Clock;
using perf::CpuSampler;
using perf::log;
using perf::parallel;
using perf::seconds;
using integration::ControlPlane;
using integration::Process;

constexpr const char* kRunLabel = "e2e.ks/run";

struct Options {
  int nodes = 5000;
  int pods = 10000;
  int latencyPods = 2000;
  double latencyRate = 200;
  int bindConcurrency = 32;
  int loaderThreads = 8;
  int qps = 5000;  // clientConnection qps and burst of both schedulers
  std::vector<std::string> runs = {"bare", "bare-events", "upstream", "ours"};
  std::string verbosity;  // --v for both schedulers; "" = their default
  std::chrono::seconds timeout{900};  // per phase
  std::string out;
};

const char* kUsage =
    "usage: e2e [--nodes=N] [--pods=N] [--latency-pods=N] [--latency-rate=R] [--bind-concurrency=N]\n"
    "           [--loader-threads=N] [--qps=N] [--runs=bare,bare-events,upstream,ours] [--v=N] [--timeout=SECONDS]\n"
    "           (runs also: upstream-extender, ours-extender: with a no-op filter extender)\n"
    "           --out=DIR\n"
    "Defaults: 5000 nodes, 10000 pods, 2000 latency pods at 200/s, 32 binders, 8 loaders, qps 5000,\n"
    "all three runs, the schedulers' default verbosity, 900 s per phase.\n"
    "KS_E2E_OUR_BINARY overrides the kube-scheduler-cpp binary; KS_CONTROL_PLANE_BIN the upstream ones.\n";

std::optional<Options> parseArgs(int argc, char** argv) {
  Options o;
  const bool ok = perf::parseFlags(argc, argv, "e2e", kUsage, [&](const std::string& key, const std::string& value) {
    if (key == "--nodes") return perf::positiveNumber(value, o.nodes);
    if (key == "--pods") return perf::positiveNumber(value, o.pods);
    if (key == "--latency-pods") return value == "0" ? (o.latencyPods = 0, true) : perf::positiveNumber(value, o.latencyPods);
    if (key == "--latency-rate") return perf::positiveNumber(value, o.latencyRate);
    if (key == "--bind-concurrency") return perf::positiveNumber(value, o.bindConcurrency);
    if (key == "--loader-threads") return perf::positiveNumber(value, o.loaderThreads);
    if (key == "--qps") return perf::positiveNumber(value, o.qps);
    if (key == "--timeout") return perf::positiveSeconds(value, o.timeout);
    if (key == "--v") return (o.verbosity = value, true);
    if (key == "--out") return (o.out = value, true);
    if (key == "--runs") {
      o.runs.clear();
      std::stringstream in(value);
      bool known = true;
      for (std::string r; std::getline(in, r, ',');) {
        known = known && (r == "bare" || r == "bare-events" || r == "upstream" || r == "ours" ||
                          r == "upstream-extender" || r == "ours-extender");
        o.runs.push_back(r);
      }
      return known && !o.runs.empty();
    }
    return false;
  });
  if (!ok) return std::nullopt;
  if (o.out.empty()) {
    std::fprintf(stderr, "e2e: --out is required\n%s", kUsage);
    return std::nullopt;
  }
  return o;
}

// ---- Seeing binds ----

// Watches the pods labelled e2e.ks/run=<run> and remembers when each was first seen with a node.
class BindWatcher {
 public:
  BindWatcher(client::rest::RestClient& client, std::string run) : client_(client), run_(std::move(run)) {
    thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
  }
  ~BindWatcher() {
    thread_.request_stop();
    thread_.join();
  }

  // Waits until the first list has been taken: binds from then on are timed when the watch sees them.
  bool waitListed(std::chrono::seconds timeout) const {
    return integration::waitFor([this] { return listed_.load(); }, timeout, std::chrono::milliseconds(10));
  }

  size_t bound() const {
    std::lock_guard lock(mu_);
    return boundAt_.size();
  }
  std::map<std::string, Clock::time_point> boundAt() const {
    std::lock_guard lock(mu_);
    return boundAt_;
  }
  // Waits until `n` pods are bound, `timeout` has passed or `alive` says the binder is gone.
  bool waitBound(size_t n, std::chrono::seconds timeout, const std::function<bool()>& alive) const {
    const auto until = Clock::now() + timeout;
    while (bound() < n) {
      if (Clock::now() >= until || !alive()) return bound() >= n;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

 private:
  void see(const api::Pod& pod, Clock::time_point now) {
    if (pod.spec.nodeName.empty()) return;
    std::lock_guard lock(mu_);
    boundAt_.emplace(pod.metadata.name, now);
  }

  void loop(std::stop_token stop) {
    const std::string selector = std::string(kRunLabel) + "=" + run_;
    while (!stop.stop_requested()) {
      client::ListOptions lo;
      lo.labelSelector = selector;
      auto listed = client_.pods().list(lo);
      if (!listed.ok()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        continue;
      }
      const auto now = Clock::now();
      for (const auto& p : listed->items) see(p, now);
      listed_ = true;
      client::WatchOptions wo;
      wo.labelSelector = selector;
      wo.resourceVersion = listed->metadata.resourceVersion;
      wo.timeoutSeconds = 600;
      (void)client_.pods().watch(
          wo,
          [this](api::WatchEvent<api::Pod>&& e) {
            if (e.type == api::WatchEventType::Added || e.type == api::WatchEventType::Modified) {
              see(e.object, Clock::now());
            }
          },
          stop);
    }
  }

  client::rest::RestClient& client_;
  const std::string run_;
  mutable std::mutex mu_;
  std::map<std::string, Clock::time_point> boundAt_;  // guarded by mu_
  std::atomic<bool> listed_{false};
  std::jthread thread_;
};

// ---- One run ----

struct RunResult {
  std::string run;
  bool finished = false;
  int pods = 0;
  double podsPerSecond = 0;
  double firstBindAfterStart = 0;  // s from the scheduler's exec (or the binders' start) to the first bind
  double latencyP50Ms = 0, latencyP99Ms = 0;
  int latencyPods = 0;
  double burstCpuSeconds = 0, totalCpuSeconds = 0;
  double peakRssMb = 0;
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
    auto rc = client::rest::loadKubeconfig(cp_->kubeconfigPath());
    if (!rc.ok()) return fail(rc.error().message());
    rc->qps = 0;  // the watcher's list is not throttled
    auto rest = client::rest::RestClient::create(std::move(rc).value());
    if (!rest.ok()) return fail(rest.error().message());
    rest_ = std::move(rest).value();

    const auto t0 = Clock::now();
    const bool nodesOk = parallel(cp_->kubeconfigPath(), o_.nodes, o_.loaderThreads, [](ApiClient& api, int i) {
      return call(api, "POST", "/api/v1/nodes", perf::nodeJson("node-" + std::to_string(i)), 201);
    });
    if (!nodesOk) return fail("creating the nodes failed");
    log(std::to_string(o_.nodes) + " nodes created in " + perf::fmt("%.1f", seconds(Clock::now() - t0)) + " s");

    std::vector<RunResult> results;
    for (const auto& r : o_.runs) {
      results.push_back(r == "bare" || r == "bare-events" ? bare(r) : scheduler(r));
      if (!results.back().finished) log(r + ": did not finish");
      if (!cleanup(r)) return fail("deleting the pods of run " + r + " failed");
    }
    report(results);
    return std::all_of(results.begin(), results.end(), [](const RunResult& r) { return r.finished; }) ? 0 : 1;
  }

 private:
  int fail(const std::string& why) {
    log("FAILED: " + why);
    return 1;
  }

  std::string ns(const std::string& run) const { return "e2e-" + run; }

  bool createNamespaceAndPods(const std::string& run, const std::string& schedulerName) {
    auto api = ApiClient::create(cp_->kubeconfigPath());
    if (!api.ok()) return false;
    const json nsJson = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns(run)}}}};
    if (!call(**api, "POST", "/api/v1/namespaces", nsJson, 201)) return false;
    const auto t0 = Clock::now();
    const bool ok = parallel(cp_->kubeconfigPath(), o_.pods, o_.loaderThreads, [&](ApiClient& a, int i) {
      return call(a, "POST", "/api/v1/namespaces/" + ns(run) + "/pods",
                  perf::podJson(ns(run), "p-" + std::to_string(i), kRunLabel, run, schedulerName), 201);
    });
    log(run + ": " + std::to_string(o_.pods) + " pending pods created in " +
        perf::fmt("%.1f", seconds(Clock::now() - t0)) + " s");
    return ok;
  }

  // pods/s between the first and the last of the burst's binds.
  static void burstFigures(const std::map<std::string, Clock::time_point>& boundAt, Clock::time_point start,
                           RunResult& r, Clock::time_point* first, Clock::time_point* last) {
    *first = Clock::time_point::max();
    *last = Clock::time_point::min();
    for (const auto& [name, t] : boundAt) {
      if (name.rfind("p-", 0) != 0) continue;
      *first = std::min(*first, t);
      *last = std::max(*last, t);
    }
    const double span = seconds(*last - *first);
    r.podsPerSecond = span > 0 ? (r.pods - 1) / span : 0;
    r.firstBindAfterStart = seconds(*first - start);
  }

  // `run` is "bare" (Bindings only) or "bare-events" (each Binding followed by its Scheduled Event).
  RunResult bare(const std::string& run) {
    RunResult r{.run = run, .pods = o_.pods};
    const bool events = run == "bare-events";
    if (!createNamespaceAndPods(run, "e2e-nobody")) return r;
    BindWatcher watcher(*rest_, run);
    if (!watcher.waitListed(o_.timeout)) return r;
    log(run + ": " + std::to_string(o_.bindConcurrency) + " threads POST the Bindings" +
        (events ? " and their Events" : ""));
    const auto start = Clock::now();
    // The binders use kube-scheduler-cpp's own REST client (its transport, no rate limit), so that the bare
    // figure is what that client can get through this apiserver without any scheduling.
    auto rc = client::rest::loadKubeconfig(cp_->kubeconfigPath());
    if (!rc.ok()) return r;
    rc->qps = 0;
    auto binders = client::rest::RestClient::create(*rc);
    auto eventClient = client::rest::RestClient::create(*rc);
    if (!binders.ok() || !eventClient.ok()) return r;
    std::atomic<int> next{0};
    std::atomic<bool> ok{true};
    std::vector<std::thread> threads;
    for (int t = 0; t < o_.bindConcurrency; ++t) {
      threads.emplace_back([&] {
        for (int i = next++; i < o_.pods; i = next++) {
          api::Binding b;
          b.metadata.name = "p-" + std::to_string(i);
          b.metadata.namespace_ = ns(run);
          b.target.name = "node-" + std::to_string(i % o_.nodes);
          if (auto done = (*binders)->bind(b); !done.ok()) {
            log(run + ": binding " + b.metadata.name + ": " + done.error().message());
            ok = false;
          }
          if (events) {
            if (auto done = (*eventClient)->createEvent(scheduledEvent(b)); !done.ok()) {
              log(run + ": event for " + b.metadata.name + ": " + done.error().message());
              ok = false;
            }
          }
        }
      });
    }
    for (auto& t : threads) t.join();
    r.finished = ok && watcher.waitBound(o_.pods, o_.timeout, [] { return true; });
    Clock::time_point first, last;
    burstFigures(watcher.boundAt(), start, r, &first, &last);
    log(run + ": " + std::to_string(watcher.bound()) + " bound, " + perf::fmt("%.0f", r.podsPerSecond) +
        " bindings/s");
    return r;
  }

  // The Event kube-scheduler reports for a bound pod (the same fields as the schedulers' recorder writes).
  static api::Event scheduledEvent(const api::Binding& b) {
    api::Event e;
    const auto now = std::chrono::system_clock::now();
    e.metadata.namespace_ = b.metadata.namespace_;
    e.metadata.name = b.metadata.name + "." + std::to_string(now.time_since_epoch().count());
    e.eventTime = now;
    e.reportingController = "e2e-bare";
    e.reportingInstance = "e2e-bare-host";
    e.action = "Binding";
    e.reason = "Scheduled";
    e.type = "Normal";
    e.regarding = api::ObjectReference{.kind = "Pod", .namespace_ = b.metadata.namespace_, .name = b.metadata.name,
                                       .apiVersion = "v1"};
    e.note = "Successfully assigned " + b.metadata.namespace_ + "/" + b.metadata.name + " to " + b.target.name;
    return e;
  }

  RunResult scheduler(const std::string& run) {
    RunResult r{.run = run, .pods = o_.pods};
    const std::string name = "e2e-" + run;
    if (!createNamespaceAndPods(run, name)) return r;
    BindWatcher watcher(*rest_, run);
    if (!watcher.waitListed(o_.timeout)) return r;
    const std::string config = o_.out + "/" + run + "-config.yaml";
    const std::string limits = "  qps: " + std::to_string(o_.qps) + "\n  burst: " + std::to_string(o_.qps) + "\n";
    std::ofstream(config) << integration::schedulerConfig(cp_->kubeconfigPath(), limits + extenders(run), "", name);
    const bool upstream = run.starts_with("upstream");
    std::vector<std::string> argv = {upstream ? upstreamBinary_ : ourBinary_, "--config=" + config,
                                     "--secure-port=0"};
    if (!o_.verbosity.empty()) argv.push_back("--v=" + o_.verbosity);
    log(run + ": starting " + argv[0]);
    const auto start = Clock::now();
    Process proc(argv, o_.out + "/" + run + ".log");
    if (!proc.started()) return r;
    CpuSampler cpu(proc.pid());
    auto alive = [&proc] { return proc.running(); };
    const bool burstDone = watcher.waitBound(o_.pods, o_.timeout, alive);
    Clock::time_point first, last;
    burstFigures(watcher.boundAt(), start, r, &first, &last);
    r.burstCpuSeconds = cpu.at(last) - cpu.at(first);
    log(run + ": " + std::to_string(watcher.bound()) + " of " + std::to_string(o_.pods) + " bound, " +
        perf::fmt("%.0f", r.podsPerSecond) + " pods/s, first bind " + perf::fmt("%.2f", r.firstBindAfterStart) +
        " s after the start");

    bool latencyDone = true;
    if (burstDone && o_.latencyPods > 0) latencyDone = latency(run, name, watcher, alive, r);

    if (auto s = perf::procStats(proc.pid())) {
      r.peakRssMb = static_cast<double>(s->peakRssKb) / 1024.0;
      r.totalCpuSeconds = s->cpuSeconds;
    }
    const auto code = proc.stop(std::chrono::seconds(30));
    if (extender_ != nullptr && withExtender(run))
      log(run + ": extender filter calls so far " + std::to_string(extender_->calls("filter")));
    r.finished = burstDone && latencyDone && proc.started();
    if (!r.finished) log(run + ": scheduler exit status " + (code ? std::to_string(*code) : "?") + ", log " +
                         proc.logPath());
    return r;
  }

  // Pods created at a steady rate while the scheduler runs; create->bound per pod.
  bool latency(const std::string& run, const std::string& schedulerName, const BindWatcher& watcher,
               const std::function<bool()>& alive, RunResult& r) {
    std::vector<Clock::time_point> sentAt(static_cast<size_t>(o_.latencyPods));
    const auto period = std::chrono::duration<double>(1.0 / o_.latencyRate);
    const auto begin = Clock::now();
    // Enough threads that a slow create does not hold back the rate.
    const bool created = parallel(cp_->kubeconfigPath(), o_.latencyPods, 8, [&](ApiClient& a, int i) {
      std::this_thread::sleep_until(begin + std::chrono::duration_cast<Clock::duration>(period * i));
      sentAt[static_cast<size_t>(i)] = Clock::now();
      return call(a, "POST", "/api/v1/namespaces/" + ns(run) + "/pods",
                  perf::podJson(ns(run), "l-" + std::to_string(i), kRunLabel, run, schedulerName), 201);
    });
    const bool done = created && watcher.waitBound(static_cast<size_t>(o_.pods + o_.latencyPods), o_.timeout, alive);
    const auto boundAt = watcher.boundAt();
    std::vector<double> ms;
    for (int i = 0; i < o_.latencyPods; ++i) {
      auto it = boundAt.find("l-" + std::to_string(i));
      if (it != boundAt.end()) {
        ms.push_back(std::chrono::duration<double, std::milli>(it->second - sentAt[static_cast<size_t>(i)]).count());
      }
    }
    r.latencyPods = static_cast<int>(ms.size());
    r.latencyP50Ms = perf::percentile(ms, 50);
    r.latencyP99Ms = perf::percentile(ms, 99);
    log(run + ": create->bound at " + perf::fmt("%.0f", o_.latencyRate) + " pods/s: p50 " +
        perf::fmt("%.1f", r.latencyP50Ms) + " ms, p99 " + perf::fmt("%.1f", r.latencyP99Ms) + " ms (" +
        std::to_string(ms.size()) + " pods)");
    return done;
  }

  // Deletes the run's pods (grace period 0: there is no kubelet) and waits until they are gone.
  bool cleanup(const std::string& run) {
    auto api = ApiClient::create(cp_->kubeconfigPath());
    if (!api.ok()) return false;
    const auto t0 = Clock::now();
    if (!call(**api, "DELETE", "/api/v1/namespaces/" + ns(run) + "/pods", json{{"gracePeriodSeconds", 0}}, 200)) {
      return false;
    }
    const bool gone = integration::waitFor(
        [&] {
          auto l = (*api)->get("/api/v1/namespaces/" + ns(run) + "/pods?limit=1");
          return l.ok() && l->status == 200 && l->body["items"].empty();
        },
        std::chrono::seconds(300), std::chrono::milliseconds(500));
    log(run + ": pods deleted in " + perf::fmt("%.1f", seconds(Clock::now() - t0)) + " s");
    return gone;
  }

  static bool isBare(const std::string& run) { return run == "bare" || run == "bare-events"; }
  static bool withExtender(const std::string& run) { return run.ends_with("-extender"); }

  // The run's top-level `extenders:` (none for plain runs). The server starts with the first run that
  // needs it and answers every filter call with the nodes it was given.
  std::string extenders(const std::string& run) {
    if (!withExtender(run)) return "";
    if (!extender_) {
      extender_ = std::make_unique<integration::ExtenderServer>([](const std::string&, const json& args) {
        return json{{"NodeNames", args.value("NodeNames", json::array())}, {"FailedNodes", json::object()},
                    {"FailedAndUnresolvableNodes", json::object()}, {"Error", ""}};
      });
      log("no-op filter extender at " + extender_->url());
    }
    return "extenders:\n- urlPrefix: " + extender_->url() +
           "\n  filterVerb: filter\n  nodeCacheCapable: true\n  weight: 1\n";
  }

  void report(const std::vector<RunResult>& results) {
    auto title = [](const std::string& run) {
      if (run == "bare") return std::string("bare Binding POSTs");
      if (run == "bare-events") return std::string("bare Bindings + Events");
      const std::string extender = withExtender(run) ? " + no-op extender" : "";
      if (run.starts_with("upstream")) return perf::upstreamTitle() + extender;
      return "kube-scheduler-cpp" + extender;
    };
    auto cell = [](bool show, const std::string& v) { return show ? v : std::string("—"); };
    std::vector<std::string> columns;
    for (const auto& r : results) columns.push_back(title(r.run));
    perf::ResultsTable table("SchedulingBasic, " + std::to_string(o_.nodes) + " nodes, " + std::to_string(o_.pods) +
                                 " pods created pending, then the scheduler started; qps/burst " +
                                 std::to_string(o_.qps) + "; latency: " + std::to_string(o_.latencyPods) +
                                 " more pods at " + perf::fmt("%.0f", o_.latencyRate) + " pods/s.",
                             columns);
    auto row = [&](const std::string& label, const std::function<std::string(const RunResult&)>& f) {
      std::vector<std::string> cells;
      for (const auto& r : results) cells.push_back(r.finished ? f(r) : "did not finish");
      table.row(label, cells);
    };
    row("pods/s (first to last bind)", [](const RunResult& r) { return perf::fmt("%.0f", r.podsPerSecond); });
    row("first bind after start (s)", [](const RunResult& r) { return perf::fmt("%.2f", r.firstBindAfterStart); });
    row("create→bound p50 / p99 (ms)", [&](const RunResult& r) {
      return cell(!isBare(r.run) && r.latencyPods > 0,
                  perf::fmt("%.1f", r.latencyP50Ms) + " / " + perf::fmt("%.1f", r.latencyP99Ms));
    });
    row("scheduler CPU per pod in the burst (ms)", [&](const RunResult& r) {
      return cell(!isBare(r.run), perf::fmt("%.2f", 1000 * r.burstCpuSeconds / r.pods));
    });
    row("scheduler CPU, whole run (s)", [&](const RunResult& r) {
      return cell(!isBare(r.run), perf::fmt("%.1f", r.totalCpuSeconds));
    });
    row("peak RSS (MiB)", [&](const RunResult& r) { return cell(!isBare(r.run), perf::fmt("%.0f", r.peakRssMb)); });
    table.write(o_.out);

    json j = json::array();
    for (const auto& r : results) {
      j.push_back({{"run", r.run},
                   {"finished", r.finished},
                   {"nodes", o_.nodes},
                   {"pods", r.pods},
                   {"podsPerSecond", r.podsPerSecond},
                   {"firstBindAfterStartSeconds", r.firstBindAfterStart},
                   {"latencyPods", r.latencyPods},
                   {"latencyP50Ms", r.latencyP50Ms},
                   {"latencyP99Ms", r.latencyP99Ms},
                   {"burstCpuSeconds", r.burstCpuSeconds},
                   {"totalCpuSeconds", r.totalCpuSeconds},
                   {"peakRssMiB", r.peakRssMb}});
    }
    std::ofstream(o_.out + "/results.json") << j.dump(2) << '\n';
  }

  const Options o_;
  std::string upstreamBinary_, ourBinary_;
  std::unique_ptr<ControlPlane> cp_;
  std::unique_ptr<client::rest::RestClient> rest_;
  std::unique_ptr<integration::ExtenderServer> extender_;
};

}  // namespace
}  // namespace ks::e2e

int main(int argc, char** argv) {
  ks::perf::setLogDriver("e2e");
  auto o = ks::e2e::parseArgs(argc, argv);
  if (!o) return 2;
  return ks::e2e::Benchmark(std::move(*o)).run();
}
