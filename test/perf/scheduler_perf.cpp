// scheduler_perf: the real scheduler in process over the in-memory API, with workloads after upstream's
// test/integration/scheduler_perf (config/performance-config.yaml). Nothing is mocked between the pieces:
//
//   MemoryClient <- BindTimingClient (records when each pods/binding succeeds)
//        \-> SharedInformerFactory -> Scheduler (cache, queue, framework with the in-tree plugins + a probe)
//
// Each workload (as upstream's workloadTemplate): createNodes; createPods(initPods) and wait until they
// are bound; createPods(measurePods) with metrics collected and wait until they are bound.
//
// Measured (measure pods only):
//   - throughput: measured pods / (first create -> last bound), and upstream's throughput collector:
//     every --sample-interval the number of bound pods is sampled; the first non-zero sample is skipped,
//     intervals without progress are merged into the next; average and p50/p90/p95/p99 of the samples;
//   - e2e latency: pod create -> pods/binding succeeded;
//   - scheduling attempt latency: a probe plugin (PerfProbe) stamps the cycle at PreFilter (after the
//     default PreFilter plugins; pop and updateSnapshot happen before it) and measures at Reserve (right
//     after the assume); attempts that do not reach Reserve count as unschedulable;
//   - peak RSS (getrusage) and the load average.
// Timings are reported, never asserted: this is not a test and is not registered with ctest.
//
//   scheduler_perf                          # SchedulingBasic, 5000 nodes / 1000 init / 10000 measured pods
//   scheduler_perf --quick                  # 500 nodes / 500 init / 1000 measured pods
//   scheduler_perf --workload=all --json=out.json
//   scheduler_perf --help

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/event_recorder.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/scheduler.h"
#include "test/support/wrappers.h"

namespace ks::perf {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using ks::testing::MakeNode;
using ks::testing::MakePod;

// ---------------------------------------------------------------------------------------------------
// Flags.

struct Flags {
  std::vector<std::string> workloads = {"SchedulingBasic"};
  int nodes = 5000;
  int initPods = 1000;
  int measurePods = 10000;
  int parallelism = 16;
  int bindingWorkers = 16;
  uint64_t seed = 1;
  std::chrono::milliseconds sampleInterval = 1s;
  std::chrono::seconds timeout = 600s;
  bool events = true;
  bool observer = false;
  std::string json;  // path, "-" = stdout; empty = none
};

constexpr std::string_view kUsage =
    "usage: scheduler_perf [flags]\n"
    "  --workload=NAME[,NAME]  SchedulingBasic (default), NodeAffinityTaints, or all\n"
    "  --nodes=N               nodes (default 5000)\n"
    "  --init-pods=N           pods created and scheduled before measuring (default 1000)\n"
    "  --measure-pods=N        measured pods (default 10000)\n"
    "  --quick                 smoke run: 500 nodes, 500 init pods, 1000 measured pods, 100 ms samples\n"
    "  --parallelism=N         KubeSchedulerConfiguration.parallelism (default 16)\n"
    "  --binding-workers=N     binding cycle threads (default 16)\n"
    "  --seed=N                tie-break seed (default 1; 0 = random)\n"
    "  --sample-interval-ms=N  throughput sample interval (default 1000, as upstream)\n"
    "  --timeout-s=N           give up waiting for bindings after N s per phase (default 600)\n"
    "  --no-events             no event recorder (default: events written to the in-memory API)\n"
    "  --observer              install an AttemptObserver (measures its recording overhead)\n"
    "  --json=PATH             also write the results as JSON to PATH ('-' = stdout)\n";

std::optional<std::string_view> flagValue(std::string_view arg, std::string_view name) {
  if (arg.substr(0, name.size()) != name) return std::nullopt;
  if (arg.size() == name.size()) return std::string_view{};
  if (arg[name.size()] != '=') return std::nullopt;
  return arg.substr(name.size() + 1);
}

template <typename T>
bool parseNumber(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<Flags> parseFlags(int argc, char** argv) {
  Flags f;
  bool quick = false;
  bool intervalSet = false;
  std::optional<int> nodes, initPods, measurePods;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto num = [&](std::string_view name, auto& out) {
      auto v = flagValue(a, name);
      if (!v) return false;
      if (!parseNumber(*v, out)) {
        std::cerr << "bad value for " << name << ": " << *v << "\n";
        std::exit(2);
      }
      return true;
    };
    int n = 0;
    int64_t ms = 0;
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--no-events") {
      f.events = false;
    } else if (a == "--observer") {
      f.observer = true;
    } else if (auto v = flagValue(a, "--workload"); v && !v->empty()) {
      f.workloads.clear();
      std::string_view rest = *v;
      while (!rest.empty()) {
        auto comma = rest.find(',');
        f.workloads.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
      if (f.workloads.size() == 1 && f.workloads[0] == "all")
        f.workloads = {"SchedulingBasic", "NodeAffinityTaints"};
    } else if (num("--nodes", n)) {
      nodes = n;
    } else if (num("--init-pods", n)) {
      initPods = n;
    } else if (num("--measure-pods", n)) {
      measurePods = n;
    } else if (num("--parallelism", f.parallelism) || num("--binding-workers", f.bindingWorkers) ||
               num("--seed", f.seed)) {
    } else if (num("--sample-interval-ms", ms)) {
      f.sampleInterval = std::chrono::milliseconds(std::max<int64_t>(ms, 1));
      intervalSet = true;
    } else if (num("--timeout-s", ms)) {
      f.timeout = std::chrono::seconds(ms);
    } else if (auto j = flagValue(a, "--json"); j && !j->empty()) {
      f.json = std::string(*j);
    } else {
      std::cerr << "unknown flag " << a << "\n" << kUsage;
      return std::nullopt;
    }
  }
  if (quick) {
    f.nodes = 500;
    f.initPods = 500;
    f.measurePods = 1000;
    // A quick run ends well within a second: sample at 100 ms so there are samples at all.
    if (!intervalSet) f.sampleInterval = 100ms;
  }
  if (nodes) f.nodes = *nodes;
  if (initPods) f.initPods = *initPods;
  if (measurePods) f.measurePods = *measurePods;
  for (const auto& w : f.workloads) {
    if (w != "SchedulingBasic" && w != "NodeAffinityTaints") {
      std::cerr << "unknown workload " << w << "\n" << kUsage;
      return std::nullopt;
    }
  }
  if (f.nodes <= 0 || f.measurePods <= 0 || f.initPods < 0) {
    std::cerr << "--nodes and --measure-pods must be positive, --init-pods non-negative\n";
    return std::nullopt;
  }
  return f;
}

// ---------------------------------------------------------------------------------------------------
// Pod bookkeeping: pods are named "<prefix>-<index>" with one index space over init + measured pods.

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

struct PodTimes {
  explicit PodTimes(size_t n) : created(n), bound(n) {}
  std::vector<std::atomic<int64_t>> created;  // steady ns; 0 = not yet
  std::vector<std::atomic<int64_t>> bound;
  std::atomic<int64_t> boundCount{0};
  std::atomic<int64_t> bindFailures{0};
};

std::optional<size_t> podIndex(std::string_view name) {
  auto dash = name.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  size_t idx = 0;
  if (!parseNumber(name.substr(dash + 1), idx)) return std::nullopt;
  return idx;
}

// The client the scheduler and its informers use: forwards to the MemoryClient and stamps successful
// bindings (what upstream's collector sees as "scheduled": spec.nodeName set in the API).
class BindTimingClient final : public client::Client {
 public:
  BindTimingClient(client::MemoryClient& inner, PodTimes& times) : inner_(inner), times_(times) {}

  client::ListWatcher<api::Pod>& pods() override { return inner_.pods(); }
  client::ListWatcher<api::Node>& nodes() override { return inner_.nodes(); }
  client::ListWatcher<api::Namespace>& namespaces() override { return inner_.namespaces(); }
  client::ListWatcher<api::PersistentVolume>& persistentVolumes() override {
    return inner_.persistentVolumes();
  }
  client::ListWatcher<api::PersistentVolumeClaim>& persistentVolumeClaims() override {
    return inner_.persistentVolumeClaims();
  }
  client::ListWatcher<api::StorageClass>& storageClasses() override { return inner_.storageClasses(); }
  client::ListWatcher<api::CSINode>& csiNodes() override { return inner_.csiNodes(); }
  client::ListWatcher<api::CSIDriver>& csiDrivers() override { return inner_.csiDrivers(); }
  client::ListWatcher<api::CSIStorageCapacity>& csiStorageCapacities() override {
    return inner_.csiStorageCapacities();
  }
  client::ListWatcher<api::PodDisruptionBudget>& podDisruptionBudgets() override {
    return inner_.podDisruptionBudgets();
  }
  client::ListWatcher<api::Service>& services() override { return inner_.services(); }
  client::ListWatcher<api::ReplicationController>& replicationControllers() override {
    return inner_.replicationControllers();
  }
  client::ListWatcher<api::ReplicaSet>& replicaSets() override { return inner_.replicaSets(); }
  client::ListWatcher<api::StatefulSet>& statefulSets() override { return inner_.statefulSets(); }

  client::ApiResult<void> bind(const api::Binding& binding) override {
    auto r = inner_.bind(binding);
    if (!r.ok()) {
      times_.bindFailures.fetch_add(1, std::memory_order_relaxed);
      return r;
    }
    const int64_t t = nowNs();
    if (auto idx = podIndex(binding.metadata.name); idx && *idx < times_.bound.size()) {
      int64_t expected = 0;
      if (times_.bound[*idx].compare_exchange_strong(expected, t)) times_.boundCount.fetch_add(1);
    }
    return r;
  }
  client::ApiResult<api::Pod> patchPodStatus(const std::string& ns, const std::string& name,
                                             const client::PodStatusPatch& patch) override {
    return inner_.patchPodStatus(ns, name, patch);
  }
  client::ApiResult<void> deletePod(const std::string& ns, const std::string& name,
                                    const client::DeleteOptions& options) override {
    return inner_.deletePod(ns, name, options);
  }
  client::ApiResult<api::Event> createEvent(const api::Event& event) override {
    return inner_.createEvent(event);
  }
  client::ApiResult<api::Event> updateEventSeries(const std::string& ns, const std::string& name,
                                                  const api::EventSeries& series) override {
    return inner_.updateEventSeries(ns, name, series);
  }
  client::ApiResult<api::Lease> getLease(const std::string& ns, const std::string& name) override {
    return inner_.getLease(ns, name);
  }
  client::ApiResult<api::Lease> createLease(const api::Lease& lease) override {
    return inner_.createLease(lease);
  }
  client::ApiResult<api::Lease> updateLease(const api::Lease& lease) override {
    return inner_.updateLease(lease);
  }

 private:
  client::MemoryClient& inner_;
  PodTimes& times_;
};

// ---------------------------------------------------------------------------------------------------
// PerfProbe: a PreFilter + Reserve plugin timing the scheduling cycle on the scheduling thread.

struct ProbeData {
  std::atomic<bool> measuring{false};
  std::mutex mu;
  std::vector<int64_t> attemptNs;  // PreFilter -> Reserve of measured attempts that reached Reserve
  int64_t attempts = 0;            // measured attempts that reached PreFilter
};

class PerfProbe final : public framework::PreFilterPlugin,
                        public framework::ReservePlugin,
                        public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "PerfProbe";
  explicit PerfProbe(ProbeData& data) : data_(data) {}
  std::string_view name() const override { return kName; }

  framework::Status preFilter(framework::CycleState&, const framework::PodInfo&,
                              std::span<const framework::NodeInfoPtr>, framework::PreFilterResult&) override {
    start_ = Clock::now();
    if (data_.measuring.load(std::memory_order_relaxed)) {
      std::lock_guard lock(data_.mu);
      ++data_.attempts;
    }
    return framework::Status::success();
  }
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }

  framework::Status reserve(framework::CycleState&, const framework::PodInfo&, const std::string&) override {
    const auto d = Clock::now() - start_;
    if (data_.measuring.load(std::memory_order_relaxed)) {
      std::lock_guard lock(data_.mu);
      data_.attemptNs.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
    }
    return framework::Status::success();
  }
  void unreserve(framework::CycleState&, const framework::PodInfo&, const std::string&) override {}

  // Never rejects, so no event should requeue pods on its account.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override {
    return std::vector<framework::ClusterEventWithHint>{};
  }

 private:
  ProbeData& data_;
  Clock::time_point start_;  // scheduling thread only
};

// Counts attempts; its presence makes the scheduler fill AttemptRecords (all node names, statuses, scores).
class CountingObserver final : public scheduler::AttemptObserver {
 public:
  void onAttempt(const scheduler::AttemptRecord&) override {
    attempts.fetch_add(1, std::memory_order_relaxed);
  }
  void onBindingDone(const api::Pod&, const std::string&, const framework::Status&) override {}
  std::atomic<int64_t> attempts{0};
};

// ---------------------------------------------------------------------------------------------------
// Workload objects (upstream templates).

constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";
constexpr std::string_view kNamespace = "default";

// Upstream makeBaseNode / node-default.yaml: pods 110, cpu 4, memory 32Gi, Ready.
api::Node baseNode(const std::string& name) {
  return MakeNode()
      .name(name)
      .capacity({{"pods", "110"}, {"cpu", "4"}, {"memory", "32Gi"}})
      .condition("Ready", "True")
      .obj();
}

// Upstream pod-default.yaml: one pause container, port 80, requests = limits = cpu 100m, memory 500Mi.
api::Pod basePod(const std::string& name) {
  api::Pod pod = MakePod().name(name).namespace_(std::string(kNamespace)).obj();
  api::Container c;
  c.name = "pause";
  c.image = std::string(ks::testing::kPauseImage);
  api::ContainerPort port;
  port.containerPort = 80;
  c.ports.push_back(port);
  c.resources.requests = ks::testing::resourceList({{"cpu", "100m"}, {"memory", "500Mi"}});
  c.resources.limits = c.resources.requests;
  pod.spec.containers.push_back(std::move(c));
  return pod;
}

struct Workload {
  std::string name;
  std::function<api::Node(int i)> node;
  std::function<api::Pod(int i)> initPod;
  std::function<api::Pod(int i)> measurePod;
};

// NodeAffinityTaints: exercises NodeAffinity (required + preferred) and TaintToleration (filter + score).
//   nodes: zone = zone1|zone2|zone3 round robin; every 2nd node tainted dedicated=perf:NoSchedule;
//          every 3rd node tainted flaky=true:PreferNoSchedule.
//   measured pods: require zone In [zone1, zone2]; prefer zone1 (weight 10); every 2nd pod tolerates
//          the NoSchedule taint. Init pods: pod-default.
api::Node affinityTaintNode(int i) {
  api::Node n = baseNode("node-" + std::to_string(i));
  n.metadata.labels[std::string(kZoneLabel)] = "zone" + std::to_string(i % 3 + 1);
  if (i % 2 == 1) n.spec.taints.push_back(api::Taint{"dedicated", "perf", "NoSchedule", std::nullopt});
  if (i % 3 == 2) n.spec.taints.push_back(api::Taint{"flaky", "true", "PreferNoSchedule", std::nullopt});
  return n;
}

api::Pod affinityTaintPod(int i) {
  api::Pod pod = basePod("pod-" + std::to_string(i));
  ks::testing::PodWrapper w = MakePod();
  api::NodeSelectorTerm preferZone1;
  preferZone1.matchExpressions.push_back(
      api::NodeSelectorRequirement{std::string(kZoneLabel), "In", {"zone1"}});
  w.nodeAffinityIn(std::string(kZoneLabel), {"zone1", "zone2"}).preferredNodeAffinity(10, preferZone1);
  if (i % 2 == 0) w.toleration(api::Toleration{"dedicated", "Equal", "perf", "NoSchedule", std::nullopt});
  api::Pod shaped = w.obj();
  pod.spec.affinity = shaped.spec.affinity;
  pod.spec.tolerations = shaped.spec.tolerations;
  return pod;
}

Workload makeWorkload(const std::string& name) {
  Workload w;
  w.name = name;
  w.initPod = [](int i) { return basePod("init-" + std::to_string(i)); };
  if (name == "NodeAffinityTaints") {
    w.node = affinityTaintNode;
    w.measurePod = affinityTaintPod;
  } else {
    w.node = [](int i) { return baseNode("node-" + std::to_string(i)); };
    w.measurePod = [](int i) { return basePod("pod-" + std::to_string(i)); };
  }
  return w;
}

// ---------------------------------------------------------------------------------------------------
// Statistics.

// Nearest rank, as upstream's metrics util (samples sorted ascending).
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<size_t>(std::ceil(static_cast<double>(sorted.size()) * p / 100.0));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

struct Summary {
  size_t count = 0;
  double average = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
};

Summary summarize(std::vector<double> v) {
  Summary s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.average = sum / static_cast<double>(v.size());
  s.p50 = percentile(v, 50);
  s.p90 = percentile(v, 90);
  s.p95 = percentile(v, 95);
  s.p99 = percentile(v, 99);
  s.max = v.back();
  return s;
}

long peakRssKb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

long currentRssKb() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

std::array<double, 3> loadAverage() {
  std::array<double, 3> l{};
  if (getloadavg(l.data(), 3) != 3) l = {0, 0, 0};
  return l;
}

// ---------------------------------------------------------------------------------------------------
// One run.

struct Result_ {
  std::string workload;
  int nodes = 0, initPods = 0, measurePods = 0, parallelism = 0, bindingWorkers = 0;
  int64_t sampleIntervalMs = 0;
  bool complete = false;
  int64_t bound = 0;
  double createNodesSec = 0, syncSec = 0, initSec = 0;
  double createSec = 0;   // creating the measured pods
  double measureSec = 0;  // first measured create -> last measured bound
  double throughput = 0;  // measurePods / measureSec
  Summary samples;        // pods/s per sample interval
  Summary e2eMs;          // create -> bound
  Summary attemptUs;      // PreFilter -> Reserve
  int64_t attempts = 0;
  int64_t bindFailures = 0;
  int64_t observerAttempts = -1;
  int64_t violations = -1;  // measured pods bound against the workload's node constraints (-1: not checked)
  int maxPodsPerNode = 0;   // over all bound pods
  long peakRssKb = 0, rssAfterKb = 0;
  std::array<double, 3> loadBefore{}, loadAfter{};
};

std::string configYaml(int parallelism) {
  std::string yaml =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "leaderElection:\n  leaderElect: false\n"
      "parallelism: " +
      std::to_string(parallelism) +
      "\n"
      "profiles:\n"
      "- schedulerName: default-scheduler\n"
      "  plugins:\n    multiPoint:\n      enabled:\n      - name: " +
      std::string(PerfProbe::kName) + "\n";
  const auto& missing = plugins::notYetImplementedPlugins();
  if (!missing.empty()) {
    yaml += "      disabled:\n";
    for (const auto& name : missing) yaml += "      - name: " + name + "\n";
  }
  return yaml;
}

// Sanity check of the outcome (not a timing): every bound pod respects what the workload asked for.
void checkPlacements(client::MemoryClient& memory, const Workload& w, const Flags& flags, Result_& res) {
  std::map<std::string, api::NodePtr> nodes;
  for (auto& n : memory.objects<api::Node>()) nodes[n->metadata.name] = n;
  std::map<std::string, int> perNode;
  int64_t violations = 0;
  for (const auto& p : memory.objects<api::Pod>()) {
    if (p->spec.nodeName.empty()) continue;
    ++perNode[p->spec.nodeName];
    auto idx = podIndex(p->metadata.name);
    if (w.name != "NodeAffinityTaints" || !idx || *idx < static_cast<size_t>(flags.initPods)) continue;
    auto it = nodes.find(p->spec.nodeName);
    if (it == nodes.end()) {
      ++violations;
      continue;
    }
    const api::Node& node = *it->second;
    auto zone = node.metadata.labels.find(std::string(kZoneLabel));
    const bool zoneOk =
        zone != node.metadata.labels.end() && (zone->second == "zone1" || zone->second == "zone2");
    bool taintOk = true;
    for (const auto& t : node.spec.taints) {
      if (t.effect != "NoSchedule") continue;
      bool tolerated = false;
      for (const auto& tol : p->spec.tolerations)
        tolerated = tolerated || (tol.key == t.key && tol.value == t.value);
      taintOk = taintOk && tolerated;
    }
    if (!zoneOk || !taintOk) ++violations;
  }
  for (const auto& [name, count] : perNode) res.maxPodsPerNode = std::max(res.maxPodsPerNode, count);
  if (w.name == "NodeAffinityTaints") res.violations = violations;
}

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Waits until `target` pods with index in [from, to) are bound; samples throughput meanwhile as upstream's
// throughputCollector. Returns false on timeout.
bool waitBound(PodTimes& times, int64_t target, std::chrono::milliseconds interval,
               std::chrono::seconds timeout, std::vector<double>* samples) {
  const auto deadline = Clock::now() + timeout;
  auto nextTick = Clock::now() + interval;
  bool started = false;
  int64_t last = 0;
  auto lastTime = Clock::now();
  while (times.boundCount.load() < target) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(2ms, nextTick - Clock::now()));
    const auto t = Clock::now();
    if (t < nextTick) continue;
    nextTick += interval;
    if (!samples) continue;
    const int64_t scheduled = times.boundCount.load();
    if (scheduled == 0) continue;
    if (!started) {  // the first sample is likely an outlier: creation and sampling start independently
      started = true;
      last = scheduled;
      lastTime = t;
      continue;
    }
    if (scheduled == last) continue;  // no progress: fold the interval into the next sample
    samples->push_back(static_cast<double>(scheduled - last) / seconds(t - lastTime));
    last = scheduled;
    lastTime = t;
  }
  return true;
}

Result_ runWorkload(const Flags& flags, const std::string& name) {
  Result_ res;
  res.workload = name;
  res.nodes = flags.nodes;
  res.initPods = flags.initPods;
  res.measurePods = flags.measurePods;
  res.parallelism = flags.parallelism;
  res.bindingWorkers = flags.bindingWorkers;
  res.sampleIntervalMs = flags.sampleInterval.count();
  res.loadBefore = loadAverage();
  const Workload w = makeWorkload(name);
  const size_t totalPods = static_cast<size_t>(flags.initPods) + static_cast<size_t>(flags.measurePods);

  client::MemoryClientOptions mo;
  mo.seed = flags.seed == 0 ? 1 : flags.seed;
  client::MemoryClient memory(mo);
  PodTimes times(totalPods);
  BindTimingClient client(memory, times);
  ProbeData probe;

  // createNodes
  auto t0 = Clock::now();
  for (int i = 0; i < flags.nodes; ++i) {
    if (auto r = memory.create(w.node(i)); !r.ok()) {
      std::cerr << "create node: " << r.error().message() << "\n";
      std::exit(1);
    }
  }
  res.createNodesSec = seconds(Clock::now() - t0);

  // Scheduler + informers.
  auto cfg = config::decodeConfig(configYaml(flags.parallelism));
  if (!cfg.ok()) {
    std::cerr << "config: " << cfg.error().message() << "\n";
    std::exit(1);
  }
  auto registry = plugins::newInTreeRegistry();
  auto reg = registry.registerPlugin(
      std::string(PerfProbe::kName),
      [&probe](const config::PluginArgs*, framework::Handle&) -> Result<std::unique_ptr<framework::Plugin>> {
        return std::unique_ptr<framework::Plugin>(std::make_unique<PerfProbe>(probe));
      });
  if (!reg.ok()) std::abort();
  std::unique_ptr<scheduler::ApiEventRecorder> recorder;
  if (flags.events) recorder = std::make_unique<scheduler::ApiEventRecorder>(client);
  CountingObserver observer;
  scheduler::SchedulerOptions so;
  so.seed = flags.seed;
  so.bindingWorkers = flags.bindingWorkers;
  so.eventRecorder = recorder.get();
  if (flags.observer) so.observer = &observer;
  informer::SharedInformerFactoryOptions fo;
  fo.podFieldSelector = std::string(informer::kSchedulerPodFieldSelector);
  informer::SharedInformerFactory factory(client, fo);
  so.informerFactory = &factory;
  auto created = scheduler::Scheduler::create(client, *cfg, registry, so);
  if (!created.ok()) {
    std::cerr << "scheduler: " << created.error().message() << "\n";
    std::exit(1);
  }
  std::unique_ptr<scheduler::Scheduler> sched = std::move(created).value();
  sched->addEventHandlers(factory);
  t0 = Clock::now();
  factory.start();
  if (!factory.waitForCacheSync(60s)) {
    std::cerr << "informers did not sync\n";
    std::exit(1);
  }
  res.syncSec = seconds(Clock::now() - t0);
  std::jthread runner([&](std::stop_token stop) { sched->run(stop); });

  auto createPods = [&](size_t from, size_t to, const std::function<api::Pod(int)>& make) {
    for (size_t i = from; i < to; ++i) {
      api::Pod pod = make(static_cast<int>(i));
      times.created[i].store(nowNs());
      if (auto r = memory.create(pod); !r.ok()) {
        std::cerr << "create pod: " << r.error().message() << "\n";
        std::exit(1);
      }
    }
  };
  // Pod names carry the global index after the last '-'.
  const auto initPod = [&](int i) { return w.initPod(i); };
  const auto measurePod = [&](int i) { return w.measurePod(i); };

  // createPods(initPods), wait.
  t0 = Clock::now();
  createPods(0, static_cast<size_t>(flags.initPods), initPod);
  bool ok = waitBound(times, flags.initPods, flags.sampleInterval, flags.timeout, nullptr);
  res.initSec = seconds(Clock::now() - t0);

  // createPods(measurePods) with collectMetrics, wait.
  if (ok) {
    probe.measuring = true;
    std::vector<double> samples;
    const auto measureStart = Clock::now();
    std::jthread creator([&] {
      createPods(static_cast<size_t>(flags.initPods), totalPods, measurePod);
      res.createSec = seconds(Clock::now() - measureStart);
    });
    ok = waitBound(times, static_cast<int64_t>(totalPods), flags.sampleInterval, flags.timeout, &samples);
    creator.join();
    probe.measuring = false;
    res.samples = summarize(std::move(samples));
  }
  res.complete = ok;
  res.bound = times.boundCount.load();
  res.bindFailures = times.bindFailures.load();
  res.peakRssKb = peakRssKb();
  res.rssAfterKb = currentRssKb();

  // Measured pods: first create -> last bound, and per-pod create -> bound.
  int64_t first = INT64_MAX, last = 0;
  std::vector<double> e2e;
  e2e.reserve(static_cast<size_t>(flags.measurePods));
  for (size_t i = static_cast<size_t>(flags.initPods); i < totalPods; ++i) {
    const int64_t c = times.created[i].load(), b = times.bound[i].load();
    if (c != 0) first = std::min(first, c);
    if (b == 0) continue;
    last = std::max(last, b);
    e2e.push_back(static_cast<double>(b - c) / 1e6);
  }
  if (ok && last > first) {
    res.measureSec = static_cast<double>(last - first) / 1e9;
    res.throughput = flags.measurePods / res.measureSec;
  }
  res.e2eMs = summarize(std::move(e2e));
  {
    std::lock_guard lock(probe.mu);
    std::vector<double> us;
    us.reserve(probe.attemptNs.size());
    for (int64_t ns : probe.attemptNs) us.push_back(static_cast<double>(ns) / 1e3);
    res.attemptUs = summarize(std::move(us));
    res.attempts = probe.attempts;
  }
  if (flags.observer) res.observerAttempts = observer.attempts.load();
  res.loadAfter = loadAverage();
  checkPlacements(memory, w, flags, res);

  runner = {};
  sched->close();
  factory.stop();
  return res;
}

// ---------------------------------------------------------------------------------------------------
// Output.

std::string fmt(double v, int precision = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

void printTable(const Result_& r) {
  std::ostringstream o;
  o << "\n=== " << r.workload << ": " << r.nodes << " nodes, " << r.initPods << " init pods, "
    << r.measurePods << " measured pods (parallelism " << r.parallelism << ", binding workers "
    << r.bindingWorkers << ") ===\n";
  o << "  load average before  " << fmt(r.loadBefore[0], 2) << " " << fmt(r.loadBefore[1], 2) << " "
    << fmt(r.loadBefore[2], 2) << "   after " << fmt(r.loadAfter[0], 2) << " " << fmt(r.loadAfter[1], 2)
    << " " << fmt(r.loadAfter[2], 2) << "   (" << std::thread::hardware_concurrency() << " cpus)\n";
  std::string missing;
  for (const auto& name : plugins::notYetImplementedPlugins())
    missing += (missing.empty() ? "" : ", ") + name;
  o << "  default plugins off  " << (missing.empty() ? "none" : missing) << " (not implemented yet)\n";
  if (!r.complete)
    o << "  INCOMPLETE: " << r.bound << " of " << (r.initPods + r.measurePods)
      << " pods bound before the timeout\n";
  o << "  setup                create nodes " << fmt(r.createNodesSec, 3) << " s, informer sync "
    << fmt(r.syncSec, 3) << " s, init pods scheduled in " << fmt(r.initSec, 3) << " s\n";
  o << "  measured pods        created in " << fmt(r.createSec, 3) << " s, first create -> last bound "
    << fmt(r.measureSec, 3) << " s\n";
  o << "  THROUGHPUT           " << fmt(r.throughput) << " pods/s\n";
  o << "                       " << std::string(10, ' ')
    << "   samples     avg     p50     p90     p95     p99     max\n";
  auto row = [&](std::string_view label, const Summary& s, int prec) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-29s %9zu %7s %7s %7s %7s %7s %7s\n", std::string(label).c_str(),
                  s.count, fmt(s.average, prec).c_str(), fmt(s.p50, prec).c_str(), fmt(s.p90, prec).c_str(),
                  fmt(s.p95, prec).c_str(), fmt(s.p99, prec).c_str(), fmt(s.max, prec).c_str());
    o << line;
  };
  row("throughput samples (pods/s)", r.samples, 0);
  if (r.samples.count == 0) {
    o << "    (no samples: the measured phase was shorter than two " << r.sampleIntervalMs
      << " ms intervals; see --sample-interval-ms)\n";
  }
  row("e2e create->bound (ms)", r.e2eMs, 1);
  row("attempt PreFilter->Reserve (us)", r.attemptUs, 1);
  o << "  attempts             " << r.attempts
    << " (unschedulable/failed before Reserve: " << (r.attempts - static_cast<int64_t>(r.attemptUs.count))
    << "), bind failures " << r.bindFailures;
  if (r.observerAttempts >= 0) o << ", observer saw " << r.observerAttempts << " attempts";
  o << "\n  placement            max pods on one node " << r.maxPodsPerNode;
  if (r.violations >= 0) o << ", measured pods violating affinity/taints: " << r.violations;
  o << "\n";
  o << "  memory               peak RSS " << fmt(static_cast<double>(r.peakRssKb) / 1024.0)
    << " MiB, RSS at end " << fmt(static_cast<double>(r.rssAfterKb) / 1024.0) << " MiB\n";
  std::cout << o.str() << std::flush;
}

std::string jsonSummary(const Summary& s) {
  std::ostringstream o;
  o << "{\"count\":" << s.count << ",\"average\":" << s.average << ",\"p50\":" << s.p50
    << ",\"p90\":" << s.p90 << ",\"p95\":" << s.p95 << ",\"p99\":" << s.p99 << ",\"max\":" << s.max << "}";
  return o.str();
}

std::string toJson(const std::vector<Result_>& results) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result_& r = results[i];
    o << (i ? ",\n " : "\n ") << "{\"workload\":\"" << r.workload << "\",\"nodes\":" << r.nodes
      << ",\"initPods\":" << r.initPods << ",\"measurePods\":" << r.measurePods
      << ",\"parallelism\":" << r.parallelism << ",\"bindingWorkers\":" << r.bindingWorkers
      << ",\"sampleIntervalMs\":" << r.sampleIntervalMs << ",\"complete\":" << (r.complete ? "true" : "false")
      << ",\"bound\":" << r.bound << ",\"createNodesSec\":" << r.createNodesSec
      << ",\"syncSec\":" << r.syncSec << ",\"initSec\":" << r.initSec << ",\"createSec\":" << r.createSec
      << ",\"measureSec\":" << r.measureSec << ",\"throughputPodsPerSec\":" << r.throughput
      << ",\"throughputSamples\":" << jsonSummary(r.samples) << ",\"e2eLatencyMs\":" << jsonSummary(r.e2eMs)
      << ",\"attemptLatencyUs\":" << jsonSummary(r.attemptUs) << ",\"attempts\":" << r.attempts
      << ",\"bindFailures\":" << r.bindFailures << ",\"maxPodsPerNode\":" << r.maxPodsPerNode
      << ",\"placementViolations\":" << r.violations << ",\"peakRssKb\":" << r.peakRssKb
      << ",\"rssAfterKb\":" << r.rssAfterKb << ",\"loadBefore\":[" << r.loadBefore[0] << ","
      << r.loadBefore[1] << "," << r.loadBefore[2] << "],\"loadAfter\":[" << r.loadAfter[0] << ","
      << r.loadAfter[1] << "," << r.loadAfter[2] << "]}";
  }
  o << "\n]\n";
  return o.str();
}

}  // namespace
}  // namespace ks::perf

int main(int argc, char** argv) {
  using namespace ks::perf;
  auto flags = parseFlags(argc, argv);
  if (!flags) return 2;
  std::vector<Result_> results;
  bool allComplete = true;
  for (const auto& w : flags->workloads) {
    results.push_back(runWorkload(*flags, w));
    printTable(results.back());
    allComplete = allComplete && results.back().complete;
  }
  if (!flags->json.empty()) {
    const std::string json = toJson(results);
    if (flags->json == "-") {
      std::cout << json;
    } else {
      std::ofstream(flags->json) << json;
    }
  }
  return allComplete ? 0 : 1;
}
