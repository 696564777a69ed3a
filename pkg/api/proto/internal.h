#pragma once
// Internal to pkg/api/proto: the value readers and the per-type message readers the codec's translation
// units define. Other components use codec.h.
//
// A per-type reader walks its message's fields once and dispatches on the field number. The readers are
// generated from the field tables of pkg/api/schema (KS_PROTO_READER below), which give each field's number
// in k8s.io/api's and apimachinery's generated.proto next to its JSON name and the member it fills;
// fields a table does not list are skipped.
//
// The result must equal what the JSON codec gives for the same object (the differential tests compare
// both on a real kube-apiserver), so the same conventions hold: metav1.Time is truncated to seconds,
// MicroTime to microseconds, and the same defaults apply (schema::setDefaults, called by both).
// Decoding follows Go's generated Unmarshal: a repeated field appends, an embedded message seen twice is
// merged, scalars take the last value, int32 is the varint truncated to 32 bits.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/api/apps.h"
#include "pkg/api/core.h"
#include "pkg/api/decode_context.h"
#include "pkg/api/heap_optional.h"
#include "pkg/api/meta.h"
#include "pkg/api/policy.h"
#include "pkg/api/proto/wire.h"
#include "pkg/api/quantity.h"
#include "pkg/api/resource.h"
#include "pkg/api/scheduling.h"
#include "pkg/api/schema/fields.h"
#include "pkg/api/storage.h"

namespace ks::api::protocodec {

using proto::Field;
using proto::Reader;
using proto::WireType;
using proto::Writer;

// Calls fn(field) for each field of `msg`; false once fn fails or the message is malformed.
template <typename Fn>
bool each(DecodeContext& ctx, std::string_view msg, Fn&& fn) {
  Reader r(msg);
  Field f;
  while (r.next(f)) {
    if (!fn(f)) return false;
  }
  if (r.error() != nullptr) return ctx.fail(r.error());
  return true;
}

// "field has wire type 0, expected 2" at the current path.
bool wrongWireType(DecodeContext& ctx, const Field& f, WireType want);

// ---- values: one field's value into `out`, without touching the path ----------------------------------
bool value(DecodeContext& ctx, const Field& f, std::string& out);
bool value(DecodeContext& ctx, const Field& f, bool& out);
bool value(DecodeContext& ctx, const Field& f, int32_t& out);
bool value(DecodeContext& ctx, const Field& f, int64_t& out);
bool value(DecodeContext& ctx, const Field& f, Quantity& out);     // resource.Quantity {string = 1}
bool value(DecodeContext& ctx, const Field& f, IntOrString& out);  // intstr {type = 1, intVal = 2, strVal = 3}
// metav1.Time, truncated to seconds, and MicroTime, to microseconds. Go writes the zero time as an empty
// message (JSON has null there): it leaves `out` as it is, and an optional time unset.
bool value(DecodeContext& ctx, const Field& f, Time& out);
bool value(DecodeContext& ctx, const Field& f, std::optional<Time>& out);
bool microTime(DecodeContext& ctx, const Field& f, Time& out);
bool microTime(DecodeContext& ctx, const Field& f, std::optional<Time>& out);

// ---- messages (defined in meta.cpp, core_pod.cpp, core_cluster.cpp, other.cpp, resource.cpp and
// scheduling.cpp) ------------------------------------------------------------------------------------------
#define KS_PROTO_DECLARE(Type) bool read(DecodeContext& ctx, std::string_view msg, Type& out);
KS_PROTO_DECLARE(OwnerReference)
KS_PROTO_DECLARE(ObjectMeta)
KS_PROTO_DECLARE(LabelSelectorRequirement)
KS_PROTO_DECLARE(LabelSelector)
KS_PROTO_DECLARE(StatusCause)
KS_PROTO_DECLARE(StatusDetails)
KS_PROTO_DECLARE(ApiStatus)
KS_PROTO_DECLARE(ListMeta)
KS_PROTO_DECLARE(ObjectReference)
KS_PROTO_DECLARE(Binding)
// Nested types too, whichever unit defines them: value() below finds a reader by ordinary lookup from
// this point (ADL cannot: the readers live in another namespace than the types). core/v1:
KS_PROTO_DECLARE(ContainerResourceClaim)
KS_PROTO_DECLARE(ResourceRequirements)
KS_PROTO_DECLARE(ContainerPort)
KS_PROTO_DECLARE(ContainerRestartRuleOnExitCodes)
KS_PROTO_DECLARE(ContainerRestartRule)
KS_PROTO_DECLARE(VolumeMount)
KS_PROTO_DECLARE(Container)
KS_PROTO_DECLARE(EphemeralContainer)
KS_PROTO_DECLARE(Toleration)
KS_PROTO_DECLARE(NodeSelectorRequirement)
KS_PROTO_DECLARE(NodeSelectorTerm)
KS_PROTO_DECLARE(NodeSelector)
KS_PROTO_DECLARE(PreferredSchedulingTerm)
KS_PROTO_DECLARE(NodeAffinity)
KS_PROTO_DECLARE(PodAffinityTerm)
KS_PROTO_DECLARE(WeightedPodAffinityTerm)
KS_PROTO_DECLARE(PodAffinity)
KS_PROTO_DECLARE(Affinity)
KS_PROTO_DECLARE(TopologySpreadConstraint)
KS_PROTO_DECLARE(PodSchedulingGate)
KS_PROTO_DECLARE(PodSchedulingGroup)
KS_PROTO_DECLARE(PersistentVolumeClaimVolumeSource)
KS_PROTO_DECLARE(GCEPersistentDiskVolumeSource)
KS_PROTO_DECLARE(AWSElasticBlockStoreVolumeSource)
KS_PROTO_DECLARE(ISCSIVolumeSource)
KS_PROTO_DECLARE(RBDVolumeSource)
KS_PROTO_DECLARE(CSIVolumeSource)
KS_PROTO_DECLARE(AzureDiskVolumeSource)
KS_PROTO_DECLARE(AzureFileVolumeSource)
KS_PROTO_DECLARE(CinderVolumeSource)
KS_PROTO_DECLARE(VsphereVirtualDiskVolumeSource)
KS_PROTO_DECLARE(PortworxVolumeSource)
KS_PROTO_DECLARE(ImageVolumeSource)
KS_PROTO_DECLARE(EphemeralVolumeSource)
KS_PROTO_DECLARE(Volume)
KS_PROTO_DECLARE(PodResourceClaim)
KS_PROTO_DECLARE(PodSpec)
KS_PROTO_DECLARE(PodCondition)
KS_PROTO_DECLARE(ContainerStatus)
KS_PROTO_DECLARE(PodResourceClaimStatus)
KS_PROTO_DECLARE(ContainerExtendedResourceRequest)
KS_PROTO_DECLARE(PodExtendedResourceClaimStatus)
KS_PROTO_DECLARE(PodStatus)
KS_PROTO_DECLARE(Taint)
KS_PROTO_DECLARE(NodeSpec)
KS_PROTO_DECLARE(NodeCondition)
KS_PROTO_DECLARE(NodeAddress)
KS_PROTO_DECLARE(ContainerImage)
KS_PROTO_DECLARE(NodeStatus)
KS_PROTO_DECLARE(VolumeNodeAffinity)
KS_PROTO_DECLARE(CSIPersistentVolumeSource)
KS_PROTO_DECLARE(PersistentVolumeSpec)
KS_PROTO_DECLARE(PersistentVolumeClaimSpec)
KS_PROTO_DECLARE(PersistentVolumeClaimStatus)
KS_PROTO_DECLARE(ServiceSpec)
KS_PROTO_DECLARE(ReplicationControllerSpec)
KS_PROTO_DECLARE(Pod)
KS_PROTO_DECLARE(Node)
KS_PROTO_DECLARE(Namespace)
KS_PROTO_DECLARE(PersistentVolume)
KS_PROTO_DECLARE(PersistentVolumeClaim)
KS_PROTO_DECLARE(Service)
KS_PROTO_DECLARE(ReplicationController)
// storage/v1, policy/v1, apps/v1 nested types (other.cpp)
KS_PROTO_DECLARE(TopologySelectorLabelRequirement)
KS_PROTO_DECLARE(TopologySelectorTerm)
KS_PROTO_DECLARE(VolumeNodeResources)
KS_PROTO_DECLARE(CSINodeDriver)
KS_PROTO_DECLARE(CSIDriverSpec)
KS_PROTO_DECLARE(PodDisruptionBudgetSpec)
KS_PROTO_DECLARE(PodDisruptionBudgetStatus)
KS_PROTO_DECLARE(ReplicaSetSpec)
KS_PROTO_DECLARE(StatefulSetSpec)
KS_PROTO_DECLARE(StorageClass)
KS_PROTO_DECLARE(CSINode)
KS_PROTO_DECLARE(CSIDriver)
KS_PROTO_DECLARE(CSIStorageCapacity)
KS_PROTO_DECLARE(VolumeAttachment)
KS_PROTO_DECLARE(PodDisruptionBudget)
KS_PROTO_DECLARE(ReplicaSet)
KS_PROTO_DECLARE(StatefulSet)
// resource.k8s.io/v1 nested types and metav1.Condition (resource.cpp); core/v1 NodeSelector is core_pod.cpp's
KS_PROTO_DECLARE(RawExtension)
KS_PROTO_DECLARE(Condition)
KS_PROTO_DECLARE(CELDeviceSelector)
KS_PROTO_DECLARE(DeviceSelector)
KS_PROTO_DECLARE(OpaqueDeviceConfiguration)
KS_PROTO_DECLARE(DeviceClassConfiguration)
KS_PROTO_DECLARE(DeviceClassSpec)
KS_PROTO_DECLARE(DeviceToleration)
KS_PROTO_DECLARE(CapacityRequirements)
KS_PROTO_DECLARE(ExactDeviceRequest)
KS_PROTO_DECLARE(DeviceSubRequest)
KS_PROTO_DECLARE(DeviceRequest)
KS_PROTO_DECLARE(DeviceConstraint)
KS_PROTO_DECLARE(DeviceClaimConfiguration)
KS_PROTO_DECLARE(DeviceClaim)
KS_PROTO_DECLARE(ResourceClaimSpec)
KS_PROTO_DECLARE(DeviceRequestAllocationResult)
KS_PROTO_DECLARE(DeviceAllocationConfiguration)
KS_PROTO_DECLARE(DeviceAllocationResult)
KS_PROTO_DECLARE(AllocationResult)
KS_PROTO_DECLARE(ResourceClaimConsumerReference)
KS_PROTO_DECLARE(NetworkDeviceData)
KS_PROTO_DECLARE(AllocatedDeviceStatus)
KS_PROTO_DECLARE(ResourceClaimStatus)
KS_PROTO_DECLARE(ResourcePool)
KS_PROTO_DECLARE(DeviceAttribute)
KS_PROTO_DECLARE(CapacityRequestPolicyRange)
KS_PROTO_DECLARE(CapacityRequestPolicy)
KS_PROTO_DECLARE(DeviceCapacity)
KS_PROTO_DECLARE(Counter)
KS_PROTO_DECLARE(CounterSet)
KS_PROTO_DECLARE(DeviceCounterConsumption)
KS_PROTO_DECLARE(DeviceTaint)
KS_PROTO_DECLARE(Device)
KS_PROTO_DECLARE(ResourceSliceSpec)
KS_PROTO_DECLARE(DeviceClass)
KS_PROTO_DECLARE(ResourceClaim)
KS_PROTO_DECLARE(ResourceSlice)
KS_PROTO_DECLARE(DeviceTaintSelector)
KS_PROTO_DECLARE(DeviceTaintRuleSpec)
KS_PROTO_DECLARE(DeviceTaintRuleStatus)
KS_PROTO_DECLARE(DeviceTaintRule)
// scheduling.k8s.io/v1beta1 (scheduling.cpp)
KS_PROTO_DECLARE(EmptyObject)
KS_PROTO_DECLARE(TypedLocalObjectReference)
KS_PROTO_DECLARE(GangSchedulingPolicy)
KS_PROTO_DECLARE(PodGroupSchedulingPolicy)
KS_PROTO_DECLARE(TopologyConstraint)
KS_PROTO_DECLARE(PodGroupSchedulingConstraints)
KS_PROTO_DECLARE(PodGroupResourceClaim)
KS_PROTO_DECLARE(DisruptionMode)
KS_PROTO_DECLARE(PodGroupTemplate)
KS_PROTO_DECLARE(CompositeGangSchedulingPolicy)
KS_PROTO_DECLARE(CompositePodGroupSchedulingPolicy)
KS_PROTO_DECLARE(CompositePodGroupTemplate)
KS_PROTO_DECLARE(WorkloadSpec)
KS_PROTO_DECLARE(Workload)
KS_PROTO_DECLARE(WorkloadReference)
KS_PROTO_DECLARE(PodGroupSpec)
KS_PROTO_DECLARE(PodGroupStatus)
KS_PROTO_DECLARE(PodGroup)
#undef KS_PROTO_DECLARE

template <typename T>
concept Message = requires(DecodeContext& ctx, std::string_view msg, T& out) { read(ctx, msg, out); };

// An embedded message.
template <Message T>
bool value(DecodeContext& ctx, const Field& f, T& out) {
  if (f.type != WireType::kBytes) return wrongWireType(ctx, f, WireType::kBytes);
  return read(ctx, f.bytes, out);
}

// An optional field (a Go pointer): present on the wire means set. A message seen twice is merged.
template <typename T>
bool value(DecodeContext& ctx, const Field& f, std::optional<T>& out) {
  if (!out) out.emplace();
  return value(ctx, f, *out);
}
template <typename T>
bool value(DecodeContext& ctx, const Field& f, HeapOptional<T>& out) {
  if (!out) out.emplace();
  return value(ctx, f, *out);
}

// A map entry {key = 1, value = 2}; a missing value is the zero value, as in Go.
template <typename V>
bool value(DecodeContext& ctx, const Field& f, std::map<std::string, V>& out) {
  if (f.type != WireType::kBytes) return wrongWireType(ctx, f, WireType::kBytes);
  std::string key;
  std::optional<Field> valueField;
  bool ok = each(ctx, f.bytes, [&](const Field& e) {
    if (e.number == 1) return value(ctx, e, key);
    if (e.number == 2) valueField = e;
    return true;
  });
  if (!ok) return false;
  V& v = out[key];
  if (!valueField) return true;
  PathScope scope(ctx, out.find(key)->first);
  return value(ctx, *valueField, v);
}

// One element of a repeated field (repeated scalars may also arrive packed, as Go's Unmarshal accepts).
template <typename T>
bool value(DecodeContext& ctx, const Field& f, std::vector<T>& out) {
  if constexpr (std::is_integral_v<T>) {
    if (f.type == WireType::kBytes) {
      std::string_view rest = f.bytes;
      while (!rest.empty()) {
        Field one{f.number, WireType::kVarint, 0, {}};
        if (!proto::takeVarint(rest, one.value)) return ctx.fail("truncated packed varint");
        out.emplace_back();
        PathScope scope(ctx, out.size() - 1);
        if (!value(ctx, one, out.back())) return false;
      }
      return true;
    }
  }
  out.emplace_back();
  PathScope scope(ctx, out.size() - 1);
  return value(ctx, f, out.back());
}

// `name` is the field's JSON name, for the error path.
template <typename T>
bool get(DecodeContext& ctx, const Field& f, std::string_view name, T& out) {
  PathScope scope(ctx, name);
  return value(ctx, f, out);
}

// An embedded message whose fields the model keeps elsewhere: JSON inlines core/v1 VolumeSource into
// Volume and PersistentVolumeSource into PersistentVolumeSpec (no path segment), and the model flattens
// e.g. status.phase (then the caller names the segment). fn sees the message's fields.
template <typename Fn>
bool embedded(DecodeContext& ctx, const Field& f, Fn&& fn) {
  if (f.type != WireType::kBytes) return wrongWireType(ctx, f, WireType::kBytes);
  return each(ctx, f.bytes, fn);
}
template <typename Fn>
bool embedded(DecodeContext& ctx, const Field& f, std::string_view name, Fn&& fn) {
  PathScope scope(ctx, name);
  return embedded(ctx, f, fn);
}

template <typename T>  // Time or std::optional<Time>
bool getMicroTime(DecodeContext& ctx, const Field& f, std::string_view name, T& out) {
  PathScope scope(ctx, name);
  return microTime(ctx, f, out);
}

// ---- readers generated from the field tables (pkg/api/schema/schema.h) ---------------------------------
// In a reader `out` is the object read and `f` the field at hand.
#define KS_PROTO_GET_Always get
#define KS_PROTO_GET_OmitEmpty get
#define KS_PROTO_GET_MicroTime getMicroTime
#define KS_PROTO_GET_Nullable get
#define KS_PROTO_CASE(member, name, number, rule) \
  case number:                                    \
    return KS_PROTO_GET_##rule(ctx, f, name, out.member);

// The switch cases of a table, for a hand-written reader's switch (f.number).
#define KS_PROTO_CASES(Table) KS_FIELDS_##Table(KS_PROTO_CASE)

// static bool Name(DecodeContext&, const Field& f, Type& out): f if the table has it (else skipped), for a
// hand-written reader whose message nests one the model keeps on Type (e.g. status.phase).
#define KS_PROTO_FIELD_READER(Name, Table, Type)                   \
  static bool Name(DecodeContext& ctx, const Field& f, Type& out) { \
    switch (f.number) {                                             \
      KS_PROTO_CASES(Table)                                         \
      default:                                                      \
        return true;                                                \
    }                                                               \
  }

// bool read(DecodeContext&, std::string_view, Type&): the table's fields, the rest skipped; then the
// type's defaults.
#define KS_PROTO_READER(Type)                                             \
  bool read(DecodeContext& ctx, std::string_view msg, Type& out) {        \
    const bool ok = each(ctx, msg, [&](const Field& f) {                  \
      switch (f.number) {                                                 \
        KS_PROTO_CASES(Type)                                              \
        default:                                                          \
          return true;                                                    \
      }                                                                   \
    });                                                                   \
    schema::setDefaults(out);                                             \
    return ok;                                                            \
  }

// The same for a type whose message embeds an inlined member struct as field `fieldNumber` (in JSON its
// fields sit in the type's object, no path segment of their own: see KS_JSON_CODEC_INLINE).
#define KS_PROTO_READER_INLINE(Type, Inline, fieldNumber)                                          \
  KS_PROTO_FIELD_READER(read##Inline, Inline, Type)                                             \
  bool read(DecodeContext& ctx, std::string_view msg, Type& out) {                              \
    const bool ok = each(ctx, msg, [&](const Field& f) {                                        \
      switch (f.number) {                                                                       \
        KS_PROTO_CASES(Type)                                                                    \
        case fieldNumber:                                                                       \
          return embedded(ctx, f, [&](const Field& e) { return read##Inline(ctx, e, out); });   \
        default:                                                                                \
          return true;                                                                          \
      }                                                                                         \
    });                                                                                         \
    schema::setDefaults(out);                                                                   \
    return ok;                                                                                  \
  }

// ---- writing (only what the scheduler sends as protobuf: a Binding) -----------------------------------
std::string write(const ObjectMeta& in);
std::string write(const ObjectReference& in);

}  // namespace ks::api::protocodec
