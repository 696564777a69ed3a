#pragma once
// Framework: runs a profile's plugins (upstream runtime.frameworkImpl). Built once per profile from the
// profile's (defaulted) plugin configuration and the registry, exactly as upstream NewFramework:
// multiPoint expanded per extension point, only needed plugins instantiated (once each), per-point
// lists fixed at construction. Run methods are called from the scheduling thread (PreEnqueue also from
// queue callers, binding points from binding threads); Filter/Score fan out on the Parallelizer.
//
// Metrics (when FrameworkOptions::metrics is set), as upstream frameworkImpl:
// - scheduler_framework_extension_point_duration_seconds{extension_point,status,profile} once per run*
//   call of every point except Filter (the scheduler times the whole parallel Filter phase, as upstream
//   findNodesThatPassFilters) and the PreFilter extensions (AddPod/RemovePod: per-plugin only).
// - scheduler_plugin_execution_duration_seconds only in cycles whose CycleState has
//   shouldRecordPluginMetrics() (the scheduler samples kPluginMetricsSamplePercent of cycles); PreEnqueue,
//   which runs outside a cycle, samples the same share of calls itself.
// - scheduler_plugin_evaluation_total on each PreFilter/PreScore call that isn't Skip and on each
//   Filter/Score call (upstream's instrumented plugins).
// - scheduler_permit_wait_duration_seconds{result} in waitOnPermit.
// - signPod: the extension point "Sign" (status always Success, as upstream) on every call, and each sign
//   plugin's duration on every call (not sampled, as upstream).
// - the opportunistic batching metrics (batch.h).
// Handles (profile, per-point plugin ids) are resolved in create(); with no metrics every run* method
// pays one null check.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/runtime/batch.h"
#include "pkg/scheduler/framework/runtime/registry.h"
#include "pkg/scheduler/framework/runtime/pods_in_prebind_map.h"
#include "pkg/scheduler/framework/runtime/waiting_pods_map.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/util/clock.h"

namespace ks::framework::runtime {

// The longest a pod may wait at Permit.
inline constexpr std::chrono::milliseconds kMaxPermitTimeout = std::chrono::minutes(15);

// Upstream pluginMetricsSamplePercent: the share of scheduling cycles (and PreEnqueue calls) whose
// per-plugin durations are recorded.
inline constexpr int kPluginMetricsSamplePercent = 10;

struct FrameworkOptions {
  const SharedLister* snapshotSharedLister = nullptr;
  // What Handle::mutableSnapshotSharedLister() returns (the scheduler's snapshot, as snapshotSharedLister).
  MutableSharedLister* mutableSnapshotSharedLister = nullptr;
  client::Client* client = nullptr;
  // What Handle::sharedInformerFactory() returns; must outlive the Framework.
  informer::SharedInformerFactory* informerFactory = nullptr;
  // What Handle::sharedDRAManager() returns; must outlive the Framework.
  SharedDRAManager* sharedDRAManager = nullptr;
  EventRecorder* eventRecorder = nullptr;
  PodNominator* podNominator = nullptr;
  // Shared between profiles; a pool of kDefaultParallelism threads is created when null.
  std::shared_ptr<parallelize::Parallelizer> parallelizer;
  // Shared between profiles (a pod waits in one map whatever its profile); created when null.
  std::shared_ptr<WaitingPodsMap> waitingPods;
  // Shared between profiles, as waitingPods; created when null.
  std::shared_ptr<PodsInPreBindMap> podsInPreBind;
  // Time source for Permit timeouts and plugins (Handle::clock()); realClock() when null.
  Clock* clock = nullptr;
  // Where to record the framework's metrics; none when null. Must outlive the Framework.
  metrics::Metrics* metrics = nullptr;
  // The OpportunisticBatching gate (beta, on in v1.37): pods are signed and the profile keeps an
  // OpportunisticBatch; off, signPod gives null and getNodeHint/storeScheduleResults do nothing.
  bool enableOpportunisticBatching = true;
  // The scheduler's extenders (owned by the scheduler, outliving the Framework), as Handle::extenders()
  // gives them. With any, signatures are off and the "Extender" rejector is requeued by every event.
  std::vector<Extender*> extenders;
  // What Handle::podGroupManager() returns: the scheduler's cache (CacheImpl), live and thread-safe; must
  // outlive the Framework. Null when the scheduler keeps no pod groups (GenericWorkload off).
  const PodGroupManager* podGroupManager = nullptr;
  // The GenericWorkload gate (beta, off by default in v1.37): the GangScheduling plugin, when configured,
  // is the profile's PlacementFeasible plugin, and plugins without EnqueueExtensions also register for
  // PodGroup events.
  bool enableGenericWorkload = false;
};

using LessFunc = std::function<bool(const QueuedPodInfo&, const QueuedPodInfo&)>;

// The events a plugin registered (or every event, for plugins without EnqueueExtensions).
struct PluginEvents {
  std::string pluginName;
  std::vector<ClusterEventWithHint> events;
};

class Framework final : public Handle {
 public:
  // Errors use upstream's texts, e.g. "repeated config for plugin X", "initializing plugin \"X\": ...",
  // "FilterPlugin \"X\" does not exist", "plugin \"X\" does not extend FilterPlugin plugin",
  // "plugin \"X\" already registered as \"FilterPlugin\"", "only one queue sort plugin required for
  // profile with scheduler name \"p\", but got 2", "at least one bind plugin is needed for profile with
  // scheduler name \"p\"", "total score of Score plugins could overflow".
  static Result<std::unique_ptr<Framework>> create(const Registry& registry,
                                                   const config::KubeSchedulerProfile& profile,
                                                   FrameworkOptions options = {});
  ~Framework() override;

  const std::string& profileName() const override { return profileName_; }
  const std::vector<Extender*>& extenders() const override { return extenders_; }
  // The profile's metrics handle (empty without metrics).
  metrics::ProfileId metricsProfile() const { return metricsProfile_; }
  std::optional<int32_t> percentageOfNodesToScore() const { return percentageOfNodesToScore_; }
  void setSnapshotSharedLister(const SharedLister* lister) { snapshotSharedLister_ = lister; }
  void setMutableSnapshotSharedLister(MutableSharedLister* lister) { mutableSnapshotSharedLister_ = lister; }
  void setPodNominator(PodNominator* nominator) { podNominator_ = nominator; }
  // What activate() calls (the scheduling queue's activate); set before scheduling starts.
  void setPodActivator(std::function<void(const std::vector<api::PodPtr>&)> activator) {
    podActivator_ = std::move(activator);
  }

  // The enabled plugins per extension point with score weights, as upstream ListPlugins.
  config::Plugins listPlugins() const;
  bool hasFilterPlugins() const { return !filterPlugins_.empty(); }
  bool hasPostFilterPlugins() const { return !postFilterPlugins_.empty(); }
  bool hasScorePlugins() const { return !scorePlugins_.empty(); }

  // ---- Queue integration ----
  LessFunc queueSortFunc() const;
  const std::vector<PreEnqueuePlugin*>& preEnqueuePlugins() const { return preEnqueuePlugins_; }
  // Calls eventsToRegister() of every PreEnqueue/PreFilter/Filter/Reserve/Permit plugin (all events for
  // those that don't implement EnqueueExtensions). Fails on the first plugin error.
  Result<std::vector<PluginEvents>> eventsToRegister() const;
  // Runs PreEnqueue plugins in order; returns the first non-Success status with its plugin set.
  Status runPreEnqueuePlugins(const PodInfo& pod);

  // ---- Opportunistic batching (batch.h) ----
  // The pod's signature (upstream SignPod): null when batching is off, when a PreFilter/Filter/PreScore/
  // Score plugin of the profile is no SignPlugin, or when a sign plugin can't sign this pod. Thread-safe
  // (called by the queue under its lock).
  PodSignature signPod(const api::Pod& pod);
  // Whether every PreFilter/Filter/PreScore/Score plugin signs pods (upstream enableSignatures).
  bool signaturesEnabled() const { return enableSignatures_; }
  // OpportunisticBatch::getNodeHint / storeScheduleResults; "" / nothing when batching is off.
  std::string getNodeHint(const PodInfo& pod, const PodSignature& signature, CycleState& state,
                          int64_t cycleCount);
  void storeScheduleResults(const PodSignature& signature, const std::string& hintedNode,
                            const std::string& chosenNode, std::optional<SortedScoredNodes> otherNodes,
                            int64_t cycleCount);
  // The profile's batch; null when batching is off.
  OpportunisticBatch* batchForTest() { return batch_.get(); }

  // ---- Scheduling cycle ----
  // Upstream RunPreFilterPlugins: Skip records the plugin in state.skipFilterPlugins; results are
  // intersected; an empty intersection is UnschedulableAndUnresolvable "node(s) didn't satisfy plugin(s)
  // [...] simultaneously"; UnschedulableAndUnresolvable stops at once, Unschedulable is returned after
  // running the rest. `pluginsWithNodes` (optional) receives plugins that restricted the node set.
  Status runPreFilterPlugins(CycleState& state, const PodInfo& pod, PreFilterResult& result,
                             std::set<std::string>* pluginsWithNodes = nullptr);
  Status runPostFilterPlugins(CycleState& state, const PodInfo& pod,
                              const NodeToStatus& filteredNodeStatusMap, PostFilterResult& result);
  Status runReservePluginsReserve(CycleState& state, const PodInfo& pod, const std::string& nodeName) override;
  // Unreserve of every reserve plugin, in reverse order.
  void runReservePluginsUnreserve(CycleState& state, const PodInfo& pod, const std::string& nodeName) override;
  // Success, a rejection, Error, or Wait after adding the pod to the waiting pods map.
  Status runPermitPlugins(CycleState& state, const PodInfo& pod, const std::string& nodeName);

  // ---- Pod-group cycle ----
  // Upstream RunPlacementFeasiblePlugins, called by the pod-group cycle before its first and after every
  // member: Success when every plugin succeeds; a plugin's Wait is remembered (the last one is returned
  // when no later plugin fails); Unschedulable stops at once; Error becomes "running PlacementFeasible
  // plugin: <msg>" and any other code "unexpected status from PlacementFeasible plugin: <Code>", both
  // stopping at once. Each status carries its plugin. Success when no plugin is configured.
  Status runPlacementFeasiblePlugins(CycleState& placementState, const PodGroupInfo& group,
                                     const PlacementProgress& progress);
  bool hasPlacementFeasiblePlugins() const { return !placementFeasiblePlugins_.empty(); }
  // Upstream RunPodGroupPostFilterPlugins, called when a pod-group cycle finds the group unschedulable:
  // the plugins in order until one succeeds (its result is returned) or says UnschedulableAndUnresolvable;
  // Unschedulable reasons are collected (the first such plugin is the rejector); any other code is
  // "error in \"<plugin>\" PodGroupPostFilter plugins: <msg>". Without GenericWorkload: Unschedulable
  // "generic workload feature is disabled, cannot perform PodGroupPostFilter".
  Status runPodGroupPostFilterPlugins(CycleState& groupState, const PodGroupInfo& group,
                                      const PodGroupSchedulingFunc& schedule, PodGroupPostFilterResult& result);
  // Replaces the PlacementFeasible plugins (not owned; tests only).
  void setPlacementFeasiblePluginsForTest(std::vector<PlacementFeasiblePlugin*> plugins) {
    placementFeasiblePlugins_ = std::move(plugins);
  }

  // ---- Binding cycle ----
  bool willWaitOnPermit(const api::Pod& pod) const;
  // Blocks until the waiting pod (if any) is allowed or rejected; removes it from the map.
  Status waitOnPermit(const api::Pod& pod);
  // Success if some PreBind plugin has work, Skip if none has; records in state the plugins to skip
  // and those that may run in parallel.
  Status runPreBindPreFlights(CycleState& state, const PodInfo& pod, const std::string& nodeName);
  // Runs the PreBind plugins not skipped, in order; adjacent plugins that allowed it run in parallel,
  // and the first failure cancels the others of its group. `cancel` (optional: the pod's entry in the
  // pods-in-PreBind map) cancels them all; its cause becomes the failure's message, as upstream's
  // context.Cause.
  Status runPreBindPlugins(CycleState& state, const PodInfo& pod, const std::string& nodeName,
                           const CancelWithCause* cancel = nullptr);
  // Runs bind plugins until one doesn't return Skip.
  Status runBindPlugins(CycleState& state, const PodInfo& pod, const std::string& nodeName);
  void runPostBindPlugins(CycleState& state, const PodInfo& pod, const std::string& nodeName);

  // ---- Handle / PluginsRunner ----
  Status runPreScorePlugins(CycleState& state, const PodInfo& pod,
                            std::span<const NodeInfoPtr> nodes) override;
  Status runScorePlugins(CycleState& state, const PodInfo& pod, std::span<const NodeInfoPtr> nodes,
                         std::vector<NodePluginScores>& out) override;
  // Score of each non-skipped score plugin on one node, before NormalizeScore and weights (upstream
  // RunRawScorePlugins); `out` is left empty when no plugin runs.
  Status runRawScorePlugins(CycleState& state, const PodInfo& pod, const NodeInfo& nodeInfo,
                            std::vector<PluginScore>& out);
  // NormalizeScore and weights over `scores` from their rawScores (upstream NormalizeScores): sets each
  // node's scores and totalScore; a raw score of a plugin not running this cycle is ignored, a missing one
  // counts 0. Without non-skipped score plugins every node gets no scores and total 0.
  Status normalizeScores(CycleState& state, const PodInfo& pod, std::vector<NodePluginScores>& scores);
  Status runFilterPlugins(CycleState& state, const PodInfo& pod, const NodeInfo& nodeInfo) override;
  Status runPreFilterExtensionAddPod(CycleState& state, const PodInfo& podToSchedule,
                                     const PodInfoPtr& podInfoToAdd, const NodeInfo& nodeInfo) override;
  Status runPreFilterExtensionRemovePod(CycleState& state, const PodInfo& podToSchedule,
                                        const PodInfoPtr& podInfoToRemove, const NodeInfo& nodeInfo) override;
  Status runFilterPluginsWithNominatedPods(CycleState& state, const PodInfo& pod,
                                           const NodeInfo& info) override;

  const SharedLister* snapshotSharedLister() const override { return snapshotSharedLister_; }
  MutableSharedLister* mutableSnapshotSharedLister() const override { return mutableSnapshotSharedLister_; }
  client::Client* client() const override { return client_; }
  informer::SharedInformerFactory* sharedInformerFactory() const override { return informerFactory_; }
  EventRecorder* eventRecorder() const override { return eventRecorder_; }
  parallelize::Parallelizer& parallelizer() override { return *parallelizer_; }
  PodNominator* podNominator() const override { return podNominator_; }
  metrics::Metrics* metrics() const override { return metrics_; }
  void activate(const std::vector<api::PodPtr>& pods) override {
    if (podActivator_) podActivator_(pods);
  }
  std::stop_token stopToken() const override { return stop_.get_token(); }
  SharedDRAManager* sharedDRAManager() const override { return sharedDRAManager_; }
  const PodGroupManager* podGroupManager() const override { return podGroupManager_; }
  Clock& clock() const override { return *clock_; }
  // Requests stopToken(): the scheduler is shutting down. Thread-safe, idempotent.
  void requestStop() { stop_.request_stop(); }
  // handOff() calls wait from holdHandOffs() until releaseHandOffs(), which starts them in order (the
  // scheduling thread, around PostFilter and the failure handler). Thread-safe.
  void handOff(std::function<void()> start) override;
  void holdHandOffs();
  void releaseHandOffs();
  void iterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) override;
  std::shared_ptr<WaitingPod> getWaitingPod(const std::string& uid) override;
  bool rejectWaitingPod(const std::string& uid) override;
  std::shared_ptr<PodInPreBind> getPodInPreBind(const std::string& uid) override;
  // The binding cycle registers a pod before its PreBind and removes it after (upstream Add/Remove-
  // PodInPreBind).
  std::shared_ptr<PodInPreBindImpl> addPodInPreBind(const std::string& uid);
  void removePodInPreBind(const std::string& uid);

  // The names of preBindPluginGroups(state) (upstream TestGetPreBindPluginGroups).
  std::vector<std::vector<std::string>> preBindPluginGroupsForTest(const CycleState& state) const;

  // The weight of a score plugin (0 when not a score plugin).
  int scorePluginWeight(const std::string& name) const;

 private:
  explicit Framework(FrameworkOptions options);

  template <class Fn>
  Result<void> forEachExtensionPoint(const config::Plugins& plugins, Fn&& fn);
  // Runs `fn` (returning Status) and records its duration as the extension point's, when metrics are on.
  template <class Fn>
  Status timedExtensionPoint(metrics::ExtensionPoint point, Fn&& fn);
  // Runs one plugin call `fn` (returning Status), recording its duration when `sample` and metrics are on.
  template <class Fn>
  Status timedPlugin(bool sample, metrics::PluginId id, metrics::ExtensionPoint point, Fn&& fn);
  Status runPreFilterPluginsImpl(CycleState& state, const PodInfo& pod, PreFilterResult& result,
                                 std::set<std::string>* pluginsWithNodes);
  // The PreBind plugins to run, as indices into preBindPlugins_, chunked into groups that run in
  // parallel (upstream getPreBindPluginGroups): adjacent plugins in state's parallel set form one group.
  std::vector<std::vector<std::size_t>> preBindPluginGroups(const CycleState& state) const;
  Status runScorePluginsImpl(CycleState& state, const PodInfo& pod, std::span<const NodeInfoPtr> nodes,
                             std::vector<NodePluginScores>& out);
  // The score plugins not skipped in `state`, with their metric ids and weights.
  struct ActiveScorePlugins {
    std::vector<ScorePlugin*> plugins;
    std::vector<metrics::PluginId> ids;
    std::vector<int64_t> weights;
  };
  ActiveScorePlugins nonSkippedScorePlugins(const CycleState& state) const;
  Status runRawScore(const ActiveScorePlugins& active, CycleState& state, const PodInfo& pod,
                     const NodeInfo& nodeInfo, std::vector<PluginScore>& out);
  // NormalizeScore per plugin over pluginToNodeScores (indexed like active.plugins, then like scores), then
  // the weighted scores and totals of `scores`.
  Status normalizeAndWeigh(const ActiveScorePlugins& active, CycleState& state, const PodInfo& pod,
                           std::vector<NodePluginScores>& scores,
                           std::vector<NodeScoreList>& pluginToNodeScores);
  // Upstream computeBatchablePlugins.
  void computeSignPlugins();

  std::string profileName_;
  std::optional<int32_t> percentageOfNodesToScore_;
  const SharedLister* snapshotSharedLister_ = nullptr;
  MutableSharedLister* mutableSnapshotSharedLister_ = nullptr;
  client::Client* client_ = nullptr;
  informer::SharedInformerFactory* informerFactory_ = nullptr;
  SharedDRAManager* sharedDRAManager_ = nullptr;
  const PodGroupManager* podGroupManager_ = nullptr;
  bool enableGenericWorkload_ = false;
  EventRecorder* eventRecorder_ = nullptr;
  PodNominator* podNominator_ = nullptr;
  std::function<void(const std::vector<api::PodPtr>&)> podActivator_;
  std::stop_source stop_;
  std::mutex handOffMu_;
  bool holdingHandOffs_ = false;                    // guarded by handOffMu_
  std::vector<std::function<void()>> heldHandOffs_;  // guarded by handOffMu_
  std::shared_ptr<parallelize::Parallelizer> parallelizer_;
  std::shared_ptr<WaitingPodsMap> waitingPods_;
  std::shared_ptr<PodsInPreBindMap> podsInPreBind_;
  Clock* clock_ = nullptr;
  metrics::Metrics* metrics_ = nullptr;
  metrics::ProfileId metricsProfile_;

  // Owned plugins, and the registry-name index into them.
  std::vector<std::unique_ptr<Plugin>> plugins_;
  std::map<std::string, Plugin*> pluginsMap_;
  // Plugins asked for events (PreEnqueue/PreFilter/Filter/Reserve/Permit), in instantiation order.
  std::vector<Plugin*> enqueuePlugins_;

  std::vector<PreEnqueuePlugin*> preEnqueuePlugins_;
  std::vector<QueueSortPlugin*> queueSortPlugins_;
  std::vector<PreFilterPlugin*> preFilterPlugins_;
  std::vector<FilterPlugin*> filterPlugins_;
  std::vector<PostFilterPlugin*> postFilterPlugins_;
  std::vector<PreScorePlugin*> preScorePlugins_;
  std::vector<ScorePlugin*> scorePlugins_;
  std::vector<ReservePlugin*> reservePlugins_;
  std::vector<PermitPlugin*> permitPlugins_;
  std::vector<PreBindPlugin*> preBindPlugins_;
  std::vector<BindPlugin*> bindPlugins_;
  std::vector<PostBindPlugin*> postBindPlugins_;
  // GangScheduling when GenericWorkload is on (upstream takes it, and only it, from the plugins map).
  std::vector<PlacementFeasiblePlugin*> placementFeasiblePlugins_;
  std::vector<PodGroupPostFilterPlugin*> podGroupPostFilterPlugins_;
  std::map<std::string, int> scorePluginWeight_;
  // The PreFilter/Filter/PreScore/Score plugins, once each in that order, that sign pods.
  std::vector<SignPlugin*> signPlugins_;
  std::vector<metrics::PluginId> signIds_;
  bool enableSignatures_ = false;
  std::unique_ptr<OpportunisticBatch> batch_;
  std::vector<Extender*> extenders_;

  // Metrics handles parallel to the per-point lists above (filled only with metrics).
  struct PluginIds {
    std::vector<metrics::PluginId> preEnqueue, preFilter, filter, postFilter, preScore, score, reserve,
        permit, preBind, bind, postBind, podGroupPostFilter;
  };
  PluginIds ids_;
};

}  // namespace ks::framework::runtime
