#pragma once
// Each API type's fields, declared once: the tables from which the JSON reader and writer (pkg/api/json) and
// the protobuf reader (pkg/api/proto) of the type are generated, so that the two decoders agree by
// construction. One header per codec unit (meta.h, core_pod.h, core_cluster.h, other.h, resource.h); every
// codec translation unit includes them all through fields.h.
//
// A type's table is an X-macro named after it, one entry per field the scheduler keeps, in the order the
// JSON reader reads them (the first failing field is the one the error names):
//
//   #define KS_FIELDS_OwnerReference(X)  (each line but the last ends in a backslash)
//     X(apiVersion, "apiVersion", 5, Always)
//     X(controller, "controller", 6, OmitEmpty)
//
//   X(member, jsonName, protoNumber, rule)
//     member       the C++ member of the api:: struct;
//     jsonName     the JSON name, also the path segment of decode errors in both codecs;
//     protoNumber  the field number in k8s.io/api's (or apimachinery's) generated.proto (also for the
//                  kinds only read as JSON, Lease and Event, that have no protobuf reader);
//     rule         how the field is written and which time precision it has:
//                    Always     written even when empty (no omitempty upstream, or a struct value field);
//                    OmitEmpty  omitted when empty, zero or absent (omitempty, and every pointer field);
//                    MicroTime  a metav1.MicroTime, microseconds: a pointer (std::optional<Time>) is
//                               omitted when absent, a value (Time) written as null when zero, as in Go.
//                    Nullable   (std::optional) written always, null when absent: a Go value whose zero
//                               marshals as null (metav1.Condition's lastTransitionTime).
//                  A metav1.Time field is OmitEmpty: both codecs truncate Time to seconds.
//
// The codecs expand a table with KS_JSON_CODEC(Type) (json/internal.h) and KS_PROTO_READER(Type)
// (proto/internal.h). Both decoders call schema::setDefaults(out) after reading a type: the API defaults the
// scheduler depends on, declared next to the table (the fallback does nothing). A type whose wire form is
// not just its fields (a nested object flattened into the model, an inlined member struct, a Go quirk)
// keeps a hand-written reader or writer for that part; the fields of the nested or inlined message are a
// table of their own (e.g. StatusPhase, VolumeSource) whose members live on the outer type, expanded with
// the pieces KS_JSON_READ_FIELDS, KS_JSON_WRITE_FIELDS, KS_JSON_OBJECT_WRITER, KS_PROTO_CASES and
// KS_PROTO_FIELD_READER. Each table header says which types have such a part.

namespace ks::api::schema {

// The API defaults applied after decoding a type; the overloads next to the tables are picked over this.
template <typename T>
void setDefaults(T& /*out*/) {}

}  // namespace ks::api::schema
