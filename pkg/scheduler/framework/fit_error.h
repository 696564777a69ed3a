#pragma once
// Why a pod fits no node (upstream framework.Diagnosis and FitError): the per-node filter statuses, the
// plugins that rejected the pod (they decide which cluster events requeue it), and the message users
// see in the FailedScheduling event and PodScheduled condition.

#include <set>
#include <string>

#include "pkg/scheduler/framework/interface.h"

namespace ks::framework {

struct Diagnosis {
  NodeToStatus nodeToStatus;
  // Plugins that returned Unschedulable / UnschedulableAndUnresolvable / Pending.
  std::set<std::string> unschedulablePlugins;
  // Plugins that returned Pending.
  std::set<std::string> pendingPlugins;
  // Set when PreFilter rejected the pod: its message replaces the per-node reasons.
  std::string preFilterMsg;
  // The PostFilter (preemption) outcome, appended to the message.
  std::string postFilterMsg;

  // Records the status' plugin as unschedulable or pending (upstream AddPluginStatus).
  void addPluginStatus(const Status& status);
};

struct FitError {
  int numAllNodes = 0;
  Diagnosis diagnosis;

  // "0/N nodes are available: <count> <reason>, ... ." exactly as upstream's FitError.Error(): the
  // PreFilter message instead of the per-node reasons when PreFilter rejected; reasons counted per
  // node (absent nodes count with the absent-nodes status), "<count> <reason>" strings sorted as
  // strings; the PostFilter message appended.
  std::string message() const;
};

// Upstream's ErrNoNodesAvailable.
inline constexpr std::string_view kNoNodesAvailableMsg = "no nodes available to schedule pods";

// Upstream truncates event notes to 1024 bytes (events/v1 note limit), keeping the start.
std::string truncateMessage(std::string message);

}  // namespace ks::framework
