#pragma once
// scheduling.k8s.io/v1beta1 (gang scheduling, GenericWorkload): Workload and PodGroup with every field of
// v1.37.2's API. Field names are the JSON names; optional Go pointers are std::optional. The group is beta
// and off by default: kube-apiserver serves it only with --runtime-config=scheduling.k8s.io/v1beta1=true
// (see servedByDefault in kinds.h). No defaults are applied on decoding: the server's one (a PodGroup's
// preemptionPolicy, under PodGroupPreemptionPolicy) depends on its gates and is already in what it serves.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/meta.h"
#include "pkg/api/resource.h"

namespace ks::api {

// PodGroupStatus condition types and reasons.
inline constexpr std::string_view kPodGroupInitiallyScheduled = "PodGroupInitiallyScheduled";
inline constexpr std::string_view kPodGroupDisruptionTarget = "DisruptionTarget";
inline constexpr std::string_view kPodGroupReasonUnschedulable = "Unschedulable";
inline constexpr std::string_view kPodGroupReasonSchedulerError = "SchedulerError";
inline constexpr std::string_view kPodGroupReasonPreemptionByScheduler = "PreemptionByScheduler";

// A member of a one-of union that carries no fields: its presence is the choice ("basic": {}).
struct EmptyObject {
  bool operator==(const EmptyObject&) const = default;
};

struct TypedLocalObjectReference {
  std::string apiGroup;
  std::string kind;
  std::string name;
  bool operator==(const TypedLocalObjectReference&) const = default;
};

// PodGroupSchedulingPolicy and CompositePodGroupSchedulingPolicy: exactly one of basic and gang is set.
template <typename Gang>
struct SchedulingPolicy {
  std::optional<EmptyObject> basic;
  std::optional<Gang> gang;
  bool operator==(const SchedulingPolicy&) const = default;
};

struct GangSchedulingPolicy {
  int32_t minCount = 0;
  bool operator==(const GangSchedulingPolicy&) const = default;
};
using PodGroupSchedulingPolicy = SchedulingPolicy<GangSchedulingPolicy>;

struct TopologyConstraint {
  std::string key;
  bool operator==(const TopologyConstraint&) const = default;
};

// PodGroupSchedulingConstraints and CompositePodGroupSchedulingConstraints (TopologyAwareWorkloadScheduling).
struct PodGroupSchedulingConstraints {
  std::vector<TopologyConstraint> topology;
  bool operator==(const PodGroupSchedulingConstraints&) const = default;
};
using CompositePodGroupSchedulingConstraints = PodGroupSchedulingConstraints;

// A claim shared by the group's pods (DRAWorkloadResourceClaims): an existing claim or a template.
struct PodGroupResourceClaim {
  std::string name;
  std::optional<std::string> resourceClaimName;
  std::optional<std::string> resourceClaimTemplateName;
  bool operator==(const PodGroupResourceClaim&) const = default;
};
// The claim generated for a PodGroupResourceClaim with a template: the fields (and field numbers) of a pod's.
using PodGroupResourceClaimStatus = PodResourceClaimStatus;

// DisruptionMode and CompositeDisruptionMode: exactly one of single and all is set.
struct DisruptionMode {
  std::optional<EmptyObject> single;
  std::optional<EmptyObject> all;
  bool operator==(const DisruptionMode&) const = default;
};
using CompositeDisruptionMode = DisruptionMode;

inline constexpr std::string_view kPodGroupPreemptLowerPriority = "PreemptLowerPriority";
inline constexpr std::string_view kPodGroupPreemptNever = "Never";

struct PodGroupTemplate {
  std::string name;
  PodGroupSchedulingPolicy schedulingPolicy;
  std::optional<PodGroupSchedulingConstraints> schedulingConstraints;
  std::vector<PodGroupResourceClaim> resourceClaims;
  std::optional<DisruptionMode> disruptionMode;
  std::string priorityClassName;
  std::optional<int32_t> priority;
  std::optional<std::string> preemptionPolicy;  // PreemptLowerPriority or Never
  bool operator==(const PodGroupTemplate&) const = default;
};

struct CompositeGangSchedulingPolicy {
  int32_t minGroupCount = 0;
  bool operator==(const CompositeGangSchedulingPolicy&) const = default;
};
using CompositePodGroupSchedulingPolicy = SchedulingPolicy<CompositeGangSchedulingPolicy>;

// A node of the template tree (CompositePodGroup): pod group templates and nested composite templates, at
// most WorkloadMaxTreeDepth (4) levels as the server validates.
struct CompositePodGroupTemplate {
  std::string name;
  CompositePodGroupSchedulingPolicy schedulingPolicy;
  std::optional<CompositePodGroupSchedulingConstraints> schedulingConstraints;
  std::optional<CompositeDisruptionMode> disruptionMode;
  std::string priorityClassName;
  std::optional<int32_t> priority;
  std::optional<std::string> preemptionPolicy;
  std::vector<PodGroupTemplate> podGroupTemplates;
  std::vector<CompositePodGroupTemplate> compositePodGroupTemplates;
  bool operator==(const CompositePodGroupTemplate&) const = default;
};

struct WorkloadSpec {
  std::optional<TypedLocalObjectReference> controllerRef;
  std::vector<PodGroupTemplate> podGroupTemplates;  // at most 8
  std::vector<CompositePodGroupTemplate> compositePodGroupTemplates;
  bool operator==(const WorkloadSpec&) const = default;
};

struct Workload {
  static constexpr std::string_view kKind = "Workload";
  static constexpr std::string_view kApiVersion = "scheduling.k8s.io/v1beta1";
  ObjectMeta metadata;
  WorkloadSpec spec;
  bool operator==(const Workload&) const = default;
};

struct WorkloadReference {
  std::string workloadName;
  std::string templateName;
  bool operator==(const WorkloadReference&) const = default;
};

struct PodGroupSpec {
  std::optional<std::string> parentCompositePodGroupName;
  std::optional<WorkloadReference> workloadRef;
  PodGroupSchedulingPolicy schedulingPolicy;
  std::optional<PodGroupSchedulingConstraints> schedulingConstraints;
  std::vector<PodGroupResourceClaim> resourceClaims;
  std::optional<DisruptionMode> disruptionMode;
  std::string priorityClassName;
  std::optional<int32_t> priority;
  std::optional<std::string> preemptionPolicy;
  bool operator==(const PodGroupSpec&) const = default;
};

struct PodGroupStatus {
  std::vector<Condition> conditions;  // PodGroupInitiallyScheduled, DisruptionTarget
  std::vector<PodGroupResourceClaimStatus> resourceClaimStatuses;
  bool operator==(const PodGroupStatus&) const = default;
};

// The runtime instance of a group of pods scheduled together; pods name it in spec.schedulingGroup.
struct PodGroup {
  static constexpr std::string_view kKind = "PodGroup";
  static constexpr std::string_view kApiVersion = "scheduling.k8s.io/v1beta1";
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;
  bool operator==(const PodGroup&) const = default;
};

}  // namespace ks::api
