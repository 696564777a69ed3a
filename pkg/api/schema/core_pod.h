#pragma once
// Field tables (schema.h) of core/v1 Pod and everything it contains (containers, affinity, tolerations,
// spread constraints, volumes, status), Taint and the volume sources PersistentVolume shares; the API
// defaults they get on decoding.
// Hand-written: the VolumeSource inlined into Volume and the VolumeSource members not kept (otherSource);
// EphemeralVolumeSource's nested claim template. EphemeralContainerCommon is inlined into
// EphemeralContainer.

#include <cstdint>
#include <string_view>

#include "pkg/api/core.h"
#include "pkg/api/schema/schema.h"

namespace ks::api::schema {

// The VolumeSource members the model does not keep, with their field numbers: Volume::otherSource names the
// first one present, in this order.
struct OtherVolumeSource {
  uint32_t number;
  std::string_view name;
};
inline constexpr OtherVolumeSource kOtherVolumeSources[] = {
    {1, "hostPath"},   {2, "emptyDir"},     {5, "gitRepo"},      {6, "secret"},     {7, "nfs"},
    {9, "glusterfs"},  {12, "flexVolume"},  {14, "cephfs"},      {15, "flocker"},   {16, "downwardAPI"},
    {17, "fc"},        {19, "configMap"},   {21, "quobyte"},     {23, "photonPersistentDisk"},
    {26, "projected"}, {25, "scaleIO"},     {27, "storageos"}};

inline void setDefaults(ContainerPort& out) {
  if (out.protocol.empty()) out.protocol = "TCP";  // SetDefaults_ContainerPort; protobuf has "" when unset
}

inline void setDefaults(RBDVolumeSource& out) {
  if (out.pool.empty()) out.pool = "rbd";  // SetDefaults_RBDVolumeSource
}

inline void setDefaults(PodSpec& out) {
  if (out.schedulerName.empty()) out.schedulerName = "default-scheduler";  // SetDefaults_PodSpec
}

// An absent spec still gets the defaulted scheduler name, as the API server would have set it.
inline void setDefaults(Pod& out) {
  setDefaults(out.spec);
}

}  // namespace ks::api::schema

#define KS_FIELDS_ContainerResourceClaim(X) \
  X(name, "name", 1, Always) \
  X(request, "request", 2, OmitEmpty)

#define KS_FIELDS_ResourceRequirements(X) \
  X(limits, "limits", 1, OmitEmpty) \
  X(requests, "requests", 2, OmitEmpty) \
  X(claims, "claims", 3, OmitEmpty)

#define KS_FIELDS_ContainerPort(X) \
  X(name, "name", 1, OmitEmpty) \
  X(hostPort, "hostPort", 2, OmitEmpty) \
  X(containerPort, "containerPort", 3, Always) \
  X(protocol, "protocol", 4, OmitEmpty) \
  X(hostIP, "hostIP", 5, OmitEmpty)

#define KS_FIELDS_ContainerRestartRuleOnExitCodes(X) \
  X(op, "operator", 1, OmitEmpty) \
  X(values, "values", 2, OmitEmpty)

#define KS_FIELDS_ContainerRestartRule(X) \
  X(action, "action", 1, OmitEmpty) \
  X(exitCodes, "exitCodes", 2, OmitEmpty)

#define KS_FIELDS_VolumeMount(X) \
  X(name, "name", 1, Always) \
  X(mountPath, "mountPath", 3, Always) \
  X(bindMountOptions, "bindMountOptions", 8, OmitEmpty)

#define KS_FIELDS_Container(X) \
  X(name, "name", 1, Always) \
  X(image, "image", 2, OmitEmpty) \
  X(ports, "ports", 6, OmitEmpty) \
  X(resources, "resources", 8, Always) \
  X(restartPolicy, "restartPolicy", 24, OmitEmpty) \
  X(restartPolicyRules, "restartPolicyRules", 25, OmitEmpty) \
  X(volumeMounts, "volumeMounts", 9, OmitEmpty)

#define KS_FIELDS_EphemeralContainer(X) \
  X(targetContainerName, "targetContainerName", 2, OmitEmpty)
// ephemeralContainerCommon = 1 of EphemeralContainer, inline in JSON.
#define KS_FIELDS_EphemeralContainerCommon(X) \
  X(name, "name", 1, Always) \
  X(volumeMounts, "volumeMounts", 9, OmitEmpty)

#define KS_FIELDS_Toleration(X) \
  X(key, "key", 1, OmitEmpty) \
  X(op, "operator", 2, OmitEmpty) \
  X(value, "value", 3, OmitEmpty) \
  X(effect, "effect", 4, OmitEmpty) \
  X(tolerationSeconds, "tolerationSeconds", 5, OmitEmpty)

#define KS_FIELDS_Taint(X) \
  X(key, "key", 1, Always) \
  X(value, "value", 2, OmitEmpty) \
  X(effect, "effect", 3, Always) \
  X(timeAdded, "timeAdded", 4, OmitEmpty)

#define KS_FIELDS_NodeSelectorRequirement(X) \
  X(key, "key", 1, Always) \
  X(op, "operator", 2, Always) \
  X(values, "values", 3, OmitEmpty)

#define KS_FIELDS_NodeSelectorTerm(X) \
  X(matchExpressions, "matchExpressions", 1, OmitEmpty) \
  X(matchFields, "matchFields", 2, OmitEmpty)

#define KS_FIELDS_NodeSelector(X) \
  X(nodeSelectorTerms, "nodeSelectorTerms", 1, Always)

#define KS_FIELDS_PreferredSchedulingTerm(X) \
  X(weight, "weight", 1, Always) \
  X(preference, "preference", 2, Always)

#define KS_FIELDS_NodeAffinity(X) \
  X(requiredDuringSchedulingIgnoredDuringExecution, "requiredDuringSchedulingIgnoredDuringExecution", 1, OmitEmpty) \
  X(preferredDuringSchedulingIgnoredDuringExecution, "preferredDuringSchedulingIgnoredDuringExecution", 2, OmitEmpty)

#define KS_FIELDS_PodAffinityTerm(X) \
  X(labelSelector, "labelSelector", 1, OmitEmpty) \
  X(namespaces, "namespaces", 2, OmitEmpty) \
  X(topologyKey, "topologyKey", 3, Always) \
  X(namespaceSelector, "namespaceSelector", 4, OmitEmpty) \
  X(matchLabelKeys, "matchLabelKeys", 5, OmitEmpty) \
  X(mismatchLabelKeys, "mismatchLabelKeys", 6, OmitEmpty)

#define KS_FIELDS_WeightedPodAffinityTerm(X) \
  X(weight, "weight", 1, Always) \
  X(podAffinityTerm, "podAffinityTerm", 2, Always)

#define KS_FIELDS_PodAffinity(X) \
  X(requiredDuringSchedulingIgnoredDuringExecution, "requiredDuringSchedulingIgnoredDuringExecution", 1, OmitEmpty) \
  X(preferredDuringSchedulingIgnoredDuringExecution, "preferredDuringSchedulingIgnoredDuringExecution", 2, OmitEmpty)

#define KS_FIELDS_Affinity(X) \
  X(nodeAffinity, "nodeAffinity", 1, OmitEmpty) \
  X(podAffinity, "podAffinity", 2, OmitEmpty) \
  X(podAntiAffinity, "podAntiAffinity", 3, OmitEmpty)

#define KS_FIELDS_TopologySpreadConstraint(X) \
  X(maxSkew, "maxSkew", 1, Always) \
  X(topologyKey, "topologyKey", 2, Always) \
  X(whenUnsatisfiable, "whenUnsatisfiable", 3, Always) \
  X(labelSelector, "labelSelector", 4, OmitEmpty) \
  X(minDomains, "minDomains", 5, OmitEmpty) \
  X(nodeAffinityPolicy, "nodeAffinityPolicy", 6, OmitEmpty) \
  X(nodeTaintsPolicy, "nodeTaintsPolicy", 7, OmitEmpty) \
  X(matchLabelKeys, "matchLabelKeys", 8, OmitEmpty)

#define KS_FIELDS_PodSchedulingGate(X) \
  X(name, "name", 1, Always)

#define KS_FIELDS_PersistentVolumeClaimVolumeSource(X) \
  X(claimName, "claimName", 1, Always) \
  X(readOnly, "readOnly", 2, OmitEmpty)

#define KS_FIELDS_GCEPersistentDiskVolumeSource(X) \
  X(pdName, "pdName", 1, Always) \
  X(fsType, "fsType", 2, OmitEmpty) \
  X(partition, "partition", 3, OmitEmpty) \
  X(readOnly, "readOnly", 4, OmitEmpty)

#define KS_FIELDS_AWSElasticBlockStoreVolumeSource(X) \
  X(volumeID, "volumeID", 1, Always) \
  X(fsType, "fsType", 2, OmitEmpty) \
  X(partition, "partition", 3, OmitEmpty) \
  X(readOnly, "readOnly", 4, OmitEmpty)

#define KS_FIELDS_ISCSIVolumeSource(X) \
  X(targetPortal, "targetPortal", 1, Always) \
  X(iqn, "iqn", 2, Always) \
  X(lun, "lun", 3, Always) \
  X(readOnly, "readOnly", 6, OmitEmpty)

#define KS_FIELDS_RBDVolumeSource(X) \
  X(monitors, "monitors", 1, Always) \
  X(image, "image", 2, Always) \
  X(pool, "pool", 4, OmitEmpty) \
  X(readOnly, "readOnly", 8, OmitEmpty)

#define KS_FIELDS_CSIVolumeSource(X) \
  X(driver, "driver", 1, Always)

#define KS_FIELDS_AzureDiskVolumeSource(X) \
  X(diskName, "diskName", 1, Always) \
  X(diskURI, "diskURI", 2, Always) \
  X(kind, "kind", 6, OmitEmpty) \
  X(readOnly, "readOnly", 5, OmitEmpty)

#define KS_FIELDS_AzureFileVolumeSource(X) \
  X(secretName, "secretName", 1, Always) \
  X(shareName, "shareName", 2, Always) \
  X(secretNamespace, "secretNamespace", 4, OmitEmpty) \
  X(readOnly, "readOnly", 3, OmitEmpty)

#define KS_FIELDS_CinderVolumeSource(X) \
  X(volumeID, "volumeID", 1, Always) \
  X(readOnly, "readOnly", 3, OmitEmpty)

#define KS_FIELDS_VsphereVirtualDiskVolumeSource(X) \
  X(volumePath, "volumePath", 1, Always) \
  X(storagePolicyName, "storagePolicyName", 3, OmitEmpty)

#define KS_FIELDS_PortworxVolumeSource(X) \
  X(volumeID, "volumeID", 1, Always) \
  X(readOnly, "readOnly", 3, OmitEmpty)

#define KS_FIELDS_ImageVolumeSource(X) \
  X(reference, "reference", 1, OmitEmpty) \
  X(pullPolicy, "pullPolicy", 2, OmitEmpty)

// EphemeralVolumeSource keeps volumeClaimTemplate = 1 {spec = 2 {storageClassName = 5, resources = 2
// {requests = 2}}} on itself.
#define KS_FIELDS_EphemeralVolumeClaimSpec(X) \
  X(storageClassName, "storageClassName", 5, OmitEmpty)
#define KS_FIELDS_EphemeralVolumeResources(X) \
  X(requests, "requests", 2, OmitEmpty)

#define KS_FIELDS_Volume(X) \
  X(name, "name", 1, Always)
// VolumeSource = 2 of Volume, inline in JSON (no path segment of its own). The members not kept are
// otherSource's (core_pod.cpp of both codecs).
#define KS_FIELDS_VolumeSource(X) \
  X(persistentVolumeClaim, "persistentVolumeClaim", 10, OmitEmpty) \
  X(ephemeral, "ephemeral", 29, OmitEmpty) \
  X(gcePersistentDisk, "gcePersistentDisk", 3, OmitEmpty) \
  X(awsElasticBlockStore, "awsElasticBlockStore", 4, OmitEmpty) \
  X(iscsi, "iscsi", 8, OmitEmpty) \
  X(rbd, "rbd", 11, OmitEmpty) \
  X(csi, "csi", 28, OmitEmpty) \
  X(azureDisk, "azureDisk", 22, OmitEmpty) \
  X(azureFile, "azureFile", 18, OmitEmpty) \
  X(cinder, "cinder", 13, OmitEmpty) \
  X(vsphereVolume, "vsphereVolume", 20, OmitEmpty) \
  X(portworxVolume, "portworxVolume", 24, OmitEmpty) \
  X(image, "image", 30, OmitEmpty)

#define KS_FIELDS_PodResourceClaim(X) \
  X(name, "name", 1, Always) \
  X(resourceClaimName, "resourceClaimName", 3, OmitEmpty) \
  X(resourceClaimTemplateName, "resourceClaimTemplateName", 4, OmitEmpty)

#define KS_FIELDS_PodSpec(X) \
  X(volumes, "volumes", 1, OmitEmpty) \
  X(initContainers, "initContainers", 20, OmitEmpty) \
  X(containers, "containers", 2, Always) \
  X(ephemeralContainers, "ephemeralContainers", 34, OmitEmpty) \
  X(restartPolicy, "restartPolicy", 3, OmitEmpty) \
  X(nodeSelector, "nodeSelector", 7, OmitEmpty) \
  X(serviceAccountName, "serviceAccountName", 8, OmitEmpty) \
  X(nodeName, "nodeName", 10, OmitEmpty) \
  X(hostNetwork, "hostNetwork", 11, OmitEmpty) \
  X(hostUsers, "hostUsers", 37, OmitEmpty) \
  X(affinity, "affinity", 18, OmitEmpty) \
  X(schedulerName, "schedulerName", 19, OmitEmpty) \
  X(tolerations, "tolerations", 22, OmitEmpty) \
  X(priorityClassName, "priorityClassName", 24, OmitEmpty) \
  X(priority, "priority", 25, OmitEmpty) \
  X(preemptionPolicy, "preemptionPolicy", 31, OmitEmpty) \
  X(overhead, "overhead", 32, OmitEmpty) \
  X(topologySpreadConstraints, "topologySpreadConstraints", 33, OmitEmpty) \
  X(schedulingGates, "schedulingGates", 38, OmitEmpty) \
  X(resources, "resources", 40, OmitEmpty) \
  X(resourceClaims, "resourceClaims", 39, OmitEmpty) \
  X(schedulingGroup, "schedulingGroup", 43, OmitEmpty)

#define KS_FIELDS_PodSchedulingGroup(X) \
  X(podGroupName, "podGroupName", 1, OmitEmpty)

#define KS_FIELDS_PodCondition(X) \
  X(type, "type", 1, Always) \
  X(status, "status", 2, Always) \
  X(observedGeneration, "observedGeneration", 7, OmitEmpty) \
  X(lastProbeTime, "lastProbeTime", 3, OmitEmpty) \
  X(lastTransitionTime, "lastTransitionTime", 4, OmitEmpty) \
  X(reason, "reason", 5, OmitEmpty) \
  X(message, "message", 6, OmitEmpty)

#define KS_FIELDS_ContainerStatus(X) \
  X(name, "name", 1, Always) \
  X(allocatedResources, "allocatedResources", 10, OmitEmpty) \
  X(resources, "resources", 11, OmitEmpty)

#define KS_FIELDS_PodResourceClaimStatus(X) \
  X(name, "name", 1, Always) \
  X(resourceClaimName, "resourceClaimName", 2, OmitEmpty)

#define KS_FIELDS_ContainerExtendedResourceRequest(X) \
  X(containerName, "containerName", 1, Always) \
  X(resourceName, "resourceName", 2, Always) \
  X(requestName, "requestName", 3, Always)

#define KS_FIELDS_PodExtendedResourceClaimStatus(X) \
  X(requestMappings, "requestMappings", 1, Always) \
  X(resourceClaimName, "resourceClaimName", 2, Always)

#define KS_FIELDS_PodStatus(X) \
  X(phase, "phase", 1, OmitEmpty) \
  X(conditions, "conditions", 2, OmitEmpty) \
  X(nominatedNodeName, "nominatedNodeName", 11, OmitEmpty) \
  X(qosClass, "qosClass", 9, OmitEmpty) \
  X(startTime, "startTime", 7, OmitEmpty) \
  X(initContainerStatuses, "initContainerStatuses", 10, OmitEmpty) \
  X(containerStatuses, "containerStatuses", 8, OmitEmpty) \
  X(resize, "resize", 14, OmitEmpty) \
  X(resourceClaimStatuses, "resourceClaimStatuses", 15, OmitEmpty) \
  X(extendedResourceClaimStatus, "extendedResourceClaimStatus", 18, OmitEmpty) \
  X(allocatedResources, "allocatedResources", 19, OmitEmpty) \
  X(resources, "resources", 20, OmitEmpty)

#define KS_FIELDS_Pod(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always) \
  X(status, "status", 3, Always)

