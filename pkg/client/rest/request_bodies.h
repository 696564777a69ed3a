#pragma once
// The JSON bodies the REST client sends besides whole objects: strategic-merge patches and
// DeleteOptions. Separate from the transport so tests can pin their exact shape.

#include <string>

#include "pkg/api/events.h"
#include "pkg/client/client.h"

namespace ks::client::rest {

// {"status":{"conditions":[{...}],"nominatedNodeName":"n"}} — conditions merge by type; an empty
// nominatedNodeName becomes null (clears the field), as util.PatchPodStatus's two-way merge patch.
std::string podStatusPatchBody(const PodStatusPatch& patch);
// {"status":{"conditions":[<condition>]}}: a strategic merge patch of one PodGroup condition.
std::string podGroupConditionPatchBody(const api::Condition& condition);

// {"metadata":{"resourceVersion":"rv","annotations":{...}}}: a JSON merge patch that sets these
// annotations, failing with 409 when the object is no longer at that resourceVersion.
std::string annotationsPatchBody(const api::ObjectMeta& meta);

// annotationsPatchBody plus {"spec":{"claimRef":{...}}} (null when the PV has none).
std::string persistentVolumeBindingPatchBody(const api::PersistentVolume& pv);

// {"series":{"count":N,"lastObservedTime":"<MicroTime>"}} as the events broadcaster's series patch.
std::string eventSeriesPatchBody(const api::EventSeries& series);

// {"metadata":{"uid":"<claim>"},"status":{"reservedFor":[{"$patch":"delete","uid":"<consumer>"}]}}: the
// strategic-merge patch upstream's DynamicResources Unreserve sends (reservedFor merges by uid; the uid in
// metadata makes the server refuse the patch for another claim of the same name).
std::string resourceClaimReservationRemovalPatchBody(const std::string& claimUid,
                                                     const std::string& consumerUid);

// {"kind":"DeleteOptions","apiVersion":"v1",...}; "" when no option is set (no body needed).
std::string deleteOptionsBody(const DeleteOptions& options);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string urlEncode(std::string_view s);

}  // namespace ks::client::rest
