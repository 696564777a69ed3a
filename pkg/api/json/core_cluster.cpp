// core/v1 Node, Namespace, PersistentVolume, PersistentVolumeClaim and Binding.

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

KS_JSON_CODEC(NodeCondition)
KS_JSON_CODEC(ContainerImage)
KS_JSON_CODEC(NodeSpec)
KS_JSON_CODEC(NodeAddress)
KS_JSON_CODEC(NodeStatus)
KS_JSON_CODEC(Node)

namespace {

// status.phase, kept on the object.
template <typename T>
bool readWithStatusPhase(ObjectReader& r, T& out) {
  return r.nested("status", [&](ObjectReader& status) { status KS_JSON_READ_FIELDS(StatusPhase); }).ok();
}

template <typename T>
Json writeStatusPhase(const T& in) {
  Json o = Json::object();
  KS_JSON_WRITE_FIELDS(StatusPhase)
  return o;
}

}  // namespace

bool read(DecodeContext& ctx, const Json& j, Namespace& out) {
  return readWithStatusPhase(ObjectReader(ctx, j) KS_JSON_READ_FIELDS(Namespace), out);
}

Json write(const Namespace& in) {
  Json o = Json::object();
  KS_JSON_WRITE_FIELDS(Namespace)
  o["spec"] = Json::object();
  o["status"] = writeStatusPhase(in);
  return o;
}

KS_JSON_CODEC(VolumeNodeAffinity)
KS_JSON_CODEC(CSIPersistentVolumeSource)

KS_JSON_CODEC_INLINE(PersistentVolumeSpec, PersistentVolumeSource)

bool read(DecodeContext& ctx, const Json& j, PersistentVolume& out) {
  return readWithStatusPhase(ObjectReader(ctx, j) KS_JSON_READ_FIELDS(PersistentVolume), out);
}

Json write(const PersistentVolume& in) {
  Json o = Json::object();
  KS_JSON_WRITE_FIELDS(PersistentVolume)
  o["status"] = writeStatusPhase(in);
  return o;
}


KS_JSON_CODEC(PersistentVolumeClaimSpec)
KS_JSON_CODEC(PersistentVolumeClaimStatus)
KS_JSON_CODEC(PersistentVolumeClaim)
KS_JSON_CODEC(Binding)

}  // namespace ks::api::jsoncodec
