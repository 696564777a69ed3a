// metav1 types and core/v1 ObjectReference (pkg/api/schema/meta.h).

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

KS_PROTO_READER(OwnerReference)
KS_PROTO_READER(ObjectMeta)
KS_PROTO_READER(LabelSelectorRequirement)
KS_PROTO_READER(LabelSelector)
KS_PROTO_READER(StatusCause)
KS_PROTO_READER(StatusDetails)
KS_PROTO_READER(ApiStatus)
KS_PROTO_READER(ListMeta)
KS_PROTO_READER(ObjectReference)

// core/v1 Binding, read back by the tests of its writer.
KS_PROTO_READER(Binding)

namespace {
// A map<string, string> field: one {key = 1, value = 2} entry message per pair.
void writeStringMap(Writer& w, uint32_t number, const std::map<std::string, std::string>& m) {
  for (const auto& [k, v] : m) {
    Writer entry;
    entry.bytes(1, k);
    entry.bytes(2, v);
    w.bytes(number, entry.data());
  }
}
}  // namespace

// Go's generated Marshal writes every value field, empty or not, and pointer fields when set; only the
// fields a Binding carries are needed.
std::string write(const ObjectMeta& in) {
  Writer w;
  w.bytes(1, in.name);
  w.bytes(2, in.generateName);
  w.bytes(3, in.namespace_);
  w.bytes(5, in.uid);
  w.bytes(6, in.resourceVersion);
  w.varint(7, static_cast<uint64_t>(in.generation));
  writeStringMap(w, 11, in.labels);
  writeStringMap(w, 12, in.annotations);
  return w.take();
}

std::string write(const ObjectReference& in) {
  Writer w;
  w.bytes(1, in.kind);
  w.bytes(2, in.namespace_);
  w.bytes(3, in.name);
  w.bytes(4, in.uid);
  w.bytes(5, in.apiVersion);
  w.bytes(6, in.resourceVersion);
  w.bytes(7, in.fieldPath);
  return w.take();
}

}  // namespace ks::api::protocodec
