#pragma once
// core/v1 types the scheduler reads or writes: Pod, Node, Namespace, PersistentVolume(Claim), Binding.
// Only the fields scheduling needs are modelled; unknown fields are ignored on decode. Objects are
// immutable once decoded and shared as shared_ptr<const T> between informer store, cache and snapshot.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/heap_optional.h"
#include "pkg/api/meta.h"
#include "pkg/api/quantity.h"

namespace ks::api {

using ResourceList = std::map<std::string, Quantity>;

// Well-known resource names.
inline constexpr std::string_view kResourceCPU = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceHugePagesPrefix = "hugepages-";

// core/v1 ResourceClaim: a container's use of one of the pod's resource claims (resources.claims[]).
struct ContainerResourceClaim {
  std::string name;     // a pod.spec.resourceClaims[].name
  std::string request;  // one request of that claim; empty: all of them
  bool operator==(const ContainerResourceClaim&) const = default;
};

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  // Containers only (DRA). The initialiser keeps {limits, requests} initialisers free of warnings.
  std::vector<ContainerResourceClaim> claims{};
  bool operator==(const ResourceRequirements&) const = default;
};

struct ContainerPort {
  std::string name;
  int32_t hostPort = 0;
  int32_t containerPort = 0;
  std::string protocol = "TCP";  // TCP, UDP, SCTP; defaulted to TCP when absent
  std::string hostIP;
  bool operator==(const ContainerPort&) const = default;
};

// A container's rule for one kind of exit (ContainerRestartRules); NodeDeclaredFeatures looks at the action.
struct ContainerRestartRuleOnExitCodes {
  std::string op;  // "operator" in JSON: In or NotIn
  std::vector<int32_t> values;
  bool operator==(const ContainerRestartRuleOnExitCodes&) const = default;
};
inline constexpr std::string_view kContainerRestartRuleActionRestartAllContainers = "RestartAllContainers";
struct ContainerRestartRule {
  std::string action;  // Restart or RestartAllContainers
  std::optional<ContainerRestartRuleOnExitCodes> exitCodes;
  bool operator==(const ContainerRestartRule&) const = default;
};

// Only the mount's identity and its bind mount options (VolumeBindMountOptions, read by
// NodeDeclaredFeatures) are modelled.
struct VolumeMount {
  std::string name;
  std::string mountPath;
  std::vector<std::string> bindMountOptions;
  bool operator==(const VolumeMount&) const = default;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<ContainerPort> ports;
  ResourceRequirements resources;
  std::optional<std::string> restartPolicy;  // init containers only: "Always" makes a sidecar
  std::vector<ContainerRestartRule> restartPolicyRules;
  std::vector<VolumeMount> volumeMounts;
  bool operator==(const Container&) const = default;
};

// An ephemeral container (debugging); it requests no resources, so only its name, mounts and target are kept.
struct EphemeralContainer {
  std::string name;
  std::vector<VolumeMount> volumeMounts;
  std::string targetContainerName;
  bool operator==(const EphemeralContainer&) const = default;
};

struct Toleration {
  std::string key;
  std::string op;  // "operator" in JSON: Equal (default when empty) or Exists
  std::string value;
  std::string effect;  // empty = all effects
  std::optional<int64_t> tolerationSeconds;
  bool operator==(const Toleration&) const = default;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
  std::optional<Time> timeAdded;
  bool operator==(const Taint&) const = default;
};

inline constexpr std::string_view kTaintEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kTaintEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kTaintEffectNoExecute = "NoExecute";

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // "operator" in JSON: In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
  bool operator==(const NodeSelectorRequirement&) const = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> matchExpressions;
  std::vector<NodeSelectorRequirement> matchFields;  // only metadata.name is supported, as upstream
  bool operator==(const NodeSelectorTerm&) const = default;
};

// Terms are ORed; the requirements inside one term are ANDed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> nodeSelectorTerms;
  bool operator==(const NodeSelector&) const = default;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
  bool operator==(const PreferredSchedulingTerm&) const = default;
};

struct NodeAffinity {
  std::optional<NodeSelector> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<PreferredSchedulingTerm> preferredDuringSchedulingIgnoredDuringExecution;
  bool operator==(const NodeAffinity&) const = default;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> labelSelector;
  std::vector<std::string> namespaces;
  std::string topologyKey;
  std::optional<LabelSelector> namespaceSelector;
  std::vector<std::string> matchLabelKeys;
  std::vector<std::string> mismatchLabelKeys;
  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm podAffinityTerm;
  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

// Used for both podAffinity and podAntiAffinity (same shape).
struct PodAffinity {
  std::vector<PodAffinityTerm> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<WeightedPodAffinityTerm> preferredDuringSchedulingIgnoredDuringExecution;
  bool operator==(const PodAffinity&) const = default;
};

struct Affinity {
  std::optional<NodeAffinity> nodeAffinity;
  std::optional<PodAffinity> podAffinity;
  std::optional<PodAffinity> podAntiAffinity;
  bool operator==(const Affinity&) const = default;
};

struct TopologySpreadConstraint {
  int32_t maxSkew = 0;
  std::string topologyKey;
  std::string whenUnsatisfiable;  // DoNotSchedule or ScheduleAnyway
  std::optional<LabelSelector> labelSelector;
  std::optional<int32_t> minDomains;
  std::optional<std::string> nodeAffinityPolicy;  // Honor (default) or Ignore
  std::optional<std::string> nodeTaintsPolicy;    // Ignore (default) or Honor
  std::vector<std::string> matchLabelKeys;
  bool operator==(const TopologySpreadConstraint&) const = default;
};

struct PodSchedulingGate {
  std::string name;
  bool operator==(const PodSchedulingGate&) const = default;
};

// The volume sources scheduling plugins look at; other sources decode with only `name` set and
// `otherSource` naming the JSON key (e.g. "emptyDir"), so they can be re-encoded as an empty object.
struct PersistentVolumeClaimVolumeSource {
  std::string claimName;
  bool readOnly = false;
  bool operator==(const PersistentVolumeClaimVolumeSource&) const = default;
};
struct GCEPersistentDiskVolumeSource {
  std::string pdName;
  std::string fsType;
  int32_t partition = 0;
  bool readOnly = false;
  bool operator==(const GCEPersistentDiskVolumeSource&) const = default;
};
struct AWSElasticBlockStoreVolumeSource {
  std::string volumeID;
  std::string fsType;
  int32_t partition = 0;
  bool readOnly = false;
  bool operator==(const AWSElasticBlockStoreVolumeSource&) const = default;
};
struct ISCSIVolumeSource {
  std::string targetPortal;
  std::string iqn;
  int32_t lun = 0;
  bool readOnly = false;
  bool operator==(const ISCSIVolumeSource&) const = default;
};
struct RBDVolumeSource {
  std::vector<std::string> monitors;
  std::string image;
  std::string pool;  // "rbd" when absent
  bool readOnly = false;
  bool operator==(const RBDVolumeSource&) const = default;
};
struct CSIVolumeSource {
  std::string driver;
  bool operator==(const CSIVolumeSource&) const = default;
};
// The in-tree sources CSI migration translates (csi-translation-lib); NodeVolumeLimits counts them
// against their CSI driver's limit. Only the fields that identify the volume are modelled.
struct AzureDiskVolumeSource {
  std::string diskName;
  std::string diskURI;  // the CSI volume handle
  std::optional<std::string> kind;
  bool readOnly = false;
  bool operator==(const AzureDiskVolumeSource&) const = default;
};
struct AzureFileVolumeSource {
  std::string secretName;
  std::string shareName;
  std::optional<std::string> secretNamespace;  // PersistentVolume only
  bool readOnly = false;
  bool operator==(const AzureFileVolumeSource&) const = default;
};
struct CinderVolumeSource {
  std::string volumeID;
  bool readOnly = false;
  bool operator==(const CinderVolumeSource&) const = default;
};
struct VsphereVirtualDiskVolumeSource {
  std::string volumePath;
  std::string storagePolicyName;
  bool operator==(const VsphereVirtualDiskVolumeSource&) const = default;
};
struct PortworxVolumeSource {
  std::string volumeID;
  bool readOnly = false;
  bool operator==(const PortworxVolumeSource&) const = default;
};
struct EphemeralVolumeSource {
  // The claim template's spec; the generated PVC is named "<pod name>-<volume name>".
  std::optional<std::string> storageClassName;
  ResourceList requests;
  bool operator==(const EphemeralVolumeSource&) const = default;
};

// An OCI image (or artifact) mounted as a volume; ImageLocality counts it like a container image.
struct ImageVolumeSource {
  std::string reference;
  std::string pullPolicy;
  bool operator==(const ImageVolumeSource&) const = default;
};

struct Volume {
  std::string name;
  std::optional<PersistentVolumeClaimVolumeSource> persistentVolumeClaim;
  std::optional<EphemeralVolumeSource> ephemeral;
  std::optional<GCEPersistentDiskVolumeSource> gcePersistentDisk;
  std::optional<AWSElasticBlockStoreVolumeSource> awsElasticBlockStore;
  std::optional<ISCSIVolumeSource> iscsi;
  std::optional<RBDVolumeSource> rbd;
  std::optional<CSIVolumeSource> csi;
  std::optional<AzureDiskVolumeSource> azureDisk;
  std::optional<AzureFileVolumeSource> azureFile;
  std::optional<CinderVolumeSource> cinder;
  std::optional<VsphereVirtualDiskVolumeSource> vsphereVolume;
  std::optional<PortworxVolumeSource> portworxVolume;
  std::optional<ImageVolumeSource> image;
  std::string otherSource;  // JSON key of any other source, e.g. "emptyDir", "configMap"
  bool operator==(const Volume&) const = default;
};

// A ResourceClaim the pod uses: an existing claim or one generated from a template for the pod (named in
// status.resourceClaimStatuses). Exactly one of the two names is set.
struct PodResourceClaim {
  std::string name;
  std::optional<std::string> resourceClaimName;
  std::optional<std::string> resourceClaimTemplateName;
  bool operator==(const PodResourceClaim&) const = default;
};

// The PodGroup a pod belongs to (GenericWorkload): pod.spec.schedulingGroup.
struct PodSchedulingGroup {
  std::optional<std::string> podGroupName;
  bool operator==(const PodSchedulingGroup&) const = default;
};

struct PodSpec {
  std::string nodeName;
  std::map<std::string, std::string> nodeSelector;
  HeapOptional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topologySpreadConstraints;
  std::vector<PodSchedulingGate> schedulingGates;
  std::optional<int32_t> priority;
  std::string priorityClassName;
  std::optional<std::string> preemptionPolicy;  // PreemptLowerPriority (default) or Never
  std::string schedulerName;                    // "default-scheduler" when absent
  std::vector<Volume> volumes;
  std::vector<Container> initContainers;
  std::vector<Container> containers;
  std::vector<EphemeralContainer> ephemeralContainers;
  ResourceList overhead;
  HeapOptional<ResourceRequirements> resources;      // pod-level resources (PodLevelResources)
  std::vector<PodResourceClaim> resourceClaims;      // DRA
  HeapOptional<PodSchedulingGroup> schedulingGroup;  // gang scheduling (GenericWorkload)
  bool hostNetwork = false;
  std::optional<bool> hostUsers;  // false: the pod runs in a user namespace
  std::string restartPolicy;
  std::string serviceAccountName;
  bool operator==(const PodSpec&) const = default;
};

struct PodCondition {
  std::string type;    // PodScheduled, Ready, ...
  std::string status;  // True, False, Unknown
  std::string reason;
  std::string message;
  std::optional<Time> lastProbeTime;
  std::optional<Time> lastTransitionTime;
  int64_t observedGeneration = 0;  // 0: not set
  bool operator==(const PodCondition&) const = default;
};

struct ContainerStatus {
  std::string name;
  ResourceList allocatedResources;
  std::optional<ResourceRequirements> resources;
  bool operator==(const ContainerStatus&) const = default;
};

// The claim generated for a pod.spec.resourceClaims entry with a template; no resourceClaimName: none was
// needed.
struct PodResourceClaimStatus {
  std::string name;
  std::optional<std::string> resourceClaimName;
  bool operator==(const PodResourceClaimStatus&) const = default;
};

struct ContainerExtendedResourceRequest {
  std::string containerName;
  std::string resourceName;
  std::string requestName;
  bool operator==(const ContainerExtendedResourceRequest&) const = default;
};

// The claim the scheduler created for extended resources backed by DRA devices (DRAExtendedResource).
struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> requestMappings;
  std::string resourceClaimName;
  bool operator==(const PodExtendedResourceClaimStatus&) const = default;
};

struct PodStatus {
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::string nominatedNodeName;
  std::string resize;  // Proposed, InProgress, Deferred, Infeasible (deprecated in favour of conditions)
  std::string qosClass;
  std::optional<Time> startTime;
  std::vector<ContainerStatus> initContainerStatuses;
  std::vector<ContainerStatus> containerStatuses;
  std::vector<PodResourceClaimStatus> resourceClaimStatuses;
  HeapOptional<PodExtendedResourceClaimStatus> extendedResourceClaimStatus;
  // InPlacePodLevelResourcesVerticalScaling: the requests the kubelet allocated to the pod (the
  // containers' sum without pod-level requests) and the pod-level resources it actuated.
  ResourceList allocatedResources;
  std::optional<ResourceRequirements> resources;
  bool operator==(const PodStatus&) const = default;
};

struct Pod {
  static constexpr std::string_view kKind = "Pod";
  static constexpr std::string_view kApiVersion = "v1";
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  bool operator==(const Pod&) const = default;
};

struct NodeCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  std::optional<Time> lastHeartbeatTime;
  std::optional<Time> lastTransitionTime;
  bool operator==(const NodeCondition&) const = default;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t sizeBytes = 0;
  bool operator==(const ContainerImage&) const = default;
};

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string podCIDR;
  std::string providerID;
  bool operator==(const NodeSpec&) const = default;
};

struct NodeAddress {
  std::string type;
  std::string address;
  bool operator==(const NodeAddress&) const = default;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  std::vector<ContainerImage> images;
  // The features the kubelet declares (NodeDeclaredFeatures), sorted.
  std::vector<std::string> declaredFeatures;
  bool operator==(const NodeStatus&) const = default;
};

struct Node {
  static constexpr std::string_view kKind = "Node";
  static constexpr std::string_view kApiVersion = "v1";
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  bool operator==(const Node&) const = default;
};

struct Namespace {
  static constexpr std::string_view kKind = "Namespace";
  static constexpr std::string_view kApiVersion = "v1";
  ObjectMeta metadata;
  std::string phase;  // status.phase: Active, Terminating
  bool operator==(const Namespace&) const = default;
};

struct VolumeNodeAffinity {
  std::optional<NodeSelector> required;
  bool operator==(const VolumeNodeAffinity&) const = default;
};

struct CSIPersistentVolumeSource {
  std::string driver;
  std::string volumeHandle;
  bool readOnly = false;
  bool operator==(const CSIPersistentVolumeSource&) const = default;
};

struct PersistentVolumeSpec {
  ResourceList capacity;
  std::vector<std::string> accessModes;
  std::optional<ObjectReference> claimRef;
  std::string persistentVolumeReclaimPolicy;
  std::string storageClassName;
  std::optional<std::string> volumeMode;
  std::optional<VolumeNodeAffinity> nodeAffinity;
  std::optional<CSIPersistentVolumeSource> csi;
  std::optional<GCEPersistentDiskVolumeSource> gcePersistentDisk;
  std::optional<AWSElasticBlockStoreVolumeSource> awsElasticBlockStore;
  std::optional<AzureDiskVolumeSource> azureDisk;
  std::optional<AzureFileVolumeSource> azureFile;
  std::optional<CinderVolumeSource> cinder;
  std::optional<VsphereVirtualDiskVolumeSource> vsphereVolume;
  std::optional<PortworxVolumeSource> portworxVolume;
  std::optional<std::string> volumeAttributesClassName;
  bool operator==(const PersistentVolumeSpec&) const = default;
};

struct PersistentVolume {
  static constexpr std::string_view kKind = "PersistentVolume";
  static constexpr std::string_view kApiVersion = "v1";
  ObjectMeta metadata;
  PersistentVolumeSpec spec;
  std::string phase;  // status.phase: Pending, Available, Bound, Released, Failed
  bool operator==(const PersistentVolume&) const = default;
};

struct PersistentVolumeClaimSpec {
  std::vector<std::string> accessModes;
  ResourceRequirements resources;
  std::string volumeName;
  std::optional<std::string> storageClassName;
  std::optional<std::string> volumeMode;
  std::optional<LabelSelector> selector;
  std::optional<std::string> volumeAttributesClassName;
  bool operator==(const PersistentVolumeClaimSpec&) const = default;
};

struct PersistentVolumeClaimStatus {
  std::string phase;  // Pending, Bound, Lost
  std::vector<std::string> accessModes;
  ResourceList capacity;
  bool operator==(const PersistentVolumeClaimStatus&) const = default;
};

struct PersistentVolumeClaim {
  static constexpr std::string_view kKind = "PersistentVolumeClaim";
  static constexpr std::string_view kApiVersion = "v1";
  ObjectMeta metadata;
  PersistentVolumeClaimSpec spec;
  PersistentVolumeClaimStatus status;
  bool operator==(const PersistentVolumeClaim&) const = default;
};

// core/v1 Service, as far as the scheduler reads it: the pod selector (system default spreading groups
// a Service's pods).
struct ServiceSpec {
  std::map<std::string, std::string> selector;
  bool operator==(const ServiceSpec&) const = default;
};

struct Service {
  static constexpr std::string_view kKind = "Service";
  static constexpr std::string_view kApiVersion = "v1";
  ObjectMeta metadata;
  ServiceSpec spec;
  bool operator==(const Service&) const = default;
};

// core/v1 ReplicationController, as far as the scheduler reads it: the pod selector.
struct ReplicationControllerSpec {
  std::map<std::string, std::string> selector;
  bool operator==(const ReplicationControllerSpec&) const = default;
};

struct ReplicationController {
  static constexpr std::string_view kKind = "ReplicationController";
  static constexpr std::string_view kApiVersion = "v1";
  ObjectMeta metadata;
  ReplicationControllerSpec spec;
  bool operator==(const ReplicationController&) const = default;
};

// POSTed to pods/{name}/binding: metadata names the pod, target names the node.
struct Binding {
  static constexpr std::string_view kKind = "Binding";
  static constexpr std::string_view kApiVersion = "v1";
  ObjectMeta metadata;
  ObjectReference target;
  bool operator==(const Binding&) const = default;
};

// The profile a pod asks for: spec.schedulerName, or "default-scheduler" when empty (the API server
// defaults it; objects built in-process, e.g. simulator files, may not carry the default).
inline const std::string& schedulerNameOf(const Pod& pod) {
  static const std::string kDefault = "default-scheduler";
  return pod.spec.schedulerName.empty() ? kDefault : pod.spec.schedulerName;
}

using PodPtr = std::shared_ptr<const Pod>;
using NodePtr = std::shared_ptr<const Node>;

}  // namespace ks::api
