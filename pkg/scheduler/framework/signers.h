#pragma once
// The parts of a pod that plugins put in its signature (upstream k8s.io/kube-scheduler/framework
// signers.go, opportunistic batching). Each signer gives the JSON text Go's json.Marshal gives for
// upstream's value, so that two pods sign equal here exactly when they do upstream; only equality matters,
// the text itself is never compared with upstream's.
//
// One known difference: volume sources the API model doesn't keep (emptyDir, hostPath, nfs, projected,
// downwardAPI, ...; see api::Volume) are signed by their kind only, so two pods whose volumes differ only
// inside such a source sign equal here and differently upstream.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/scheduler/framework/types.h"

namespace ks::framework {

// Signer names (upstream fwk.*SignerName): the keys of the signature's fragments.
inline constexpr std::string_view kDynamicResourcesSignerName = "v1.Pod.Spec.DynamicResources";
inline constexpr std::string_view kImageNamesSignerName = "v1.Pod.Spec.CanonicalImageNames()";
inline constexpr std::string_view kLabelsSignerName = "v1.Pod.Labels";
inline constexpr std::string_view kNodeNameSignerName = "v1.Pod.Spec.NodeName";
inline constexpr std::string_view kNodeAffinitySignerName = "v1.Pod.Spec.Affinity.NodeAffinity";
inline constexpr std::string_view kNodeSelectorSignerName = "v1.Pod.Spec.Affinity.NodeSelector";
inline constexpr std::string_view kHostPortsSignerName = "v1.Pod.Spec.HostPorts()";
inline constexpr std::string_view kResourcesSignerName = "v1.Pod.Spec.ContainerRequestsAndOverheads()";
inline constexpr std::string_view kSchedulerNameSignerName = "v1.Pod.Spec.SchedulerName";
inline constexpr std::string_view kTolerationsSignerName = "v1.Pod.Spec.Tolerations";
inline constexpr std::string_view kVolumesSignerName = "v1.Pod.Spec.Volumes.NonSyntheticSources()";
inline constexpr std::string_view kFeaturesSignerName = "v1.Pod.Spec.RequiredFeatures()";

// A JSON string literal as Go's encoding/json writes it (HTML characters escaped as \u003c ...).
std::string goJsonString(std::string_view s);
// A JSON array of strings (`[]` when empty).
std::string goJsonStringList(const std::vector<std::string>& items);
// A map[string]string: `null` when empty (a decoded empty map is nil), else the object with sorted keys.
std::string goJsonStringMap(const std::map<std::string, std::string>& m);

// The distinct non-zero host ports of the containers and init containers, ascending: `[80,443]`.
std::string hostPortsSigner(const api::Pod& pod);
// The tolerations ordered by key, then value (Go's sort.Slice, so ties keep Go's order).
std::string tolerationsSigner(const api::Pod& pod);
// The volume sources but ConfigMap and Secret ones (names excluded), each as JSON text, sorted.
std::string volumesSigner(const api::Pod& pod);
// `null` without node affinity, else {"Required":[...],"Preferred":[...]}: each term's JSON text with its
// requirements (values sorted) sorted, the terms sorted.
std::string nodeAffinitySigner(const api::Pod& pod);
// A Resource as NodeResourcesFit's preFilterState: {"MilliCPU":..,"Memory":..,"EphemeralStorage":..,
// "AllowedPodNumber":..,"ScalarResources":{..}|null}.
std::string resourceSigner(const Resource& r);

}  // namespace ks::framework
