#pragma once
// DynamicResources (upstream plugins/dynamicresources/dynamicresources.go, v1.34.4): a pod's
// ResourceClaims decide where it may run, and the claims the scheduler allocates get their devices on the
// way.
//
//   PreEnqueue  the pod's claims exist, are not being deleted and (generated ones) are owned by the pod.
//   PreFilter   every claim is allocated (and may be reserved for the pod) or is allocatable: its device
//               classes exist, no other pod's allocation of it is in flight. Builds the cycle's allocator
//               from the allocated devices (API + in flight), the slices and the classes. Skip without
//               claims.
//   Filter      allocated claims' node selectors; the allocator for the unallocated ones on this node,
//               within filterTimeout ("timed out trying to allocate devices").
//   Score       (DRAPrioritizedList) prefers nodes where the claims got earlier firstAvailable
//               alternatives: 8 - i per allocated subrequest i; normalized to [0, 100].
//   PostFilter  deallocates one allocated claim that was unavailable on some node and not used by another
//               pod, so the next attempt may allocate it elsewhere; without one, Unschedulable and no reason.
//   Reserve     the node's allocations become in flight: concurrent pods do not get the same devices.
//   Unreserve   drops them (and an assumed claim), removes the pod from reservedFor.
//   PreBind     writes finalizer, allocation and reservedFor to each claim not yet reserved for the pod;
//               with DRADeviceBindingConditions waits for the devices' binding conditions.
//
// Extended resources backed by DRA (DRAExtendedResource, GA in v1.37): the claim the scheduler makes for
// them joins the pod's claims at the end; extended_dynamic_resources.h describes its life.

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/client/client.h"
#include "pkg/dra/cel/compile.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/extended_dynamic_resources.h"
#include "pkg/util/result.h"

namespace ks::plugins::dynamicresources {

class DefaultDRAManager;

// Upstream computeScore: for each claim (allocated ones use their allocation, the others the next entry of
// `allocations`, Filter's results for the node in claim order), adds
// FirstAvailableDeviceRequestMaxSize (8) - i for each allocated subrequest i of a firstAvailable request.
// Fails when `allocations` holds fewer results than there are unallocated claims.
Result<int64_t> computeScore(std::span<const std::shared_ptr<const api::ResourceClaim>> claims,
                             std::span<const api::AllocationResult> allocations);

// The gates the plugin reads (upstream feature.Features), v1.34 defaults but for DRADeviceTaints and
// DRADeviceTaintRules (GA and on in v1.37).
struct DynamicResourcesFeatures {
  bool enableDynamicResourceAllocation = true;
  bool enableDRASchedulerFilterTimeout = true;
  bool enableSchedulingQueueHint = true;  // SchedulerQueueingHints, GA and locked
  bool enableDRAAdminAccess = true;
  bool enableDRAPrioritizedList = true;
  bool enableDRAResourceClaimDeviceStatus = true;
  bool enableDRADeviceTaints = true;
  // The DRA manager applies DeviceTaintRules to the slices (only when the plugin builds its own manager).
  bool enableDRADeviceTaintRules = true;
  bool enablePartitionableDevices = true;
  bool enableDRADeviceBindingConditions = true;
  bool enableConsumableCapacity = true;
  // Beta in v1.37 but off by default: on only with --min-compatibility-version >= 1.37 (the default is
  // 1.36).
  bool enableDRAFractionalCapacityRange = false;
  bool enableDRAExtendedResource = true;  // GA and locked on in v1.37
};

class DynamicResources final : public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::PodGroupPostFilterPlugin,
                               public framework::ScorePlugin,
                               public framework::ScoreExtensions,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::EnqueueExtensions,
                               public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "DynamicResources";
  using Features = DynamicResourcesFeatures;
  // The cycle state (private to the plugin's source file).
  struct StateData;

  // Args: DynamicResourcesArgs (validated; null means defaults). Uses Handle::sharedDRAManager(), or when
  // there is none builds its own over Handle::sharedInformerFactory(); needs Handle::client(). Without
  // the DynamicResourceAllocation gate the plugin does nothing.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle,
                                                           Features features = Features());
  ~DynamicResources() override;

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): nothing; Unschedulable (not signable) for a pod with resource
  // claims.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  framework::Status preEnqueue(const framework::PodInfo& pod) override;
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;
  framework::Status postFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& filteredNodeStatusMap,
                               framework::PostFilterResult& result) override;
  // Upstream PodGroupPostFilter (GenericWorkload): for each queued member the cycle filtered, what PostFilter
  // does for a pod (deallocate one unavailable claim, or delete an earlier extended-resource claim), then
  // Unschedulable "deallocation and deletion of ResourceClaims completed" so that the next plugin
  // (DefaultPreemption) runs. PodGroup-scoped claims (DRAWorkloadResourceClaims, alpha) are not modelled.
  framework::Status podGroupPostFilter(framework::CycleState& state, const framework::PodGroupInfo& group,
                                       const framework::PodGroupSchedulingFunc& schedule,
                                       framework::PodGroupPostFilterResult& result) override;
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return this; }
  framework::Status normalizeScore(framework::CycleState& state, const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) override;
  framework::Status reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            const std::string& nodeName) override;
  void unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& nodeName) override;
  // Success with allowParallel: its PreBind may run beside the other parallel PreBind plugins.
  framework::Status preBindPreFlight(framework::CycleState& state, const framework::PodInfo& pod,
                                     const std::string& nodeName,
                                     framework::PreBindPreFlightResult& result) override;
  framework::Status preBind(framework::CycleState& state, const framework::PodInfo& pod,
                            const std::string& nodeName, std::stop_token stop) override;
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queueing hints (upstream isSchedulableAfterClaimChange / isSchedulableAfterTargetPodUpdate; the latter
  // only sees the rejected pod's own updates, so it checks that all its claims exist now).
  Result<framework::QueueingHint> isSchedulableAfterClaimChange(const api::Pod& pod,
                                                                const framework::EventObject& oldObj,
                                                                const framework::EventObject& newObj) const;
  Result<framework::QueueingHint> isSchedulableAfterTargetPodUpdate(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;

  // The manager the plugin uses (tests).
  framework::SharedDRAManager* draManager() const { return draManager_; }
  // Upstream's tests use a 1ns timeout, which the args (milliseconds) cannot carry.
  void setFilterTimeoutForTest(std::chrono::nanoseconds timeout) { filterTimeout_ = timeout; }

 private:
  DynamicResources(framework::Handle& handle, Features features, std::chrono::nanoseconds filterTimeout,
                   std::chrono::nanoseconds bindingTimeout, framework::SharedDRAManager* draManager,
                   std::unique_ptr<DefaultDRAManager> ownManager);
  // The disabled plugin.
  explicit DynamicResources(framework::Handle& handle);

  // Whether each claim of the pod exists, is not being deleted and (generated) belongs to the pod;
  // calls `cb` for each one found. The error says why the pod cannot be scheduled now.
  Result<void> foreachPodResourceClaim(
      const api::Pod& pod, const std::function<void(const framework::ResourceClaimPtr&)>& cb) const;
  framework::Status validateDeviceClass(const std::string& className, const std::string& requestName) const;
  // Records the allocation (if Reserve made one) and the reservation in the claim's status; creates the
  // extended-resource claim first and records it in the pod's status afterwards. Adds to
  // `inFlightWhenBound` the UID under which the allocation is in flight: it stays in flight until PreBind as
  // a whole succeeds, or else until Unreserve (upstream v1.37 prebindSuccessCleanup).
  Result<framework::ResourceClaimPtr> bindClaim(StateData& state, size_t index, const api::Pod& pod,
                                                const std::string& nodeName, std::stop_token stop,
                                                std::vector<std::string>& inFlightWhenBound);
  // PreBind but for dropping the bound claims' in-flight allocations, which preBind does on success.
  framework::Status bindClaimsAndWait(framework::CycleState& state, const framework::PodInfo& pod,
                                      const std::string& nodeName, std::stop_token stop,
                                      std::vector<std::string>& inFlightWhenBound);

  // Extended resources backed by DRA (extended_dynamic_resources.cpp).
  // Sets `claim` to the pod's extended-resource claim (found or in memory), null when there is none.
  framework::Status preFilterExtendedResources(const api::Pod& pod, ExtendedResourceState& ext,
                                               framework::ResourceClaimPtr& claim) const;
  // Sets `out` to the node's variant of the claim and its mappings; out.claim null: nothing to allocate
  // for the extended resources on this node.
  framework::Status filterExtendedResources(const ExtendedResourceState& ext,
                                            const framework::ResourceClaimPtr& extendedResourceClaim,
                                            bool noUserClaim, const api::Pod& pod,
                                            const framework::NodeInfo& nodeInfo,
                                            ExtendedResourceState::NodeClaim& out) const;
  Result<framework::ResourceClaimPtr> createExtendedResourceClaimInAPI(const api::Pod& pod,
                                                                       const std::string& nodeName,
                                                                       const ExtendedResourceState& ext);
  Result<void> patchPodExtendedResourceClaimStatus(const api::Pod& pod, const api::ResourceClaim& claim,
                                                   const std::string& nodeName,
                                                   const ExtendedResourceState& ext);
  // Upstream deallocateOrDeletePodClaims: deallocates the first unavailable claim no other pod uses
  // ("deallocation of ResourceClaim completed"), else deletes the pod's extended-resource claim from an
  // earlier attempt ("deletion of ResourceClaim completed"); Unschedulable without a reason when neither.
  framework::Status deallocateOrDeletePodClaims(const api::Pod& pod, StateData& state);
  // Removes the scheduler's finalizer, then deletes the claim (gone already is fine).
  Result<void> deleteClaim(api::ResourceClaim claim);
  void waitForExtendedClaimInAssumeCache(const framework::ResourceClaimPtr& claim, std::stop_token stop);
  void unreserveExtendedResourceClaim(const api::Pod& pod, const ExtendedResourceState& ext,
                                      const framework::ResourceClaimPtr& claim);
  Result<bool> isClaimReadyForBinding(const api::ResourceClaim& claim) const;
  bool isClaimTimeout(const api::ResourceClaim& claim) const;
  Result<bool> isPodReadyForBinding(StateData& state) const;
  // scheduler_dra_bindingconditions_{wait_duration_seconds,allocations_total} after PreBind's wait.
  void recordBindingConditionsMetrics(const std::vector<framework::ResourceClaimPtr>& claims,
                                      std::string_view statusLabel, double seconds) const;

  bool enabled_ = false;
  Features features_;
  std::chrono::nanoseconds filterTimeout_{0};
  std::chrono::nanoseconds bindingTimeout_{0};  // DynamicResourcesArgs.bindingTimeout
  framework::Handle& handle_;
  client::ResourceClaimWriter* client_ = nullptr;
  std::shared_ptr<cel::Cache> celCache_;
  framework::SharedDRAManager* draManager_ = nullptr;
  std::unique_ptr<DefaultDRAManager> ownManager_;
};

}  // namespace ks::plugins::dynamicresources
