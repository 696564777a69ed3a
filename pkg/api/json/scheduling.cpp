// scheduling.k8s.io/v1beta1: Workload, PodGroup and their parts.
// Writers follow the Go types' json tags: omitempty fields only when set, the others always.

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

// A union member without fields: any object ({} in practice), written as {}.
bool read(DecodeContext& ctx, const Json& j, EmptyObject& /*out*/) {
  return ObjectReader(ctx, j).ok();
}

Json write(const EmptyObject& /*in*/) {
  return Json::object();
}

KS_JSON_CODEC(TypedLocalObjectReference)
KS_JSON_CODEC(GangSchedulingPolicy)
KS_JSON_CODEC(PodGroupSchedulingPolicy)
KS_JSON_CODEC(TopologyConstraint)
KS_JSON_CODEC(PodGroupSchedulingConstraints)
KS_JSON_CODEC(PodGroupResourceClaim)
KS_JSON_CODEC(DisruptionMode)
KS_JSON_CODEC(PodGroupTemplate)
KS_JSON_CODEC(CompositeGangSchedulingPolicy)
KS_JSON_CODEC(CompositePodGroupSchedulingPolicy)
KS_JSON_CODEC(CompositePodGroupTemplate)
KS_JSON_CODEC(WorkloadSpec)
KS_JSON_CODEC(Workload)
KS_JSON_CODEC(WorkloadReference)
KS_JSON_CODEC(PodGroupSpec)
KS_JSON_CODEC(PodGroupStatus)
KS_JSON_CODEC(PodGroup)

}  // namespace ks::api::jsoncodec
