// storage/v1 (StorageClass, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment), policy/v1 PodDisruptionBudget,
// the pod owners read for default spreading (core/v1 Service and ReplicationController, apps/v1
// ReplicaSet and StatefulSet),
// coordination/v1 Lease and events.k8s.io/v1 Event.

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

bool read(DecodeContext& ctx, const Json& j, TopologySelectorLabelRequirement& out) {
  return ObjectReader(ctx, j).field("key", out.key).field("values", out.values).ok();
}

Json write(const TopologySelectorLabelRequirement& in) {
  Json o = Json::object();
  o["key"] = in.key;
  o["values"] = write(in.values);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, TopologySelectorTerm& out) {
  return ObjectReader(ctx, j).field("matchLabelExpressions", out.matchLabelExpressions).ok();
}

Json write(const TopologySelectorTerm& in) {
  Json o = Json::object();
  put(o, "matchLabelExpressions", in.matchLabelExpressions);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, StorageClass& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .field("provisioner", out.provisioner)
      .field("parameters", out.parameters)
      .field("reclaimPolicy", out.reclaimPolicy)
      .field("allowVolumeExpansion", out.allowVolumeExpansion)
      .field("volumeBindingMode", out.volumeBindingMode)
      .field("allowedTopologies", out.allowedTopologies)
      .ok();
}

Json write(const StorageClass& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["provisioner"] = in.provisioner;
  put(o, "parameters", in.parameters);
  put(o, "reclaimPolicy", in.reclaimPolicy);
  put(o, "allowVolumeExpansion", in.allowVolumeExpansion);
  put(o, "volumeBindingMode", in.volumeBindingMode);
  put(o, "allowedTopologies", in.allowedTopologies);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, VolumeNodeResources& out) {
  return ObjectReader(ctx, j).field("count", out.count).ok();
}

Json write(const VolumeNodeResources& in) {
  Json o = Json::object();
  put(o, "count", in.count);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CSINodeDriver& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("nodeID", out.nodeID)
      .field("topologyKeys", out.topologyKeys)
      .field("allocatable", out.allocatable)
      .ok();
}

Json write(const CSINodeDriver& in) {
  Json o = Json::object();
  o["name"] = in.name;
  o["nodeID"] = in.nodeID;
  put(o, "topologyKeys", in.topologyKeys);
  put(o, "allocatable", in.allocatable);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CSINode& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .nested("spec", [&](ObjectReader& spec) { spec.field("drivers", out.drivers); })
      .ok();
}

Json write(const CSINode& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  Json spec = Json::object();
  spec["drivers"] = write(in.drivers);
  o["spec"] = std::move(spec);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CSIDriverSpec& out) {
  return ObjectReader(ctx, j)
      .field("attachRequired", out.attachRequired)
      .field("podInfoOnMount", out.podInfoOnMount)
      .field("volumeLifecycleModes", out.volumeLifecycleModes)
      .field("storageCapacity", out.storageCapacity)
      .field("fsGroupPolicy", out.fsGroupPolicy)
      .field("preventPodSchedulingIfMissing", out.preventPodSchedulingIfMissing)
      .ok();
}

Json write(const CSIDriverSpec& in) {
  Json o = Json::object();
  put(o, "attachRequired", in.attachRequired);
  put(o, "podInfoOnMount", in.podInfoOnMount);
  put(o, "volumeLifecycleModes", in.volumeLifecycleModes);
  put(o, "storageCapacity", in.storageCapacity);
  put(o, "fsGroupPolicy", in.fsGroupPolicy);
  put(o, "preventPodSchedulingIfMissing", in.preventPodSchedulingIfMissing);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CSIDriver& out) {
  return ObjectReader(ctx, j).field("metadata", out.metadata).field("spec", out.spec).ok();
}

Json write(const CSIDriver& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CSIStorageCapacity& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .field("nodeTopology", out.nodeTopology)
      .field("storageClassName", out.storageClassName)
      .field("capacity", out.capacity)
      .field("maximumVolumeSize", out.maximumVolumeSize)
      .ok();
}

Json write(const CSIStorageCapacity& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  put(o, "nodeTopology", in.nodeTopology);
  o["storageClassName"] = in.storageClassName;
  put(o, "capacity", in.capacity);
  put(o, "maximumVolumeSize", in.maximumVolumeSize);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, VolumeAttachment& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .nested("spec",
              [&](ObjectReader& spec) {
                spec.field("attacher", out.attacher)
                    .field("nodeName", out.nodeName)
                    .nested("source", [&](ObjectReader& source) {
                      source.field("persistentVolumeName", out.persistentVolumeName);
                    });
              })
      .nested("status", [&](ObjectReader& status) { status.field("attached", out.attached); })
      .ok();
}

Json write(const VolumeAttachment& in) {
  Json source = Json::object();
  put(source, "persistentVolumeName", in.persistentVolumeName);
  Json spec = Json::object();
  spec["attacher"] = in.attacher;
  spec["nodeName"] = in.nodeName;
  spec["source"] = std::move(source);
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = std::move(spec);
  o["status"] = Json{{"attached", in.attached}};
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodDisruptionBudgetSpec& out) {
  return ObjectReader(ctx, j)
      .field("minAvailable", out.minAvailable)
      .field("selector", out.selector)
      .field("maxUnavailable", out.maxUnavailable)
      .field("unhealthyPodEvictionPolicy", out.unhealthyPodEvictionPolicy)
      .ok();
}

Json write(const PodDisruptionBudgetSpec& in) {
  Json o = Json::object();
  put(o, "minAvailable", in.minAvailable);
  put(o, "selector", in.selector);
  put(o, "maxUnavailable", in.maxUnavailable);
  put(o, "unhealthyPodEvictionPolicy", in.unhealthyPodEvictionPolicy);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodDisruptionBudgetStatus& out) {
  return ObjectReader(ctx, j)
      .field("observedGeneration", out.observedGeneration)
      .field("disruptedPods", out.disruptedPods)
      .field("disruptionsAllowed", out.disruptionsAllowed)
      .field("currentHealthy", out.currentHealthy)
      .field("desiredHealthy", out.desiredHealthy)
      .field("expectedPods", out.expectedPods)
      .ok();
}

Json write(const PodDisruptionBudgetStatus& in) {
  Json o = Json::object();
  put(o, "observedGeneration", in.observedGeneration);
  put(o, "disruptedPods", in.disruptedPods);
  o["disruptionsAllowed"] = in.disruptionsAllowed;
  o["currentHealthy"] = in.currentHealthy;
  o["desiredHealthy"] = in.desiredHealthy;
  o["expectedPods"] = in.expectedPods;
  return o;
}

bool read(DecodeContext& ctx, const Json& j, PodDisruptionBudget& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .field("spec", out.spec)
      .field("status", out.status)
      .ok();
}

Json write(const PodDisruptionBudget& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  o["status"] = write(in.status);
  return o;
}

// ---- pod owners (selectors only) ----

#define KS_JSON_SELECTOR_SPEC(Spec)                                    \
  bool read(DecodeContext& ctx, const Json& j, Spec& out) {            \
    return ObjectReader(ctx, j).field("selector", out.selector).ok(); \
  }                                                                    \
  Json write(const Spec& in) {                                         \
    Json o = Json::object();                                           \
    put(o, "selector", in.selector);                                   \
    return o;                                                          \
  }
KS_JSON_SELECTOR_SPEC(ServiceSpec)
KS_JSON_SELECTOR_SPEC(ReplicationControllerSpec)
KS_JSON_SELECTOR_SPEC(ReplicaSetSpec)
KS_JSON_SELECTOR_SPEC(StatefulSetSpec)
#undef KS_JSON_SELECTOR_SPEC

#define KS_JSON_OWNER_KIND(Type)                                                             \
  bool read(DecodeContext& ctx, const Json& j, Type& out) {                                 \
    return ObjectReader(ctx, j).field("metadata", out.metadata).field("spec", out.spec).ok(); \
  }                                                                                          \
  Json write(const Type& in) {                                                               \
    Json o = Json::object();                                                                 \
    o["metadata"] = write(in.metadata);                                                      \
    o["spec"] = write(in.spec);                                                              \
    return o;                                                                                \
  }
KS_JSON_OWNER_KIND(Service)
KS_JSON_OWNER_KIND(ReplicationController)
KS_JSON_OWNER_KIND(ReplicaSet)
KS_JSON_OWNER_KIND(StatefulSet)
#undef KS_JSON_OWNER_KIND

bool read(DecodeContext& ctx, const Json& j, LeaseSpec& out) {
  return ObjectReader(ctx, j)
      .field("holderIdentity", out.holderIdentity)
      .field("leaseDurationSeconds", out.leaseDurationSeconds)
      .microTime("acquireTime", out.acquireTime)
      .microTime("renewTime", out.renewTime)
      .field("leaseTransitions", out.leaseTransitions)
      .ok();
}

Json write(const LeaseSpec& in) {
  Json o = Json::object();
  put(o, "holderIdentity", in.holderIdentity);
  put(o, "leaseDurationSeconds", in.leaseDurationSeconds);
  putMicroTime(o, "acquireTime", in.acquireTime);
  putMicroTime(o, "renewTime", in.renewTime);
  put(o, "leaseTransitions", in.leaseTransitions);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Lease& out) {
  return ObjectReader(ctx, j).field("metadata", out.metadata).field("spec", out.spec).ok();
}

Json write(const Lease& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, EventSeries& out) {
  return ObjectReader(ctx, j)
      .field("count", out.count)
      .microTime("lastObservedTime", out.lastObservedTime)
      .ok();
}

// A zero MicroTime marshals as null in Go; we treat the zero time_point the same way.
Json write(const EventSeries& in) {
  Json o = Json::object();
  o["count"] = in.count;
  o["lastObservedTime"] = in.lastObservedTime == Time{} ? Json(nullptr) : writeMicroTime(in.lastObservedTime);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Event& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .microTime("eventTime", out.eventTime)
      .field("series", out.series)
      .field("reportingController", out.reportingController)
      .field("reportingInstance", out.reportingInstance)
      .field("action", out.action)
      .field("reason", out.reason)
      .field("regarding", out.regarding)
      .field("related", out.related)
      .field("note", out.note)
      .field("type", out.type)
      .ok();
}

Json write(const Event& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["eventTime"] = in.eventTime == Time{} ? Json(nullptr) : writeMicroTime(in.eventTime);
  put(o, "series", in.series);
  put(o, "reportingController", in.reportingController);
  put(o, "reportingInstance", in.reportingInstance);
  put(o, "action", in.action);
  put(o, "reason", in.reason);
  o["regarding"] = write(in.regarding);
  put(o, "related", in.related);
  put(o, "note", in.note);
  put(o, "type", in.type);
  return o;
}

}  // namespace ks::api::jsoncodec
