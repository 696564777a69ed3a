// storage/v1 (StorageClass, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment), policy/v1
// PodDisruptionBudget, and the apps/v1 pod owners (ReplicaSet, StatefulSet: their selector only), as
// pkg/api/json/other.cpp reads them.

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

// ---- core/v1 TopologySelectorTerm (StorageClass only) ----

KS_PROTO_READER(TopologySelectorLabelRequirement)
KS_PROTO_READER(TopologySelectorTerm)

// ---- storage/v1 ----

KS_PROTO_READER(StorageClass)
KS_PROTO_READER(VolumeNodeResources)
KS_PROTO_READER(CSINodeDriver)

KS_PROTO_FIELD_READER(readCSINodeSpec, CSINodeSpec, CSINode)

bool read(DecodeContext& ctx, std::string_view msg, CSINode& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      KS_PROTO_CASES(CSINode)
      case 2:
        return embedded(ctx, f, "spec", [&](const Field& s) { return readCSINodeSpec(ctx, s, out); });
      default:
        return true;
    }
  });
}

KS_PROTO_READER(CSIDriverSpec)
KS_PROTO_READER(CSIDriver)
KS_PROTO_READER(CSIStorageCapacity)

KS_PROTO_FIELD_READER(readVolumeAttachmentSource, VolumeAttachmentSource, VolumeAttachment)
KS_PROTO_FIELD_READER(readVolumeAttachmentStatus, VolumeAttachmentStatus, VolumeAttachment)

static bool readVolumeAttachmentSpec(DecodeContext& ctx, const Field& f, VolumeAttachment& out) {
  switch (f.number) {
    KS_PROTO_CASES(VolumeAttachmentSpec)
    case 2:
      return embedded(ctx, f, "source",
                      [&](const Field& s) { return readVolumeAttachmentSource(ctx, s, out); });
    default:
      return true;
  }
}

bool read(DecodeContext& ctx, std::string_view msg, VolumeAttachment& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      KS_PROTO_CASES(VolumeAttachment)
      case 2:
        return embedded(ctx, f, "spec",
                        [&](const Field& s) { return readVolumeAttachmentSpec(ctx, s, out); });
      case 3:
        return embedded(ctx, f, "status",
                        [&](const Field& s) { return readVolumeAttachmentStatus(ctx, s, out); });
      default:
        return true;
    }
  });
}

// ---- policy/v1 ----

KS_PROTO_READER(PodDisruptionBudgetSpec)
KS_PROTO_READER(PodDisruptionBudgetStatus)
KS_PROTO_READER(PodDisruptionBudget)

// ---- apps/v1 pod owners: the selector ----

KS_PROTO_READER(ReplicaSetSpec)
KS_PROTO_READER(StatefulSetSpec)
KS_PROTO_READER(ReplicaSet)
KS_PROTO_READER(StatefulSet)

}  // namespace ks::api::protocodec
