#pragma once
// The scheduler extender contract (upstream k8s.io/kube-scheduler/framework Extender and the extenderv1
// types it speaks in): an out-of-process party that filters and scores the nodes the plugins found
// feasible, may bind the pod itself, and may veto or add to preemption victims. HTTPExtender
// (pkg/scheduler/extender) talks to one over HTTP(S); tests use fakes.
//
// Threads: filter runs on the scheduling thread; prioritize on a thread per extender (upstream's
// goroutines), concurrently with the other extenders'; bind on a binding thread; processPreemption on the
// scheduling thread. Implementations must be safe for these concurrent calls.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/util/result.h"

namespace ks::framework {

// The name the scheduler records among a pod's rejectors when extenders filtered nodes out (upstream
// framework.ExtenderName); every cluster event requeues such a pod.
inline constexpr std::string_view kExtenderName = "Extender";

// The range of an extender's node scores (extenderv1.MinExtenderPriority / MaxExtenderPriority).
inline constexpr int64_t kMinExtenderPriority = 0;
inline constexpr int64_t kMaxExtenderPriority = 10;

// The pods to evict from one node so that the preemptor fits, most important first, and how many of
// them take a PodDisruptionBudget below its allowed disruptions (upstream extenderv1.Victims).
struct Victims {
  std::vector<PodInfoPtr> pods;
  int64_t numPDBViolations = 0;
};

// Node name -> failure message (extenderv1.FailedNodesMap).
using FailedNodesMap = std::map<std::string, std::string>;

struct ExtenderFilterResult {
  std::vector<NodeInfoPtr> nodes;  // the nodes that passed, a subset of the input
  FailedNodesMap failedNodes;
  FailedNodesMap failedAndUnresolvableNodes;
};

struct HostPriority {
  std::string host;
  int64_t score = 0;
  bool operator==(const HostPriority&) const = default;
};
using HostPriorityList = std::vector<HostPriority>;

struct ExtenderScores {
  HostPriorityList priorities;
  int64_t weight = 0;
};

// What Bind sends (the fields of the v1.Binding upstream builds).
struct ExtenderBinding {
  std::string podName;
  std::string podNamespace;
  std::string podUID;
  std::string node;
};

class Extender {
 public:
  virtual ~Extender() = default;
  // Identifies the extender (its URL prefix for HTTP extenders).
  virtual std::string name() const = 0;
  // The subset of `nodes` that passes, and why the others failed. An error fails the scheduling attempt
  // unless isIgnorable().
  virtual Result<ExtenderFilterResult> filter(const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes) = 0;
  // Scores (0..kMaxExtenderPriority expected, not enforced, as upstream) and this extender's weight.
  virtual Result<ExtenderScores> prioritize(const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes) = 0;
  // Binds the pod (only called when isBinder()).
  virtual Result<void> bind(const ExtenderBinding& binding) = 0;
  virtual bool isBinder() const = 0;
  virtual bool isPrioritizer() const = 0;
  virtual bool isFilter() const = 0;
  // Whether the pod requests one of the resources this extender manages (all pods when it manages none).
  virtual bool isInterested(const api::Pod& pod) const = 0;
  // The candidates the extender accepts, with the victims it wants (it may drop nodes or add victims).
  // `nodeInfos` resolves the victims the extender names.
  virtual Result<std::map<std::string, Victims>> processPreemption(
      const api::Pod& pod, const std::map<std::string, Victims>& nodeNameToVictims,
      const NodeInfoLister& nodeInfos) = 0;
  virtual bool supportsPreemption() const = 0;
  // An error of an ignorable extender skips it instead of failing the attempt.
  virtual bool isIgnorable() const = 0;
};

}  // namespace ks::framework
