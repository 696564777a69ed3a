#pragma once
// ValidateKubeSchedulerConfiguration and the per-plugin args validation of upstream v1.34, with upstream's
// field.Error texts ("<path>: Invalid value: <value>: <detail>") and aggregate joining ("[a, b]").

#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/field.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/util/result.h"

namespace ks::config {

// field.Error / field.ErrorList, shared with the API validation (pkg/api/field.h).
using FieldError = api::FieldError;
using FieldErrors = api::FieldErrorList;

// utilerrors aggregate text: duplicates removed, one message as is, several as "[m1, m2]"; "" if none.
std::string aggregateMessage(const FieldErrors& errors);

// Go %q for a string (as field errors print string values).
std::string goQuote(std::string_view s);

// Joins field paths as field.Path.Child does ("" + "a" = "a", "a" + "b" = "a.b").
std::string childPath(std::string_view parent, std::string_view child);
std::string indexPath(std::string_view parent, size_t index);

// ValidateKubeSchedulerConfiguration. `apiVersion` is the version the config was read as.
FieldErrors validateKubeSchedulerConfiguration(const KubeSchedulerConfiguration& config,
                                               const FeatureGates& features = {},
                                               std::string_view apiVersion = kGroupVersion);
// Result form: ok, or an Error with aggregateMessage().
VoidResult validateConfig(const KubeSchedulerConfiguration& config, const FeatureGates& features = {});

// Per-plugin args validation; `path` is the args' field path ("" when validating standalone).
FieldErrors validateDefaultPreemptionArgs(const std::string& path, const DefaultPreemptionArgs& args);
FieldErrors validateInterPodAffinityArgs(const std::string& path, const InterPodAffinityArgs& args);
FieldErrors validatePodTopologySpreadArgs(const std::string& path, const PodTopologySpreadArgs& args);
FieldErrors validateNodeResourcesBalancedAllocationArgs(const std::string& path,
                                                        const NodeResourcesBalancedAllocationArgs& args);
FieldErrors validateNodeAffinityArgs(const std::string& path, const NodeAffinityArgs& args);
FieldErrors validateVolumeBindingArgs(const std::string& path, const VolumeBindingArgs& args,
                                      const FeatureGates& features = {});
// Upstream keys this one as "NodeResourcesFitArgs" in validatePluginConfig, so config validation never runs
// it; the NodeResourcesFit plugin calls it when it is constructed (and so must ours).
FieldErrors validateNodeResourcesFitArgs(const std::string& path, const NodeResourcesFitArgs& args);
FieldErrors validateDynamicResourcesArgs(const std::string& path, const DynamicResourcesArgs& args,
                                         const FeatureGates& features = {});

// apimachinery validation helpers used above (messages as upstream; the pkg/api/labels.h functions).
std::vector<std::string> isQualifiedName(std::string_view value);
std::vector<std::string> isValidLabelValue(std::string_view value);
std::vector<std::string> isDNS1123Subdomain(std::string_view value);

}  // namespace ks::config
