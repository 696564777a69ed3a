#pragma once
// The extender wire format (upstream k8s.io/kube-scheduler/extender/v1): JSON objects whose keys are the
// Go field names (the types carry no json tags), encoded as Go's encoding/json does (nil pointers and
// maps as null) and decoded as it does (keys matched exactly, else case-insensitively; unknown keys and
// nulls ignored).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/scheduler/framework/extender.h"
#include "pkg/util/result.h"

namespace ks::extender {

struct MetaPod {
  std::string uid;
  bool operator==(const MetaPod&) const = default;
};

struct MetaVictims {
  std::vector<MetaPod> pods;
  int64_t numPDBViolations = 0;
  bool operator==(const MetaVictims&) const = default;
};

// ExtenderArgs: the pod and either the candidate nodes (whole objects) or their names (nodeCacheCapable).
std::string encodeExtenderArgs(const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes,
                               bool nodeNamesOnly);

// ExtenderPreemptionArgs: NodeNameToMetaVictims (nodeCacheCapable) or NodeNameToVictims.
std::string encodePreemptionArgs(const api::Pod& pod, const std::map<std::string, framework::Victims>& victims,
                                 const std::map<std::string, MetaVictims>* metaVictims);

// ExtenderBindingArgs.
std::string encodeBindingArgs(const framework::ExtenderBinding& binding);

struct ExtenderFilterResult {
  std::optional<std::vector<api::Node>> nodes;  // Nodes.Items; nullopt when Nodes is null or absent
  std::optional<std::vector<std::string>> nodeNames;
  framework::FailedNodesMap failedNodes;
  framework::FailedNodesMap failedAndUnresolvableNodes;
  std::string error;
};

// Errors read as Go's decoder's ("json: cannot unmarshal string into Go struct field
// ExtenderFilterResult.NodeNames of type []string"; "EOF" for an empty body).
Result<ExtenderFilterResult> decodeFilterResult(std::string_view body);
Result<framework::HostPriorityList> decodeHostPriorityList(std::string_view body);
Result<std::map<std::string, MetaVictims>> decodePreemptionResult(std::string_view body);
// ExtenderBindingResult.Error.
Result<std::string> decodeBindingResult(std::string_view body);

}  // namespace ks::extender
