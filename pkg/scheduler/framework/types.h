#pragma once
// The scheduler's per-pod and per-node precomputed views: Resource, PodInfo, QueuedPodInfo, NodeInfo
// (upstream pkg/scheduler/framework/types.go). PodInfo is computed once per pod version and shared
// (immutable) between queue, cache and snapshot; NodeInfo aggregates what Filter/Score need so their
// inner loops touch no API structs they can avoid.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/resources.h"
#include "pkg/api/labels.h"
#include "pkg/api/nodedeclaredfeatures/feature_set.h"
#include "pkg/scheduler/framework/events.h"
#include "pkg/util/result.h"

namespace ks::framework {

using TimePoint = std::chrono::system_clock::time_point;

// Scheduler limits on scores (upstream MaxNodeScore / MinNodeScore / MaxTotalScore).
inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;
inline constexpr int64_t kMaxTotalScore = INT64_MAX;

// True for resources tracked in Resource::scalarResources: extended resources ("example.com/gpu"),
// prefixed native resources ("kubernetes.io/..."), hugepages-* and attachable-volumes-*.
bool isScalarResourceName(std::string_view name);

// Compute resources as plain integers (cpu in millicores, the rest in units), upstream's Resource.
struct Resource {
  int64_t milliCPU = 0;
  int64_t memory = 0;
  int64_t ephemeralStorage = 0;
  // Only meaningful for node allocatable ("pods").
  int64_t allowedPodNumber = 0;
  std::map<std::string, int64_t> scalarResources;

  static Resource fromResourceList(const api::ResourceList& rl);
  // Adds every quantity of rl (cpu as milli-value, others rounded up).
  void add(const api::ResourceList& rl);
  void addScalar(const std::string& name, int64_t quantity) { scalarResources[name] += quantity; }
  void setScalar(const std::string& name, int64_t quantity) { scalarResources[name] = quantity; }
  // Raises each field to at least rl's value.
  void setMaxResource(const api::ResourceList& rl);
  bool operator==(const Resource&) const = default;
};

// What a pod contributes to a node: its requests and the requests with the scheduler's non-zero
// defaults for cpu/memory (used by scoring so that zero-request pods still spread).
struct PodResource {
  Resource resource;
  int64_t non0CPU = 0;
  int64_t non0Mem = 0;
  bool operator==(const PodResource&) const = default;
};

// Returns the pod's requests as the scheduler accounts them (upstream PodInfo.CalculateResource): while it
// is resized in place, the larger of its spec and its allocated and actuated status (api::podRequests).
PodResource calculatePodResource(const api::Pod& pod);

// The process-wide gate behind the node accounting above and the pod-update events' scale up/down
// (upstream reads it from its global feature gate there): InPlacePodLevelResourcesVerticalScaling, whether a
// pod's pod-level status (status.allocatedResources / status.resources) counts. Set once at start-up, before
// any scheduler exists (features::applySchedulerFeatures); true (v1.37's default) otherwise.
void setPodLevelResizeAccounting(bool enabled);
// api::podRequests options for that accounting.
api::PodRequestsOptions accountingRequestOptions();

struct PodMatchIdentity;

// A parsed pod (anti-)affinity term: namespaces resolved (empty namespaces and no namespaceSelector
// means the pod's own namespace) and selectors compiled once.
struct AffinityTerm {
  std::set<std::string> namespaces;
  api::Selector selector;
  std::string topologyKey;
  api::Selector namespaceSelector;

  // True if `pod` is in the term's namespaces (or its namespace's labels match namespaceSelector) and
  // its labels match the selector (upstream AffinityTerm.Matches).
  bool matches(const api::Pod& pod, const api::Labels& nsLabels) const {
    return matches(pod.metadata.namespace_, pod.metadata.labels, nsLabels);
  }
  bool matches(const PodMatchIdentity& pod, const api::Labels& nsLabels) const;
  bool matches(const std::string& ns, const api::Labels& labels, const api::Labels& nsLabels) const;

  bool operator==(const AffinityTerm&) const = default;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  int32_t weight = 0;
  bool operator==(const WeightedAffinityTerm&) const = default;
};

// What affinity terms and label selectors see of a pod: its namespace, labels and whether it is
// terminating, and its own parsed affinity terms. PodInfo interns it, and its term lists: pods that no
// term or selector can tell apart share one instance, so a scheduling cycle matches a term once per
// distinct identity (keyed by address), and NodeInfo counts its pods per identity (podMatchGroups).
struct PodMatchIdentity {
  template <class T>
  using Interned = std::shared_ptr<const T>;

  std::string namespace_;
  api::Labels labels;
  bool terminating = false;  // metadata.deletionTimestamp set
  // Interned: equal lists are one instance, so a term's address identifies its content.
  Interned<std::vector<AffinityTerm>> requiredAffinityTerms;
  Interned<std::vector<AffinityTerm>> requiredAntiAffinityTerms;
  Interned<std::vector<WeightedAffinityTerm>> preferredAffinityTerms;
  Interned<std::vector<WeightedAffinityTerm>> preferredAntiAffinityTerms;

  bool hasAffinityTerms() const {
    return !requiredAffinityTerms->empty() || !requiredAntiAffinityTerms->empty() ||
           !preferredAffinityTerms->empty() || !preferredAntiAffinityTerms->empty();
  }
  // The term lists are compared by address (interned).
  bool operator==(const PodMatchIdentity&) const = default;
};

inline bool AffinityTerm::matches(const PodMatchIdentity& pod, const api::Labels& nsLabels) const {
  return matches(pod.namespace_, pod.labels, nsLabels);
}

// Upstream GetAffinityTerms: `terms` of `pod` parsed; the first term that fails to parse fails all.
Result<std::vector<AffinityTerm>> getAffinityTerms(const api::Pod& pod,
                                                   const std::vector<api::PodAffinityTerm>& terms);
// Upstream GetPodAffinityTerms / GetPodAntiAffinityTerms: the pod's required (anti-)affinity terms
// (empty when the pod has none).
const std::vector<api::PodAffinityTerm>& getPodAffinityTerms(const api::Pod& pod);
const std::vector<api::PodAffinityTerm>& getPodAntiAffinityTerms(const api::Pod& pod);

class PodInfo;
using PodInfoPtr = std::shared_ptr<const PodInfo>;

// A pod with what the scheduler precomputes from it. Immutable after create(); a pod update creates a
// new PodInfo.
class PodInfo {
 public:
  // Parses affinity terms and computes requests, as upstream NewPodInfo. A list of terms (required
  // affinity, required anti-affinity, preferred affinity, preferred anti-affinity) in which a term fails
  // to parse is left empty, and parseError() holds upstream's aggregated error ("requiredAffinityTerms:
  // <error>", several as "[a, b]"). The API server doesn't fully validate selectors; upstream ignores the
  // error when adding pods to nodes, and InterPodAffinity's PreFilter rejects the pod being scheduled
  // with "parsing pod: <parseError>".
  static std::shared_ptr<PodInfo> create(api::PodPtr pod);

  const api::Pod& pod() const { return *pod_; }
  const api::PodPtr& podPtr() const { return pod_; }
  const PodResource& resource() const { return resource_; }
  // The pod's namespace, labels and terms; the same instance for every pod with equal ones.
  const PodMatchIdentity& matchIdentity() const { return *matchIdentity_; }
  const std::shared_ptr<const PodMatchIdentity>& matchIdentityPtr() const { return matchIdentity_; }
  // The parsed terms (matchIdentity's).
  const std::vector<AffinityTerm>& requiredAffinityTerms() const { return *matchIdentity_->requiredAffinityTerms; }
  const std::vector<AffinityTerm>& requiredAntiAffinityTerms() const {
    return *matchIdentity_->requiredAntiAffinityTerms;
  }
  const std::vector<WeightedAffinityTerm>& preferredAffinityTerms() const {
    return *matchIdentity_->preferredAffinityTerms;
  }
  const std::vector<WeightedAffinityTerm>& preferredAntiAffinityTerms() const {
    return *matchIdentity_->preferredAntiAffinityTerms;
  }
  const std::optional<Error>& parseError() const { return parseError_; }

 private:
  api::PodPtr pod_;
  PodResource resource_;
  std::shared_ptr<const PodMatchIdentity> matchIdentity_;
  std::optional<Error> parseError_;
};

// The pod priority (spec.priority, 0 when unset), as upstream corev1helpers.PodPriority.
inline int32_t podPriority(const api::Pod& pod) {
  return pod.spec.priority.value_or(0);
}

// Upstream podutil.UpdatePodCondition, without mutating `status`: `cond` (lastTransitionTime set to now
// by the caller) keeps the existing condition's lastTransitionTime while its status is unchanged.
// Returns the condition to write, or nullopt when status, reason, message and lastProbeTime are all
// unchanged (then nothing needs to be sent).
std::optional<api::PodCondition> updatePodCondition(const api::PodStatus& status, api::PodCondition cond);

// A pod's scheduling signature (upstream fwk.PodSignature, KEP-5598 opportunistic batching): two pods of a
// profile with equal signatures get the same Filter and Score results on the same nodes. Computed by the
// queue when the pod is added or updated (Framework::signPod); null when the pod can't be signed.
using PodSignature = std::shared_ptr<const std::string>;

// Both signed, with equal signatures.
inline bool sameSignature(const PodSignature& a, const PodSignature& b) {
  return a != nullptr && b != nullptr && *a == *b;
}

// What the queue keeps of an entity's (a pod's or a pod group's) attempts (upstream QueueingParams).
struct QueueingParams {
  // When the entity was added to the queue (or last moved back into it).
  TimePoint timestamp{};
  // Scheduling attempts so far.
  int attempts = 0;
  // Attempts that ended unschedulable (drives the backoff).
  int unschedulableCount = 0;
  // Consecutive attempts that ended in Error (drives the error backoff).
  int consecutiveErrorsCount = 0;
  // When the entity was first popped for scheduling; never updated afterwards.
  std::optional<TimePoint> initialAttemptTimestamp;
  // When the current backoff ends.
  TimePoint backoffExpiration{};
  // Plugins that returned Unschedulable/UnschedulableAndUnresolvable/Wait at PreFilter, Filter,
  // Reserve or Permit in the last attempt; only their events move the entity.
  std::set<std::string> unschedulablePlugins;
  // Plugins that returned Pending in the last attempt.
  std::set<std::string> pendingPlugins;
  // The PreEnqueue plugin that gated the entity; empty when not gated.
  std::string gatingPlugin;
  // The events registered by gatingPlugin, cached.
  std::vector<ClusterEvent> gatingPluginEvents;
  // The last time the leftover flush moved the entity out of unschedulablePods (v1.37: a gated pod, which
  // never gets a new timestamp from an attempt, is flushed at most once per podMaxInUnschedulablePodsDuration).
  std::optional<TimePoint> flushTimestamp;
  // Moved by that flush and not tried since: its binding counts in scheduler_pod_scheduled_after_flush_total.
  bool wasFlushedFromUnschedulable = false;

  bool gated() const { return !gatingPlugin.empty(); }
  void clearRejectorPlugins() {
    unschedulablePlugins.clear();
    pendingPlugins.clear();
    gatingPlugin.clear();
    gatingPluginEvents.clear();
  }
};

// A pod in the scheduling queue with its queueing history (upstream QueuedPodInfo). Owned by the queue;
// the scheduling cycle gets a copy.
struct QueuedPodInfo : QueueingParams {
  PodInfoPtr podInfo;
  // The pod's signature when the queue last added or updated it (kept, as upstream, when the failure
  // handler requeues the informer's newer version); null when unsigned.
  PodSignature podSignature;

  const api::Pod& pod() const { return podInfo->pod(); }
};

// "0.0.0.0": a host port bound on every address.
inline constexpr std::string_view kDefaultBindAllHostIP = "0.0.0.0";

struct ProtocolPort {
  std::string protocol;  // "TCP" when empty
  int32_t port = 0;
  auto operator<=>(const ProtocolPort&) const = default;
};

// Host ports in use on a node, by IP (upstream HostPortInfo). An empty IP means 0.0.0.0, an empty
// protocol TCP; 0.0.0.0 conflicts with every IP using the same protocol and port.
class HostPortInfo {
 public:
  void add(std::string_view ip, std::string_view protocol, int32_t port);
  void remove(std::string_view ip, std::string_view protocol, int32_t port);
  // True if (ip, protocol, port) conflicts with a port in use.
  bool checkConflict(std::string_view ip, std::string_view protocol, int32_t port) const;
  // Number of (ip, protocol, port) entries.
  std::size_t size() const;
  bool empty() const { return ports_.empty(); }
  const std::map<std::string, std::set<ProtocolPort>>& byIP() const { return ports_; }
  bool operator==(const HostPortInfo&) const = default;

 private:
  std::map<std::string, std::set<ProtocolPort>> ports_;
};

// The host ports a pod uses: containers' and restartable (sidecar) init containers' ports with
// hostPort > 0 (upstream GetHostPorts).
std::vector<api::ContainerPort> getHostPorts(const api::Pod& pod);

// "namespace/claimName" of every persistentVolumeClaim volume of the pod (generic ephemeral volumes
// not included, as upstream's PVCRefCounts).
std::vector<std::string> podPVCKeys(const api::Pod& pod);

// An image present on a node (upstream ImageStateSummary).
struct ImageStateSummary {
  int64_t size = 0;
  // Number of nodes that have the image.
  int numNodes = 0;
  // The nodes that have the image; maintained by the cache, dropped in snapshots.
  std::set<std::string> nodes;
  bool operator==(const ImageStateSummary&) const = default;
};

// Returns a new, process-wide unique generation number (monotonic).
int64_t nextGeneration();

class NodeInfo;
using NodeInfoPtr = std::shared_ptr<NodeInfo>;

// A node's pods that no affinity term or label selector can tell apart (one PodMatchIdentity), counted:
// a term or selector matched once against the group counts for all of them.
struct PodMatchGroup {
  std::shared_ptr<const PodMatchIdentity> identity;
  int64_t count = 0;
};

// Node-level aggregates (upstream NodeInfo). Owned by the cache; the snapshot holds clones. Not
// thread-safe: the cache mutates it under its lock; snapshot copies are read-only during a cycle.
class NodeInfo {
 public:
  NodeInfo();
  // A node info with these pods (and no node), as upstream NewNodeInfo(pods...).
  explicit NodeInfo(const std::vector<api::PodPtr>& pods);

  // The node, or nullptr when the node was removed (or not yet added) but pods still reference it.
  const api::Node* node() const { return node_.get(); }
  const api::NodePtr& nodePtr() const { return node_; }
  // The node's name, or "" when there is no node.
  const std::string& nodeName() const;

  const std::vector<PodInfoPtr>& pods() const { return pods_; }
  const std::vector<PodInfoPtr>& podsWithAffinity() const { return podsWithAffinity_; }
  const std::vector<PodInfoPtr>& podsWithRequiredAntiAffinity() const {
    return podsWithRequiredAntiAffinity_;
  }
  // pods() grouped by PodMatchIdentity, in no particular order.
  const std::vector<PodMatchGroup>& podMatchGroups() const { return podMatchGroups_; }
  const HostPortInfo& usedPorts() const { return usedPorts_; }
  const Resource& requested() const { return requested_; }
  const Resource& nonZeroRequested() const { return nonZeroRequested_; }
  const Resource& allocatable() const { return allocatable_; }
  const std::map<std::string, ImageStateSummary>& imageStates() const { return imageStates_; }
  const std::map<std::string, int>& pvcRefCounts() const { return pvcRefCounts_; }
  // The node's status.declaredFeatures mapped by the default NodeDeclaredFeatures framework (features it
  // doesn't know dropped); empty (size 0) until a node is set.
  const api::nodedeclaredfeatures::FeatureSet& declaredFeatures() const { return declaredFeatures_; }
  int64_t generation() const { return generation_; }

  void addPodInfo(PodInfoPtr podInfo);
  void addPod(api::PodPtr pod);
  // Removes the pod with pod's UID; error "no corresponding pod <name> in pods of node <node>" when
  // absent, "cannot get cache key for pod with empty UID" when the pod has no UID.
  Result<void> removePod(const api::Pod& pod);

  void setNode(api::NodePtr node);
  // Forgets the node object but keeps the pods (they may still be assumed or terminating).
  void removeNode();

  // Set by the cache from its image index.
  void setImageStates(std::map<std::string, ImageStateSummary> states) { imageStates_ = std::move(states); }
  // Used by the cache/snapshot when copying generation without bumping it.
  void setGenerationForTest(int64_t g) { generation_ = g; }

  // A copy sharing the (immutable) node and PodInfos; image states are copied without their node sets
  // (upstream Snapshot()).
  std::unique_ptr<NodeInfo> snapshot() const;

  // Human-readable summary for logs and test failures.
  std::string toString() const;

 private:
  void update(const PodInfo& podInfo, int64_t sign);

  api::NodePtr node_;
  std::vector<PodInfoPtr> pods_;
  std::vector<PodInfoPtr> podsWithAffinity_;
  std::vector<PodInfoPtr> podsWithRequiredAntiAffinity_;
  std::vector<PodMatchGroup> podMatchGroups_;
  HostPortInfo usedPorts_;
  Resource requested_;
  Resource nonZeroRequested_;
  Resource allocatable_;
  std::map<std::string, ImageStateSummary> imageStates_;
  std::map<std::string, int> pvcRefCounts_;
  api::nodedeclaredfeatures::FeatureSet declaredFeatures_;
  int64_t generation_ = 0;
};

bool podWithAffinity(const api::Pod& pod);
bool podWithRequiredAntiAffinity(const api::Pod& pod);

}  // namespace ks::framework
