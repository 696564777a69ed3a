#pragma once
// Extended resources backed by DRA (upstream dynamicresources/extendeddynamicresources.go, v1.37.2,
// DRAExtendedResource): a pod requesting an extended resource that a DeviceClass maps (its
// spec.extendedResourceName or the implicit "deviceclass.resource.kubernetes.io/<class>") and that a node
// does not advertise in its allocatable gets the devices through a ResourceClaim the scheduler creates.
// What DynamicResources does with it, per extension point:
//
//   PreFilter  finds the pod's claim from an earlier attempt (annotation
//              resource.kubernetes.io/extended-resource-claim=true, the pod as controller) or makes an
//              in-memory one named "<extended-resources>" with a temporary UID and no requests; it comes
//              after the user's claims in the cycle state.
//   Filter     a claim from an earlier attempt that has requests: Unschedulable ("cannot schedule extended
//              resource claim"), PostFilter deletes it. Otherwise, per node, the requests for the resources
//              the node leaves to DRA (one per container and resource, "container-<i>-request-<j>") and the
//              container -> request mappings; the allocator then allocates that node's variant.
//   PostFilter deletes a claim from an earlier attempt ("deletion of ResourceClaim completed").
//   Reserve    the node's variant, allocated, is in flight under the temporary UID.
//   Unreserve  drops the in-flight allocation; deletes the claim if PreBind created it.
//   PreBind    creates the claim (generateName "<pod>-extended-resources-"), writes its allocation and
//              reservation, waits (up to 2 min) for the informer to deliver it to the assume cache, and
//              records it in the pod's status.extendedResourceClaimStatus.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/resource.h"
#include "pkg/scheduler/framework/dra_manager.h"

namespace ks::plugins::dynamicresources {

// The in-memory claim's name; not a valid object name, so it never clashes with a real claim.
inline constexpr std::string_view kSpecialClaimInMemName = "<extended-resources>";
// How long PreBind waits for a created claim to reach the assume cache (upstream
// AssumeExtendedResourceTimeoutDefaultSeconds).
inline constexpr int kAssumeExtendedResourceTimeoutDefaultSeconds = 120;

// What the cycle state keeps about the extended-resource claim (part of DynamicResources' state).
struct ExtendedResourceState {
  // The pod's scalar requests (resource.PodRequests over the spec); set only when one is mapped to a class.
  std::map<std::string, int64_t> podScalarResources;
  // The cycle's claims end with the extended-resource claim.
  bool hasClaim = false;
  // Its UID in PreFilter (the temporary one for the in-memory claim): the in-flight allocation's key.
  std::string initialClaimUid;
  // Filter's result per node, guarded by the state's mutex: the node's variant of the claim and the
  // container -> request mappings PreBind writes into the pod's status.
  struct NodeClaim {
    framework::ResourceClaimPtr claim;
    std::vector<api::ContainerExtendedResourceRequest> mappings;
  };
  std::map<std::string, NodeClaim, std::less<>> nodeClaims;
};

// schedutil.IsDRAExtendedResourceName: an extended resource name or an implicit class name.
bool isDRAExtendedResourceName(std::string_view name);

// Whether the pod requests (non-zero) a DRA extended resource that `resolver` maps to a class.
bool hasDeviceClassMappedExtendedResource(const api::ResourceList& requests,
                                          const framework::DeviceClassResolver* resolver);

// The claim (from `claims`) annotated as the extended-resource claim whose controller is the pod; null
// when none.
framework::ResourceClaimPtr findExtendedResourceClaim(const api::Pod& pod,
                                                      const std::vector<framework::ResourceClaimPtr>& claims);

// The in-memory claim for the pod: namespace, the special name, a temporary UID, generateName
// "<pod>-extended-resources-", the pod as controller and the annotation; no requests.
framework::ResourceClaimPtr newInMemoryExtendedResourceClaim(const api::Pod& pod);

inline bool isSpecialClaimName(std::string_view name) {
  return name == kSpecialClaimInMemName;
}

// The device requests for `extendedResources` (resource -> quantity the node leaves to DRA) and which
// container's resource each request serves, as upstream createRequestsAndMappings: containers are indexed
// over initContainers then containers; regular containers and sidecars get a request each
// ("container-<index>-request-<index of the resource among the container's sorted request names>");
// a plain init container first reuses the requests of later long-lived containers, and all plain init
// containers share their largest request. Requests are sorted by name; resources without a class in
// `resolver` are skipped.
struct RequestsAndMappings {
  std::vector<api::DeviceRequest> requests;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};
RequestsAndMappings createRequestsAndMappings(const api::Pod& pod,
                                              const std::map<std::string, int64_t>& extendedResources,
                                              const framework::DeviceClassResolver* resolver);

}  // namespace ks::plugins::dynamicresources
