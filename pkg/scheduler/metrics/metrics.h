#pragma once
// Metrics: the scheduler's Prometheus metrics with upstream kube-scheduler v1.34 names (plus v1.37's
// opportunistic batching ones), HELP texts (with component-base's "[STABLE]"/"[BETA]"/"[ALPHA]" prefix),
// types, label names and histogram buckets (pkg/scheduler/metrics/metrics.go), plus client-go's leader
// election metrics.
//
// One Metrics object per process (the daemon creates it; tests create their own): it owns a
// prometheus::Registry, kept out of this header so the scheduler loop, queue and framework runtime can
// include it cheaply.
//
// Recording is cheap and thread-safe:
// - Label values from small fixed sets (result, queue, extension point, status code, cache type, permit
//   result) are enums; their series are resolved once, on first use, into per-slot atomic pointers, so a
//   recording call is an array index, one atomic load and the prometheus-cpp update (atomic add for
//   counters/gauges, a short lock for histograms). No strings are built and no maps are searched.
// - Profiles and plugins are registered once (`profile(name)`, `plugin(name)`, e.g. when a Framework is
//   built) and then passed as handles; their per-profile / per-plugin series are resolved the same way.
// - Free-form label values (event labels, goroutine operations, lease names) go through `*Ref` getters
//   that look the series up (prometheus-cpp's Family::Add: a hash lookup under a mutex); callers on a hot
//   path keep the returned handle.
// Series appear in the scrape when first recorded, as with upstream's *Vec metrics; unlabelled metrics
// and the pending_pods / cache_size gauges exist (at 0) from construction.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/scheduler/framework/status.h"

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
struct MetricFamily;
}  // namespace prometheus

namespace ks::metrics {

// Values of the extension_point label (upstream metrics.PreFilter ... and the queue's "PreEnqueue").
enum class ExtensionPoint : uint8_t {
  PreEnqueue,
  PreFilter,
  Filter,
  PreFilterExtensionAddPod,
  PreFilterExtensionRemovePod,
  PostFilter,
  PreScore,
  Score,
  ScoreExtensionNormalize,
  PreBind,
  PreBindPreFlight,
  Bind,
  PostBind,
  Reserve,
  Unreserve,
  Permit,
  Sign,                // v1.37: Framework::signPod (opportunistic batching)
  PodGroupPostFilter,  // v1.37: group preemption (GenericWorkload)
};
inline constexpr size_t kExtensionPointCount = 18;
// "PreFilter", "ScoreExtensionNormalize", ...
std::string_view extensionPointName(ExtensionPoint point);

// framework::Code values, for the status / result labels.
inline constexpr size_t kCodeCount = 7;
// The status label for `code`: "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
// "Wait", "Skip", "Pending" (upstream Code.String()).
std::string_view codeLabel(framework::Code code);

// Values of scheduler_pending_pods{queue} and scheduler_queue_incoming_pods_total{queue}.
enum class Queue : uint8_t { Active, Backoff, Unschedulable, Gated };
inline constexpr size_t kQueueCount = 4;
std::string_view queueName(Queue queue);  // "active", "backoff", "unschedulable", "gated"

// Values of scheduler_cache_size{type}.
enum class CacheItem : uint8_t { Nodes, Pods, AssumedPods };
inline constexpr size_t kCacheItemCount = 3;
std::string_view cacheItemName(CacheItem item);  // "nodes", "pods", "assumed_pods"

// Values of scheduler_queueing_hint_execution_duration_seconds{hint}.
enum class QueueingHintResult : uint8_t { Queue, QueueSkip, Error };
std::string_view queueingHintResultName(QueueingHintResult hint);  // "Queue", "QueueSkip", "Error"

// Values of scheduler_batch_attempts_total{result} (upstream metrics.BatchAttempt*).
enum class BatchAttemptResult : uint8_t { NoHint, HintUsed, HintNotUsed };
inline constexpr size_t kBatchAttemptResultCount = 3;
std::string_view batchAttemptResultName(BatchAttemptResult r);  // "no_hint", "hint_used", "hint_not_used"

// Values of scheduler_batch_cache_flushed_total{reason} (upstream metrics.BatchFlush*).
enum class BatchFlushReason : uint8_t {
  PodFailed,
  PodSkipped,
  PodNominated,
  NodeMissing,
  EmptyList,
  Expired,
  PodIncompatible,
  PodNotBatchable,
  FilterError,
  PreScoreError,
  RescoreError,
  NormalizeError,
};
inline constexpr size_t kBatchFlushReasonCount = 12;
// "pod_failed", "pod_skipped", "pod_nominated", "node_missing", "empty_list", "expired", "pod_incompatible",
// "pod_not_batchable", "filter_error", "prescore_error", "rescore_error", "normalize_error".
std::string_view batchFlushReasonName(BatchFlushReason r);

// Values of the goroutines{operation} label used by upstream.
inline constexpr std::string_view kBindingOperation = "binding";
inline constexpr std::string_view kPrioritizingExtenderOperation = "prioritizing_extender";

// ---- Handles to one series. Copyable (one pointer), valid while the Metrics lives. A default-constructed
// handle records nothing. ----
class CounterRef {
 public:
  CounterRef() = default;
  void inc(double v = 1) const;
  double value() const;  // 0 for an empty handle
  explicit operator bool() const { return c_ != nullptr; }

 private:
  friend class Metrics;
  explicit CounterRef(prometheus::Counter* c) : c_(c) {}
  prometheus::Counter* c_ = nullptr;
};

class GaugeRef {
 public:
  GaugeRef() = default;
  void set(double v) const;
  void inc(double v = 1) const;
  void dec(double v = 1) const;
  double value() const;  // 0 for an empty handle
  explicit operator bool() const { return g_ != nullptr; }

 private:
  friend class Metrics;
  explicit GaugeRef(prometheus::Gauge* g) : g_(g) {}
  prometheus::Gauge* g_ = nullptr;
};

class HistogramRef {
 public:
  HistogramRef() = default;
  void observe(double v) const;
  explicit operator bool() const { return h_ != nullptr; }

 private:
  friend class Metrics;
  explicit HistogramRef(prometheus::Histogram* h) : h_(h) {}
  prometheus::Histogram* h_ = nullptr;
};

namespace detail {
struct ProfileSlots;
struct PluginSlots;
}  // namespace detail

// A registered profile (schedulerName). Copyable; valid while the Metrics lives.
class ProfileId {
 public:
  ProfileId() = default;
  explicit operator bool() const { return p_ != nullptr; }
  const std::string& name() const;

 private:
  friend class Metrics;
  explicit ProfileId(detail::ProfileSlots* p) : p_(p) {}
  detail::ProfileSlots* p_ = nullptr;
};

// A registered plugin name. Copyable; valid while the Metrics lives.
class PluginId {
 public:
  PluginId() = default;
  explicit operator bool() const { return p_ != nullptr; }
  const std::string& name() const;

 private:
  friend class Metrics;
  explicit PluginId(detail::PluginSlots* p) : p_(p) {}
  detail::PluginSlots* p_ = nullptr;
};

// The volume binder's stages (label "operation" of scheduler_volume_scheduling_stage_error_total).
enum class VolumeStage : uint8_t { Predicate, Assume, Bind };
inline constexpr size_t kVolumeStageCount = 3;

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Returns the handle for a profile / plugin name, registering it on first use (thread-safe, idempotent).
  // Call at construction time (Framework creation), not per pod.
  ProfileId profile(std::string_view name);
  PluginId plugin(std::string_view name);

  // ---- Scheduling attempts (upstream PodScheduled / PodUnschedulable / PodScheduleError): one
  // scheduler_schedule_attempts_total{result,profile} increment and one
  // scheduler_scheduling_attempt_duration_seconds{result,profile} observation. ----
  void podScheduled(ProfileId profile, double seconds);
  void podUnschedulable(ProfileId profile, double seconds);
  void podScheduleError(ProfileId profile, double seconds);

  // scheduler_scheduling_algorithm_duration_seconds.
  void observeSchedulingAlgorithm(double seconds);
  // ---- Pod groups (GenericWorkload). Upstream registers these only with the gate on: until
  // registerPodGroupMetrics() none of them exists, and scheduler_podgroup_scheduling_algorithm_duration_seconds
  // exists (empty) from then on. ----
  void registerPodGroupMetrics();  // idempotent
  enum class PodGroupResult : uint8_t { Scheduled, Unschedulable, WaitingOnPreemption, Error };
  // One pod-group cycle (upstream PodGroupScheduled / PodGroupUnschedulable / PodGroupWaitingOnPreemption /
  // PodGroupScheduleError): scheduler_podgroup_schedule_attempts_total{result,profile} and
  // scheduler_podgroup_scheduling_attempt_duration_seconds{result,profile}. Requires registerPodGroupMetrics().
  void podGroupAttempt(ProfileId profile, PodGroupResult result, double seconds);
  // scheduler_podgroup_scheduling_algorithm_duration_seconds. Requires registerPodGroupMetrics().
  void observePodGroupSchedulingAlgorithm(double seconds);
  // Workload-aware preemption (upstream registers these with the pod-group metrics): each of the calls below
  // is a no-op until registerPodGroupMetrics(). `preemptor` is the preemptor's type, "pod" or "podgroup".
  // scheduler_workload_preemption_attempts_total{result}: one pod-group preemption (PodGroupPostFilter),
  // result its status code ("Success", "Unschedulable", ...).
  void incWorkloadPreemptionAttempt(framework::Code result);
  // scheduler_workload_preemption_victims: the victim pods of one preemption for a pod group.
  void observeWorkloadPreemptionVictims(int victims);
  // scheduler_preemption_workload_disruptions{preemptor}: the pod-group victims (a whole group with
  // disruptionMode `all`, or one of its pods with `single`) one preemption evicts.
  void observePreemptionWorkloadDisruptions(std::string_view preemptor, int disruptions);
  // scheduler_preemption_evaluation_duration_seconds{preemptor,result}: finding the victims, result the
  // status code of the evaluation.
  void observePreemptionEvaluation(std::string_view preemptor, framework::Code result, double seconds);
  // scheduler_preemption_execution_duration_seconds{preemptor,result}: evicting them, result "success" or
  // "error".
  void observePreemptionExecution(std::string_view preemptor, bool success, double seconds);
  // scheduler_preemption_pdb_violations_total{preemptor} += violations.
  void addPreemptionPDBViolations(std::string_view preemptor, int64_t violations);
  // A pod bound after `attempts` attempts, `sinceFirstEnqueueSeconds` after it first entered the queue:
  // scheduler_pod_scheduling_sli_duration_seconds{attempts} (label "1".."14", then "15+", as upstream)
  // and scheduler_pod_scheduling_attempts.
  void podBound(int attempts, double sinceFirstEnqueueSeconds);
  // A pod bound after the leftover flush moved it out of unschedulablePods:
  // scheduler_pod_scheduled_after_flush_total (a hint that an event was missed or a hint is wrong).
  void podScheduledAfterFlush();

  // ---- Framework ----
  // scheduler_framework_extension_point_duration_seconds{extension_point,status,profile}.
  void observeExtensionPoint(ExtensionPoint point, framework::Code code, ProfileId profile, double seconds);
  // scheduler_plugin_execution_duration_seconds{plugin,extension_point,status}.
  void observePluginExecution(PluginId plugin, ExtensionPoint point, framework::Code code, double seconds);
  // scheduler_plugin_evaluation_total{plugin,extension_point,profile} += n; cheap enough per node and
  // plugin (counted per thread; added to the counter by collect()/scrape()).
  void incPluginEvaluation(PluginId plugin, ExtensionPoint point, ProfileId profile, double n = 1);
  // scheduler_permit_wait_duration_seconds{result}, result being the final status code of the wait.
  void observePermitWait(framework::Code code, double seconds);

  // ---- Opportunistic batching (v1.37, all ALPHA) ----
  // scheduler_batch_attempts_total{profile,result}.
  void incBatchAttempt(ProfileId profile, BatchAttemptResult result);
  // scheduler_batch_cache_flushed_total{profile,reason}.
  void incBatchCacheFlushed(ProfileId profile, BatchFlushReason reason);
  // scheduler_batch_rescore_attempts_total{profile}.
  void incBatchRescoreAttempt(ProfileId profile);
  // scheduler_batch_rescore_duration_seconds{profile}.
  void observeBatchRescore(ProfileId profile, double seconds);
  // scheduler_get_node_hint_duration_seconds{hinted,profile}, hinted "hint" or "no_hint".
  void observeGetNodeHint(ProfileId profile, bool hinted, double seconds);
  // scheduler_store_schedule_results_duration_seconds{profile}.
  void observeStoreScheduleResults(ProfileId profile, double seconds);

  // ---- Preemption ----
  void incPreemptionAttempts();                // scheduler_preemption_attempts_total
  void observePreemptionVictims(int victims);  // scheduler_preemption_victims
  // An asynchronous preemption ended: scheduler_preemption_goroutines_duration_seconds{result} and
  // scheduler_preemption_goroutines_execution_total{result}, result "success" or "error".
  void preemptionGoroutineFinished(bool success, double seconds);

  // ---- Volume binding ----
  // scheduler_volume_scheduling_stage_error_total{operation}: a volume binder stage failed.
  void incVolumeSchedulingStageError(VolumeStage stage);

  // ---- Queue ----
  // scheduler_pending_pods{queue}.
  GaugeRef pendingPods(Queue queue) const;
  // scheduler_pending_pods{queue="pending"} / {queue="incomplete"} (GenericWorkload, upstream
  // PendingPodGroupPods / IncompletePodGroupPods): pod-group members waiting for their popped group to come
  // back / for their PodGroup to be observed. Kept live by the queue; the series exist once asked for.
  GaugeRef podGroupMemberPods(bool incomplete);
  // scheduler_queue_incoming_pods_total{queue,event}: keep the handle for a fixed event label.
  CounterRef queueIncomingPodsRef(Queue queue, std::string_view event);
  // scheduler_queue_incoming_entities_total{queue,event,type}: type "pod" for a pod (it moves with
  // queue_incoming_pods_total), "podgroup" for a pod group (GenericWorkload), which counts once while
  // queue_incoming_pods_total counts its members.
  CounterRef queueIncomingEntitiesRef(Queue queue, std::string_view event, bool podGroup = false);
  // scheduler_queued_entities{queue,type="pod"}; the series appears once the queue held a pod.
  void setQueuedPodEntities(Queue queue, double count);
  void incQueueIncomingPods(Queue queue, std::string_view event) { queueIncomingPodsRef(queue, event).inc(); }
  // scheduler_unschedulable_pods{plugin,profile}: +1 when a pod rejected by `plugin` enters
  // unschedulablePods, -1 when it leaves.
  GaugeRef unschedulablePods(PluginId plugin, ProfileId profile);
  // scheduler_inflight_events{event}.
  GaugeRef inflightEvents(std::string_view event);
  // scheduler_queueing_hint_execution_duration_seconds{plugin,event,hint}.
  void observeQueueingHint(PluginId plugin, std::string_view event, QueueingHintResult hint, double seconds);
  // scheduler_event_handling_duration_seconds{event}: keep the handle for a fixed event label.
  HistogramRef eventHandlingRef(std::string_view event);
  void observeEventHandling(std::string_view event, double seconds) {
    eventHandlingRef(event).observe(seconds);
  }

  // ---- DRA binding conditions (v1.37, ALPHA; DynamicResources' PreBind after waiting for them) ----
  // Values of the status label (upstream metrics.BindingConditionsStatus*).
  static constexpr std::string_view kBindingConditionsSuccess = "success";
  static constexpr std::string_view kBindingConditionsFailed = "failure";
  static constexpr std::string_view kBindingConditionsTimeout = "timeout";
  static constexpr std::string_view kBindingConditionsError = "error";
  // scheduler_dra_bindingconditions_allocations_total{profile,driver,status}.
  CounterRef draBindingConditionsAllocationsRef(std::string_view profile, std::string_view driver,
                                                std::string_view status);
  // scheduler_dra_bindingconditions_wait_duration_seconds{profile,driver,status} (0.1s * 2^i, 14 buckets).
  HistogramRef draBindingConditionsWaitRef(std::string_view profile, std::string_view driver,
                                           std::string_view status);

  // ---- Scheduler extenders (kube-scheduler-cpp's own; upstream has none per extender) ----
  // scheduler_extender_request_duration_seconds{extender,verb}: every call, failed or not (verb "filter",
  // "prioritize", "preempt", "bind"; extender its urlPrefix). Keep the handle per extender and verb.
  HistogramRef extenderRequestDurationRef(std::string_view extender, std::string_view verb);
  // scheduler_extender_errors_total{extender,verb,kind}: failed calls by kind ("transport", "timeout",
  // "http_status", "decode", "response").
  CounterRef extenderErrorsRef(std::string_view extender, std::string_view verb, std::string_view kind);

  // ---- Cache, workers, leader election ----
  // scheduler_cache_size{type}.
  GaugeRef cacheSize(CacheItem item) const;
  // scheduler_goroutines{operation}: we report worker threads busy per operation ("binding", "Filter", ...).
  GaugeRef goroutines(std::string_view operation);
  // leader_election_master_status{name}: 1 while leading the lease `name`, else 0.
  void setLeaderStatus(std::string_view leaseName, bool leading);
  // leader_election_slowpath_total{name}: renewals that had to go through the slow path.
  void incLeaderSlowpath(std::string_view leaseName);

  // The Prometheus text exposition (format 0.0.4) of every metric.
  std::string scrape() const;
  // The same as families (ComponentMetrics::scrape merges them with the process and client metrics).
  std::vector<prometheus::MetricFamily> collect() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ks::metrics
