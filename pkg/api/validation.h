#pragma once
// The scheduling-constraint part of kube-apiserver v1.34.4's pod validation (ValidatePodCreate in
// pkg/apis/core/validation, with the options a new pod gets under v1.34's default feature gates), for
// callers that create pods without an apiserver in front (simulate's cluster file). Paths and messages are
// upstream's field.Error texts, e.g. `spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported
// value: "Foo": supported values: "Honor", "Ignore"`.
//
// The apiserver validates a pod after PrepareForCreate has merged matchLabelKeys / mismatchLabelKeys into
// the label selectors; these functions validate the object they are given, as it is stored.

#include <optional>
#include <string_view>

#include "pkg/api/core.h"
#include "pkg/api/field.h"
#include "pkg/api/meta.h"

namespace ks::api {

// spec.affinity (validateAffinity: node affinity, pod affinity, pod anti-affinity) and
// spec.topologySpreadConstraints (validateTopologySpreadConstraints), in that order. Empty when valid.
FieldErrorList validatePodSchedulingConstraints(const Pod& pod);

// validateAffinity for a new pod (no invalid label values allowed); `path` is e.g. "spec.affinity".
FieldErrorList validateAffinity(const Affinity& affinity, std::string_view path);

// validateTopologySpreadConstraints with v1.34's options for a new pod: MatchLabelKeysInPodTopologySpread
// and ...SelectorMerge on (matchLabelKeys checked by ValidateMatchLabelKeysAndMismatchLabelKeys), label
// selectors validated.
FieldErrorList validateTopologySpreadConstraints(const std::vector<TopologySpreadConstraint>& constraints,
                                                 std::string_view path);

// metav1 validation.ValidateLabelSelector (invalid label values and unknown operators rejected); an
// absent selector is valid.
FieldErrorList validateLabelSelector(const std::optional<LabelSelector>& selector, std::string_view path);

// metav1 validation.ValidateLabelName: one Invalid error per IsQualifiedName problem.
FieldErrorList validateLabelName(std::string_view name, std::string_view path);

}  // namespace ks::api
