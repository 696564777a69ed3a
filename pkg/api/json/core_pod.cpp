// core/v1 Pod and everything it contains (containers, affinity, tolerations, spread constraints,
// volumes, status).

#include <string_view>

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

bool read(DecodeContext& ctx, const Json& j, ContainerResourceClaim& out) {
  return ObjectReader(ctx, j).field("name", out.name).field("request", out.request).ok();
}

Json write(const ContainerResourceClaim& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "request", in.request);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceRequirements& out) {
  return ObjectReader(ctx, j)
      .field("limits", out.limits)
      .field("requests", out.requests)
      .field("claims", out.claims)
      .ok();
}

Json write(const ResourceRequirements& in) {
  Json o = Json::object();
  put(o, "limits", in.limits);
  put(o, "requests", in.requests);
  put(o, "claims", in.claims);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ContainerPort& out) {
  bool ok = ObjectReader(ctx, j)
                .field("name", out.name)
                .field("hostPort", out.hostPort)
                .field("containerPort", out.containerPort)
                .field("protocol", out.protocol)
                .field("hostIP", out.hostIP)
                .ok();
  if (out.protocol.empty()) out.protocol = "TCP";  // SetDefaults_ContainerPort
  return ok;
}

Json write(const ContainerPort& in) {
  Json o = Json::object();
  put(o, "name", in.name);
  put(o, "hostPort", in.hostPort);
  o["containerPort"] = in.containerPort;
  put(o, "protocol", in.protocol);
  put(o, "hostIP", in.hostIP);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ContainerRestartRuleOnExitCodes& out) {
  return ObjectReader(ctx, j).field("operator", out.op).field("values", out.values).ok();
}

Json write(const ContainerRestartRuleOnExitCodes& in) {
  Json o = Json::object();
  put(o, "operator", in.op);
  put(o, "values", in.values);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ContainerRestartRule& out) {
  return ObjectReader(ctx, j).field("action", out.action).field("exitCodes", out.exitCodes).ok();
}

Json write(const ContainerRestartRule& in) {
  Json o = Json::object();
  put(o, "action", in.action);
  put(o, "exitCodes", in.exitCodes);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, VolumeMount& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("mountPath", out.mountPath)
      .field("bindMountOptions", out.bindMountOptions)
      .ok();
}

Json write(const VolumeMount& in) {
  Json o = Json::object();
  o["name"] = in.name;
  o["mountPath"] = in.mountPath;  // no omitempty upstream
  put(o, "bindMountOptions", in.bindMountOptions);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Container& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("image", out.image)
      .field("ports", out.ports)
      .field("resources", out.resources)
      .field("restartPolicy", out.restartPolicy)
      .field("restartPolicyRules", out.restartPolicyRules)
      .field("volumeMounts", out.volumeMounts)
      .ok();
}

Json write(const Container& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "image", in.image);
  put(o, "ports", in.ports);
  o["resources"] = write(in.resources);  // a struct: always present, as the API server prints it
  put(o, "restartPolicy", in.restartPolicy);
  put(o, "restartPolicyRules", in.restartPolicyRules);
  put(o, "volumeMounts", in.volumeMounts);
  return o;
}

// EphemeralContainerCommon is inlined into EphemeralContainer in JSON.
bool read(DecodeContext& ctx, const Json& j, EphemeralContainer& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("volumeMounts", out.volumeMounts)
      .field("targetContainerName", out.targetContainerName)
      .ok();
}

Json write(const EphemeralContainer& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "volumeMounts", in.volumeMounts);
  put(o, "targetContainerName", in.targetContainerName);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Toleration& out) {
  return ObjectReader(ctx, j)
      .field("key", out.key)
      .field("operator", out.op)
      .field("value", out.value)
      .field("effect", out.effect)
      .field("tolerationSeconds", out.tolerationSeconds)
      .ok();
}

Json write(const Toleration& in) {
  Json o = Json::object();
  put(o, "key", in.key);
  put(o, "operator", in.op);
  put(o, "value", in.value);
  put(o, "effect", in.effect);
  put(o, "tolerationSeconds", in.tolerationSeconds);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Taint& out) {
  return ObjectReader(ctx, j)
      .field("key", out.key)
      .field("value", out.value)
      .field("effect", out.effect)
      .field("timeAdded", out.timeAdded)
      .ok();
}

Json write(const Taint& in) {
  Json o = Json::object();
  o["key"] = in.key;
  put(o, "value", in.value);
  o["effect"] = in.effect;
  putTime(o, "timeAdded", in.timeAdded);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, NodeSelectorRequirement& out) {
  return ObjectReader(ctx, j)
      .field("key", out.key)
      .field("operator", out.op)
      .field("values", out.values)
      .ok();
}

Json write(const NodeSelectorRequirement& in) {
  Json o = Json::object();
  o["key"] = in.key;
  o["operator"] = in.op;
  put(o, "values", in.values);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, NodeSelectorTerm& out) {
  return ObjectReader(ctx, j)
      .field("matchExpressions", out.matchExpressions)
      .field("matchFields", out.matchFields)
      .ok();
}

Json write(const NodeSelectorTerm& in) {
  Json o = Json::object();
  put(o, "matchExpressions", in.matchExpressions);
  put(o, "matchFields", in.matchFields);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, NodeSelector& out) {
  return ObjectReader(ctx, j).field("nodeSelectorTerms", out.nodeSelectorTerms).ok();
}

Json write(const NodeSelector& in) {
  Json o = Json::object();
  o["nodeSelectorTerms"] = write(in.nodeSelectorTerms);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PreferredSchedulingTerm& out) {
  return ObjectReader(ctx, j).field("weight", out.weight).field("preference", out.preference).ok();
}

Json write(const PreferredSchedulingTerm& in) {
  Json o = Json::object();
  o["weight"] = in.weight;
  o["preference"] = write(in.preference);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, NodeAffinity& out) {
  return ObjectReader(ctx, j)
      .field("requiredDuringSchedulingIgnoredDuringExecution",
             out.requiredDuringSchedulingIgnoredDuringExecution)
      .field("preferredDuringSchedulingIgnoredDuringExecution",
             out.preferredDuringSchedulingIgnoredDuringExecution)
      .ok();
}

Json write(const NodeAffinity& in) {
  Json o = Json::object();
  put(o, "requiredDuringSchedulingIgnoredDuringExecution", in.requiredDuringSchedulingIgnoredDuringExecution);
  put(o, "preferredDuringSchedulingIgnoredDuringExecution",
      in.preferredDuringSchedulingIgnoredDuringExecution);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodAffinityTerm& out) {
  return ObjectReader(ctx, j)
      .field("labelSelector", out.labelSelector)
      .field("namespaces", out.namespaces)
      .field("topologyKey", out.topologyKey)
      .field("namespaceSelector", out.namespaceSelector)
      .field("matchLabelKeys", out.matchLabelKeys)
      .field("mismatchLabelKeys", out.mismatchLabelKeys)
      .ok();
}

Json write(const PodAffinityTerm& in) {
  Json o = Json::object();
  put(o, "labelSelector", in.labelSelector);
  put(o, "namespaces", in.namespaces);
  o["topologyKey"] = in.topologyKey;
  put(o, "namespaceSelector", in.namespaceSelector);
  put(o, "matchLabelKeys", in.matchLabelKeys);
  put(o, "mismatchLabelKeys", in.mismatchLabelKeys);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, WeightedPodAffinityTerm& out) {
  return ObjectReader(ctx, j).field("weight", out.weight).field("podAffinityTerm", out.podAffinityTerm).ok();
}

Json write(const WeightedPodAffinityTerm& in) {
  Json o = Json::object();
  o["weight"] = in.weight;
  o["podAffinityTerm"] = write(in.podAffinityTerm);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodAffinity& out) {
  return ObjectReader(ctx, j)
      .field("requiredDuringSchedulingIgnoredDuringExecution",
             out.requiredDuringSchedulingIgnoredDuringExecution)
      .field("preferredDuringSchedulingIgnoredDuringExecution",
             out.preferredDuringSchedulingIgnoredDuringExecution)
      .ok();
}

Json write(const PodAffinity& in) {
  Json o = Json::object();
  put(o, "requiredDuringSchedulingIgnoredDuringExecution", in.requiredDuringSchedulingIgnoredDuringExecution);
  put(o, "preferredDuringSchedulingIgnoredDuringExecution",
      in.preferredDuringSchedulingIgnoredDuringExecution);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Affinity& out) {
  return ObjectReader(ctx, j)
      .field("nodeAffinity", out.nodeAffinity)
      .field("podAffinity", out.podAffinity)
      .field("podAntiAffinity", out.podAntiAffinity)
      .ok();
}

Json write(const Affinity& in) {
  Json o = Json::object();
  put(o, "nodeAffinity", in.nodeAffinity);
  put(o, "podAffinity", in.podAffinity);
  put(o, "podAntiAffinity", in.podAntiAffinity);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, TopologySpreadConstraint& out) {
  return ObjectReader(ctx, j)
      .field("maxSkew", out.maxSkew)
      .field("topologyKey", out.topologyKey)
      .field("whenUnsatisfiable", out.whenUnsatisfiable)
      .field("labelSelector", out.labelSelector)
      .field("minDomains", out.minDomains)
      .field("nodeAffinityPolicy", out.nodeAffinityPolicy)
      .field("nodeTaintsPolicy", out.nodeTaintsPolicy)
      .field("matchLabelKeys", out.matchLabelKeys)
      .ok();
}

Json write(const TopologySpreadConstraint& in) {
  Json o = Json::object();
  o["maxSkew"] = in.maxSkew;
  o["topologyKey"] = in.topologyKey;
  o["whenUnsatisfiable"] = in.whenUnsatisfiable;
  put(o, "labelSelector", in.labelSelector);
  put(o, "minDomains", in.minDomains);
  put(o, "nodeAffinityPolicy", in.nodeAffinityPolicy);
  put(o, "nodeTaintsPolicy", in.nodeTaintsPolicy);
  put(o, "matchLabelKeys", in.matchLabelKeys);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodSchedulingGate& out) {
  return ObjectReader(ctx, j).field("name", out.name).ok();
}

Json write(const PodSchedulingGate& in) {
  Json o = Json::object();
  o["name"] = in.name;
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PersistentVolumeClaimVolumeSource& out) {
  return ObjectReader(ctx, j).field("claimName", out.claimName).field("readOnly", out.readOnly).ok();
}

Json write(const PersistentVolumeClaimVolumeSource& in) {
  Json o = Json::object();
  o["claimName"] = in.claimName;
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, GCEPersistentDiskVolumeSource& out) {
  return ObjectReader(ctx, j)
      .field("pdName", out.pdName)
      .field("fsType", out.fsType)
      .field("partition", out.partition)
      .field("readOnly", out.readOnly)
      .ok();
}

Json write(const GCEPersistentDiskVolumeSource& in) {
  Json o = Json::object();
  o["pdName"] = in.pdName;
  put(o, "fsType", in.fsType);
  put(o, "partition", in.partition);
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, AWSElasticBlockStoreVolumeSource& out) {
  return ObjectReader(ctx, j)
      .field("volumeID", out.volumeID)
      .field("fsType", out.fsType)
      .field("partition", out.partition)
      .field("readOnly", out.readOnly)
      .ok();
}

Json write(const AWSElasticBlockStoreVolumeSource& in) {
  Json o = Json::object();
  o["volumeID"] = in.volumeID;
  put(o, "fsType", in.fsType);
  put(o, "partition", in.partition);
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ISCSIVolumeSource& out) {
  return ObjectReader(ctx, j)
      .field("targetPortal", out.targetPortal)
      .field("iqn", out.iqn)
      .field("lun", out.lun)
      .field("readOnly", out.readOnly)
      .ok();
}

Json write(const ISCSIVolumeSource& in) {
  Json o = Json::object();
  o["targetPortal"] = in.targetPortal;
  o["iqn"] = in.iqn;
  o["lun"] = in.lun;
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, RBDVolumeSource& out) {
  bool ok = ObjectReader(ctx, j)
                .field("monitors", out.monitors)
                .field("image", out.image)
                .field("pool", out.pool)
                .field("readOnly", out.readOnly)
                .ok();
  if (out.pool.empty()) out.pool = "rbd";  // SetDefaults_RBDVolumeSource
  return ok;
}

Json write(const RBDVolumeSource& in) {
  Json o = Json::object();
  o["monitors"] = write(in.monitors);
  o["image"] = in.image;
  put(o, "pool", in.pool);
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CSIVolumeSource& out) {
  return ObjectReader(ctx, j).field("driver", out.driver).ok();
}

Json write(const CSIVolumeSource& in) {
  Json o = Json::object();
  o["driver"] = in.driver;
  return o;
}

bool read(DecodeContext& ctx, const Json& j, AzureDiskVolumeSource& out) {
  return ObjectReader(ctx, j)
      .field("diskName", out.diskName)
      .field("diskURI", out.diskURI)
      .field("kind", out.kind)
      .field("readOnly", out.readOnly)
      .ok();
}

Json write(const AzureDiskVolumeSource& in) {
  Json o = Json::object();
  o["diskName"] = in.diskName;
  o["diskURI"] = in.diskURI;
  put(o, "kind", in.kind);
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, AzureFileVolumeSource& out) {
  return ObjectReader(ctx, j)
      .field("secretName", out.secretName)
      .field("shareName", out.shareName)
      .field("secretNamespace", out.secretNamespace)
      .field("readOnly", out.readOnly)
      .ok();
}

Json write(const AzureFileVolumeSource& in) {
  Json o = Json::object();
  o["secretName"] = in.secretName;
  o["shareName"] = in.shareName;
  put(o, "secretNamespace", in.secretNamespace);
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CinderVolumeSource& out) {
  return ObjectReader(ctx, j).field("volumeID", out.volumeID).field("readOnly", out.readOnly).ok();
}

Json write(const CinderVolumeSource& in) {
  Json o = Json::object();
  o["volumeID"] = in.volumeID;
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, VsphereVirtualDiskVolumeSource& out) {
  return ObjectReader(ctx, j)
      .field("volumePath", out.volumePath)
      .field("storagePolicyName", out.storagePolicyName)
      .ok();
}

Json write(const VsphereVirtualDiskVolumeSource& in) {
  Json o = Json::object();
  o["volumePath"] = in.volumePath;
  put(o, "storagePolicyName", in.storagePolicyName);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PortworxVolumeSource& out) {
  return ObjectReader(ctx, j).field("volumeID", out.volumeID).field("readOnly", out.readOnly).ok();
}

Json write(const PortworxVolumeSource& in) {
  Json o = Json::object();
  o["volumeID"] = in.volumeID;
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ImageVolumeSource& out) {
  return ObjectReader(ctx, j).field("reference", out.reference).field("pullPolicy", out.pullPolicy).ok();
}

Json write(const ImageVolumeSource& in) {
  Json o = Json::object();
  put(o, "reference", in.reference);
  put(o, "pullPolicy", in.pullPolicy);
  return o;
}

// ephemeral: {"volumeClaimTemplate": {"spec": {"storageClassName": ..., "resources": {"requests": ...}}}}
bool read(DecodeContext& ctx, const Json& j, EphemeralVolumeSource& out) {
  return ObjectReader(ctx, j)
      .nested("volumeClaimTemplate",
              [&](ObjectReader& tmpl) {
                tmpl.nested("spec", [&](ObjectReader& spec) {
                  spec.field("storageClassName", out.storageClassName)
                      .nested("resources", [&](ObjectReader& res) { res.field("requests", out.requests); });
                });
              })
      .ok();
}

Json write(const EphemeralVolumeSource& in) {
  Json spec = Json::object();
  put(spec, "storageClassName", in.storageClassName);
  Json resources = Json::object();
  put(resources, "requests", in.requests);
  spec["resources"] = std::move(resources);
  Json tmpl = Json::object();
  tmpl["spec"] = std::move(spec);
  Json o = Json::object();
  o["volumeClaimTemplate"] = std::move(tmpl);
  return o;
}

namespace {

// The members of core/v1 VolumeSource we do not model; decoded into Volume::otherSource.
constexpr std::string_view kOtherVolumeSources[] = {
    "hostPath",  "emptyDir", "gitRepo",              "secret",    "nfs",     "glusterfs", "flexVolume",
    "cephfs",    "flocker",  "downwardAPI",          "fc",        "configMap", "quobyte", "photonPersistentDisk",
    "projected", "scaleIO",  "storageos"};

}  // namespace

bool read(DecodeContext& ctx, const Json& j, Volume& out) {
  ObjectReader r(ctx, j);
  r.field("name", out.name)
      .field("persistentVolumeClaim", out.persistentVolumeClaim)
      .field("ephemeral", out.ephemeral)
      .field("gcePersistentDisk", out.gcePersistentDisk)
      .field("awsElasticBlockStore", out.awsElasticBlockStore)
      .field("iscsi", out.iscsi)
      .field("rbd", out.rbd)
      .field("csi", out.csi)
      .field("azureDisk", out.azureDisk)
      .field("azureFile", out.azureFile)
      .field("cinder", out.cinder)
      .field("vsphereVolume", out.vsphereVolume)
      .field("portworxVolume", out.portworxVolume)
      .field("image", out.image);
  if (!r.ok()) return false;
  for (std::string_view key : kOtherVolumeSources) {
    if (r.find(key) != nullptr) {
      out.otherSource = key;
      break;
    }
  }
  return true;
}

Json write(const Volume& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "persistentVolumeClaim", in.persistentVolumeClaim);
  put(o, "ephemeral", in.ephemeral);
  put(o, "gcePersistentDisk", in.gcePersistentDisk);
  put(o, "awsElasticBlockStore", in.awsElasticBlockStore);
  put(o, "iscsi", in.iscsi);
  put(o, "rbd", in.rbd);
  put(o, "csi", in.csi);
  put(o, "azureDisk", in.azureDisk);
  put(o, "azureFile", in.azureFile);
  put(o, "cinder", in.cinder);
  put(o, "vsphereVolume", in.vsphereVolume);
  put(o, "portworxVolume", in.portworxVolume);
  put(o, "image", in.image);
  if (!in.otherSource.empty()) o[in.otherSource] = Json::object();
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodResourceClaim& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("resourceClaimName", out.resourceClaimName)
      .field("resourceClaimTemplateName", out.resourceClaimTemplateName)
      .ok();
}

Json write(const PodResourceClaim& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "resourceClaimName", in.resourceClaimName);
  put(o, "resourceClaimTemplateName", in.resourceClaimTemplateName);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodSpec& out) {
  bool ok = ObjectReader(ctx, j)
                .field("volumes", out.volumes)
                .field("initContainers", out.initContainers)
                .field("containers", out.containers)
                .field("ephemeralContainers", out.ephemeralContainers)
                .field("restartPolicy", out.restartPolicy)
                .field("nodeSelector", out.nodeSelector)
                .field("serviceAccountName", out.serviceAccountName)
                .field("nodeName", out.nodeName)
                .field("hostNetwork", out.hostNetwork)
                .field("hostUsers", out.hostUsers)
                .field("affinity", out.affinity)
                .field("schedulerName", out.schedulerName)
                .field("tolerations", out.tolerations)
                .field("priorityClassName", out.priorityClassName)
                .field("priority", out.priority)
                .field("preemptionPolicy", out.preemptionPolicy)
                .field("overhead", out.overhead)
                .field("topologySpreadConstraints", out.topologySpreadConstraints)
                .field("schedulingGates", out.schedulingGates)
                .field("resources", out.resources)
                .field("resourceClaims", out.resourceClaims)
                .ok();
  if (out.schedulerName.empty()) out.schedulerName = "default-scheduler";  // SetDefaults_PodSpec
  return ok;
}

Json write(const PodSpec& in) {
  Json o = Json::object();
  put(o, "volumes", in.volumes);
  put(o, "initContainers", in.initContainers);
  o["containers"] = write(in.containers);
  put(o, "ephemeralContainers", in.ephemeralContainers);
  put(o, "restartPolicy", in.restartPolicy);
  put(o, "nodeSelector", in.nodeSelector);
  put(o, "serviceAccountName", in.serviceAccountName);
  put(o, "nodeName", in.nodeName);
  put(o, "hostNetwork", in.hostNetwork);
  put(o, "hostUsers", in.hostUsers);
  put(o, "affinity", in.affinity);
  put(o, "schedulerName", in.schedulerName);
  put(o, "tolerations", in.tolerations);
  put(o, "priorityClassName", in.priorityClassName);
  put(o, "priority", in.priority);
  put(o, "preemptionPolicy", in.preemptionPolicy);
  put(o, "overhead", in.overhead);
  put(o, "topologySpreadConstraints", in.topologySpreadConstraints);
  put(o, "schedulingGates", in.schedulingGates);
  put(o, "resources", in.resources);
  put(o, "resourceClaims", in.resourceClaims);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodCondition& out) {
  return ObjectReader(ctx, j)
      .field("type", out.type)
      .field("status", out.status)
      .field("observedGeneration", out.observedGeneration)
      .field("lastProbeTime", out.lastProbeTime)
      .field("lastTransitionTime", out.lastTransitionTime)
      .field("reason", out.reason)
      .field("message", out.message)
      .ok();
}

Json write(const PodCondition& in) {
  Json o = Json::object();
  o["type"] = in.type;
  o["status"] = in.status;
  put(o, "observedGeneration", in.observedGeneration);
  putTime(o, "lastProbeTime", in.lastProbeTime);
  putTime(o, "lastTransitionTime", in.lastTransitionTime);
  put(o, "reason", in.reason);
  put(o, "message", in.message);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ContainerStatus& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("allocatedResources", out.allocatedResources)
      .field("resources", out.resources)
      .ok();
}

Json write(const ContainerStatus& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "allocatedResources", in.allocatedResources);
  put(o, "resources", in.resources);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodResourceClaimStatus& out) {
  return ObjectReader(ctx, j).field("name", out.name).field("resourceClaimName", out.resourceClaimName).ok();
}

Json write(const PodResourceClaimStatus& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "resourceClaimName", in.resourceClaimName);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ContainerExtendedResourceRequest& out) {
  return ObjectReader(ctx, j)
      .field("containerName", out.containerName)
      .field("resourceName", out.resourceName)
      .field("requestName", out.requestName)
      .ok();
}

Json write(const ContainerExtendedResourceRequest& in) {
  Json o = Json::object();
  o["containerName"] = in.containerName;
  o["resourceName"] = in.resourceName;
  o["requestName"] = in.requestName;
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodExtendedResourceClaimStatus& out) {
  return ObjectReader(ctx, j)
      .field("requestMappings", out.requestMappings)
      .field("resourceClaimName", out.resourceClaimName)
      .ok();
}

Json write(const PodExtendedResourceClaimStatus& in) {
  Json o = Json::object();
  o["requestMappings"] = write(in.requestMappings);
  o["resourceClaimName"] = in.resourceClaimName;
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodStatus& out) {
  return ObjectReader(ctx, j)
      .field("phase", out.phase)
      .field("conditions", out.conditions)
      .field("nominatedNodeName", out.nominatedNodeName)
      .field("qosClass", out.qosClass)
      .field("startTime", out.startTime)
      .field("initContainerStatuses", out.initContainerStatuses)
      .field("containerStatuses", out.containerStatuses)
      .field("resize", out.resize)
      .field("resourceClaimStatuses", out.resourceClaimStatuses)
      .field("extendedResourceClaimStatus", out.extendedResourceClaimStatus)
      .field("allocatedResources", out.allocatedResources)
      .field("resources", out.resources)
      .ok();
}

Json write(const PodStatus& in) {
  Json o = Json::object();
  put(o, "phase", in.phase);
  put(o, "conditions", in.conditions);
  put(o, "nominatedNodeName", in.nominatedNodeName);
  put(o, "qosClass", in.qosClass);
  putTime(o, "startTime", in.startTime);
  put(o, "initContainerStatuses", in.initContainerStatuses);
  put(o, "containerStatuses", in.containerStatuses);
  put(o, "resize", in.resize);
  put(o, "resourceClaimStatuses", in.resourceClaimStatuses);
  put(o, "extendedResourceClaimStatus", in.extendedResourceClaimStatus);
  put(o, "allocatedResources", in.allocatedResources);
  put(o, "resources", in.resources);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Pod& out) {
  bool ok = ObjectReader(ctx, j)
                .field("metadata", out.metadata)
                .field("spec", out.spec)
                .field("status", out.status)
                .ok();
  // An absent spec still gets the defaulted scheduler name, as the API server would have set it.
  if (out.spec.schedulerName.empty()) out.spec.schedulerName = "default-scheduler";
  return ok;
}

Json write(const Pod& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  o["status"] = write(in.status);
  return o;
}

}  // namespace ks::api::jsoncodec
