#pragma once
// GangScheduling (upstream plugins/gangscheduling, GenericWorkload; composite pod groups are not
// modelled): keeps a gang's pods out of activeQ until the scheduler knows its PodGroup and at least
// minCount members (PreEnqueue), holds each placed member at Permit until minCount members are
// scheduled (then lets the waiting ones go), and tells the pod-group cycle whether the gang can still be
// placed (PlacementFeasible). Pods without spec.schedulingGroup, and groups without a gang policy, pass.

#include <chrono>
#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/util/result.h"

namespace ks::plugins::gangscheduling {

// How long a member may wait at Permit for the rest of its gang.
inline constexpr std::chrono::milliseconds kPermitTimeout = std::chrono::minutes(5);

class GangScheduling final : public framework::PreEnqueuePlugin,
                             public framework::PermitPlugin,
                             public framework::PlacementFeasiblePlugin,
                             public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "GangScheduling";

  // Takes no args. Reads the pod groups through handle.podGroupManager() (live, the cache) and
  // handle.snapshotSharedLister()->podGroupManager() (the cycle's snapshot) when it runs.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);
  explicit GangScheduling(framework::Handle& handle) : handle_(handle) {}

  std::string_view name() const override { return kName; }

  // Success for a non-member or a group without a gang policy. UnschedulableAndUnresolvable "waiting for
  // pods's pod group \"<name>\" to appear in scheduling queue" while the PodGroup isn't known, "waiting for
  // minCount pods from a gang to appear in scheduling queue" while fewer than minCount members are; Error
  // "pod group state not found for pod group <ns>/<name>" without a state (can't happen: the object is
  // kept in it). Queue callers' threads.
  framework::Status preEnqueue(const framework::PodInfo& pod) override;

  // Success for a non-member or a group without a gang policy. With fewer than minCount members scheduled
  // (assumed or bound, this one included): activates the group's unscheduled members and returns Wait
  // "waiting for minCount pods from a gang to be scheduled" with kPermitTimeout; else allows every
  // assumed member waiting at Permit and returns Success. Error "failed to get podGroup <ns>/<name>: ..."
  // when the cycle's snapshot doesn't know the group. Scheduling thread.
  framework::Status permit(framework::CycleState& state, const framework::PodInfo& pod,
                           const std::string& nodeName, std::chrono::milliseconds& timeout) override;

  // Unschedulable "minCount (<m>) cannot be satisfied: <s> scheduled, <r> remaining" when scheduled +
  // remaining < minCount; Wait "minCount (<m>) is not yet satisfied: ..." while scheduled < minCount;
  // else Success. minCount is 1 for a basic group.
  framework::Status placementFeasible(framework::CycleState& placementState, const framework::PodGroupInfo& group,
                                      const framework::PlacementProgress& progress) override;

  // UnscheduledPod Add and AssignedPod Add (a member of the same group), PodGroup Add (the pod's group),
  // PodGroup Update (the pod's group, when a gang's minCount decreased).
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // The hints (upstream isSchedulableAfterPodAdded, ...PodGroupAdded, ...PodGroupUpdated).
  Result<framework::QueueingHint> isSchedulableAfterPodAdded(const api::Pod& pod, const framework::EventObject& oldObj,
                                                             const framework::EventObject& newObj) const;
  Result<framework::QueueingHint> isSchedulableAfterPodGroupAdded(const api::Pod& pod,
                                                                  const framework::EventObject& oldObj,
                                                                  const framework::EventObject& newObj) const;
  Result<framework::QueueingHint> isSchedulableAfterPodGroupUpdated(const api::Pod& pod,
                                                                    const framework::EventObject& oldObj,
                                                                    const framework::EventObject& newObj) const;

 private:
  framework::Handle& handle_;
};

}  // namespace ks::plugins::gangscheduling
