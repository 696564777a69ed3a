#pragma once
// Internal to pkg/api/json: the decode context (field path + first error), the primitive readers and
// writers, and the per-type read/write overloads the codec translation units define, most of them generated
// from the field tables of pkg/api/schema (KS_JSON_CODEC below). Not for other components: they use codec.h
// or codec_nlohmann.h.
//
// Conventions (as Go's encoding/json as used by the API machinery):
//  - decoding a JSON null leaves the target at its zero value (absent optional stays std::nullopt);
//  - unknown fields are ignored, field names are case-sensitive;
//  - every read(...) returns false after recording the first error (with the path) in the context.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/api/apps.h"
#include "pkg/api/coordination.h"
#include "pkg/api/core.h"
#include "pkg/api/decode_context.h"
#include "pkg/api/events.h"
#include "pkg/api/meta.h"
#include "pkg/api/policy.h"
#include "pkg/api/quantity.h"
#include "pkg/api/resource.h"
#include "pkg/api/scheduling.h"
#include "pkg/api/schema/fields.h"
#include "pkg/api/storage.h"
#include "pkg/util/result.h"

namespace ks::api::jsoncodec {

using Json = nlohmann::json;

using ::ks::api::DecodeContext;
using ::ks::api::PathScope;

// "array", "string", "number", ... as in "expected an object, got array".
std::string_view typeName(const Json& j);

// ---- primitive readers -------------------------------------------------------------------------
bool read(DecodeContext& ctx, const Json& j, std::string& out);
bool read(DecodeContext& ctx, const Json& j, bool& out);
bool read(DecodeContext& ctx, const Json& j, int32_t& out);
bool read(DecodeContext& ctx, const Json& j, int64_t& out);
bool read(DecodeContext& ctx, const Json& j, Quantity& out);
bool read(DecodeContext& ctx, const Json& j, IntOrString& out);
bool read(DecodeContext& ctx, const Json& j, Time& out);           // metav1.Time: truncated to seconds
bool readMicroTime(DecodeContext& ctx, const Json& j, Time& out);  // metav1.MicroTime: microseconds

// ---- struct readers (defined in meta.cpp, core_pod.cpp, core_cluster.cpp, other.cpp, resource.cpp,
// scheduling.cpp) ----
#define KS_JSON_DECLARE(Type)                              \
  bool read(DecodeContext& ctx, const Json& j, Type& out); \
  Json write(const Type& in);
KS_JSON_DECLARE(OwnerReference)
KS_JSON_DECLARE(ObjectMeta)
KS_JSON_DECLARE(LabelSelectorRequirement)
KS_JSON_DECLARE(LabelSelector)
KS_JSON_DECLARE(StatusCause)
KS_JSON_DECLARE(StatusDetails)
KS_JSON_DECLARE(ApiStatus)
KS_JSON_DECLARE(ListMeta)
KS_JSON_DECLARE(ObjectReference)
KS_JSON_DECLARE(ContainerResourceClaim)
KS_JSON_DECLARE(ResourceRequirements)
KS_JSON_DECLARE(ContainerPort)
KS_JSON_DECLARE(ContainerRestartRuleOnExitCodes)
KS_JSON_DECLARE(ContainerRestartRule)
KS_JSON_DECLARE(VolumeMount)
KS_JSON_DECLARE(Container)
KS_JSON_DECLARE(EphemeralContainer)
KS_JSON_DECLARE(Toleration)
KS_JSON_DECLARE(Taint)
KS_JSON_DECLARE(NodeSelectorRequirement)
KS_JSON_DECLARE(NodeSelectorTerm)
KS_JSON_DECLARE(NodeSelector)
KS_JSON_DECLARE(PreferredSchedulingTerm)
KS_JSON_DECLARE(NodeAffinity)
KS_JSON_DECLARE(PodAffinityTerm)
KS_JSON_DECLARE(WeightedPodAffinityTerm)
KS_JSON_DECLARE(PodAffinity)
KS_JSON_DECLARE(Affinity)
KS_JSON_DECLARE(TopologySpreadConstraint)
KS_JSON_DECLARE(PodSchedulingGate)
KS_JSON_DECLARE(PodSchedulingGroup)
KS_JSON_DECLARE(PersistentVolumeClaimVolumeSource)
KS_JSON_DECLARE(GCEPersistentDiskVolumeSource)
KS_JSON_DECLARE(AWSElasticBlockStoreVolumeSource)
KS_JSON_DECLARE(ISCSIVolumeSource)
KS_JSON_DECLARE(RBDVolumeSource)
KS_JSON_DECLARE(CSIVolumeSource)
KS_JSON_DECLARE(AzureDiskVolumeSource)
KS_JSON_DECLARE(AzureFileVolumeSource)
KS_JSON_DECLARE(CinderVolumeSource)
KS_JSON_DECLARE(VsphereVirtualDiskVolumeSource)
KS_JSON_DECLARE(PortworxVolumeSource)
KS_JSON_DECLARE(ImageVolumeSource)
KS_JSON_DECLARE(EphemeralVolumeSource)
KS_JSON_DECLARE(Volume)
KS_JSON_DECLARE(PodResourceClaim)
KS_JSON_DECLARE(PodSpec)
KS_JSON_DECLARE(PodCondition)
KS_JSON_DECLARE(ContainerStatus)
KS_JSON_DECLARE(PodResourceClaimStatus)
KS_JSON_DECLARE(ContainerExtendedResourceRequest)
KS_JSON_DECLARE(PodExtendedResourceClaimStatus)
KS_JSON_DECLARE(PodStatus)
KS_JSON_DECLARE(Pod)
KS_JSON_DECLARE(NodeCondition)
KS_JSON_DECLARE(ContainerImage)
KS_JSON_DECLARE(NodeSpec)
KS_JSON_DECLARE(NodeAddress)
KS_JSON_DECLARE(NodeStatus)
KS_JSON_DECLARE(Node)
KS_JSON_DECLARE(Namespace)
KS_JSON_DECLARE(VolumeNodeAffinity)
KS_JSON_DECLARE(CSIPersistentVolumeSource)
KS_JSON_DECLARE(PersistentVolumeSpec)
KS_JSON_DECLARE(PersistentVolume)
KS_JSON_DECLARE(PersistentVolumeClaimSpec)
KS_JSON_DECLARE(PersistentVolumeClaimStatus)
KS_JSON_DECLARE(PersistentVolumeClaim)
KS_JSON_DECLARE(Binding)
KS_JSON_DECLARE(TopologySelectorLabelRequirement)
KS_JSON_DECLARE(TopologySelectorTerm)
KS_JSON_DECLARE(StorageClass)
KS_JSON_DECLARE(VolumeNodeResources)
KS_JSON_DECLARE(CSINodeDriver)
KS_JSON_DECLARE(CSINode)
KS_JSON_DECLARE(CSIDriverSpec)
KS_JSON_DECLARE(CSIDriver)
KS_JSON_DECLARE(CSIStorageCapacity)
KS_JSON_DECLARE(VolumeAttachment)
KS_JSON_DECLARE(PodDisruptionBudgetSpec)
KS_JSON_DECLARE(PodDisruptionBudgetStatus)
KS_JSON_DECLARE(PodDisruptionBudget)
KS_JSON_DECLARE(ServiceSpec)
KS_JSON_DECLARE(Service)
KS_JSON_DECLARE(ReplicationControllerSpec)
KS_JSON_DECLARE(ReplicationController)
KS_JSON_DECLARE(ReplicaSetSpec)
KS_JSON_DECLARE(ReplicaSet)
KS_JSON_DECLARE(StatefulSetSpec)
KS_JSON_DECLARE(StatefulSet)
KS_JSON_DECLARE(LeaseSpec)
KS_JSON_DECLARE(Lease)
KS_JSON_DECLARE(EventSeries)
KS_JSON_DECLARE(Event)
KS_JSON_DECLARE(RawExtension)
KS_JSON_DECLARE(Condition)
KS_JSON_DECLARE(CELDeviceSelector)
KS_JSON_DECLARE(DeviceSelector)
KS_JSON_DECLARE(OpaqueDeviceConfiguration)
KS_JSON_DECLARE(DeviceClassConfiguration)
KS_JSON_DECLARE(DeviceClassSpec)
KS_JSON_DECLARE(DeviceClass)
KS_JSON_DECLARE(DeviceToleration)
KS_JSON_DECLARE(CapacityRequirements)
KS_JSON_DECLARE(ExactDeviceRequest)
KS_JSON_DECLARE(DeviceSubRequest)
KS_JSON_DECLARE(DeviceRequest)
KS_JSON_DECLARE(DeviceConstraint)
KS_JSON_DECLARE(DeviceClaimConfiguration)
KS_JSON_DECLARE(DeviceClaim)
KS_JSON_DECLARE(ResourceClaimSpec)
KS_JSON_DECLARE(DeviceRequestAllocationResult)
KS_JSON_DECLARE(DeviceAllocationConfiguration)
KS_JSON_DECLARE(DeviceAllocationResult)
KS_JSON_DECLARE(AllocationResult)
KS_JSON_DECLARE(ResourceClaimConsumerReference)
KS_JSON_DECLARE(NetworkDeviceData)
KS_JSON_DECLARE(AllocatedDeviceStatus)
KS_JSON_DECLARE(ResourceClaimStatus)
KS_JSON_DECLARE(ResourceClaim)
KS_JSON_DECLARE(ResourceClaimTemplateSpec)
KS_JSON_DECLARE(ResourceClaimTemplate)
KS_JSON_DECLARE(ResourcePool)
KS_JSON_DECLARE(DeviceAttribute)
KS_JSON_DECLARE(CapacityRequestPolicyRange)
KS_JSON_DECLARE(CapacityRequestPolicy)
KS_JSON_DECLARE(DeviceCapacity)
KS_JSON_DECLARE(Counter)
KS_JSON_DECLARE(CounterSet)
KS_JSON_DECLARE(DeviceCounterConsumption)
KS_JSON_DECLARE(DeviceTaint)
KS_JSON_DECLARE(Device)
KS_JSON_DECLARE(ResourceSliceSpec)
KS_JSON_DECLARE(ResourceSlice)
KS_JSON_DECLARE(DeviceTaintSelector)
KS_JSON_DECLARE(DeviceTaintRuleSpec)
KS_JSON_DECLARE(DeviceTaintRuleStatus)
KS_JSON_DECLARE(DeviceTaintRule)
KS_JSON_DECLARE(EmptyObject)
KS_JSON_DECLARE(TypedLocalObjectReference)
KS_JSON_DECLARE(GangSchedulingPolicy)
KS_JSON_DECLARE(PodGroupSchedulingPolicy)
KS_JSON_DECLARE(TopologyConstraint)
KS_JSON_DECLARE(PodGroupSchedulingConstraints)
KS_JSON_DECLARE(PodGroupResourceClaim)
KS_JSON_DECLARE(DisruptionMode)
KS_JSON_DECLARE(PodGroupTemplate)
KS_JSON_DECLARE(CompositeGangSchedulingPolicy)
KS_JSON_DECLARE(CompositePodGroupSchedulingPolicy)
KS_JSON_DECLARE(CompositePodGroupTemplate)
KS_JSON_DECLARE(WorkloadSpec)
KS_JSON_DECLARE(Workload)
KS_JSON_DECLARE(WorkloadReference)
KS_JSON_DECLARE(PodGroupSpec)
KS_JSON_DECLARE(PodGroupStatus)
KS_JSON_DECLARE(PodGroup)
#undef KS_JSON_DECLARE

// ---- containers ----------------------------------------------------------------------------------
template <typename T>
bool read(DecodeContext& ctx, const Json& j, std::optional<T>& out) {
  if (j.is_null()) return true;
  if (!out) out.emplace();
  return read(ctx, j, *out);
}

template <typename T>
bool read(DecodeContext& ctx, const Json& j, HeapOptional<T>& out) {
  if (j.is_null()) return true;
  if (!out) out.emplace();
  return read(ctx, j, *out);
}

template <typename T>
bool read(DecodeContext& ctx, const Json& j, std::vector<T>& out) {
  if (j.is_null()) return true;
  if (!j.is_array()) return ctx.fail(std::string("expected an array, got ").append(typeName(j)));
  out.clear();
  out.resize(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    const Json& e = j[i];
    if (e.is_null()) continue;
    PathScope scope(ctx, i);
    if (!read(ctx, e, out[i])) return false;
  }
  return true;
}

template <typename T>
bool read(DecodeContext& ctx, const Json& j, std::map<std::string, T>& out) {
  if (j.is_null()) return true;
  if (!j.is_object()) return ctx.fail(std::string("expected an object, got ").append(typeName(j)));
  out.clear();
  for (auto it = j.begin(); it != j.end(); ++it) {
    T& value = out[it.key()];
    if (it.value().is_null()) continue;
    PathScope scope(ctx, it.key());
    if (!read(ctx, it.value(), value)) return false;
  }
  return true;
}

// Reads the fields of one JSON object; after the first failure every call is a no-op.
class ObjectReader {
 public:
  ObjectReader(DecodeContext& ctx, const Json& j) : ctx_(ctx), j_(j) {
    ok_ = j.is_object() || ctx.fail(std::string("expected an object, got ").append(typeName(j)));
  }

  bool ok() const { return ok_; }

  // The value of `name`, or nullptr when absent or null.
  const Json* find(std::string_view name) const {
    if (!ok_) return nullptr;
    auto it = j_.find(name);
    if (it == j_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  template <typename T>
  ObjectReader& field(std::string_view name, T& out) {
    if (const Json* v = find(name)) {
      PathScope scope(ctx_, name);
      ok_ = read(ctx_, *v, out);
    }
    return *this;
  }

  ObjectReader& microTime(std::string_view name, Time& out) {
    if (const Json* v = find(name)) {
      PathScope scope(ctx_, name);
      ok_ = readMicroTime(ctx_, *v, out);
    }
    return *this;
  }

  ObjectReader& microTime(std::string_view name, std::optional<Time>& out) {
    if (const Json* v = find(name)) {
      PathScope scope(ctx_, name);
      Time t{};
      ok_ = readMicroTime(ctx_, *v, t);
      if (ok_) out = t;
    }
    return *this;
  }

  // Reads a nested object `name` with `fn(ObjectReader&)` (e.g. status.phase kept at the top level).
  template <typename Fn>
  ObjectReader& nested(std::string_view name, Fn&& fn) {
    if (const Json* v = find(name)) {
      PathScope scope(ctx_, name);
      ObjectReader inner(ctx_, *v);
      if (inner.ok()) fn(inner);
      ok_ = inner.ok();
    }
    return *this;
  }

  DecodeContext& ctx() { return ctx_; }

 private:
  DecodeContext& ctx_;
  const Json& j_;
  bool ok_ = true;
};

// ---- writers -------------------------------------------------------------------------------------
inline Json write(const std::string& s) {
  return s;
}
inline Json write(bool b) {
  return b;
}
inline Json write(int32_t v) {
  return v;
}
inline Json write(int64_t v) {
  return v;
}
Json write(const Quantity& q);
Json write(const IntOrString& v);
Json write(const Time& t);  // metav1.Time (seconds)
Json writeMicroTime(const Time& t);

template <typename T>
Json write(const std::vector<T>& v) {
  Json a = Json::array();
  for (const T& e : v) a.push_back(write(e));
  return a;
}

template <typename T>
Json write(const std::map<std::string, T>& m) {
  Json o = Json::object();
  for (const auto& [k, v] : m) o[k] = write(v);
  return o;
}

// omitempty helpers: each puts `name` only when the value is not empty/zero/absent.
inline void put(Json& o, const char* name, const std::string& v) {
  if (!v.empty()) o[name] = v;
}
inline void put(Json& o, const char* name, bool v) {
  if (v) o[name] = true;
}
inline void put(Json& o, const char* name, int32_t v) {
  if (v != 0) o[name] = v;
}
inline void put(Json& o, const char* name, int64_t v) {
  if (v != 0) o[name] = v;
}
template <typename T>
void put(Json& o, const char* name, const std::optional<T>& v) {
  if (v) o[name] = write(*v);
}
template <typename T>
void put(Json& o, const char* name, const HeapOptional<T>& v) {
  if (v) o[name] = write(*v);
}
template <typename T>
void put(Json& o, const char* name, const std::vector<T>& v) {
  if (!v.empty()) o[name] = write(v);
}
template <typename T>
void put(Json& o, const char* name, const std::map<std::string, T>& v) {
  if (!v.empty()) o[name] = write(v);
}
inline void putMicroTime(Json& o, const char* name, const std::optional<Time>& t) {
  if (t) o[name] = writeMicroTime(*t);
}
// A MicroTime value (not a pointer): Go marshals the zero time as null.
inline void putMicroTime(Json& o, const char* name, Time t) {
  o[name] = t == Time{} ? Json(nullptr) : writeMicroTime(t);
}

// Written whether empty or not.
template <typename T>
void putAlways(Json& o, const char* name, const T& v) {
  o[name] = write(v);
}
// Written always, as null when absent (a Go value whose zero marshals as null, e.g. metav1.Time).
template <typename T>
void putNullable(Json& o, const char* name, const std::optional<T>& v) {
  o[name] = v ? write(*v) : Json(nullptr);
}

// ---- readers and writers generated from the field tables (pkg/api/schema/schema.h) -----------------------
// In a reader `out` is the object read, in a writer `in` the object written and `o` the JSON object.
#define KS_JSON_READ_Always field
#define KS_JSON_READ_OmitEmpty field
#define KS_JSON_READ_MicroTime microTime
#define KS_JSON_READ_Nullable field
#define KS_JSON_PUT_Always putAlways
#define KS_JSON_PUT_OmitEmpty put
#define KS_JSON_PUT_MicroTime putMicroTime
#define KS_JSON_PUT_Nullable putNullable
#define KS_JSON_READ_FIELD(member, name, number, rule) .KS_JSON_READ_##rule(name, out.member)
#define KS_JSON_WRITE_FIELD(member, name, number, rule) KS_JSON_PUT_##rule(o, name, in.member);

// The ObjectReader calls of a table (`reader KS_JSON_READ_FIELDS(T).ok()`), and its writer statements.
#define KS_JSON_READ_FIELDS(Table) KS_FIELDS_##Table(KS_JSON_READ_FIELD)
#define KS_JSON_WRITE_FIELDS(Table) KS_FIELDS_##Table(KS_JSON_WRITE_FIELD)

// static Json Name(const Type& in): the object of a table whose fields the model keeps on Type (e.g. a
// nested "spec"), for a hand-written writer.
#define KS_JSON_OBJECT_WRITER(Name, Table, Type) \
  static Json Name(const Type& in) {             \
    Json o = Json::object();                     \
    KS_JSON_WRITE_FIELDS(Table)                  \
    return o;                                    \
  }

// bool read(DecodeContext&, const Json&, Type&), then the type's defaults; Json write(const Type&).
#define KS_JSON_READER(Type)                                                \
  bool read(DecodeContext& ctx, const Json& j, Type& out) {                 \
    const bool ok = ObjectReader(ctx, j) KS_JSON_READ_FIELDS(Type).ok();    \
    schema::setDefaults(out);                                               \
    return ok;                                                              \
  }
#define KS_JSON_WRITER(Type)    \
  Json write(const Type& in) {  \
    Json o = Json::object();    \
    KS_JSON_WRITE_FIELDS(Type)  \
    return o;                   \
  }
#define KS_JSON_CODEC(Type) \
  KS_JSON_READER(Type)      \
  KS_JSON_WRITER(Type)

// The same for a type whose JSON object also holds the fields of an inlined member struct (its own message in
// protobuf, see KS_PROTO_READER_INLINE): Type's table, then Inline's, both filling Type.
#define KS_JSON_CODEC_INLINE(Type, Inline)                                                        \
  bool read(DecodeContext& ctx, const Json& j, Type& out) {                                       \
    const bool ok = ObjectReader(ctx, j) KS_JSON_READ_FIELDS(Type) KS_JSON_READ_FIELDS(Inline).ok(); \
    schema::setDefaults(out);                                                                     \
    return ok;                                                                                    \
  }                                                                                               \
  Json write(const Type& in) {                                                                    \
    Json o = Json::object();                                                                      \
    KS_JSON_WRITE_FIELDS(Type)                                                                    \
    KS_JSON_WRITE_FIELDS(Inline)                                                                  \
    return o;                                                                                     \
  }

// Parses text as JSON; errors name the parser position ("invalid JSON: ... line 1, column 7: ...").
Result<Json> parseText(std::string_view text);

// Top-level decode of one object (must be a JSON object) into T.
template <typename T>
Result<T> decodeTop(const Json& j) {
  DecodeContext ctx;
  T out{};
  if (!j.is_object()) {
    ctx.fail(std::string("expected an object, got ").append(typeName(j)));
    return ctx.error();
  }
  if (!read(ctx, j, out)) return ctx.error();
  return out;
}

}  // namespace ks::api::jsoncodec
