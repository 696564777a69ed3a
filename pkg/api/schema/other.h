#pragma once
// Field tables (schema.h): other (being converted).

#define KS_FIELDS_TopologySelectorLabelRequirement(X) \
  X(key, "key", 1, Always) \
  X(values, "values", 2, Always)

#define KS_FIELDS_TopologySelectorTerm(X) \
  X(matchLabelExpressions, "matchLabelExpressions", 1, OmitEmpty)

#define KS_FIELDS_StorageClass(X) \
  X(metadata, "metadata", 1, Always) \
  X(provisioner, "provisioner", 2, Always) \
  X(parameters, "parameters", 3, OmitEmpty) \
  X(reclaimPolicy, "reclaimPolicy", 4, OmitEmpty) \
  X(allowVolumeExpansion, "allowVolumeExpansion", 6, OmitEmpty) \
  X(volumeBindingMode, "volumeBindingMode", 7, OmitEmpty) \
  X(allowedTopologies, "allowedTopologies", 8, OmitEmpty)

#define KS_FIELDS_VolumeNodeResources(X) \
  X(count, "count", 1, OmitEmpty)

#define KS_FIELDS_CSINodeDriver(X) \
  X(name, "name", 1, Always) \
  X(nodeID, "nodeID", 2, Always) \
  X(topologyKeys, "topologyKeys", 3, OmitEmpty) \
  X(allocatable, "allocatable", 4, OmitEmpty)

#define KS_FIELDS_CSINode(X) \
  X(metadata, "metadata", 1, Always) \
  X(drivers, "drivers", 0, OmitEmpty)

#define KS_FIELDS_CSIDriverSpec(X) \
  X(attachRequired, "attachRequired", 1, OmitEmpty) \
  X(podInfoOnMount, "podInfoOnMount", 2, OmitEmpty) \
  X(volumeLifecycleModes, "volumeLifecycleModes", 3, OmitEmpty) \
  X(storageCapacity, "storageCapacity", 4, OmitEmpty) \
  X(fsGroupPolicy, "fsGroupPolicy", 5, OmitEmpty) \
  X(preventPodSchedulingIfMissing, "preventPodSchedulingIfMissing", 11, OmitEmpty)

#define KS_FIELDS_CSIDriver(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)

#define KS_FIELDS_CSIStorageCapacity(X) \
  X(metadata, "metadata", 1, Always) \
  X(nodeTopology, "nodeTopology", 2, OmitEmpty) \
  X(storageClassName, "storageClassName", 3, Always) \
  X(capacity, "capacity", 4, OmitEmpty) \
  X(maximumVolumeSize, "maximumVolumeSize", 5, OmitEmpty)

#define KS_FIELDS_VolumeAttachment(X) \
  X(metadata, "metadata", 1, Always) \
  X(attacher, "attacher", 0, OmitEmpty) \
  X(nodeName, "nodeName", 0, OmitEmpty) \
  X(persistentVolumeName, "persistentVolumeName", 0, OmitEmpty) \
  X(attached, "attached", 0, OmitEmpty)

#define KS_FIELDS_PodDisruptionBudgetSpec(X) \
  X(minAvailable, "minAvailable", 1, OmitEmpty) \
  X(selector, "selector", 2, OmitEmpty) \
  X(maxUnavailable, "maxUnavailable", 3, OmitEmpty) \
  X(unhealthyPodEvictionPolicy, "unhealthyPodEvictionPolicy", 4, OmitEmpty)

#define KS_FIELDS_PodDisruptionBudgetStatus(X) \
  X(observedGeneration, "observedGeneration", 1, OmitEmpty) \
  X(disruptedPods, "disruptedPods", 2, OmitEmpty) \
  X(disruptionsAllowed, "disruptionsAllowed", 3, Always) \
  X(currentHealthy, "currentHealthy", 4, Always) \
  X(desiredHealthy, "desiredHealthy", 5, Always) \
  X(expectedPods, "expectedPods", 6, Always)

#define KS_FIELDS_PodDisruptionBudget(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always) \
  X(status, "status", 3, Always)

#define KS_FIELDS_LeaseSpec(X) \
  X(holderIdentity, "holderIdentity", 0, OmitEmpty) \
  X(leaseDurationSeconds, "leaseDurationSeconds", 0, OmitEmpty) \
  X(acquireTime, "acquireTime", 0, MicroTime) \
  X(renewTime, "renewTime", 0, MicroTime) \
  X(leaseTransitions, "leaseTransitions", 0, OmitEmpty)

#define KS_FIELDS_Lease(X) \
  X(metadata, "metadata", 0, Always) \
  X(spec, "spec", 0, Always)

#define KS_FIELDS_EventSeries(X) \
  X(count, "count", 0, Always) \
  X(lastObservedTime, "lastObservedTime", 0, OmitEmpty)

#define KS_FIELDS_Event(X) \
  X(metadata, "metadata", 0, Always) \
  X(eventTime, "eventTime", 0, OmitEmpty) \
  X(series, "series", 0, OmitEmpty) \
  X(reportingController, "reportingController", 0, OmitEmpty) \
  X(reportingInstance, "reportingInstance", 0, OmitEmpty) \
  X(action, "action", 0, OmitEmpty) \
  X(reason, "reason", 0, OmitEmpty) \
  X(regarding, "regarding", 0, Always) \
  X(related, "related", 0, OmitEmpty) \
  X(note, "note", 0, OmitEmpty) \
  X(type, "type", 0, OmitEmpty)

