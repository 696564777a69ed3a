// Ported from k8s.io/kubernetes v1.34.4 pkg/apis/core/validation/validation.go (validateAffinity and its
// helpers, validateTopologySpreadConstraints and its helpers, ValidateMatchLabelKeysAndMismatchLabelKeys) and
// k8s.io/apimachinery pkg/apis/meta/v1/validation (ValidateLabelSelector, ValidateLabelName, ValidateLabels).

#include "pkg/api/validation.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "pkg/api/labels.h"

namespace ks::api {

namespace {

using field::child;
using field::index;
using field::jsonValue;
using field::quoteValue;

constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";
constexpr char kIsNotPositive[] = "must be greater than zero";
constexpr char kWeightRange[] = "must be in the range 1-100";

void appendLabelName(std::string_view name, const std::string& path, FieldErrorList& errs) {
  for (std::string& msg : isQualifiedName(name)) {
    errs.push_back(field::invalid(path, quoteValue(name), std::move(msg)));
  }
}

void appendLabelValue(std::string_view value, const std::string& path, FieldErrorList& errs) {
  for (std::string& msg : isValidLabelValue(value)) {
    errs.push_back(field::invalid(path, quoteValue(value), std::move(msg)));
  }
}

// ValidateLabels. Upstream walks a Go map (random order); keys are visited sorted here.
void appendLabels(const std::map<std::string, std::string>& labels, const std::string& path,
                  FieldErrorList& errs) {
  for (const auto& [k, v] : labels) {
    appendLabelName(k, path, errs);
    appendLabelValue(v, path, errs);
  }
}

// ValidateLabelSelectorRequirement with AllowInvalidLabelValueInSelector and
// AllowUnknownOperatorInRequirement off.
void appendLabelSelectorRequirement(const LabelSelectorRequirement& sr, const std::string& path,
                                    FieldErrorList& errs) {
  const std::string valuesPath = child(path, "values");
  if (sr.op == "In" || sr.op == "NotIn") {
    if (sr.values.empty()) {
      errs.push_back(field::required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
    }
  } else if (sr.op == "Exists" || sr.op == "DoesNotExist") {
    if (!sr.values.empty()) {
      errs.push_back(
          field::forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
  } else {
    errs.push_back(
        field::invalid(child(path, "operator"), jsonValue(sr.op), "not a valid selector operator"));
  }
  appendLabelName(sr.key, child(path, "key"), errs);
  for (size_t i = 0; i < sr.values.size(); ++i) appendLabelValue(sr.values[i], index(valuesPath, i), errs);
}

void appendLabelSelector(const std::optional<LabelSelector>& selector, const std::string& path,
                         FieldErrorList& errs) {
  if (!selector) return;
  appendLabels(selector->matchLabels, child(path, "matchLabels"), errs);
  const std::string exprPath = child(path, "matchExpressions");
  for (size_t i = 0; i < selector->matchExpressions.size(); ++i) {
    appendLabelSelectorRequirement(selector->matchExpressions[i], index(exprPath, i), errs);
  }
}

// validateLabelKeys.
void appendLabelKeys(const std::string& path, const std::vector<std::string>& keys,
                     const std::optional<LabelSelector>& selector, FieldErrorList& errs) {
  if (keys.empty()) return;
  if (!selector) {
    errs.push_back(field::forbidden(path, "must not be specified when labelSelector is not set"));
    return;
  }
  for (size_t i = 0; i < keys.size(); ++i) appendLabelName(keys[i], index(path, i), errs);
}

// ValidateMatchLabelKeysAndMismatchLabelKeys. `path` is the term's (or constraint's) path.
void appendMatchLabelKeysAndMismatchLabelKeys(const std::string& path,
                                              const std::vector<std::string>& matchKeys,
                                              const std::vector<std::string>& mismatchKeys,
                                              const std::optional<LabelSelector>& selector,
                                              FieldErrorList& errs) {
  const std::string matchPath = child(path, "matchLabelKeys");
  appendLabelKeys(matchPath, matchKeys, selector, errs);
  appendLabelKeys(child(path, "mismatchLabelKeys"), mismatchKeys, selector, errs);

  // A selector key that is in matchLabelKeys and appears again in matchExpressions (the apiserver appends
  // one expression per matchLabelKey). Upstream indexes the term's path (not matchLabelKeys) with the
  // key's last position in matchLabelKeys; kept as is.
  if (selector) {
    std::map<std::string_view, size_t> keyIndex;
    for (size_t i = 0; i < matchKeys.size(); ++i) keyIndex[matchKeys[i]] = i;
    std::set<std::string_view> selectorKeys;
    for (const auto& [k, v] : selector->matchLabels) selectorKeys.insert(k);
    for (const LabelSelectorRequirement& expr : selector->matchExpressions) {
      auto it = keyIndex.find(expr.key);
      if (it != keyIndex.end() && selectorKeys.count(expr.key) != 0) {
        errs.push_back(field::invalid(index(path, it->second), quoteValue(expr.key),
                                      "exists in both matchLabelKeys and labelSelector"));
      }
      selectorKeys.insert(expr.key);
    }
  }

  const std::set<std::string_view> mismatch(mismatchKeys.begin(), mismatchKeys.end());
  for (size_t i = 0; i < matchKeys.size(); ++i) {
    if (mismatch.count(matchKeys[i]) != 0) {
      errs.push_back(field::invalid(index(matchPath, i), quoteValue(matchKeys[i]),
                                    "exists in both matchLabelKeys and mismatchLabelKeys"));
    }
  }
}

// ---- node affinity ----

// ValidateNodeSelectorRequirement.
void appendNodeSelectorRequirement(const NodeSelectorRequirement& rq, bool allowInvalidLabelValue,
                                   const std::string& path, FieldErrorList& errs) {
  const std::string valuesPath = child(path, "values");
  if (rq.op == "In" || rq.op == "NotIn") {
    if (rq.values.empty()) {
      errs.push_back(field::required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
    }
  } else if (rq.op == "Exists" || rq.op == "DoesNotExist") {
    if (!rq.values.empty()) {
      errs.push_back(
          field::forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
  } else if (rq.op == "Gt" || rq.op == "Lt") {
    if (rq.values.size() != 1) {
      errs.push_back(
          field::required(valuesPath, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    }
  } else {
    errs.push_back(
        field::invalid(child(path, "operator"), jsonValue(rq.op), "not a valid selector operator"));
  }
  appendLabelName(rq.key, child(path, "key"), errs);
  if (!allowInvalidLabelValue) {
    for (size_t i = 0; i < rq.values.size(); ++i) appendLabelValue(rq.values[i], index(valuesPath, i), errs);
  }
}

// ValidateNodeFieldSelectorRequirement: metadata.name is the only field, validated as a node name.
void appendNodeFieldSelectorRequirement(const NodeSelectorRequirement& req, const std::string& path,
                                        FieldErrorList& errs) {
  const std::string valuesPath = child(path, "values");
  if (req.op == "In" || req.op == "NotIn") {
    if (req.values.size() != 1) {
      errs.push_back(field::required(
          valuesPath, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errs.push_back(
        field::invalid(child(path, "operator"), jsonValue(req.op), "not a valid selector operator"));
  }
  if (req.key != "metadata.name") {
    errs.push_back(field::invalid(child(path, "key"), quoteValue(req.key), "not a valid field selector key"));
    return;
  }
  for (size_t i = 0; i < req.values.size(); ++i) {
    for (std::string& msg : isDNS1123Subdomain(req.values[i])) {
      errs.push_back(field::invalid(index(valuesPath, i), quoteValue(req.values[i]), std::move(msg)));
    }
  }
}

void appendNodeSelectorTerm(const NodeSelectorTerm& term, bool allowInvalidLabelValue,
                            const std::string& path, FieldErrorList& errs) {
  const std::string exprPath = child(path, "matchExpressions");
  for (size_t j = 0; j < term.matchExpressions.size(); ++j) {
    appendNodeSelectorRequirement(term.matchExpressions[j], allowInvalidLabelValue, index(exprPath, j), errs);
  }
  const std::string fieldsPath = child(path, "matchFields");
  for (size_t j = 0; j < term.matchFields.size(); ++j) {
    appendNodeFieldSelectorRequirement(term.matchFields[j], index(fieldsPath, j), errs);
  }
}

// ValidateNodeSelector.
void appendNodeSelector(const NodeSelector& selector, bool allowInvalidLabelValue, const std::string& path,
                        FieldErrorList& errs) {
  const std::string termsPath = child(path, "nodeSelectorTerms");
  if (selector.nodeSelectorTerms.empty()) {
    errs.push_back(field::required(termsPath, "must have at least one node selector term"));
    return;
  }
  for (size_t i = 0; i < selector.nodeSelectorTerms.size(); ++i) {
    appendNodeSelectorTerm(selector.nodeSelectorTerms[i], allowInvalidLabelValue, index(termsPath, i), errs);
  }
}

// ValidatePreferredSchedulingTerms: invalid label values are always allowed in preferences.
void appendPreferredSchedulingTerms(const std::vector<PreferredSchedulingTerm>& terms,
                                    const std::string& path, FieldErrorList& errs) {
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string termPath = index(path, i);
    if (terms[i].weight <= 0 || terms[i].weight > 100) {
      errs.push_back(
          field::invalid(child(termPath, "weight"), std::to_string(terms[i].weight), kWeightRange));
    }
    appendNodeSelectorTerm(terms[i].preference, true, child(termPath, "preference"), errs);
  }
}

void appendNodeAffinity(const NodeAffinity& na, const std::string& path, FieldErrorList& errs) {
  if (na.requiredDuringSchedulingIgnoredDuringExecution) {
    appendNodeSelector(*na.requiredDuringSchedulingIgnoredDuringExecution, false,
                       child(path, "requiredDuringSchedulingIgnoredDuringExecution"), errs);
  }
  appendPreferredSchedulingTerms(na.preferredDuringSchedulingIgnoredDuringExecution,
                                 child(path, "preferredDuringSchedulingIgnoredDuringExecution"), errs);
}

// ---- pod (anti-)affinity ----

void appendPodAffinityTerm(const PodAffinityTerm& term, const std::string& path, FieldErrorList& errs) {
  // ValidatePodAffinityTermSelector.
  appendLabelSelector(term.labelSelector, child(path, "labelSelector"), errs);
  appendLabelSelector(term.namespaceSelector, child(path, "namespaceSelector"), errs);
  // ValidateNamespaceName; upstream reports these at "namespace" (singular).
  for (const std::string& ns : term.namespaces) {
    for (std::string& msg : isDNS1123Label(ns)) {
      errs.push_back(field::invalid(child(path, "namespace"), quoteValue(ns), std::move(msg)));
    }
  }
  appendMatchLabelKeysAndMismatchLabelKeys(path, term.matchLabelKeys, term.mismatchLabelKeys,
                                           term.labelSelector, errs);
  const std::string topologyKeyPath = child(path, "topologyKey");
  if (term.topologyKey.empty()) errs.push_back(field::required(topologyKeyPath, "can not be empty"));
  appendLabelName(term.topologyKey, topologyKeyPath, errs);
}

// validatePodAffinity / validatePodAntiAffinity (same shape).
void appendPodAffinity(const PodAffinity& affinity, const std::string& path, FieldErrorList& errs) {
  const std::string requiredPath = child(path, "requiredDuringSchedulingIgnoredDuringExecution");
  for (size_t i = 0; i < affinity.requiredDuringSchedulingIgnoredDuringExecution.size(); ++i) {
    appendPodAffinityTerm(affinity.requiredDuringSchedulingIgnoredDuringExecution[i], index(requiredPath, i),
                          errs);
  }
  // validateWeightedPodAffinityTerms.
  const std::string preferredPath = child(path, "preferredDuringSchedulingIgnoredDuringExecution");
  for (size_t j = 0; j < affinity.preferredDuringSchedulingIgnoredDuringExecution.size(); ++j) {
    const WeightedPodAffinityTerm& wt = affinity.preferredDuringSchedulingIgnoredDuringExecution[j];
    const std::string termPath = index(preferredPath, j);
    if (wt.weight <= 0 || wt.weight > 100) {
      errs.push_back(field::invalid(child(termPath, "weight"), std::to_string(wt.weight), kWeightRange));
    }
    appendPodAffinityTerm(wt.podAffinityTerm, child(termPath, "podAffinityTerm"), errs);
  }
}

void appendAffinity(const Affinity& affinity, const std::string& path, FieldErrorList& errs) {
  if (affinity.nodeAffinity) appendNodeAffinity(*affinity.nodeAffinity, child(path, "nodeAffinity"), errs);
  if (affinity.podAffinity) appendPodAffinity(*affinity.podAffinity, child(path, "podAffinity"), errs);
  if (affinity.podAntiAffinity) {
    appendPodAffinity(*affinity.podAntiAffinity, child(path, "podAntiAffinity"), errs);
  }
}

// ---- topology spread constraints ----

// validateNodeInclusionPolicy.
void appendNodeInclusionPolicy(const std::optional<std::string>& policy, const std::string& path,
                               FieldErrorList& errs) {
  if (policy && *policy != "Honor" && *policy != "Ignore") {
    errs.push_back(field::notSupported(path, jsonValue(*policy), {"Honor", "Ignore"}));
  }
}

void appendTopologySpreadConstraints(const std::vector<TopologySpreadConstraint>& constraints,
                                     const std::string& path, FieldErrorList& errs) {
  for (size_t i = 0; i < constraints.size(); ++i) {
    const TopologySpreadConstraint& c = constraints[i];
    const std::string sub = index(path, i);
    // ValidatePositiveField.
    if (c.maxSkew <= 0) {
      errs.push_back(field::invalid(child(sub, "maxSkew"), std::to_string(c.maxSkew), kIsNotPositive));
    }
    // ValidateTopologyKey.
    if (c.topologyKey.empty()) errs.push_back(field::required(child(sub, "topologyKey"), "can not be empty"));
    // ValidateWhenUnsatisfiable.
    if (c.whenUnsatisfiable != kDoNotSchedule && c.whenUnsatisfiable != kScheduleAnyway) {
      errs.push_back(field::notSupported(child(sub, "whenUnsatisfiable"), jsonValue(c.whenUnsatisfiable),
                                         {kDoNotSchedule, kScheduleAnyway}));
    }
    // ValidateSpreadConstraintNotRepeat: {topologyKey, whenUnsatisfiable} identifies a constraint.
    for (size_t j = i + 1; j < constraints.size(); ++j) {
      if (c.topologyKey == constraints[j].topologyKey &&
          c.whenUnsatisfiable == constraints[j].whenUnsatisfiable) {
        errs.push_back(field::duplicate(child(sub, "{topologyKey, whenUnsatisfiable}"),
                                        quoteValue("{" + c.topologyKey + ", " + c.whenUnsatisfiable + "}")));
        break;
      }
    }
    // validateMinDomains.
    if (c.minDomains) {
      const std::string minDomainsPath = child(sub, "minDomains");
      if (*c.minDomains <= 0) {
        errs.push_back(field::invalid(minDomainsPath, std::to_string(*c.minDomains), kIsNotPositive));
      }
      if (c.whenUnsatisfiable != kDoNotSchedule) {
        errs.push_back(field::invalid(
            minDomainsPath, std::to_string(*c.minDomains),
            "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " + c.whenUnsatisfiable));
      }
    }
    appendNodeInclusionPolicy(c.nodeAffinityPolicy, child(sub, "nodeAffinityPolicy"), errs);
    appendNodeInclusionPolicy(c.nodeTaintsPolicy, child(sub, "nodeTaintsPolicy"), errs);
    // A new pod under v1.34's gates (MatchLabelKeysInPodTopologySpread, ...SelectorMerge) takes the
    // ValidateMatchLabelKeysAndMismatchLabelKeys path.
    appendMatchLabelKeysAndMismatchLabelKeys(sub, c.matchLabelKeys, {}, c.labelSelector, errs);
    appendLabelSelector(c.labelSelector, child(sub, "labelSelector"), errs);
  }
}

}  // namespace

FieldErrorList validatePodSchedulingConstraints(const Pod& pod) {
  FieldErrorList errs;
  if (pod.spec.affinity) appendAffinity(*pod.spec.affinity, "spec.affinity", errs);
  appendTopologySpreadConstraints(pod.spec.topologySpreadConstraints, "spec.topologySpreadConstraints", errs);
  return errs;
}

FieldErrorList validateAffinity(const Affinity& affinity, std::string_view path) {
  FieldErrorList errs;
  appendAffinity(affinity, std::string(path), errs);
  return errs;
}

FieldErrorList validateTopologySpreadConstraints(const std::vector<TopologySpreadConstraint>& constraints,
                                                 std::string_view path) {
  FieldErrorList errs;
  appendTopologySpreadConstraints(constraints, std::string(path), errs);
  return errs;
}

FieldErrorList validateLabelSelector(const std::optional<LabelSelector>& selector, std::string_view path) {
  FieldErrorList errs;
  appendLabelSelector(selector, std::string(path), errs);
  return errs;
}

FieldErrorList validateLabelName(std::string_view name, std::string_view path) {
  FieldErrorList errs;
  appendLabelName(name, std::string(path), errs);
  return errs;
}

}  // namespace ks::api
