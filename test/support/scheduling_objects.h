#pragma once
// The scheduling.k8s.io/v1beta1 objects of test/api/proto/testdata/objects (workload.yaml,
// workload_composite.yaml, podgroup.yaml, pod_schedulinggroup.yaml), every field set, as the model holds
// them after kube-apiserver v1.37.2 admitted them: what the codec tests and the informer integration test
// compare the decoded objects with (header only, no library).

#include <chrono>
#include <string>

#include "pkg/api/scheduling.h"

namespace ks::api::testing {

inline PodGroupResourceClaim templateClaim() {
  return {.name = "shared-gpu", .resourceClaimTemplateName = "gpu-template"};
}
inline PodGroupResourceClaim existingClaim() {
  return {.name = "dataset", .resourceClaimName = "dataset-claim"};
}
inline PodGroupSchedulingPolicy gangPolicy(int32_t minCount) {
  return {.gang = GangSchedulingPolicy{minCount}};
}
inline PodGroupSchedulingPolicy basicPolicy() {
  return {.basic = EmptyObject{}};
}
inline PodGroupSchedulingConstraints topology(const std::string& key) {
  return {.topology = {TopologyConstraint{key}}};
}
inline DisruptionMode disruptAll() {
  return {.all = EmptyObject{}};
}
inline DisruptionMode disruptSingle() {
  return {.single = EmptyObject{}};
}

// workload.yaml: pod group templates (exactly one of the two template lists may be set).
inline WorkloadSpec expectedWorkloadSpec() {
  WorkloadSpec s;
  s.controllerRef = TypedLocalObjectReference{.apiGroup = "batch", .kind = "Job", .name = "training"};
  s.podGroupTemplates = {
      {.name = "workers",
       .schedulingPolicy = gangPolicy(4),
       .schedulingConstraints = topology("topology.kubernetes.io/zone"),
       .resourceClaims = {templateClaim(), existingClaim()},
       .disruptionMode = disruptAll(),
       .priorityClassName = "high",
       .priority = 1000,
       .preemptionPolicy = "PreemptLowerPriority"},
      {.name = "driver",
       .schedulingPolicy = basicPolicy(),
       .disruptionMode = disruptSingle(),
       .priorityClassName = "high",
       .priority = 1000,
       .preemptionPolicy = "Never"},
  };
  return s;
}

// workload_composite.yaml: a tree of composite templates, two levels deep.
inline WorkloadSpec expectedCompositeWorkloadSpec() {
  CompositePodGroupTemplate inner{
      .name = "inner",
      .schedulingPolicy = {.basic = EmptyObject{}},
      .disruptionMode = disruptSingle(),
      .priorityClassName = "high",
      .priority = 1000,
      .podGroupTemplates = {{.name = "stage-b",
                             .schedulingPolicy = basicPolicy(),
                             .priorityClassName = "high",
                             .priority = 1000}},
  };
  CompositePodGroupTemplate stages{
      .name = "stages",
      .schedulingPolicy = {.gang = CompositeGangSchedulingPolicy{2}},
      .schedulingConstraints = topology("topology.kubernetes.io/region"),
      .disruptionMode = disruptAll(),
      .priorityClassName = "high",
      .priority = 1000,
      .preemptionPolicy = "Never",
      .podGroupTemplates = {{.name = "stage-a",
                             .schedulingPolicy = gangPolicy(2),
                             .priorityClassName = "high",
                             .priority = 1000}},
      .compositePodGroupTemplates = {inner},
  };
  WorkloadSpec s;
  s.controllerRef = TypedLocalObjectReference{.apiGroup = "batch", .kind = "Job", .name = "training"};
  s.compositePodGroupTemplates = {stages};
  return s;
}

// podgroup.yaml: the instance of workload.yaml's "workers" template, with that template's policy fields.
inline PodGroupSpec expectedPodGroupSpec() {
  const PodGroupTemplate workers = expectedWorkloadSpec().podGroupTemplates.at(0);
  return {.parentCompositePodGroupName = "training-stages-0",
          .workloadRef = WorkloadReference{.workloadName = "training", .templateName = workers.name},
          .schedulingPolicy = workers.schedulingPolicy,
          .schedulingConstraints = workers.schedulingConstraints,
          .resourceClaims = workers.resourceClaims,
          .disruptionMode = workers.disruptionMode,
          .priorityClassName = workers.priorityClassName,
          .priority = workers.priority,
          .preemptionPolicy = workers.preemptionPolicy};
}

// The status record.py writes through the status subresource (the integration test too).
inline PodGroupStatus expectedPodGroupStatus() {
  return {.conditions = {{.type = "PodGroupInitiallyScheduled",
                          .status = "False",
                          .observedGeneration = 1,
                          .lastTransitionTime = Time{std::chrono::seconds(1795860000)},
                          .reason = "Unschedulable",
                          .message = "0/3 nodes are available: 3 Insufficient cpu."},
                         {.type = "DisruptionTarget",
                          .status = "True",
                          .lastTransitionTime = Time{std::chrono::seconds(1795860300)},
                          .reason = "PreemptionByScheduler",
                          .message = "preempted by gang/other"}},
          .resourceClaimStatuses = {
              {.name = "shared-gpu", .resourceClaimName = "training-workers-0-shared-gpu-abcde"},
              {.name = "dataset"}}};
}

}  // namespace ks::api::testing
