#include "pkg/scheduler/metrics/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ks::metrics {

namespace {

// Profiles whose per-plugin series are cached in fixed slots; further profiles use a lookup.
constexpr size_t kMaxCachedProfiles = 8;
// pod_scheduling_sli_duration_seconds{attempts}: "0".."14", then "15+" (upstream getAttemptsLabel).
constexpr size_t kAttemptsCap = 15;
constexpr size_t kResultCount = 3;  // scheduled, unschedulable, error
constexpr size_t kEvaluationSlots = kMaxCachedProfiles * kExtensionPointCount;
// scheduler_plugin_evaluation_total is counted per node and plugin in Filter and Score. A Prometheus
// counter increment there (a compare-and-swap loop on one shared double, bounced between the Filter
// workers) was 3.5% of the daemon's CPU, and a shared atomic add still 5%. So each thread counts into a
// block of its own, which only it writes (a plain load and store, no locked instruction), and collect()
// adds what each block gained since the last collection to the counters: a scrape sees every evaluation.
constexpr size_t kCountedPlugins = 64;
constexpr size_t kCountedPoints = 4;  // PreFilter, Filter, PreScore, Score
constexpr size_t kCountedSlots = kCountedPlugins * kMaxCachedProfiles * kCountedPoints;

constexpr int countedPointIndex(ExtensionPoint point) {
  switch (point) {
    case ExtensionPoint::PreFilter:
      return 0;
    case ExtensionPoint::Filter:
      return 1;
    case ExtensionPoint::PreScore:
      return 2;
    case ExtensionPoint::Score:
      return 3;
    default:
      return -1;
  }
}
constexpr std::array<ExtensionPoint, kCountedPoints> kCountedPointList = {
    ExtensionPoint::PreFilter, ExtensionPoint::Filter, ExtensionPoint::PreScore, ExtensionPoint::Score};

struct ThreadEvaluations {
  std::array<std::atomic<uint64_t>, kCountedSlots> counts{};  // written by the owning thread only
  std::array<uint64_t, kCountedSlots> collected{};             // guarded by Impl::mu
};

struct ThreadEvaluationsCache {
  uint64_t generation = 0;  // of the Metrics::Impl the block belongs to (0: none)
  ThreadEvaluations* block = nullptr;
};
thread_local ThreadEvaluationsCache tlsEvaluations;
std::atomic<uint64_t> nextMetricsGeneration{1};
constexpr std::array<std::string_view, kResultCount> kResultNames = {"scheduled", "unschedulable", "error"};

constexpr size_t slot(ExtensionPoint point, framework::Code code) {
  return static_cast<size_t>(point) * kCodeCount + static_cast<size_t>(code);
}

// As upstream metrics.ExponentialBuckets: start, start*factor, ... (count values, by repeated products).
std::vector<double> exponentialBuckets(double start, double factor, int count) {
  std::vector<double> buckets;
  buckets.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    buckets.push_back(start);
    start *= factor;
  }
  return buckets;
}

enum class Stability { Alpha, Beta, Stable };

// component-base annotates HELP with the stability level.
std::string help(Stability stability, std::string_view text) {
  std::string out;
  switch (stability) {
    case Stability::Alpha:
      out = "[ALPHA] ";
      break;
    case Stability::Beta:
      out = "[BETA] ";
      break;
    case Stability::Stable:
      out = "[STABLE] ";
      break;
  }
  out += text;
  return out;
}

// Returns the series cached in `cache`, creating it with `make` on first use. Family::Add is thread-safe
// and returns the existing series for equal labels, so racing first uses agree on the pointer.
template <class T, class Make>
T* resolve(std::atomic<T*>& cache, Make&& make) {
  T* p = cache.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = &make();
    cache.store(p, std::memory_order_release);
  }
  return p;
}

}  // namespace

namespace detail {

struct ProfileSlots {
  std::string name;
  size_t index = 0;
  std::array<std::atomic<prometheus::Counter*>, kResultCount> attempts{};
  std::array<std::atomic<prometheus::Histogram*>, kResultCount> attemptDuration{};
  std::array<std::atomic<prometheus::Histogram*>, kExtensionPointCount * kCodeCount> extensionPoint{};
  // Opportunistic batching, created on first use.
  std::array<std::atomic<prometheus::Counter*>, kBatchAttemptResultCount> batchAttempts{};
  std::array<std::atomic<prometheus::Counter*>, kBatchFlushReasonCount> batchFlushed{};
  std::atomic<prometheus::Counter*> batchRescoreAttempts{};
  std::atomic<prometheus::Histogram*> batchRescoreDuration{};
  std::array<std::atomic<prometheus::Histogram*>, 2> getNodeHintDuration{};  // no_hint, hint
  std::atomic<prometheus::Histogram*> storeScheduleResultsDuration{};
};

struct PluginSlots {
  std::string name;
  std::array<std::atomic<prometheus::Histogram*>, kExtensionPointCount * kCodeCount> execution{};
  size_t index = 0;  // in Metrics::Impl::plugins
  std::array<std::atomic<prometheus::Counter*>, kEvaluationSlots> evaluation{};
  std::array<std::atomic<prometheus::Gauge*>, kMaxCachedProfiles> unschedulable{};
};

}  // namespace detail

const std::string& ProfileId::name() const {
  assert(p_ != nullptr);
  return p_->name;
}

const std::string& PluginId::name() const {
  assert(p_ != nullptr);
  return p_->name;
}

std::string_view extensionPointName(ExtensionPoint point) {
  switch (point) {
    case ExtensionPoint::PreEnqueue:
      return "PreEnqueue";
    case ExtensionPoint::PreFilter:
      return "PreFilter";
    case ExtensionPoint::Filter:
      return "Filter";
    case ExtensionPoint::PreFilterExtensionAddPod:
      return "PreFilterExtensionAddPod";
    case ExtensionPoint::PreFilterExtensionRemovePod:
      return "PreFilterExtensionRemovePod";
    case ExtensionPoint::PostFilter:
      return "PostFilter";
    case ExtensionPoint::PreScore:
      return "PreScore";
    case ExtensionPoint::Score:
      return "Score";
    case ExtensionPoint::ScoreExtensionNormalize:
      return "ScoreExtensionNormalize";
    case ExtensionPoint::PreBind:
      return "PreBind";
    case ExtensionPoint::PreBindPreFlight:
      return "PreBindPreFlight";
    case ExtensionPoint::Bind:
      return "Bind";
    case ExtensionPoint::PostBind:
      return "PostBind";
    case ExtensionPoint::Reserve:
      return "Reserve";
    case ExtensionPoint::Unreserve:
      return "Unreserve";
    case ExtensionPoint::Permit:
      return "Permit";
    case ExtensionPoint::Sign:
      return "Sign";
    case ExtensionPoint::PodGroupPostFilter:
      return "PodGroupPostFilter";
  }
  return "Unknown";
}

std::string_view batchAttemptResultName(BatchAttemptResult r) {
  switch (r) {
    case BatchAttemptResult::NoHint:
      return "no_hint";
    case BatchAttemptResult::HintUsed:
      return "hint_used";
    case BatchAttemptResult::HintNotUsed:
      return "hint_not_used";
  }
  return "unknown";
}

std::string_view batchFlushReasonName(BatchFlushReason r) {
  switch (r) {
    case BatchFlushReason::PodFailed:
      return "pod_failed";
    case BatchFlushReason::PodSkipped:
      return "pod_skipped";
    case BatchFlushReason::PodNominated:
      return "pod_nominated";
    case BatchFlushReason::NodeMissing:
      return "node_missing";
    case BatchFlushReason::EmptyList:
      return "empty_list";
    case BatchFlushReason::Expired:
      return "expired";
    case BatchFlushReason::PodIncompatible:
      return "pod_incompatible";
    case BatchFlushReason::PodNotBatchable:
      return "pod_not_batchable";
    case BatchFlushReason::FilterError:
      return "filter_error";
    case BatchFlushReason::PreScoreError:
      return "prescore_error";
    case BatchFlushReason::RescoreError:
      return "rescore_error";
    case BatchFlushReason::NormalizeError:
      return "normalize_error";
  }
  return "unknown";
}

std::string_view codeLabel(framework::Code code) {
  return framework::codeName(code);
}

std::string_view queueName(Queue queue) {
  switch (queue) {
    case Queue::Active:
      return "active";
    case Queue::Backoff:
      return "backoff";
    case Queue::Unschedulable:
      return "unschedulable";
    case Queue::Gated:
      return "gated";
  }
  return "unknown";
}

std::string_view cacheItemName(CacheItem item) {
  switch (item) {
    case CacheItem::Nodes:
      return "nodes";
    case CacheItem::Pods:
      return "pods";
    case CacheItem::AssumedPods:
      return "assumed_pods";
  }
  return "unknown";
}

std::string_view queueingHintResultName(QueueingHintResult hint) {
  switch (hint) {
    case QueueingHintResult::Queue:
      return "Queue";
    case QueueingHintResult::QueueSkip:
      return "QueueSkip";
    case QueueingHintResult::Error:
      return "Error";
  }
  return "Unknown";
}

void CounterRef::inc(double v) const {
  if (c_ != nullptr) c_->Increment(v);
}
double CounterRef::value() const {
  return c_ != nullptr ? c_->Value() : 0;
}

void GaugeRef::set(double v) const {
  if (g_ != nullptr) g_->Set(v);
}
void GaugeRef::inc(double v) const {
  if (g_ != nullptr) g_->Increment(v);
}
void GaugeRef::dec(double v) const {
  if (g_ != nullptr) g_->Decrement(v);
}
double GaugeRef::value() const {
  return g_ != nullptr ? g_->Value() : 0;
}

void HistogramRef::observe(double v) const {
  if (h_ != nullptr) h_->Observe(v);
}

struct Metrics::Impl {
  using CounterFamily = prometheus::Family<prometheus::Counter>;
  using GaugeFamily = prometheus::Family<prometheus::Gauge>;
  using HistogramFamily = prometheus::Family<prometheus::Histogram>;

  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();

  const std::vector<double> attemptBuckets = exponentialBuckets(0.001, 2, 15);
  const std::vector<double> extensionPointBuckets = exponentialBuckets(0.0001, 2, 12);
  const std::vector<double> pluginBuckets = exponentialBuckets(0.00001, 1.5, 20);
  const std::vector<double> sliBuckets = exponentialBuckets(0.01, 2, 20);
  // The batching latencies: 0.01 ms up to a last bucket of [~20 ms, Inf).
  const std::vector<double> batchBuckets = exponentialBuckets(0.00001, 2, 12);

  CounterFamily& scheduleAttempts =
      counter("scheduler_schedule_attempts_total", Stability::Stable,
              "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be "
              "scheduled, while 'error' means an internal scheduler problem.");
  HistogramFamily& eventHandling = histogram("scheduler_event_handling_duration_seconds", Stability::Alpha,
                                             "Event handling latency in seconds.");
  HistogramFamily& schedulingLatency =
      histogram("scheduler_scheduling_attempt_duration_seconds", Stability::Stable,
                "Scheduling attempt latency in seconds (scheduling algorithm + binding)");
  HistogramFamily& algorithmLatency = histogram("scheduler_scheduling_algorithm_duration_seconds",
                                                Stability::Beta, "Scheduling algorithm latency in seconds");
  HistogramFamily& preemptionVictims =
      histogram("scheduler_preemption_victims", Stability::Stable,
                "Number of selected preemption victims for preemption initiated by a single pod");
  CounterFamily& preemptionAttempts = counter("scheduler_preemption_attempts_total", Stability::Stable,
                                              "Total preemption attempts in the cluster till now");
  HistogramFamily& preemptionGoroutinesDuration =
      histogram("scheduler_preemption_goroutines_duration_seconds", Stability::Alpha,
                "Duration in seconds for running goroutines for the preemption.");
  CounterFamily& preemptionGoroutinesExecution =
      counter("scheduler_preemption_goroutines_execution_total", Stability::Alpha,
              "Number of preemption goroutines executed.");
  // Registered as upstream; v1.34's binder never increments it, so it has no series.
  CounterFamily& volumeBinderCacheRequests = counter("scheduler_volume_binder_cache_requests_total",
                                                     Stability::Alpha, "Total number for request volume binding cache");
  CounterFamily& volumeSchedulingStageErrors = counter("scheduler_volume_scheduling_stage_error_total",
                                                       Stability::Alpha, "Volume scheduling stage error count");
  GaugeFamily& pendingPods = gauge(
      "scheduler_pending_pods", Stability::Stable,
      "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means "
      "number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the "
      "scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the "
      "scheduler never attempted to schedule because they are gated.");
  GaugeFamily& queuedEntities = gauge(
      "scheduler_queued_entities", Stability::Alpha,
      "Number of queued scheduling entities ('pod' or 'podgroup'; 'pod' stands for individual pods that are "
      "not members of any podgroup) by the queue type. 'active' means number of entities in activeQ; 'backoff' "
      "means number of entities in backoffQ; 'unschedulable' means number of entities in "
      "unschedulableEntities that the scheduler attempted to schedule and failed; 'gated' is the number of "
      "unschedulable entities that the scheduler never attempted to schedule because they are gated.");
  GaugeFamily& inflightEvents = gauge("scheduler_inflight_events", Stability::Alpha,
                                      "Number of events currently tracked in the scheduling queue.");
  GaugeFamily& goroutines = gauge("scheduler_goroutines", Stability::Beta,
                                  "Number of running goroutines split by the work they do such as binding.");
  HistogramFamily& podSchedulingSli = histogram(
      "scheduler_pod_scheduling_sli_duration_seconds", Stability::Beta,
      "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might "
      "involve multiple scheduling attempts.");
  HistogramFamily& podSchedulingAttempts = histogram("scheduler_pod_scheduling_attempts", Stability::Stable,
                                                     "Number of attempts to successfully schedule a pod.");
  HistogramFamily& extensionPoint =
      histogram("scheduler_framework_extension_point_duration_seconds", Stability::Stable,
                "Latency for running all plugins of a specific extension point.");
  HistogramFamily& pluginExecution =
      histogram("scheduler_plugin_execution_duration_seconds", Stability::Beta,
                "Duration for running a plugin at a specific extension point.");
  HistogramFamily& queueingHint =
      histogram("scheduler_queueing_hint_execution_duration_seconds", Stability::Alpha,
                "Duration for running a queueing hint function of a plugin.");
  CounterFamily& queueIncoming =
      counter("scheduler_queue_incoming_pods_total", Stability::Stable,
              "Number of pods added to scheduling queues by event and queue type.");
  CounterFamily& queueIncomingEntities =
      counter("scheduler_queue_incoming_entities_total", Stability::Alpha,
              "Number of scheduling entities added to scheduling queues by event, queue type, and entity type. "
              "Entity types are either 'pod' (for individual pods that are not members of any podgroup) or "
              "'podgroup'.");
  // Registered as upstream; only the alpha SchedulerPreQueueingHints gate increments it, so no series.
  CounterFamily& preQueueingHintEvaluations =
      counter("scheduler_pre_queueing_hint_evaluations_total", Stability::Alpha,
              "Number of PreQueueingHint evaluations, labeled by plugin and result (all_pods or narrowed).");
  HistogramFamily& permitWait =
      histogram("scheduler_permit_wait_duration_seconds", Stability::Beta, "Duration of waiting on permit.");
  GaugeFamily& cacheSize = gauge("scheduler_cache_size", Stability::Alpha,
                                 "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.");
  GaugeFamily& unschedulableReasons = gauge(
      "scheduler_unschedulable_pods", Stability::Beta,
      "The number of unschedulable pods broken down by plugin name. A pod will increment the gauge for all "
      "plugins that caused it to not schedule and so this metric have meaning only when broken down by "
      "plugin.");
  CounterFamily& pluginEvaluation =
      counter("scheduler_plugin_evaluation_total", Stability::Beta,
              "Number of attempts to schedule pods by each plugin and the extension point (available only in "
              "PreFilter, Filter, PreScore, and Score).");
  CounterFamily& scheduledAfterFlush = counter(
      "scheduler_pod_scheduled_after_flush_total", Stability::Alpha,
      "Number of pods that were successfully scheduled after being flushed from unschedulableEntities due to "
      "timeout. This metric helps detect potential queueing hint misconfigurations or event handling issues.");
  CounterFamily& batchAttempts = counter("scheduler_batch_attempts_total", Stability::Alpha,
                                         "Counts of results when we attempt to use batching.");
  CounterFamily& batchCacheFlushed =
      counter("scheduler_batch_cache_flushed_total", Stability::Alpha, "Counts of cache flushes by reason.");
  CounterFamily& batchRescoreAttempts = counter("scheduler_batch_rescore_attempts_total", Stability::Alpha,
                                                "Counts of rescore attempts during opportunistic batching.");
  HistogramFamily& getNodeHintDuration = histogram("scheduler_get_node_hint_duration_seconds",
                                                   Stability::Alpha, "Latency for getting a node hint.");
  HistogramFamily& storeScheduleResultsDuration =
      histogram("scheduler_store_schedule_results_duration_seconds", Stability::Alpha,
                "Latency for storing scheduling results.");
  HistogramFamily& batchRescoreDuration =
      histogram("scheduler_batch_rescore_duration_seconds", Stability::Alpha,
                "Latency for rescoring a node during opportunistic batching.");
  // DRADeviceBindingConditions (v1.37): recorded by DynamicResources' PreBind when it waited.
  CounterFamily& draBindingConditionsAllocations =
      counter("scheduler_dra_bindingconditions_allocations_total", Stability::Alpha,
              "Number of allocations using devices with BindingConditions, counted per driver per scheduling "
              "attempt");
  HistogramFamily& draBindingConditionsWait =
      histogram("scheduler_dra_bindingconditions_wait_duration_seconds", Stability::Alpha,
                "Time in seconds spent waiting for BindingConditions to be satisfied during PreBind.");
  const std::vector<double> draBindingConditionsBuckets = exponentialBuckets(0.1, 2, 14);
  HistogramFamily& extenderRequestDuration =
      histogram("scheduler_extender_request_duration_seconds", Stability::Alpha,
                "Duration in seconds of the HTTP calls to each scheduler extender, by verb.");
  const std::vector<double> extenderBuckets = exponentialBuckets(0.0005, 2, 15);
  CounterFamily& extenderErrors =
      counter("scheduler_extender_errors_total", Stability::Alpha,
              "Number of failed calls to each scheduler extender, by verb and kind of failure.");
  GaugeFamily& leaderStatus = gauge(
      "leader_election_master_status", Stability::Alpha,
      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates "
      "master. 'name' is the string used to identify the lease. Please make sure to group by name.");
  CounterFamily& leaderSlowpath = counter(
      "leader_election_slowpath_total", Stability::Alpha,
      "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify "
      "the lease. Please make sure to group by name.");

  // Unlabelled metrics and bounded gauges exist from the start (as upstream's non-vector metrics).
  prometheus::Histogram& algorithmLatencySeries = algorithmLatency.Add({}, attemptBuckets);
  prometheus::Histogram& preemptionVictimsSeries = preemptionVictims.Add({}, exponentialBuckets(1, 2, 7));
  prometheus::Counter& preemptionAttemptsSeries = preemptionAttempts.Add({});
  prometheus::Counter& scheduledAfterFlushSeries = scheduledAfterFlush.Add({});
  prometheus::Histogram& podSchedulingAttemptsSeries =
      podSchedulingAttempts.Add({}, exponentialBuckets(1, 2, 5));
  std::array<prometheus::Gauge*, kQueueCount> pendingPodsSeries{};
  // Created when the queue first holds a pod, as upstream's series appears at the first Add.
  std::array<std::atomic<prometheus::Gauge*>, kQueueCount> queuedEntitiesSeries{};
  std::array<prometheus::Gauge*, kCacheItemCount> cacheSizeSeries{};

  std::array<std::atomic<prometheus::Histogram*>, kAttemptsCap + 1> sliSeries{};
  std::array<std::atomic<prometheus::Histogram*>, kCodeCount> permitWaitSeries{};
  // Indexed by result: 0 success, 1 error (created on first use, as upstream's vectors).
  std::array<std::atomic<prometheus::Histogram*>, 2> preemptionGoroutinesDurationSeries{};
  std::array<std::atomic<prometheus::Counter*>, 2> preemptionGoroutinesExecutionSeries{};
  std::array<std::atomic<prometheus::Counter*>, kVolumeStageCount> volumeStageErrorSeries{};

  std::mutex mu;  // guards the two registries below (entries are never removed)
  std::deque<detail::ProfileSlots> profiles;
  std::map<std::string, detail::ProfileSlots*, std::less<>> profilesByName;
  std::deque<detail::PluginSlots> plugins;
  std::map<std::string, detail::PluginSlots*, std::less<>> pluginsByName;
  const uint64_t generation = nextMetricsGeneration.fetch_add(1);  // tells this Impl from an earlier one
  std::vector<std::unique_ptr<ThreadEvaluations>> threadEvaluations;
  std::map<std::thread::id, ThreadEvaluations*> evaluationsByThread;

  Impl() {
    for (size_t i = 0; i < kQueueCount; ++i) {
      pendingPodsSeries[i] = &pendingPods.Add({{"queue", std::string(queueName(static_cast<Queue>(i)))}});
    }
    for (size_t i = 0; i < kCacheItemCount; ++i) {
      cacheSizeSeries[i] = &cacheSize.Add({{"type", std::string(cacheItemName(static_cast<CacheItem>(i)))}});
    }
  }

  // This thread's evaluation counts (see kCountedSlots).
  ThreadEvaluations& evaluationsOfThisThread() {
    ThreadEvaluationsCache& cache = tlsEvaluations;
    if (cache.generation == generation) return *cache.block;
    std::lock_guard lock(mu);
    ThreadEvaluations*& block = evaluationsByThread[std::this_thread::get_id()];
    if (block == nullptr) block = threadEvaluations.emplace_back(std::make_unique<ThreadEvaluations>()).get();
    cache = {generation, block};
    return *block;
  }

  // Adds to each counter what the threads counted since the last collection.
  void collectEvaluations() {
    std::lock_guard lock(mu);
    for (auto& t : threadEvaluations) {
      for (detail::PluginSlots& p : plugins) {
        if (p.index >= kCountedPlugins) continue;
        for (size_t profile = 0; profile < kMaxCachedProfiles; ++profile) {
          for (size_t k = 0; k < kCountedPoints; ++k) {
            const size_t slot = (p.index * kMaxCachedProfiles + profile) * kCountedPoints + k;
            const uint64_t now = t->counts[slot].load(std::memory_order_acquire);
            if (now == t->collected[slot]) continue;
            prometheus::Counter* series =
                p.evaluation[profile * kExtensionPointCount + static_cast<size_t>(kCountedPointList[k])].load(
                    std::memory_order_acquire);
            if (series == nullptr) continue;  // created before the first count; never seen here
            series->Increment(static_cast<double>(now - t->collected[slot]));
            t->collected[slot] = now;
          }
        }
      }
    }
  }

  CounterFamily& counter(const char* name, Stability stability, std::string_view text) {
    return prometheus::BuildCounter().Name(name).Help(help(stability, text)).Register(*registry);
  }
  GaugeFamily& gauge(const char* name, Stability stability, std::string_view text) {
    return prometheus::BuildGauge().Name(name).Help(help(stability, text)).Register(*registry);
  }
  HistogramFamily& histogram(const char* name, Stability stability, std::string_view text) {
    return prometheus::BuildHistogram().Name(name).Help(help(stability, text)).Register(*registry);
  }

  // The pod-group metrics, once registered (under mu).
  struct PodGroupFamilies {
    CounterFamily* attempts = nullptr;
    HistogramFamily* attemptDuration = nullptr;
    prometheus::Histogram* algorithmLatency = nullptr;
    // Workload-aware preemption.
    CounterFamily* workloadPreemptionAttempts = nullptr;
    prometheus::Histogram* workloadPreemptionVictims = nullptr;
    HistogramFamily* workloadDisruptions = nullptr;
    HistogramFamily* evaluationDuration = nullptr;
    HistogramFamily* executionDuration = nullptr;
    CounterFamily* pdbViolations = nullptr;
  };
  // [1, 1024] victims or disruptions, the last bucket [1024, Inf).
  const std::vector<double> workloadVictimBuckets = exponentialBuckets(1, 2, 11);
  // 1 ms up to a last bucket of [~32.8 s, Inf).
  const std::vector<double> preemptionDurationBuckets = exponentialBuckets(0.001, 2, 16);
  PodGroupFamilies podGroups;

  prometheus::Histogram& attemptDuration(size_t result, const std::string& profile) {
    return schedulingLatency.Add({{"result", std::string(kResultNames[result])}, {"profile", profile}},
                                 attemptBuckets);
  }

  void recordAttempt(detail::ProfileSlots* p, size_t result, double seconds) {
    assert(p != nullptr);
    resolve(p->attemptDuration[result], [&]() -> prometheus::Histogram& {
      return attemptDuration(result, p->name);
    })->Observe(seconds);
    resolve(p->attempts[result], [&]() -> prometheus::Counter& {
      return scheduleAttempts.Add({{"result", std::string(kResultNames[result])}, {"profile", p->name}});
    })->Increment();
  }
};

Metrics::Metrics() : impl_(std::make_unique<Impl>()) {}
Metrics::~Metrics() = default;

ProfileId Metrics::profile(std::string_view name) {
  std::lock_guard lock(impl_->mu);
  if (auto it = impl_->profilesByName.find(name); it != impl_->profilesByName.end())
    return ProfileId(it->second);
  auto& p = impl_->profiles.emplace_back();
  p.name = std::string(name);
  p.index = impl_->profiles.size() - 1;
  impl_->profilesByName.emplace(p.name, &p);
  return ProfileId(&p);
}

PluginId Metrics::plugin(std::string_view name) {
  std::lock_guard lock(impl_->mu);
  if (auto it = impl_->pluginsByName.find(name); it != impl_->pluginsByName.end())
    return PluginId(it->second);
  auto& p = impl_->plugins.emplace_back();
  p.index = impl_->plugins.size() - 1;
  p.name = std::string(name);
  impl_->pluginsByName.emplace(p.name, &p);
  return PluginId(&p);
}

void Metrics::podScheduled(ProfileId profile, double seconds) {
  impl_->recordAttempt(profile.p_, 0, seconds);
}
void Metrics::podUnschedulable(ProfileId profile, double seconds) {
  impl_->recordAttempt(profile.p_, 1, seconds);
}
void Metrics::podScheduleError(ProfileId profile, double seconds) {
  impl_->recordAttempt(profile.p_, 2, seconds);
}

void Metrics::observeSchedulingAlgorithm(double seconds) {
  impl_->algorithmLatencySeries.Observe(seconds);
}

void Metrics::registerPodGroupMetrics() {
  std::lock_guard lock(impl_->mu);
  if (impl_->podGroups.attempts != nullptr) return;
  impl_->podGroups.attempts = &impl_->counter(
      "scheduler_podgroup_schedule_attempts_total", Stability::Alpha,
      "Number of attempts to schedule pod group, by the result. 'unschedulable' means a pod group could not be "
      "scheduled, while 'error' means an internal scheduler problem.");
  impl_->podGroups.attemptDuration = &impl_->histogram("scheduler_podgroup_scheduling_attempt_duration_seconds",
                                                       Stability::Alpha, "Pod group scheduling attempt latency in seconds");
  impl_->podGroups.algorithmLatency =
      &impl_->histogram("scheduler_podgroup_scheduling_algorithm_duration_seconds", Stability::Alpha,
                        "Pod group scheduling algorithm latency in seconds")
           .Add({}, impl_->attemptBuckets);
  impl_->podGroups.workloadPreemptionAttempts = &impl_->counter(
      "scheduler_workload_preemption_attempts_total", Stability::Alpha,
      "Total preemption attempts initiated by workload (including pod groups) in the cluster till now.");
  impl_->podGroups.workloadPreemptionVictims =
      &impl_
           ->histogram("scheduler_workload_preemption_victims", Stability::Alpha,
                       "Number of pod preemption victims caused by workload preemption.")
           .Add({}, impl_->workloadVictimBuckets);
  impl_->podGroups.workloadDisruptions = &impl_->histogram(
      "scheduler_preemption_workload_disruptions", Stability::Alpha,
      "Number of workload preemption units being preempted. A single preemption unit can be all pods in a "
      "pod "
      "group (in case of DisruptionMode=all), or a single pod (in case of DisruptionMode=single).");
  impl_->podGroups.evaluationDuration =
      &impl_->histogram("scheduler_preemption_evaluation_duration_seconds", Stability::Alpha,
                        "Duration in seconds for identifying the target preemption victims.");
  impl_->podGroups.executionDuration = &impl_->histogram(
      "scheduler_preemption_execution_duration_seconds", Stability::Alpha,
      "Duration in seconds for preempting the target preemption victims. With async preemption enabled, "
      "preemption execution does not block the scheduling of other pods.");
  impl_->podGroups.pdbViolations =
      &impl_->counter("scheduler_preemption_pdb_violations_total", Stability::Alpha,
                      "Total number of pod disruption budget violations caused by preemption.");
}

// The workload preemption metrics are recorded per preemption, not per pod or node: the lookups take the
// registration lock and need no caching.
void Metrics::incWorkloadPreemptionAttempt(framework::Code result) {
  std::lock_guard lock(impl_->mu);
  if (impl_->podGroups.workloadPreemptionAttempts == nullptr) return;
  impl_->podGroups.workloadPreemptionAttempts->Add({{"result", std::string(codeLabel(result))}}).Increment();
}

void Metrics::observeWorkloadPreemptionVictims(int victims) {
  std::lock_guard lock(impl_->mu);
  if (impl_->podGroups.workloadPreemptionVictims == nullptr) return;
  impl_->podGroups.workloadPreemptionVictims->Observe(victims);
}

void Metrics::observePreemptionWorkloadDisruptions(std::string_view preemptor, int disruptions) {
  std::lock_guard lock(impl_->mu);
  if (impl_->podGroups.workloadDisruptions == nullptr) return;
  impl_->podGroups.workloadDisruptions
      ->Add({{"preemptor", std::string(preemptor)}}, impl_->workloadVictimBuckets)
      .Observe(disruptions);
}

void Metrics::observePreemptionEvaluation(std::string_view preemptor, framework::Code result,
                                          double seconds) {
  std::lock_guard lock(impl_->mu);
  if (impl_->podGroups.evaluationDuration == nullptr) return;
  impl_->podGroups.evaluationDuration
      ->Add({{"preemptor", std::string(preemptor)}, {"result", std::string(codeLabel(result))}},
            impl_->preemptionDurationBuckets)
      .Observe(seconds);
}

void Metrics::observePreemptionExecution(std::string_view preemptor, bool success, double seconds) {
  std::lock_guard lock(impl_->mu);
  if (impl_->podGroups.executionDuration == nullptr) return;
  impl_->podGroups.executionDuration
      ->Add({{"preemptor", std::string(preemptor)}, {"result", success ? "success" : "error"}},
            impl_->preemptionDurationBuckets)
      .Observe(seconds);
}

void Metrics::addPreemptionPDBViolations(std::string_view preemptor, int64_t violations) {
  std::lock_guard lock(impl_->mu);
  if (impl_->podGroups.pdbViolations == nullptr) return;
  impl_->podGroups.pdbViolations->Add({{"preemptor", std::string(preemptor)}})
      .Increment(static_cast<double>(violations));
}

void Metrics::podGroupAttempt(ProfileId profile, PodGroupResult result, double seconds) {
  static constexpr std::array<std::string_view, 4> kNames = {"scheduled", "unschedulable", "waiting_on_preemption",
                                                             "error"};
  assert(profile.p_ != nullptr);
  const prometheus::Labels labels = {{"result", std::string(kNames[static_cast<size_t>(result)])},
                                     {"profile", profile.p_->name}};
  std::lock_guard lock(impl_->mu);  // a pod-group cycle is rare: the lookups need no caching
  assert(impl_->podGroups.attempts != nullptr);
  impl_->podGroups.attempts->Add(labels).Increment();
  impl_->podGroups.attemptDuration->Add(labels, impl_->attemptBuckets).Observe(seconds);
}

void Metrics::observePodGroupSchedulingAlgorithm(double seconds) {
  std::lock_guard lock(impl_->mu);
  assert(impl_->podGroups.algorithmLatency != nullptr);
  impl_->podGroups.algorithmLatency->Observe(seconds);
}

void Metrics::podBound(int attempts, double sinceFirstEnqueueSeconds) {
  // As upstream getAttemptsLabel: attempts are capped at "15+" to bound the label's cardinality.
  size_t index =
      attempts >= static_cast<int>(kAttemptsCap) ? kAttemptsCap : static_cast<size_t>(std::max(attempts, 0));
  resolve(impl_->sliSeries[index], [&]() -> prometheus::Histogram& {
    std::string label = index == kAttemptsCap ? std::to_string(kAttemptsCap) + "+" : std::to_string(index);
    return impl_->podSchedulingSli.Add({{"attempts", std::move(label)}}, impl_->sliBuckets);
  })->Observe(sinceFirstEnqueueSeconds);
  impl_->podSchedulingAttemptsSeries.Observe(attempts);
}

void Metrics::podScheduledAfterFlush() { impl_->scheduledAfterFlushSeries.Increment(); }

void Metrics::observeExtensionPoint(ExtensionPoint point, framework::Code code, ProfileId profile,
                                    double seconds) {
  assert(profile.p_ != nullptr);
  resolve(profile.p_->extensionPoint[slot(point, code)], [&]() -> prometheus::Histogram& {
    return impl_->extensionPoint.Add({{"extension_point", std::string(extensionPointName(point))},
                                      {"status", std::string(codeLabel(code))},
                                      {"profile", profile.p_->name}},
                                     impl_->extensionPointBuckets);
  })->Observe(seconds);
}

void Metrics::observePluginExecution(PluginId plugin, ExtensionPoint point, framework::Code code,
                                     double seconds) {
  assert(plugin.p_ != nullptr);
  resolve(plugin.p_->execution[slot(point, code)], [&]() -> prometheus::Histogram& {
    return impl_->pluginExecution.Add({{"plugin", plugin.p_->name},
                                       {"extension_point", std::string(extensionPointName(point))},
                                       {"status", std::string(codeLabel(code))}},
                                      impl_->pluginBuckets);
  })->Observe(seconds);
}

void Metrics::incPluginEvaluation(PluginId plugin, ExtensionPoint point, ProfileId profile, double n) {
  assert(plugin.p_ != nullptr && profile.p_ != nullptr);
  auto make = [&]() -> prometheus::Counter& {
    return impl_->pluginEvaluation.Add({{"plugin", plugin.p_->name},
                                        {"extension_point", std::string(extensionPointName(point))},
                                        {"profile", profile.p_->name}});
  };
  const int counted = countedPointIndex(point);
  if (profile.p_->index < kMaxCachedProfiles && plugin.p_->index < kCountedPlugins && counted >= 0) {
    resolve(plugin.p_->evaluation[profile.p_->index * kExtensionPointCount + static_cast<size_t>(point)],
            make);  // the series exists (at 0) from the first evaluation on
    const size_t slot = (plugin.p_->index * kMaxCachedProfiles + profile.p_->index) * kCountedPoints +
                        static_cast<size_t>(counted);
    std::atomic<uint64_t>& count = impl_->evaluationsOfThisThread().counts[slot];
    count.store(count.load(std::memory_order_relaxed) + static_cast<uint64_t>(n), std::memory_order_release);
  } else if (profile.p_->index < kMaxCachedProfiles) {
    resolve(plugin.p_->evaluation[profile.p_->index * kExtensionPointCount + static_cast<size_t>(point)], make)
        ->Increment(n);
  } else {
    make().Increment(n);
  }
}

void Metrics::incBatchAttempt(ProfileId profile, BatchAttemptResult result) {
  assert(profile.p_ != nullptr);
  const size_t i = static_cast<size_t>(result);
  resolve(profile.p_->batchAttempts[i], [&]() -> prometheus::Counter& {
    return impl_->batchAttempts.Add(
        {{"profile", profile.p_->name}, {"result", std::string(batchAttemptResultName(result))}});
  })->Increment();
}

void Metrics::incBatchCacheFlushed(ProfileId profile, BatchFlushReason reason) {
  assert(profile.p_ != nullptr);
  const size_t i = static_cast<size_t>(reason);
  resolve(profile.p_->batchFlushed[i], [&]() -> prometheus::Counter& {
    return impl_->batchCacheFlushed.Add(
        {{"profile", profile.p_->name}, {"reason", std::string(batchFlushReasonName(reason))}});
  })->Increment();
}

void Metrics::incBatchRescoreAttempt(ProfileId profile) {
  assert(profile.p_ != nullptr);
  resolve(profile.p_->batchRescoreAttempts, [&]() -> prometheus::Counter& {
    return impl_->batchRescoreAttempts.Add({{"profile", profile.p_->name}});
  })->Increment();
}

void Metrics::observeBatchRescore(ProfileId profile, double seconds) {
  assert(profile.p_ != nullptr);
  resolve(profile.p_->batchRescoreDuration, [&]() -> prometheus::Histogram& {
    return impl_->batchRescoreDuration.Add({{"profile", profile.p_->name}}, impl_->batchBuckets);
  })->Observe(seconds);
}

void Metrics::observeGetNodeHint(ProfileId profile, bool hinted, double seconds) {
  assert(profile.p_ != nullptr);
  resolve(profile.p_->getNodeHintDuration[hinted ? 1 : 0], [&]() -> prometheus::Histogram& {
    return impl_->getNodeHintDuration.Add(
        {{"hinted", hinted ? "hint" : "no_hint"}, {"profile", profile.p_->name}}, impl_->batchBuckets);
  })->Observe(seconds);
}

void Metrics::observeStoreScheduleResults(ProfileId profile, double seconds) {
  assert(profile.p_ != nullptr);
  resolve(profile.p_->storeScheduleResultsDuration, [&]() -> prometheus::Histogram& {
    return impl_->storeScheduleResultsDuration.Add({{"profile", profile.p_->name}}, impl_->batchBuckets);
  })->Observe(seconds);
}

void Metrics::observePermitWait(framework::Code code, double seconds) {
  resolve(impl_->permitWaitSeries[static_cast<size_t>(code)], [&]() -> prometheus::Histogram& {
    return impl_->permitWait.Add({{"result", std::string(codeLabel(code))}}, impl_->attemptBuckets);
  })->Observe(seconds);
}

void Metrics::incPreemptionAttempts() {
  impl_->preemptionAttemptsSeries.Increment();
}
void Metrics::preemptionGoroutineFinished(bool success, double seconds) {
  const size_t i = success ? 0 : 1;
  const std::string result = success ? "success" : "error";
  resolve(impl_->preemptionGoroutinesDurationSeries[i], [&]() -> prometheus::Histogram& {
    return impl_->preemptionGoroutinesDuration.Add({{"result", result}}, exponentialBuckets(0.01, 2, 20));
  })->Observe(seconds);
  resolve(impl_->preemptionGoroutinesExecutionSeries[i], [&]() -> prometheus::Counter& {
    return impl_->preemptionGoroutinesExecution.Add({{"result", result}});
  })->Increment();
}
void Metrics::incVolumeSchedulingStageError(VolumeStage stage) {
  static constexpr std::array<std::string_view, kVolumeStageCount> kOperations = {"predicate", "assume", "bind"};
  const size_t i = static_cast<size_t>(stage);
  resolve(impl_->volumeStageErrorSeries[i], [&]() -> prometheus::Counter& {
    return impl_->volumeSchedulingStageErrors.Add({{"operation", std::string(kOperations[i])}});
  })->Increment();
}
void Metrics::observePreemptionVictims(int victims) {
  impl_->preemptionVictimsSeries.Observe(victims);
}

GaugeRef Metrics::pendingPods(Queue queue) const {
  return GaugeRef(impl_->pendingPodsSeries[static_cast<size_t>(queue)]);
}

GaugeRef Metrics::podGroupMemberPods(bool incomplete) {
  return GaugeRef(&impl_->pendingPods.Add({{"queue", incomplete ? "incomplete" : "pending"}}));
}

CounterRef Metrics::queueIncomingPodsRef(Queue queue, std::string_view event) {
  return CounterRef(
      &impl_->queueIncoming.Add({{"queue", std::string(queueName(queue))}, {"event", std::string(event)}}));
}

CounterRef Metrics::queueIncomingEntitiesRef(Queue queue, std::string_view event, bool podGroup) {
  return CounterRef(&impl_->queueIncomingEntities.Add({{"queue", std::string(queueName(queue))},
                                                       {"event", std::string(event)},
                                                       {"type", podGroup ? "podgroup" : "pod"}}));
}

void Metrics::setQueuedPodEntities(Queue queue, double count) {
  std::atomic<prometheus::Gauge*>& slot = impl_->queuedEntitiesSeries[static_cast<size_t>(queue)];
  prometheus::Gauge* series = slot.load(std::memory_order_acquire);
  if (series == nullptr) {
    if (count == 0) return;
    // Family::Add returns the one series of these labels to every caller, so a race stores the same pointer.
    series = &impl_->queuedEntities.Add({{"queue", std::string(queueName(queue))}, {"type", "pod"}});
    slot.store(series, std::memory_order_release);
  }
  series->Set(count);
}

GaugeRef Metrics::unschedulablePods(PluginId plugin, ProfileId profile) {
  assert(plugin.p_ != nullptr && profile.p_ != nullptr);
  auto make = [&]() -> prometheus::Gauge& {
    return impl_->unschedulableReasons.Add({{"plugin", plugin.p_->name}, {"profile", profile.p_->name}});
  };
  if (profile.p_->index < kMaxCachedProfiles)
    return GaugeRef(resolve(plugin.p_->unschedulable[profile.p_->index], make));
  return GaugeRef(&make());
}

GaugeRef Metrics::inflightEvents(std::string_view event) {
  return GaugeRef(&impl_->inflightEvents.Add({{"event", std::string(event)}}));
}

void Metrics::observeQueueingHint(PluginId plugin, std::string_view event, QueueingHintResult hint,
                                  double seconds) {
  assert(plugin.p_ != nullptr);
  impl_->queueingHint
      .Add({{"plugin", plugin.p_->name},
            {"event", std::string(event)},
            {"hint", std::string(queueingHintResultName(hint))}},
           impl_->pluginBuckets)
      .Observe(seconds);
}

HistogramRef Metrics::eventHandlingRef(std::string_view event) {
  return HistogramRef(
      &impl_->eventHandling.Add({{"event", std::string(event)}}, impl_->extensionPointBuckets));
}

CounterRef Metrics::draBindingConditionsAllocationsRef(std::string_view profile, std::string_view driver,
                                                       std::string_view status) {
  return CounterRef(&impl_->draBindingConditionsAllocations.Add(
      {{"profile", std::string(profile)}, {"driver", std::string(driver)}, {"status", std::string(status)}}));
}

HistogramRef Metrics::draBindingConditionsWaitRef(std::string_view profile, std::string_view driver,
                                                  std::string_view status) {
  return HistogramRef(&impl_->draBindingConditionsWait.Add(
      {{"profile", std::string(profile)}, {"driver", std::string(driver)}, {"status", std::string(status)}},
      impl_->draBindingConditionsBuckets));
}

GaugeRef Metrics::cacheSize(CacheItem item) const {
  return GaugeRef(impl_->cacheSizeSeries[static_cast<size_t>(item)]);
}

HistogramRef Metrics::extenderRequestDurationRef(std::string_view extender, std::string_view verb) {
  return HistogramRef(&impl_->extenderRequestDuration.Add(
      {{"extender", std::string(extender)}, {"verb", std::string(verb)}}, impl_->extenderBuckets));
}

CounterRef Metrics::extenderErrorsRef(std::string_view extender, std::string_view verb, std::string_view kind) {
  return CounterRef(&impl_->extenderErrors.Add(
      {{"extender", std::string(extender)}, {"verb", std::string(verb)}, {"kind", std::string(kind)}}));
}

GaugeRef Metrics::goroutines(std::string_view operation) {
  return GaugeRef(&impl_->goroutines.Add({{"operation", std::string(operation)}}));
}

void Metrics::setLeaderStatus(std::string_view leaseName, bool leading) {
  impl_->leaderStatus.Add({{"name", std::string(leaseName)}}).Set(leading ? 1 : 0);
}

void Metrics::incLeaderSlowpath(std::string_view leaseName) {
  impl_->leaderSlowpath.Add({{"name", std::string(leaseName)}}).Increment();
}

std::string Metrics::scrape() const {
  return prometheus::TextSerializer().Serialize(collect());
}

std::vector<prometheus::MetricFamily> Metrics::collect() const {
  impl_->collectEvaluations();
  return impl_->registry->Collect();
}

}  // namespace ks::metrics
