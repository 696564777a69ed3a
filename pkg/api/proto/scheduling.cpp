// scheduling.k8s.io/v1beta1: Workload, PodGroup and their parts, as pkg/api/json/scheduling.cpp reads them.

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

// A union member without fields (BasicSchedulingPolicy, SingleDisruptionMode, ...): present is all it says.
bool read(DecodeContext& ctx, std::string_view msg, EmptyObject& /*out*/) {
  return each(ctx, msg, [](const Field&) { return true; });
}

KS_PROTO_READER(TypedLocalObjectReference)
KS_PROTO_READER(GangSchedulingPolicy)
KS_PROTO_READER(PodGroupSchedulingPolicy)
KS_PROTO_READER(TopologyConstraint)
KS_PROTO_READER(PodGroupSchedulingConstraints)
KS_PROTO_READER(PodGroupResourceClaim)
KS_PROTO_READER(DisruptionMode)
KS_PROTO_READER(PodGroupTemplate)
KS_PROTO_READER(CompositeGangSchedulingPolicy)
KS_PROTO_READER(CompositePodGroupSchedulingPolicy)
KS_PROTO_READER(CompositePodGroupTemplate)
KS_PROTO_READER(WorkloadSpec)
KS_PROTO_READER(Workload)
KS_PROTO_READER(WorkloadReference)
KS_PROTO_READER(PodGroupSpec)
KS_PROTO_READER(PodGroupStatus)
KS_PROTO_READER(PodGroup)

}  // namespace ks::api::protocodec
