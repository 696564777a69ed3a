#pragma once
// Field tables (schema.h) of scheduling.k8s.io/v1beta1 (Workload, PodGroup and their parts). Every field of
// v1.37.2 is kept; no defaults.
// Hand-written: EmptyObject (the union members without fields: basic, single, all), both codecs.
// Shared: PodGroupResourceClaimStatus is core/v1's PodResourceClaimStatus (core_pod.h); the composite
// constraints and disruption mode are the pod group's, and both scheduling policies have one table (same
// fields, same numbers).

#include "pkg/api/scheduling.h"
#include "pkg/api/schema/schema.h"

#define KS_FIELDS_TypedLocalObjectReference(X) \
  X(apiGroup, "apiGroup", 1, OmitEmpty) \
  X(kind, "kind", 2, Always) \
  X(name, "name", 3, Always)

#define KS_FIELDS_GangSchedulingPolicy(X) \
  X(minCount, "minCount", 1, Always)

#define KS_FIELDS_PodGroupSchedulingPolicy(X) \
  X(basic, "basic", 1, OmitEmpty) \
  X(gang, "gang", 2, OmitEmpty)

#define KS_FIELDS_TopologyConstraint(X) \
  X(key, "key", 1, Always)

#define KS_FIELDS_PodGroupSchedulingConstraints(X) \
  X(topology, "topology", 1, OmitEmpty)

#define KS_FIELDS_PodGroupResourceClaim(X) \
  X(name, "name", 1, Always) \
  X(resourceClaimName, "resourceClaimName", 2, OmitEmpty) \
  X(resourceClaimTemplateName, "resourceClaimTemplateName", 3, OmitEmpty)

#define KS_FIELDS_DisruptionMode(X) \
  X(single, "single", 1, OmitEmpty) \
  X(all, "all", 2, OmitEmpty)

// schedulingConstraints has no omitempty here (Go writes null when absent), unlike in PodGroupSpec.
#define KS_FIELDS_PodGroupTemplate(X) \
  X(name, "name", 1, Always) \
  X(schedulingPolicy, "schedulingPolicy", 2, Always) \
  X(schedulingConstraints, "schedulingConstraints", 3, Nullable) \
  X(resourceClaims, "resourceClaims", 4, OmitEmpty) \
  X(disruptionMode, "disruptionMode", 5, OmitEmpty) \
  X(priorityClassName, "priorityClassName", 6, OmitEmpty) \
  X(priority, "priority", 7, OmitEmpty) \
  X(preemptionPolicy, "preemptionPolicy", 8, OmitEmpty)

#define KS_FIELDS_CompositeGangSchedulingPolicy(X) \
  X(minGroupCount, "minGroupCount", 1, Always)

#define KS_FIELDS_CompositePodGroupSchedulingPolicy(X) KS_FIELDS_PodGroupSchedulingPolicy(X)

#define KS_FIELDS_CompositePodGroupTemplate(X) \
  X(name, "name", 1, Always) \
  X(schedulingPolicy, "schedulingPolicy", 2, Always) \
  X(schedulingConstraints, "schedulingConstraints", 3, OmitEmpty) \
  X(disruptionMode, "disruptionMode", 4, OmitEmpty) \
  X(priorityClassName, "priorityClassName", 5, OmitEmpty) \
  X(priority, "priority", 6, OmitEmpty) \
  X(preemptionPolicy, "preemptionPolicy", 7, OmitEmpty) \
  X(podGroupTemplates, "podGroupTemplates", 8, OmitEmpty) \
  X(compositePodGroupTemplates, "compositePodGroupTemplates", 9, OmitEmpty)

#define KS_FIELDS_WorkloadSpec(X) \
  X(controllerRef, "controllerRef", 1, OmitEmpty) \
  X(podGroupTemplates, "podGroupTemplates", 2, Always) \
  X(compositePodGroupTemplates, "compositePodGroupTemplates", 3, OmitEmpty)

#define KS_FIELDS_Workload(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)

#define KS_FIELDS_WorkloadReference(X) \
  X(workloadName, "workloadName", 1, Always) \
  X(templateName, "templateName", 2, Always)

#define KS_FIELDS_PodGroupSpec(X) \
  X(parentCompositePodGroupName, "parentCompositePodGroupName", 1, OmitEmpty) \
  X(workloadRef, "workloadRef", 2, OmitEmpty) \
  X(schedulingPolicy, "schedulingPolicy", 3, Always) \
  X(schedulingConstraints, "schedulingConstraints", 4, OmitEmpty) \
  X(resourceClaims, "resourceClaims", 5, OmitEmpty) \
  X(disruptionMode, "disruptionMode", 6, OmitEmpty) \
  X(priorityClassName, "priorityClassName", 7, OmitEmpty) \
  X(priority, "priority", 8, OmitEmpty) \
  X(preemptionPolicy, "preemptionPolicy", 9, OmitEmpty)

#define KS_FIELDS_PodGroupStatus(X) \
  X(conditions, "conditions", 1, OmitEmpty) \
  X(resourceClaimStatuses, "resourceClaimStatuses", 2, OmitEmpty)

#define KS_FIELDS_PodGroup(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always) \
  X(status, "status", 3, Always)
