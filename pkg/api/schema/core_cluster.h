#pragma once
// Field tables (schema.h) of core/v1 Node, Namespace, PersistentVolume, PersistentVolumeClaim and Binding
// (k8s.io/api core/v1 generated.proto).
// Hand-written: status.phase of Namespace and PersistentVolume, kept on the object (StatusPhase);
// Namespace's JSON writer (an empty "spec"). PersistentVolumeSource is inlined into PersistentVolumeSpec.

#define KS_FIELDS_NodeCondition(X) \
  X(type, "type", 1, Always) \
  X(status, "status", 2, Always) \
  X(lastHeartbeatTime, "lastHeartbeatTime", 3, OmitEmpty) \
  X(lastTransitionTime, "lastTransitionTime", 4, OmitEmpty) \
  X(reason, "reason", 5, OmitEmpty) \
  X(message, "message", 6, OmitEmpty)

#define KS_FIELDS_ContainerImage(X) \
  X(names, "names", 1, OmitEmpty) \
  X(sizeBytes, "sizeBytes", 2, OmitEmpty)

#define KS_FIELDS_NodeSpec(X) \
  X(podCIDR, "podCIDR", 1, OmitEmpty) \
  X(providerID, "providerID", 3, OmitEmpty) \
  X(unschedulable, "unschedulable", 4, OmitEmpty) \
  X(taints, "taints", 5, OmitEmpty)

#define KS_FIELDS_NodeAddress(X) \
  X(type, "type", 1, Always) \
  X(address, "address", 2, Always)

#define KS_FIELDS_NodeStatus(X) \
  X(capacity, "capacity", 1, OmitEmpty) \
  X(allocatable, "allocatable", 2, OmitEmpty) \
  X(conditions, "conditions", 4, OmitEmpty) \
  X(addresses, "addresses", 5, OmitEmpty) \
  X(images, "images", 8, OmitEmpty) \
  X(declaredFeatures, "declaredFeatures", 14, OmitEmpty)

#define KS_FIELDS_Node(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always) \
  X(status, "status", 3, Always)

#define KS_FIELDS_Namespace(X) \
  X(metadata, "metadata", 1, Always)
// status = 3 {phase = 1}, kept on the object (Namespace and PersistentVolume).
#define KS_FIELDS_StatusPhase(X) \
  X(phase, "phase", 1, OmitEmpty)

#define KS_FIELDS_VolumeNodeAffinity(X) \
  X(required, "required", 1, OmitEmpty)

#define KS_FIELDS_CSIPersistentVolumeSource(X) \
  X(driver, "driver", 1, Always) \
  X(volumeHandle, "volumeHandle", 2, Always) \
  X(readOnly, "readOnly", 3, OmitEmpty)

#define KS_FIELDS_PersistentVolumeSpec(X) \
  X(capacity, "capacity", 1, OmitEmpty) \
  X(volumeAttributesClassName, "volumeAttributesClassName", 10, OmitEmpty) \
  X(accessModes, "accessModes", 3, OmitEmpty) \
  X(claimRef, "claimRef", 4, OmitEmpty) \
  X(persistentVolumeReclaimPolicy, "persistentVolumeReclaimPolicy", 5, OmitEmpty) \
  X(storageClassName, "storageClassName", 6, OmitEmpty) \
  X(volumeMode, "volumeMode", 8, OmitEmpty) \
  X(nodeAffinity, "nodeAffinity", 9, OmitEmpty)

// PersistentVolumeSource = 2 of PersistentVolumeSpec, inline in JSON (no path segment of its own).
#define KS_FIELDS_PersistentVolumeSource(X) \
  X(csi, "csi", 22, OmitEmpty) \
  X(gcePersistentDisk, "gcePersistentDisk", 1, OmitEmpty) \
  X(awsElasticBlockStore, "awsElasticBlockStore", 2, OmitEmpty) \
  X(azureDisk, "azureDisk", 16, OmitEmpty) \
  X(azureFile, "azureFile", 13, OmitEmpty) \
  X(cinder, "cinder", 8, OmitEmpty) \
  X(vsphereVolume, "vsphereVolume", 14, OmitEmpty) \
  X(portworxVolume, "portworxVolume", 18, OmitEmpty)

#define KS_FIELDS_PersistentVolume(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)

#define KS_FIELDS_PersistentVolumeClaimSpec(X) \
  X(accessModes, "accessModes", 1, OmitEmpty) \
  X(selector, "selector", 4, OmitEmpty) \
  X(resources, "resources", 2, Always) /* VolumeResourceRequirements */ \
  X(volumeName, "volumeName", 3, OmitEmpty) \
  X(storageClassName, "storageClassName", 5, OmitEmpty) \
  X(volumeMode, "volumeMode", 6, OmitEmpty) \
  X(volumeAttributesClassName, "volumeAttributesClassName", 9, OmitEmpty)

#define KS_FIELDS_PersistentVolumeClaimStatus(X) \
  X(phase, "phase", 1, OmitEmpty) \
  X(accessModes, "accessModes", 2, OmitEmpty) \
  X(capacity, "capacity", 3, OmitEmpty)

#define KS_FIELDS_PersistentVolumeClaim(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always) \
  X(status, "status", 3, Always)

#define KS_FIELDS_Binding(X) \
  X(metadata, "metadata", 1, Always) \
  X(target, "target", 2, Always)

