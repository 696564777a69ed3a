// core/v1 Node, Namespace, PersistentVolume, PersistentVolumeClaim, Service and ReplicationController.
// Mirrors pkg/api/json/core_cluster.cpp (and the Service/ReplicationController readers of other.cpp).

#include <string_view>

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

KS_PROTO_READER(Taint)
KS_PROTO_READER(NodeSpec)
KS_PROTO_READER(NodeCondition)
KS_PROTO_READER(NodeAddress)
KS_PROTO_READER(ContainerImage)
KS_PROTO_READER(NodeStatus)
KS_PROTO_READER(Node)

KS_PROTO_FIELD_READER(readStatusPhase, StatusPhase, Namespace)
KS_PROTO_FIELD_READER(readStatusPhase, StatusPhase, PersistentVolume)

bool read(DecodeContext& ctx, std::string_view msg, Namespace& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      KS_PROTO_CASES(Namespace)
      case 3:
        return embedded(ctx, f, "status", [&](const Field& s) { return readStatusPhase(ctx, s, out); });
      default:
        return true;
    }
  });
}

KS_PROTO_READER(VolumeNodeAffinity)
KS_PROTO_READER(CSIPersistentVolumeSource)

KS_PROTO_READER_INLINE(PersistentVolumeSpec, PersistentVolumeSource, 2)

bool read(DecodeContext& ctx, std::string_view msg, PersistentVolume& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      KS_PROTO_CASES(PersistentVolume)
      case 3:
        return embedded(ctx, f, "status", [&](const Field& s) { return readStatusPhase(ctx, s, out); });
      default:
        return true;
    }
  });
}

KS_PROTO_READER(PersistentVolumeClaimSpec)
KS_PROTO_READER(PersistentVolumeClaimStatus)
KS_PROTO_READER(PersistentVolumeClaim)

// The pod owners' selectors (other.cpp has the apps/v1 ones).
KS_PROTO_READER(ServiceSpec)
KS_PROTO_READER(ReplicationControllerSpec)
KS_PROTO_READER(Service)
KS_PROTO_READER(ReplicationController)

}  // namespace ks::api::protocodec
