// core/v1 Pod and everything it contains (containers, affinity, tolerations, spread constraints, volumes,
// status), and the volume sources PersistentVolume shares (pkg/api/schema/core_pod.h).

#include <cstddef>
#include <iterator>
#include <string_view>

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

KS_PROTO_READER(ContainerResourceClaim)
KS_PROTO_READER(ResourceRequirements)
KS_PROTO_READER(ContainerPort)
KS_PROTO_READER(ContainerRestartRuleOnExitCodes)
KS_PROTO_READER(ContainerRestartRule)
KS_PROTO_READER(VolumeMount)
KS_PROTO_READER(Container)

KS_PROTO_READER_INLINE(EphemeralContainer, EphemeralContainerCommon, 1)

KS_PROTO_READER(Toleration)
KS_PROTO_READER(NodeSelectorRequirement)
KS_PROTO_READER(NodeSelectorTerm)
KS_PROTO_READER(NodeSelector)
KS_PROTO_READER(PreferredSchedulingTerm)
KS_PROTO_READER(NodeAffinity)
KS_PROTO_READER(PodAffinityTerm)
KS_PROTO_READER(WeightedPodAffinityTerm)
KS_PROTO_READER(PodAffinity)
KS_PROTO_READER(Affinity)
KS_PROTO_READER(TopologySpreadConstraint)
KS_PROTO_READER(PodSchedulingGate)
KS_PROTO_READER(PodSchedulingGroup)
KS_PROTO_READER(PersistentVolumeClaimVolumeSource)
KS_PROTO_READER(GCEPersistentDiskVolumeSource)
KS_PROTO_READER(AWSElasticBlockStoreVolumeSource)
KS_PROTO_READER(ISCSIVolumeSource)
KS_PROTO_READER(RBDVolumeSource)
KS_PROTO_READER(CSIVolumeSource)
KS_PROTO_READER(AzureDiskVolumeSource)
KS_PROTO_READER(AzureFileVolumeSource)
KS_PROTO_READER(CinderVolumeSource)
KS_PROTO_READER(VsphereVirtualDiskVolumeSource)
KS_PROTO_READER(PortworxVolumeSource)
KS_PROTO_READER(ImageVolumeSource)

KS_PROTO_FIELD_READER(readEphemeralVolumeResources, EphemeralVolumeResources, EphemeralVolumeSource)

static bool readEphemeralVolumeClaimSpec(DecodeContext& ctx, const Field& f, EphemeralVolumeSource& out) {
  switch (f.number) {
    KS_PROTO_CASES(EphemeralVolumeClaimSpec)
    case 2:
      return embedded(ctx, f, "resources",
                      [&](const Field& r) { return readEphemeralVolumeResources(ctx, r, out); });
    default:
      return true;
  }
}

bool read(DecodeContext& ctx, std::string_view msg, EphemeralVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    return f.number != 1 || embedded(ctx, f, "volumeClaimTemplate", [&](const Field& tmpl) {
             return tmpl.number != 2 || embedded(ctx, tmpl, "spec", [&](const Field& spec) {
                      return readEphemeralVolumeClaimSpec(ctx, spec, out);
                    });
           });
  });
}

KS_PROTO_FIELD_READER(readVolumeSource, VolumeSource, Volume)

bool read(DecodeContext& ctx, std::string_view msg, Volume& out) {
  constexpr size_t kNone = std::size(schema::kOtherVolumeSources);
  size_t other = kNone;
  auto source = [&](const Field& f) {
    for (size_t i = 0; i < other; ++i) {
      if (schema::kOtherVolumeSources[i].number == f.number) other = i;
    }
    return readVolumeSource(ctx, f, out);
  };
  bool ok = each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      KS_PROTO_CASES(Volume)
      case 2:
        return embedded(ctx, f, source);
      default:
        return true;
    }
  });
  if (ok && other < kNone) out.otherSource = schema::kOtherVolumeSources[other].name;
  return ok;
}

KS_PROTO_READER(PodResourceClaim)
KS_PROTO_READER(PodSpec)
KS_PROTO_READER(PodCondition)
KS_PROTO_READER(ContainerStatus)
KS_PROTO_READER(PodResourceClaimStatus)
KS_PROTO_READER(ContainerExtendedResourceRequest)
KS_PROTO_READER(PodExtendedResourceClaimStatus)
KS_PROTO_READER(PodStatus)
KS_PROTO_READER(Pod)

}  // namespace ks::api::protocodec
