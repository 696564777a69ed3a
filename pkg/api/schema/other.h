#pragma once
// Field tables (schema.h) of storage/v1 (StorageClass, CSINode, CSIDriver, CSIStorageCapacity,
// VolumeAttachment), policy/v1 PodDisruptionBudget, the pod owners read for default spreading (core/v1
// Service and ReplicationController, apps/v1 ReplicaSet and StatefulSet), coordination/v1 Lease and
// events.k8s.io/v1 Event (these two have no protobuf reader).
// Hand-written: CSINode's spec.drivers and VolumeAttachment's spec and status, kept on the object.
// Not kept: StorageClass mountOptions (5); CSIDriverSpec tokenRequests, requiresRepublish, seLinuxMount,
// nodeAllocatableUpdatePeriodSeconds, serviceAccountTokenInSecrets; PodDisruptionBudgetStatus conditions (7);
// VolumeAttachmentSource inlineVolumeSpec (2).

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
  X(metadata, "metadata", 1, Always)
// spec = 2 {drivers = 1}, kept on the object.
#define KS_FIELDS_CSINodeSpec(X) \
  X(drivers, "drivers", 1, Always)

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
  X(metadata, "metadata", 1, Always)
// spec = 2 {attacher = 1, source = 2 {persistentVolumeName = 1}, nodeName = 3} and status = 3 {attached = 1},
// kept on the object.
#define KS_FIELDS_VolumeAttachmentSpec(X) \
  X(attacher, "attacher", 1, Always) \
  X(nodeName, "nodeName", 3, Always)
#define KS_FIELDS_VolumeAttachmentSource(X) \
  X(persistentVolumeName, "persistentVolumeName", 1, OmitEmpty)
#define KS_FIELDS_VolumeAttachmentStatus(X) \
  X(attached, "attached", 1, Always)

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

// ---- pod owners: their selector only ----
#define KS_FIELDS_ServiceSpec(X) \
  X(selector, "selector", 2, OmitEmpty)
#define KS_FIELDS_ReplicationControllerSpec(X) \
  X(selector, "selector", 2, OmitEmpty)
#define KS_FIELDS_ReplicaSetSpec(X) \
  X(selector, "selector", 2, OmitEmpty)
#define KS_FIELDS_StatefulSetSpec(X) \
  X(selector, "selector", 2, OmitEmpty)
#define KS_FIELDS_Service(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)
#define KS_FIELDS_ReplicationController(X) KS_FIELDS_Service(X)
#define KS_FIELDS_ReplicaSet(X) KS_FIELDS_Service(X)
#define KS_FIELDS_StatefulSet(X) KS_FIELDS_Service(X)

// ---- coordination/v1 Lease and events.k8s.io/v1 Event: JSON only ----
#define KS_FIELDS_LeaseSpec(X) \
  X(holderIdentity, "holderIdentity", 1, OmitEmpty) \
  X(leaseDurationSeconds, "leaseDurationSeconds", 2, OmitEmpty) \
  X(acquireTime, "acquireTime", 3, MicroTime) \
  X(renewTime, "renewTime", 4, MicroTime) \
  X(leaseTransitions, "leaseTransitions", 5, OmitEmpty)

#define KS_FIELDS_Lease(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)

#define KS_FIELDS_EventSeries(X) \
  X(count, "count", 1, Always) \
  X(lastObservedTime, "lastObservedTime", 2, MicroTime)

#define KS_FIELDS_Event(X) \
  X(metadata, "metadata", 1, Always) \
  X(eventTime, "eventTime", 2, MicroTime) \
  X(series, "series", 3, OmitEmpty) \
  X(reportingController, "reportingController", 4, OmitEmpty) \
  X(reportingInstance, "reportingInstance", 5, OmitEmpty) \
  X(action, "action", 6, OmitEmpty) \
  X(reason, "reason", 7, OmitEmpty) \
  X(regarding, "regarding", 8, Always) \
  X(related, "related", 9, OmitEmpty) \
  X(note, "note", 10, OmitEmpty) \
  X(type, "type", 11, OmitEmpty)

