#pragma once
// `kube-scheduler-cpp explain NAMESPACE/POD`: why a pod of a live cluster is pending, or where it would go.
//
// Lists what the scheduler's informers read (nodes; pods in the phases the scheduler watches, with its
// field selector; namespaces; PVs, PVCs, storage classes, CSINodes, CSIDrivers, CSIStorageCapacities,
// VolumeAttachments; PDBs; services, RCs, RSs and StatefulSets for default spreading) into the in-memory
// API, then runs the pod's profile for one scheduling cycle of that pod alone (simulate's onlyPod): the
// other pending pods are cluster state, not scheduled; those nominated to a node hold capacity there.
// The answer is simulate --explain's: per-node filter rejections, per-plugin scores, preemption's
// nominated node and victims.
//
// Read-only by construction: the live client is handed on only as client::ListWatchers, and only list()
// is called on it; the scheduler runs against the in-memory copy, where its binding, status patches,
// events and evictions land.
//
// A pod already bound is evaluated as if pending (taken off its node): "where would it go now"; the
// result carries the node it is bound to (boundNode) and the table says so in a header line.

#include <chrono>
#include <string>
#include <vector>

#include "pkg/client/client.h"
#include "pkg/client/memory/memory_client.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/features/scheduler_features.h"
#include "pkg/simulator/simulator.h"
#include "pkg/util/result.h"

namespace ks::explain {

inline constexpr std::chrono::milliseconds kDefaultTimeout{60000};

struct ExplainArgs {
  bool help = false;
  std::string kubeconfig;  // --kubeconfig; else the configuration's clientConnection.kubeconfig
  std::string configPath;  // --config
  std::string output = "table";
  std::chrono::milliseconds timeout = kDefaultTimeout;  // --timeout: the whole command
  std::vector<std::string> featureGates;                 // --feature-gates values, as the daemon's
  std::string namespace_;
  std::string name;
};

// The subcommand's arguments (without "explain"): "--flag=value" or "--flag value", exactly one
// NAMESPACE/POD. Errors name the flag or argument ("unknown flag --foo").
Result<ExplainArgs> parseExplainArgs(const std::vector<std::string>& args);

// The configuration explain runs: `configPath` read as the daemon reads --config (strict decoding,
// defaults, validation); without one the daemon's default configuration (profile default-scheduler) with
// the upstream plugins kube-scheduler-cpp does not implement yet disabled (the daemon would refuse them).
// `features` are the gates' switches (GenericWorkload adds GangScheduling to the default plugins).
Result<config::KubeSchedulerConfiguration> explainConfig(const std::string& configPath,
                                                         const features::SchedulerFeatures& features = {});

struct LiveCopy {
  api::Pod pod;           // the pod to explain, as copied (unbound)
  std::string boundNode;  // the node it is bound to in the live cluster, "" when pending
};

// Lists every kind the scheduler reads from `live` into `cluster` (which should keep uids, see
// MemoryClientOptions::keepUidsOnCreate); PodGroups only with `genericWorkload` (their API group is served
// only when enabled). The pod namespace/name must be among the pods the scheduler sees:
// `pods "name" not found` when absent, an error naming the phase when it has terminated. A bound pod is
// copied without its node.
Result<LiveCopy> copyLiveCluster(client::ListWatchers& live, client::MemoryClient& cluster,
                                 const std::string& namespace_, const std::string& name,
                                 bool genericWorkload = false);

// copyLiveCluster into a fresh in-memory API, then one scheduling cycle of the pod by its profile (with
// GenericWorkload, of its PodGroup: its members are scheduled together, and the result says where the group
// stands). A pod whose schedulerName no profile serves, or that is being deleted, is an error.
Result<simulator::SimulationResult> explainPod(client::ListWatchers& live,
                                               const config::KubeSchedulerConfiguration& cfg,
                                               const std::string& namespace_, const std::string& name,
                                               std::chrono::milliseconds timeout = kDefaultTimeout,
                                               const features::SchedulerFeatures& features = {});

// The `explain` subcommand: prints the answer (table, or -o json); returns the exit code (0 answered,
// 1 failed, 2 bad arguments).
int runExplainCommand(const std::vector<std::string>& args);

}  // namespace ks::explain
