#pragma once
// `kube-scheduler-cpp simulate`: loads a cluster file (what `kubectl get nodes,pods,... -A -o yaml`
// prints: a List, or multi-document YAML/JSON) into the in-memory API and runs the real scheduler over
// it (informers, cache, queue, framework, binding), each placement assumed before the next pod. Reports
// per pending pod the result, node and message, and with explain the per-node filter rejections,
// per-plugin scores and the outcome of preemption (nominated node, victims).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/scheduler/features/scheduler_features.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/util/result.h"

namespace ks::simulator {

struct NodeRejection {
  std::string plugin;
  std::vector<std::string> reasons;
};

// A device the pod's claims got (DynamicResources), from the claim's allocation once reserved for the pod.
struct DeviceAllocation {
  std::string claim;    // the ResourceClaim's name (the pod's namespace)
  std::string request;  // "<request>" or "<request>/<subrequest>"
  std::string device;   // "<driver>/<pool>/<device>", plus "#<shareID>" for a share of a multi-allocatable one
  // The request's tolerations the allocation relied on ("key=value:Effect", "key:Exists"), and the
  // conditions the device's driver must report before the pod binds (DRADeviceBindingConditions).
  std::vector<std::string> tolerations;
  std::vector<std::string> bindingConditions;
};

// The PodGroup a pod belongs to (GenericWorkload), as the run left it: what explains a gang member waiting
// for its group, for a quorum, or for the group's placement.
struct PodGroupSummary {
  std::string name;
  bool found = false;       // the PodGroup object exists
  std::string policy;       // "gang" or "basic" (when found)
  int32_t minCount = 0;     // a gang's quorum (1 for a basic group)
  int members = 0;          // pending or bound pods naming the group
  int bound = 0;            // of which bound to a node
};

struct PodResult {
  std::string namespace_;
  std::string name;
  std::string profile;
  std::string result;  // Scheduled, Unschedulable, Error, Preempted (placed, then evicted by preemption)
  std::string node;
  std::string message;
  std::map<std::string, NodeRejection> filtered;
  // Per node: per plugin score after NormalizeScore, before weight; a plugin skipped for the cycle has
  // no entry. Empty when at most one node was feasible (upstream does not score then).
  std::map<std::string, std::map<std::string, int64_t>> scores;
  std::map<std::string, int64_t> totalScores;
  // Preemption on the pod's behalf: the node it was nominated to (empty when none) and the pods evicted
  // for it ("namespace/name"). In simulate the evictions happen within the attempt (synchronously).
  std::string nominatedNode;
  std::vector<std::string> victims;
  // explain: the node the pod is bound to in the live cluster (it was evaluated as if pending); "" else.
  std::string boundNode;
  // Devices allocated to the pod's claims, its extended-resource claim included.
  std::vector<DeviceAllocation> devices;
  // With GenericWorkload, for a pod naming a PodGroup.
  std::optional<PodGroupSummary> podGroup;
};

struct SimulationResult {
  std::vector<PodResult> pods;
};

struct LoadSummary {
  std::map<std::string, int> objectsByKind;
  int pendingPods = 0;  // pods without a node whose schedulerName a profile serves
};

// Loads the cluster file into `cluster`. Errors name the file, the document (1-based) and the object
// ("cluster.yaml: document 2: Pod default/web-1: spec.containers[0]...: ...").
Result<LoadSummary> loadClusterFile(const std::string& path, client::MemoryClient& cluster,
                                    const config::KubeSchedulerConfiguration& cfg);
Result<LoadSummary> loadClusterText(std::string_view text, const std::string& sourceName,
                                    client::MemoryClient& cluster,
                                    const config::KubeSchedulerConfiguration& cfg);

struct SimulateOptions {
  std::chrono::milliseconds timeout{60000};
  // "namespace/name" (explain): one scheduling cycle of this pod alone, reported alone. The other pending
  // pods are cluster state only: gated out of activeQ, so they are not scheduled, while those nominated to
  // a node (status.nominatedNodeName) hold capacity there as in the real scheduler's queue.
  std::string onlyPod;
  // From --feature-gates. Preemption stays synchronous and VolumeBinding takes its bindings as done
  // whatever the gates say (simulate's own modes, see simulate()).
  features::SchedulerFeatures features;
};

// Schedules every pending pod of `cluster` until nothing more can happen, or (options.onlyPod) one pod once.
Result<SimulationResult> simulate(const config::KubeSchedulerConfiguration& cfg,
                                  client::MemoryClient& cluster, const SimulateOptions& options = {});

// {"pods": [{"namespace", "name", "profile", "result", "node", "message", "filtered", "scores",
// "totalScores", "nominatedNode", "victims"}]}; the last four only with explain; "boundNode" when set;
// "podGroup" ({"name", "found", "policy", "minCount", "members", "bound"}) for a member of a PodGroup.
std::string toJson(const SimulationResult& result, bool explain);
// Aligned columns for people; with explain, each pod's nodes with their filter reason or scores.
std::string toTable(const SimulationResult& result, bool explain);

// The `simulate` subcommand: parses its flags, prints the result; returns the exit code.
int runSimulateCommand(const std::vector<std::string>& args);

}  // namespace ks::simulator
