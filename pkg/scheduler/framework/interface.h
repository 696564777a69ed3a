#pragma once
// The plugin contracts: one small abstract class per extension point (upstream interface.go). A plugin
// opts into several points by inheriting several of them; each inherits Plugin virtually, so a plugin
// object is one Plugin. The runtime Framework sorts configured plugins into per-point lists once, at
// construction, and rejects a plugin enabled at a point it doesn't implement.
//
// Threads: PreEnqueue and QueueSort run on queue callers (informer threads, the scheduling thread);
// Filter and Score run concurrently on the Parallelizer's workers for different nodes; every other
// point runs on the scheduling thread (PreFilter ... Permit) or on a binding thread (PreBind, Bind,
// PostBind, and Unreserve after a binding failure). Plugins must tolerate these concurrently with
// each other for different pods.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/meta.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/dra_manager.h"
#include "pkg/scheduler/framework/events.h"
#include "pkg/scheduler/framework/extender.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/parallelize/parallelism.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/util/clock.h"

namespace ks::client {
class Client;
}  // namespace ks::client

namespace ks::informer {
class SharedInformerFactory;
}  // namespace ks::informer

namespace ks::metrics {
class Metrics;
}  // namespace ks::metrics

namespace ks::framework {

class PodGroupManager;  // pod_group.h

// ---- Results exchanged with plugins ----

// The nodes a PreFilter plugin allows; nullopt means every node (upstream nil PreFilterResult).
struct PreFilterResult {
  std::optional<std::set<std::string>> nodeNames;

  bool allNodes() const { return !nodeNames.has_value(); }
  // The intersection of both (all-nodes is the identity), as upstream Merge.
  PreFilterResult merge(const PreFilterResult& other) const;
  bool operator==(const PreFilterResult&) const = default;
};

enum class NominatingMode : uint8_t { Noop, Override };

struct NominatingInfo {
  std::string nominatedNodeName;
  NominatingMode mode = NominatingMode::Noop;
  bool operator==(const NominatingInfo&) const = default;
};

// What PostFilter (preemption) decided: the node to nominate the pod to.
struct PostFilterResult {
  NominatingInfo nominatingInfo;
  bool operator==(const PostFilterResult&) const = default;
};

struct NodeScore {
  std::string name;
  int64_t score = 0;
  bool operator==(const NodeScore&) const = default;
};
using NodeScoreList = std::vector<NodeScore>;

struct PluginScore {
  // The plugin's name(); it lives as long as the Framework that produced the score (no allocation per
  // node and plugin in the scoring loop).
  std::string_view name;
  int64_t score = 0;
  bool operator==(const PluginScore&) const = default;
};

// The weighted scores of one node, per plugin, and their sum.
struct NodePluginScores {
  std::string name;
  std::vector<PluginScore> scores;
  int64_t totalScore = 0;
  // Breaks ties between equal totals in SortedScoredNodes. Upstream draws it at random only for nodes that
  // extenders scored; it stays 0 otherwise, so ties follow the feasible nodes' order.
  int64_t randomizer = 0;
  // Each plugin's Score before NormalizeScore and weights (v1.37): opportunistic batching normalizes the
  // cached nodes again when it rescores one.
  std::vector<PluginScore> rawScores;
  bool operator==(const NodePluginScores&) const = default;
};

// Filter results per node from the last scheduling attempt (upstream NodeToStatus). Nodes not in the
// map have absentNodesStatus (UnschedulableAndUnresolvable by default: e.g. filtered out by a
// PreFilterResult).
class NodeToStatus {
 public:
  NodeToStatus() : absentNodesStatus_(Code::UnschedulableAndUnresolvable) {}

  // The node's status, or absentNodesStatus when the node has none.
  const Status& get(const std::string& nodeName) const;
  void set(const std::string& nodeName, Status status) { nodeToStatus_[nodeName] = std::move(status); }
  std::size_t size() const { return nodeToStatus_.size(); }
  const Status& absentNodesStatus() const { return absentNodesStatus_; }
  void setAbsentNodesStatus(Status s) { absentNodesStatus_ = std::move(s); }
  void forEachExplicitNode(const std::function<void(const std::string&, const Status&)>& fn) const;
  // The nodes of `lister` whose status has `code` (absent nodes count with absentNodesStatus' code).
  std::vector<NodeInfoPtr> nodesForStatusCode(const NodeInfoLister& lister, Code code) const;

 private:
  std::map<std::string, Status> nodeToStatus_;
  Status absentNodesStatus_;
};

// ---- Plugin contracts ----

class Plugin {
 public:
  virtual ~Plugin() = default;
  // The plugin's registry name; constant.
  virtual std::string_view name() const = 0;
};

// Gates pods before they enter activeQ (e.g. scheduling gates). Called on add/update of a pending
// pod from informer threads and when the pod is moved back. Must be fast; no API calls.
class PreEnqueuePlugin : public virtual Plugin {
 public:
  // Success: the pod may enter activeQ. Any other code keeps it in unschedulablePods, gated by this
  // plugin, until one of the plugin's registered events (with a Queue hint) arrives.
  virtual Status preEnqueue(const PodInfo& pod) = 0;
};

// Orders activeQ. Exactly one per profile. Called under the queue lock; must be pure.
class QueueSortPlugin : public virtual Plugin {
 public:
  // True if a should be popped before b.
  virtual bool less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// Incremental updates of a PreFilter plugin's CycleState when the scheduler (preemption, nominated
// pods) evaluates "what if this pod were added to / removed from the node". Must only touch the state.
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status addPod(CycleState& state, const PodInfo& podToSchedule, const PodInfo& podInfoToAdd,
                        const NodeInfo& nodeInfo) = 0;
  virtual Status removePod(CycleState& state, const PodInfo& podToSchedule, const PodInfo& podInfoToRemove,
                           const NodeInfo& nodeInfo) = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // Computes per-cycle state once per pod. `result` starts as all-nodes; a plugin may restrict it to
  // a node set. Returns Success, Skip (this plugin's Filter and extensions are skipped this cycle),
  // Unschedulable/UnschedulableAndUnresolvable (pod rejected; the latter prevents preemption) or Error.
  virtual Status preFilter(CycleState& state, const PodInfo& pod, std::span<const NodeInfoPtr> nodes,
                           PreFilterResult& result) = 0;
  // The plugin's AddPod/RemovePod extensions, or nullptr.
  virtual PreFilterExtensions* preFilterExtensions() = 0;
};

class FilterPlugin : public virtual Plugin {
 public:
  // Whether the pod fits the node. Called concurrently for different nodes, so only read `state`.
  // Returns Success, Unschedulable, UnschedulableAndUnresolvable or Error (anything else is an error).
  virtual Status filter(CycleState& state, const PodInfo& pod, const NodeInfo& nodeInfo) = 0;
};

// Runs when no node fits (preemption). Returns Success with a result nominating a node, Unschedulable
// (try the next PostFilter plugin), UnschedulableAndUnresolvable (stop) or Error.
class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status postFilter(CycleState& state, const PodInfo& pod, const NodeToStatus& filteredNodeStatusMap,
                            PostFilterResult& result) = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  // Computes state for Score over the feasible nodes. Skip skips this plugin's Score this cycle.
  virtual Status preScore(CycleState& state, const PodInfo& pod, std::span<const NodeInfoPtr> nodes) = 0;
};

class ScoreExtensions {
 public:
  virtual ~ScoreExtensions() = default;
  // Rescales the plugin's scores in place to [kMinNodeScore, kMaxNodeScore].
  virtual Status normalizeScore(CycleState& state, const PodInfo& pod, NodeScoreList& scores) = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // Ranks a feasible node; called concurrently for different nodes. After normalization the score
  // must be in [kMinNodeScore, kMaxNodeScore].
  virtual Status score(CycleState& state, const PodInfo& pod, const NodeInfo& nodeInfo, int64_t& score) = 0;
  // The normalization step, or nullptr when scores are already in range.
  virtual ScoreExtensions* scoreExtensions() = 0;
};

// Reserve claims plugin-side resources for the chosen node before binding; Unreserve releases them.
class ReservePlugin : public virtual Plugin {
 public:
  // Success or a rejection/Error; on failure the framework calls unreserve on every reserve plugin.
  virtual Status reserve(CycleState& state, const PodInfo& pod, const std::string& nodeName) = 0;
  // Undoes reserve. Called in reverse order on any later failure, also for plugins whose reserve was
  // never called or failed, so it must be idempotent and must not fail.
  virtual void unreserve(CycleState& state, const PodInfo& pod, const std::string& nodeName) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Success (allow), a rejection/Error (deny), or Wait with `timeout` set: the pod waits for an
  // allow() from this plugin (through Handle::getWaitingPod) at most `timeout` (capped at 15 min).
  virtual Status permit(CycleState& state, const PodInfo& pod, const std::string& nodeName,
                        std::chrono::milliseconds& timeout) = 0;
};

// What a PreBind plugin's pre-flight reports beside its status (upstream PreBindPreFlightResult).
struct PreBindPreFlightResult {
  // Its PreBind may run concurrently with the adjacent PreBind plugins that allow it too.
  bool allowParallel = false;
};

class PreBindPlugin : public virtual Plugin {
 public:
  // Cheap check whether preBind has work for this pod: Success, Skip (preBind is skipped) or Error.
  virtual Status preBindPreFlight(CycleState& state, const PodInfo& pod, const std::string& nodeName,
                                  PreBindPreFlightResult& result) = 0;
  // Prepares the binding (e.g. binds volumes). Runs on a binding thread; may call the API. `stop` is
  // requested when the binding is cancelled (preemption of the pod, a failed parallel PreBind, shutdown):
  // a plugin that waits gives up with an error then.
  virtual Status preBind(CycleState& state, const PodInfo& pod, const std::string& nodeName,
                         std::stop_token stop) = 0;
};

class BindPlugin : public virtual Plugin {
 public:
  // Binds the pod to the node (POST binding). Skip lets the next bind plugin try.
  virtual Status bind(CycleState& state, const PodInfo& pod, const std::string& nodeName) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  // Informational, after a successful bind. Must not fail.
  virtual void postBind(CycleState& state, const PodInfo& pod, const std::string& nodeName) = 0;
};

// One part of a pod's signature (upstream fwk.SignFragment): `key` names what the value is derived from
// (e.g. "v1.Pod.Spec.Tolerations"); `value` is its canonical JSON text. Plugins deriving the same key from
// a pod give the same value.
struct SignFragment {
  std::string key;
  std::string value;
  bool operator==(const SignFragment&) const = default;
};

// Implemented by PreFilter, Filter, PreScore and Score plugins whose results depend only on the parts of
// the pod they sign (upstream SignPlugin, opportunistic batching). A profile with such a plugin that
// doesn't implement it signs no pod. Called by queue callers (informer threads) under the queue lock: must
// be cheap and pure.
class SignPlugin : public virtual Plugin {
 public:
  // Success with the fragments (appended to `fragments`), or a non-success status when the pod can't be
  // signed (e.g. it has inter-pod affinity); Error is logged.
  virtual Status signPod(const api::Pod& pod, std::vector<SignFragment>& fragments) = 0;
};

// Which cluster events can make a pod rejected by this plugin schedulable. Called once at startup.
// Only PreEnqueue, PreFilter, Filter, Reserve and Permit plugins are asked; plugins at those points
// that don't implement it are registered for every event.
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual Result<std::vector<ClusterEventWithHint>> eventsToRegister() = 0;
};

// ---- What the framework offers plugins ----

// A pod waiting at Permit (upstream WaitingPod). Thread-safe.
class WaitingPod {
 public:
  virtual ~WaitingPod() = default;
  virtual const api::Pod& pod() const = 0;
  // Plugins that haven't allowed the pod yet.
  virtual std::vector<std::string> pendingPlugins() const = 0;
  // `pluginName` allows the pod; when no plugin is pending any more the pod proceeds to binding.
  virtual void allow(const std::string& pluginName) = 0;
  // Rejects the pod (Unschedulable with `msg`, attributed to `pluginName`). False when the pod's wait had
  // already ended (allowed, rejected or preempted).
  virtual bool reject(const std::string& pluginName, const std::string& msg) = 0;
  // Preempts the pod: its binding fails with an Error (not Unschedulable), so it is retried after backoff
  // rather than waiting for a cluster event. False when the wait had already ended.
  virtual bool preempt(const std::string& pluginName, const std::string& msg) = 0;
};

// A pod in its binding cycle between PreBind's start and Bind (upstream PodInPreBind). Thread-safe.
class PodInPreBind {
 public:
  virtual ~PodInPreBind() = default;
  // Cancels the pod's PreBind with `message` as the cause; false if PreBind already finished.
  virtual bool cancelPod(const std::string& message) = 0;
  // Marks PreBind finished, after which it cannot be cancelled; false if it was cancelled first.
  virtual bool markPrebound() = 0;
};

// Pods nominated to nodes by preemption (implemented by the scheduling queue).
class PodNominator {
 public:
  virtual ~PodNominator() = default;
  virtual void addNominatedPod(const PodInfoPtr& pod, const NominatingInfo& info) = 0;
  virtual void deleteNominatedPodIfExists(const api::Pod& pod) = 0;
  virtual void updateNominatedPod(const api::Pod& oldPod, const PodInfoPtr& newPodInfo) = 0;
  // The pods nominated to `nodeName`.
  virtual std::vector<PodInfoPtr> nominatedPodsForNode(const std::string& nodeName) const = 0;
};

// Emits Kubernetes Events (events.k8s.io/v1).
class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  // type is "Normal" or "Warning"; related may be null.
  virtual void eventf(const api::ObjectReference& regarding, const api::ObjectReference* related,
                      std::string_view type, std::string_view reason, std::string_view action,
                      std::string note) = 0;
};

// The reference to a pod that events are about.
api::ObjectReference podReference(const api::Pod& pod);

// Lets plugins (preemption) run other plugins of the same profile (upstream PluginsRunner).
class PluginsRunner {
 public:
  virtual ~PluginsRunner() = default;
  virtual Status runPreScorePlugins(CycleState& state, const PodInfo& pod,
                                    std::span<const NodeInfoPtr> nodes) = 0;
  virtual Status runScorePlugins(CycleState& state, const PodInfo& pod, std::span<const NodeInfoPtr> nodes,
                                 std::vector<NodePluginScores>& out) = 0;
  virtual Status runFilterPlugins(CycleState& state, const PodInfo& pod, const NodeInfo& nodeInfo) = 0;
  virtual Status runPreFilterExtensionAddPod(CycleState& state, const PodInfo& podToSchedule,
                                             const PodInfoPtr& podInfoToAdd, const NodeInfo& nodeInfo) = 0;
  virtual Status runPreFilterExtensionRemovePod(CycleState& state, const PodInfo& podToSchedule,
                                                const PodInfoPtr& podInfoToRemove,
                                                const NodeInfo& nodeInfo) = 0;
};

// Given to plugin factories; outlives the plugins.
class Handle : public PluginsRunner {
 public:
  // The snapshot of the current cycle; null until the scheduler wires its cache in (tests may leave it).
  virtual const SharedLister* snapshotSharedLister() const = 0;
  // The same snapshot, changeable in a mutation session (upstream MutableSnapshotSharedLister()); only
  // PodGroupPostFilter may use it, on the scheduling thread. Null where there is no snapshot.
  virtual MutableSharedLister* mutableSnapshotSharedLister() const { return nullptr; }
  virtual client::Client* client() const = 0;
  virtual EventRecorder* eventRecorder() const = 0;
  virtual parallelize::Parallelizer& parallelizer() = 0;
  virtual PodNominator* podNominator() const = 0;
  // The informers of the cluster objects plugins read beside the snapshot (namespaces, the pod owners
  // of default spreading, ...), as upstream SharedInformerFactory(). A plugin calls the accessors it
  // needs in its factory, before the scheduler starts the informers and waits for their sync. Null
  // when the caller gave none (unit tests); plugins that need it then fail to be created.
  virtual informer::SharedInformerFactory* sharedInformerFactory() const = 0;
  // Where plugins record their own metrics (preemption's); null when the scheduler records none.
  virtual metrics::Metrics* metrics() const = 0;
  // The profile's schedulerName (upstream ProfileName()), for plugins' metric labels; empty in tests.
  virtual const std::string& profileName() const {
    static const std::string kEmpty;
    return kEmpty;
  }
  // Moves these pods to activeQ if they wait in backoffQ or unschedulablePods (upstream PodActivator);
  // thread-safe. A no-op until the scheduler wires its queue in.
  virtual void activate(const std::vector<api::PodPtr>& pods) = 0;
  // Starts work a plugin hands off to run beside the scheduling cycle, where upstream starts a goroutine
  // (the asynchronous preemption): `start` is called at once by default, on the calling thread, and must
  // itself be quick (it hands the work to a thread). The scheduler holds what PostFilter hands off until
  // the failure handler has written the pod's status (PodScheduled=False and its nominatedNodeName):
  // upstream's goroutine is queued on the scheduling goroutine's P and in practice starts once that
  // goroutine blocks on the status write, so the preemptor's nomination reaches the API (and the informers)
  // before its victims are evicted, and its own update event finds it still gated by the preemption.
  virtual void handOff(std::function<void()> start) { start(); }
  // Requested when the scheduler shuts down (upstream's cancelled context): plugins that wait long in
  // the binding cycle (VolumeBinding's PreBind) give up instead of holding the shutdown.
  virtual std::stop_token stopToken() const = 0;
  // The DRA objects as the scheduler tracks them (upstream SharedDRAManager()); null when the
  // DynamicResourceAllocation gate is off or the caller gave none (then DynamicResources builds its own).
  virtual SharedDRAManager* sharedDRAManager() const { return nullptr; }
  // The cache's live pod groups and member states (upstream PodGroupManager()), thread-safe; null when
  // the scheduler keeps none (GenericWorkload off, or tests).
  virtual const PodGroupManager* podGroupManager() const { return nullptr; }
  // The scheduler's clock (a manual one in tests), for plugins that wait or stamp times.
  virtual Clock& clock() const { return realClock(); }
  // The scheduler extenders, non-ignorable first (upstream Extenders()); preemption consults them.
  virtual const std::vector<Extender*>& extenders() const {
    static const std::vector<Extender*> kNone;
    return kNone;
  }

  virtual void iterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) = 0;
  // The waiting pod with this UID, or nullptr.
  virtual std::shared_ptr<WaitingPod> getWaitingPod(const std::string& uid) = 0;
  // Rejects the waiting pod with this UID ("removed"); false if it isn't waiting or its wait had ended.
  virtual bool rejectWaitingPod(const std::string& uid) = 0;
  // The pod with this UID if it is in PreBind (cancellable by preemption), or nullptr.
  virtual std::shared_ptr<PodInPreBind> getPodInPreBind(const std::string& /*uid*/) { return nullptr; }

  // Runs Filter with nominated pods of >= priority added to the node (twice when some were added),
  // as upstream RunFilterPluginsWithNominatedPods; used by scheduling and preemption.
  virtual Status runFilterPluginsWithNominatedPods(CycleState& state, const PodInfo& pod,
                                                   const NodeInfo& info) = 0;
  // Reserve / Unreserve of the profile's reserve plugins (Unreserve in reverse order), for group
  // preemption, which reserves members tentatively while it reprieves victims (upstream Handle's
  // RunReservePluginsReserve / RunReservePluginsUnreserve).
  virtual Status runReservePluginsReserve(CycleState& state, const PodInfo& pod, const std::string& nodeName) = 0;
  virtual void runReservePluginsUnreserve(CycleState& state, const PodInfo& pod, const std::string& nodeName) = 0;
};

}  // namespace ks::framework
