// core/v1 Pod and everything it contains (containers, affinity, tolerations, spread constraints,
// volumes, status).

#include <string_view>

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

KS_JSON_CODEC(ContainerResourceClaim)
KS_JSON_CODEC(ResourceRequirements)

KS_JSON_CODEC(ContainerPort)
KS_JSON_CODEC(ContainerRestartRuleOnExitCodes)
KS_JSON_CODEC(ContainerRestartRule)

KS_JSON_CODEC(VolumeMount)
KS_JSON_CODEC(Container)

KS_JSON_CODEC_INLINE(EphemeralContainer, EphemeralContainerCommon)

KS_JSON_CODEC(Toleration)
KS_JSON_CODEC(Taint)
KS_JSON_CODEC(NodeSelectorRequirement)
KS_JSON_CODEC(NodeSelectorTerm)
KS_JSON_CODEC(NodeSelector)
KS_JSON_CODEC(PreferredSchedulingTerm)
KS_JSON_CODEC(NodeAffinity)
KS_JSON_CODEC(PodAffinityTerm)
KS_JSON_CODEC(WeightedPodAffinityTerm)
KS_JSON_CODEC(PodAffinity)
KS_JSON_CODEC(Affinity)
KS_JSON_CODEC(TopologySpreadConstraint)
KS_JSON_CODEC(PodSchedulingGate)
KS_JSON_CODEC(PodSchedulingGroup)
KS_JSON_CODEC(PersistentVolumeClaimVolumeSource)
KS_JSON_CODEC(GCEPersistentDiskVolumeSource)
KS_JSON_CODEC(AWSElasticBlockStoreVolumeSource)
KS_JSON_CODEC(ISCSIVolumeSource)

KS_JSON_CODEC(RBDVolumeSource)
KS_JSON_CODEC(CSIVolumeSource)
KS_JSON_CODEC(AzureDiskVolumeSource)
KS_JSON_CODEC(AzureFileVolumeSource)
KS_JSON_CODEC(CinderVolumeSource)
KS_JSON_CODEC(VsphereVirtualDiskVolumeSource)
KS_JSON_CODEC(PortworxVolumeSource)
KS_JSON_CODEC(ImageVolumeSource)

KS_JSON_OBJECT_WRITER(writeEphemeralVolumeClaimSpec, EphemeralVolumeClaimSpec, EphemeralVolumeSource)
KS_JSON_OBJECT_WRITER(writeEphemeralVolumeResources, EphemeralVolumeResources, EphemeralVolumeSource)

bool read(DecodeContext& ctx, const Json& j, EphemeralVolumeSource& out) {
  return ObjectReader(ctx, j)
      .nested("volumeClaimTemplate",
              [&](ObjectReader& tmpl) {
                tmpl.nested("spec", [&](ObjectReader& spec) {
                  spec KS_JSON_READ_FIELDS(EphemeralVolumeClaimSpec)
                      .nested("resources", [&](ObjectReader& res) { res KS_JSON_READ_FIELDS(EphemeralVolumeResources); });
                });
              })
      .ok();
}

Json write(const EphemeralVolumeSource& in) {
  Json spec = writeEphemeralVolumeClaimSpec(in);
  spec["resources"] = writeEphemeralVolumeResources(in);
  Json o = Json::object();
  o["volumeClaimTemplate"] = Json{{"spec", std::move(spec)}};
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Volume& out) {
  ObjectReader r(ctx, j);
  r KS_JSON_READ_FIELDS(Volume) KS_JSON_READ_FIELDS(VolumeSource);
  if (!r.ok()) return false;
  for (const auto& other : schema::kOtherVolumeSources) {
    if (r.find(other.name) != nullptr) {
      out.otherSource = other.name;
      break;
    }
  }
  return true;
}

Json write(const Volume& in) {
  Json o = Json::object();
  KS_JSON_WRITE_FIELDS(Volume)
  KS_JSON_WRITE_FIELDS(VolumeSource)
  if (!in.otherSource.empty()) o[in.otherSource] = Json::object();
  return o;
}

KS_JSON_CODEC(PodResourceClaim)

KS_JSON_CODEC(PodSpec)
KS_JSON_CODEC(PodCondition)
KS_JSON_CODEC(ContainerStatus)
KS_JSON_CODEC(PodResourceClaimStatus)
KS_JSON_CODEC(ContainerExtendedResourceRequest)
KS_JSON_CODEC(PodExtendedResourceClaimStatus)
KS_JSON_CODEC(PodStatus)

KS_JSON_CODEC(Pod)

}  // namespace ks::api::jsoncodec
