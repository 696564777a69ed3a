// core/v1 Node, Namespace, PersistentVolume, PersistentVolumeClaim and Binding.

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

bool read(DecodeContext& ctx, const Json& j, NodeCondition& out) {
  return ObjectReader(ctx, j)
      .field("type", out.type)
      .field("status", out.status)
      .field("lastHeartbeatTime", out.lastHeartbeatTime)
      .field("lastTransitionTime", out.lastTransitionTime)
      .field("reason", out.reason)
      .field("message", out.message)
      .ok();
}

Json write(const NodeCondition& in) {
  Json o = Json::object();
  o["type"] = in.type;
  o["status"] = in.status;
  putTime(o, "lastHeartbeatTime", in.lastHeartbeatTime);
  putTime(o, "lastTransitionTime", in.lastTransitionTime);
  put(o, "reason", in.reason);
  put(o, "message", in.message);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ContainerImage& out) {
  return ObjectReader(ctx, j).field("names", out.names).field("sizeBytes", out.sizeBytes).ok();
}

Json write(const ContainerImage& in) {
  Json o = Json::object();
  put(o, "names", in.names);
  put(o, "sizeBytes", in.sizeBytes);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, NodeSpec& out) {
  return ObjectReader(ctx, j)
      .field("podCIDR", out.podCIDR)
      .field("providerID", out.providerID)
      .field("unschedulable", out.unschedulable)
      .field("taints", out.taints)
      .ok();
}

Json write(const NodeSpec& in) {
  Json o = Json::object();
  put(o, "podCIDR", in.podCIDR);
  put(o, "providerID", in.providerID);
  put(o, "unschedulable", in.unschedulable);
  put(o, "taints", in.taints);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, NodeAddress& out) {
  return ObjectReader(ctx, j).field("type", out.type).field("address", out.address).ok();
}

Json write(const NodeAddress& in) {
  Json o = Json::object();
  o["type"] = in.type;
  o["address"] = in.address;
  return o;
}

bool read(DecodeContext& ctx, const Json& j, NodeStatus& out) {
  return ObjectReader(ctx, j)
      .field("capacity", out.capacity)
      .field("allocatable", out.allocatable)
      .field("conditions", out.conditions)
      .field("addresses", out.addresses)
      .field("images", out.images)
      .field("declaredFeatures", out.declaredFeatures)
      .ok();
}

Json write(const NodeStatus& in) {
  Json o = Json::object();
  put(o, "capacity", in.capacity);
  put(o, "allocatable", in.allocatable);
  put(o, "conditions", in.conditions);
  put(o, "addresses", in.addresses);
  put(o, "images", in.images);
  put(o, "declaredFeatures", in.declaredFeatures);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Node& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .field("spec", out.spec)
      .field("status", out.status)
      .ok();
}

Json write(const Node& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  o["status"] = write(in.status);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Namespace& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .nested("status", [&](ObjectReader& status) { status.field("phase", out.phase); })
      .ok();
}

Json write(const Namespace& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = Json::object();
  Json status = Json::object();
  put(status, "phase", in.phase);
  o["status"] = std::move(status);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, VolumeNodeAffinity& out) {
  return ObjectReader(ctx, j).field("required", out.required).ok();
}

Json write(const VolumeNodeAffinity& in) {
  Json o = Json::object();
  put(o, "required", in.required);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CSIPersistentVolumeSource& out) {
  return ObjectReader(ctx, j)
      .field("driver", out.driver)
      .field("volumeHandle", out.volumeHandle)
      .field("readOnly", out.readOnly)
      .ok();
}

Json write(const CSIPersistentVolumeSource& in) {
  Json o = Json::object();
  o["driver"] = in.driver;
  o["volumeHandle"] = in.volumeHandle;
  put(o, "readOnly", in.readOnly);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PersistentVolumeSpec& out) {
  return ObjectReader(ctx, j)
      .field("capacity", out.capacity)
      .field("csi", out.csi)
      .field("gcePersistentDisk", out.gcePersistentDisk)
      .field("awsElasticBlockStore", out.awsElasticBlockStore)
      .field("azureDisk", out.azureDisk)
      .field("azureFile", out.azureFile)
      .field("cinder", out.cinder)
      .field("vsphereVolume", out.vsphereVolume)
      .field("portworxVolume", out.portworxVolume)
      .field("volumeAttributesClassName", out.volumeAttributesClassName)
      .field("accessModes", out.accessModes)
      .field("claimRef", out.claimRef)
      .field("persistentVolumeReclaimPolicy", out.persistentVolumeReclaimPolicy)
      .field("storageClassName", out.storageClassName)
      .field("volumeMode", out.volumeMode)
      .field("nodeAffinity", out.nodeAffinity)
      .ok();
}

Json write(const PersistentVolumeSpec& in) {
  Json o = Json::object();
  put(o, "capacity", in.capacity);
  put(o, "csi", in.csi);
  put(o, "gcePersistentDisk", in.gcePersistentDisk);
  put(o, "awsElasticBlockStore", in.awsElasticBlockStore);
  put(o, "azureDisk", in.azureDisk);
  put(o, "azureFile", in.azureFile);
  put(o, "cinder", in.cinder);
  put(o, "vsphereVolume", in.vsphereVolume);
  put(o, "portworxVolume", in.portworxVolume);
  put(o, "volumeAttributesClassName", in.volumeAttributesClassName);
  put(o, "accessModes", in.accessModes);
  put(o, "claimRef", in.claimRef);
  put(o, "persistentVolumeReclaimPolicy", in.persistentVolumeReclaimPolicy);
  put(o, "storageClassName", in.storageClassName);
  put(o, "volumeMode", in.volumeMode);
  put(o, "nodeAffinity", in.nodeAffinity);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PersistentVolume& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .field("spec", out.spec)
      .nested("status", [&](ObjectReader& status) { status.field("phase", out.phase); })
      .ok();
}

Json write(const PersistentVolume& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  Json status = Json::object();
  put(status, "phase", in.phase);
  o["status"] = std::move(status);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PersistentVolumeClaimSpec& out) {
  return ObjectReader(ctx, j)
      .field("accessModes", out.accessModes)
      .field("selector", out.selector)
      .field("resources", out.resources)
      .field("volumeName", out.volumeName)
      .field("storageClassName", out.storageClassName)
      .field("volumeMode", out.volumeMode)
      .field("volumeAttributesClassName", out.volumeAttributesClassName)
      .ok();
}

Json write(const PersistentVolumeClaimSpec& in) {
  Json o = Json::object();
  put(o, "accessModes", in.accessModes);
  put(o, "selector", in.selector);
  o["resources"] = write(in.resources);
  put(o, "volumeName", in.volumeName);
  put(o, "storageClassName", in.storageClassName);
  put(o, "volumeMode", in.volumeMode);
  put(o, "volumeAttributesClassName", in.volumeAttributesClassName);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PersistentVolumeClaimStatus& out) {
  return ObjectReader(ctx, j)
      .field("phase", out.phase)
      .field("accessModes", out.accessModes)
      .field("capacity", out.capacity)
      .ok();
}

Json write(const PersistentVolumeClaimStatus& in) {
  Json o = Json::object();
  put(o, "phase", in.phase);
  put(o, "accessModes", in.accessModes);
  put(o, "capacity", in.capacity);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PersistentVolumeClaim& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .field("spec", out.spec)
      .field("status", out.status)
      .ok();
}

Json write(const PersistentVolumeClaim& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  o["status"] = write(in.status);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Binding& out) {
  return ObjectReader(ctx, j).field("metadata", out.metadata).field("target", out.target).ok();
}

Json write(const Binding& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["target"] = write(in.target);
  return o;
}

}  // namespace ks::api::jsoncodec
