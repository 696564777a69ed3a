// storage/v1 (StorageClass, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment), policy/v1 PodDisruptionBudget,
// the pod owners read for default spreading (core/v1 Service and ReplicationController, apps/v1
// ReplicaSet and StatefulSet),
// coordination/v1 Lease and events.k8s.io/v1 Event.

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

KS_JSON_CODEC(TopologySelectorLabelRequirement)
KS_JSON_CODEC(TopologySelectorTerm)
KS_JSON_CODEC(StorageClass)
KS_JSON_CODEC(VolumeNodeResources)
KS_JSON_CODEC(CSINodeDriver)

KS_JSON_OBJECT_WRITER(writeCSINodeSpec, CSINodeSpec, CSINode)

bool read(DecodeContext& ctx, const Json& j, CSINode& out) {
  return ObjectReader(ctx, j) KS_JSON_READ_FIELDS(CSINode)
      .nested("spec", [&](ObjectReader& spec) { spec KS_JSON_READ_FIELDS(CSINodeSpec); })
      .ok();
}

Json write(const CSINode& in) {
  Json o = Json::object();
  KS_JSON_WRITE_FIELDS(CSINode)
  o["spec"] = writeCSINodeSpec(in);
  return o;
}

KS_JSON_CODEC(CSIDriverSpec)
KS_JSON_CODEC(CSIDriver)
KS_JSON_CODEC(CSIStorageCapacity)

KS_JSON_OBJECT_WRITER(writeVolumeAttachmentSpec, VolumeAttachmentSpec, VolumeAttachment)
KS_JSON_OBJECT_WRITER(writeVolumeAttachmentSource, VolumeAttachmentSource, VolumeAttachment)
KS_JSON_OBJECT_WRITER(writeVolumeAttachmentStatus, VolumeAttachmentStatus, VolumeAttachment)

bool read(DecodeContext& ctx, const Json& j, VolumeAttachment& out) {
  return ObjectReader(ctx, j) KS_JSON_READ_FIELDS(VolumeAttachment)
      .nested("spec",
              [&](ObjectReader& spec) {
                spec KS_JSON_READ_FIELDS(VolumeAttachmentSpec).nested("source", [&](ObjectReader& source) {
                  source KS_JSON_READ_FIELDS(VolumeAttachmentSource);
                });
              })
      .nested("status", [&](ObjectReader& status) { status KS_JSON_READ_FIELDS(VolumeAttachmentStatus); })
      .ok();
}

Json write(const VolumeAttachment& in) {
  Json spec = writeVolumeAttachmentSpec(in);
  spec["source"] = writeVolumeAttachmentSource(in);
  Json o = Json::object();
  KS_JSON_WRITE_FIELDS(VolumeAttachment)
  o["spec"] = std::move(spec);
  o["status"] = writeVolumeAttachmentStatus(in);
  return o;
}

KS_JSON_CODEC(PodDisruptionBudgetSpec)
KS_JSON_CODEC(PodDisruptionBudgetStatus)
KS_JSON_CODEC(PodDisruptionBudget)

// ---- pod owners (selectors only) ----

KS_JSON_CODEC(ServiceSpec)
KS_JSON_CODEC(ReplicationControllerSpec)
KS_JSON_CODEC(ReplicaSetSpec)
KS_JSON_CODEC(StatefulSetSpec)
KS_JSON_CODEC(Service)
KS_JSON_CODEC(ReplicationController)
KS_JSON_CODEC(ReplicaSet)
KS_JSON_CODEC(StatefulSet)

KS_JSON_CODEC(LeaseSpec)
KS_JSON_CODEC(Lease)
KS_JSON_CODEC(EventSeries)
KS_JSON_CODEC(Event)

}  // namespace ks::api::jsoncodec
