// metav1 types: ObjectMeta, LabelSelector, Status, ListMeta, and core/v1 ObjectReference
// (pkg/api/schema/meta.h).

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

KS_JSON_CODEC(OwnerReference)
KS_JSON_CODEC(ObjectMeta)
KS_JSON_CODEC(LabelSelectorRequirement)
KS_JSON_CODEC(LabelSelector)
KS_JSON_CODEC(StatusCause)
KS_JSON_CODEC(StatusDetails)
KS_JSON_READER(ApiStatus)
KS_JSON_CODEC(ListMeta)
KS_JSON_CODEC(ObjectReference)

Json write(const ApiStatus& in) {
  Json o = Json::object();
  o["metadata"] = Json::object();
  KS_JSON_WRITE_FIELDS(ApiStatus)
  return o;
}

}  // namespace ks::api::jsoncodec
