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
KS_PROTO_FIELD_READER(readPersistentVolumeSource, PersistentVolumeSource, PersistentVolumeSpec)

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

bool read(DecodeContext& ctx, std::string_view msg, PersistentVolumeSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      KS_PROTO_CASES(PersistentVolumeSpec)
      case 2:
        return embedded(ctx, f, [&](const Field& s) { return readPersistentVolumeSource(ctx, s, out); });
      default:
        return true;
    }
  });
}

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

// ServiceSpec and ReplicationControllerSpec both carry the pod selector as selector = 2.
bool read(DecodeContext& ctx, std::string_view msg, ServiceSpec& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 2 || get(ctx, f, "selector", out.selector); });
}

bool read(DecodeContext& ctx, std::string_view msg, ReplicationControllerSpec& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 2 || get(ctx, f, "selector", out.selector); });
}

bool read(DecodeContext& ctx, std::string_view msg, Service& out) {
  return readObject(ctx, msg, out);
}

bool read(DecodeContext& ctx, std::string_view msg, ReplicationController& out) {
  return readObject(ctx, msg, out);
}

}  // namespace ks::api::protocodec
