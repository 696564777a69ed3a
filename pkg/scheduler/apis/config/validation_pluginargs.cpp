// Per-plugin args validation (upstream pkg/scheduler/apis/config/validation/validation_pluginargs.go).

#include <set>

#include "pkg/scheduler/apis/config/duration.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/util/strings.h"

namespace ks::config {
namespace {

constexpr int32_t kMaxCustomPriorityScore = 10;

FieldError invalid(std::string field, std::string badValue, std::string detail) {
  return FieldError{FieldError::Type::kInvalid, std::move(field), std::move(badValue), std::move(detail)};
}
FieldError required(std::string field, std::string detail) {
  return FieldError{FieldError::Type::kRequired, std::move(field), "", std::move(detail)};
}
FieldError forbidden(std::string field, std::string detail) {
  return FieldError{FieldError::Type::kForbidden, std::move(field), "", std::move(detail)};
}
FieldError notSupported(std::string field, std::string_view value, const std::vector<std::string>& valid) {
  std::vector<std::string> quoted;
  for (const auto& v : valid) quoted.push_back(goQuote(v));
  return FieldError{FieldError::Type::kNotSupported, std::move(field), goQuote(value),
                    quoted.empty() ? "" : "supported values: " + join(quoted, ", ")};
}

// Go's %#v of a []string (nil when empty, as decoded from an absent list).
std::string goStrings(const std::vector<std::string>& v) {
  if (v.empty()) return "[]string(nil)";
  std::vector<std::string> quoted;
  for (const auto& s : v) quoted.push_back(goQuote(s));
  return "[]string{" + join(quoted, ", ") + "}";
}

std::string goShape(const std::vector<UtilizationShapePoint>& shape) {
  if (shape.empty()) return "[]config.UtilizationShapePoint(nil)";
  std::string out = "[]config.UtilizationShapePoint{";
  for (size_t i = 0; i < shape.size(); i++) {
    if (i > 0) out += ", ";
    out += "config.UtilizationShapePoint{Utilization:" + std::to_string(shape[i].utilization) +
           ", Score:" + std::to_string(shape[i].score) + "}";
  }
  return out + "}";
}

void validateLabelName(const std::string& path, const std::string& name, FieldErrors& errs) {
  for (const auto& m : isQualifiedName(name)) errs.push_back(invalid(path, goQuote(name), m));
}

FieldErrors validateFunctionShape(const std::vector<UtilizationShapePoint>& shape, const std::string& path) {
  FieldErrors errs;
  if (shape.empty()) {
    errs.push_back(required(path, "at least one point must be specified"));
    return errs;
  }
  for (size_t i = 1; i < shape.size(); i++) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs.push_back(invalid(indexPath(path, i) + ".utilization", std::to_string(shape[i].utilization),
                             "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); i++) {
    if (shape[i].utilization < 0 || shape[i].utilization > 100) {
      errs.push_back(invalid(indexPath(path, i) + ".utilization", std::to_string(shape[i].utilization),
                             "not in valid range [0, 100]"));
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errs.push_back(invalid(indexPath(path, i) + ".score", std::to_string(shape[i].score),
                             "not in valid range [0, " + std::to_string(kMaxCustomPriorityScore) + "]"));
    }
  }
  return errs;
}

// labels.NewRequirement validation for a node selector requirement (operator already mapped).
void validateRequirement(const std::string& path, const api::NodeSelectorRequirement& r, FieldErrors& errs) {
  auto keyErrs = isQualifiedName(r.key);
  if (!keyErrs.empty()) errs.push_back(invalid(path + ".key", goQuote(r.key), join(keyErrs, "; ")));
  const std::string valuesPath = path + ".values";
  if (r.op == "In" || r.op == "NotIn") {
    if (r.values.empty()) {
      errs.push_back(
          invalid(valuesPath, goStrings(r.values), "for 'in', 'notin' operators, values set can't be empty"));
    }
  } else if (r.op == "Exists" || r.op == "DoesNotExist") {
    if (!r.values.empty()) {
      errs.push_back(
          invalid(valuesPath, goStrings(r.values), "values set must be empty for exists and does not exist"));
    }
  } else if (r.op == "Gt" || r.op == "Lt") {
    if (r.values.size() != 1) {
      errs.push_back(invalid(valuesPath, goStrings(r.values),
                             "for 'Gt', 'Lt' operators, exactly one value is required"));
    }
    for (size_t i = 0; i < r.values.size(); i++) {
      const auto& v = r.values[i];
      bool isInt = !v.empty();
      size_t start = (!v.empty() && (v[0] == '-' || v[0] == '+')) ? 1 : 0;
      if (start == v.size()) isInt = false;
      for (size_t k = start; k < v.size() && isInt; k++) isInt = v[k] >= '0' && v[k] <= '9';
      if (isInt && v.size() - start > 18) {
        try {
          (void)std::stoll(v);
        } catch (...) {
          isInt = false;
        }
      }
      if (!isInt) {
        errs.push_back(invalid(indexPath(valuesPath, i), goQuote(v),
                               "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    }
  }
  for (size_t i = 0; i < r.values.size(); i++) {
    auto msgs = isValidLabelValue(r.values[i]);
    if (!msgs.empty()) {
      errs.push_back(
          invalid(indexPath(valuesPath, i) + "[" + r.key + "]", goQuote(r.values[i]), join(msgs, "; ")));
    }
  }
}

void validateNodeSelectorTerm(const std::string& path, const api::NodeSelectorTerm& term, FieldErrors& errs) {
  static const std::vector<std::string> kOps = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  static const std::vector<std::string> kFieldOps = {"In", "NotIn"};
  for (size_t i = 0; i < term.matchExpressions.size(); i++) {
    const auto& r = term.matchExpressions[i];
    const std::string p = indexPath(path + ".matchExpressions", i);
    bool known = false;
    for (const auto& op : kOps) known = known || op == r.op;
    if (!known) {
      errs.push_back(notSupported(p + ".operator", r.op, kOps));
      continue;
    }
    validateRequirement(p, r, errs);
  }
  for (size_t i = 0; i < term.matchFields.size(); i++) {
    const auto& r = term.matchFields[i];
    const std::string p = indexPath(path + ".matchFields", i);
    if (r.op == "In" || r.op == "NotIn") {
      if (r.values.size() != 1)
        errs.push_back(invalid(p + ".values", goStrings(r.values), "must have one element"));
    } else {
      errs.push_back(notSupported(p + ".operator", r.op, kFieldOps));
    }
  }
}

bool isEmptyTerm(const api::NodeSelectorTerm& t) {
  return t.matchExpressions.empty() && t.matchFields.empty();
}

}  // namespace

FieldErrors validateDefaultPreemptionArgs(const std::string& path, const DefaultPreemptionArgs& args) {
  FieldErrors errs;
  const std::string pct = childPath(path, "minCandidateNodesPercentage");
  const std::string abs = childPath(path, "minCandidateNodesAbsolute");
  if (args.minCandidateNodesPercentage < 0 || args.minCandidateNodesPercentage > 100) {
    errs.push_back(
        invalid(pct, std::to_string(args.minCandidateNodesPercentage), "not in valid range [0, 100]"));
  }
  if (args.minCandidateNodesAbsolute < 0) {
    errs.push_back(
        invalid(abs, std::to_string(args.minCandidateNodesAbsolute), "not in valid range [0, inf)"));
  }
  if (args.minCandidateNodesPercentage == 0 && args.minCandidateNodesAbsolute == 0) {
    errs.push_back(invalid(pct, "0", "cannot be zero at the same time as minCandidateNodesAbsolute"));
    errs.push_back(invalid(abs, "0", "cannot be zero at the same time as minCandidateNodesPercentage"));
  }
  return errs;
}

FieldErrors validateInterPodAffinityArgs(const std::string& path, const InterPodAffinityArgs& args) {
  FieldErrors errs;
  if (args.hardPodAffinityWeight < 0 || args.hardPodAffinityWeight > 100) {
    errs.push_back(invalid(childPath(path, "hardPodAffinityWeight"),
                           std::to_string(args.hardPodAffinityWeight), "not in valid range [0, 100]"));
  }
  return errs;
}

FieldErrors validatePodTopologySpreadArgs(const std::string& path, const PodTopologySpreadArgs& args) {
  FieldErrors errs;
  const std::string typePath = childPath(path, "defaultingType");
  if (args.defaultingType != "System" && args.defaultingType != "List") {
    errs.push_back(notSupported(typePath, args.defaultingType, {"System", "List"}));
  } else if (args.defaultingType == "System" && !args.defaultConstraints.empty()) {
    errs.push_back(invalid(typePath, goQuote(args.defaultingType), "when .defaultConstraints are not empty"));
  }
  const std::string dcPath = childPath(path, "defaultConstraints");
  for (size_t i = 0; i < args.defaultConstraints.size(); i++) {
    const auto& c = args.defaultConstraints[i];
    const std::string p = indexPath(dcPath, i);
    if (c.maxSkew <= 0)
      errs.push_back(invalid(p + ".maxSkew", std::to_string(c.maxSkew), "not in valid range (0, inf)"));
    if (c.topologyKey.empty()) {
      errs.push_back(required(p + ".topologyKey", "can not be empty"));
    } else {
      validateLabelName(p + ".topologyKey", c.topologyKey, errs);
    }
    if (c.whenUnsatisfiable.empty()) {
      errs.push_back(required(p + ".whenUnsatisfiable", "can not be empty"));
    } else if (c.whenUnsatisfiable != "DoNotSchedule" && c.whenUnsatisfiable != "ScheduleAnyway") {
      errs.push_back(
          notSupported(p + ".whenUnsatisfiable", c.whenUnsatisfiable, {"DoNotSchedule", "ScheduleAnyway"}));
    }
    if (c.labelSelector) {
      errs.push_back(forbidden(p + ".labelSelector",
                               "constraint must not define a selector, as they deduced for each pod"));
    }
    for (size_t k = 0; k < i; k++) {
      const auto& other = args.defaultConstraints[k];
      if (c.topologyKey == other.topologyKey && c.whenUnsatisfiable == other.whenUnsatisfiable) {
        errs.push_back(FieldError{FieldError::Type::kDuplicate, p,
                                  goQuote("{" + c.topologyKey + ", " + c.whenUnsatisfiable + "}"), ""});
        break;
      }
    }
  }
  return errs;
}

FieldErrors validateNodeResourcesBalancedAllocationArgs(const std::string& path,
                                                        const NodeResourcesBalancedAllocationArgs& args) {
  FieldErrors errs;
  std::set<std::string> seen;
  for (size_t i = 0; i < args.resources.size(); i++) {
    const auto& r = args.resources[i];
    const std::string p = indexPath(childPath(path, "resources"), i);
    if (!seen.insert(r.name).second) {
      errs.push_back(FieldError{FieldError::Type::kDuplicate, p + ".name", goQuote(r.name), ""});
    }
    if (r.weight != 1) errs.push_back(invalid(p + ".weight", std::to_string(r.weight), "must be 1"));
  }
  return errs;
}

FieldErrors validateNodeAffinityArgs(const std::string& path, const NodeAffinityArgs& args) {
  FieldErrors errs;
  if (!args.addedAffinity) return errs;
  const auto& a = *args.addedAffinity;
  const std::string base = childPath(path, "addedAffinity");
  if (a.requiredDuringSchedulingIgnoredDuringExecution) {
    const std::string p = base + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
    const auto& terms = a.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms;
    for (size_t i = 0; i < terms.size(); i++) {
      if (isEmptyTerm(terms[i])) continue;
      validateNodeSelectorTerm(indexPath(p, i), terms[i], errs);
    }
  }
  const auto& preferred = a.preferredDuringSchedulingIgnoredDuringExecution;
  for (size_t i = 0; i < preferred.size(); i++) {
    if (preferred[i].weight == 0 || isEmptyTerm(preferred[i].preference)) continue;
    validateNodeSelectorTerm(indexPath(base + ".preferredDuringSchedulingIgnoredDuringExecution", i),
                             preferred[i].preference, errs);
  }
  return errs;
}

FieldErrors validateVolumeBindingArgs(const std::string& path, const VolumeBindingArgs& args,
                                      const FeatureGates& features) {
  FieldErrors errs;
  if (args.bindTimeoutSeconds < 0) {
    errs.push_back(invalid(childPath(path, "bindTimeoutSeconds"), std::to_string(args.bindTimeoutSeconds),
                           "invalid BindTimeoutSeconds, should not be a negative value"));
  }
  if (features.storageCapacityScoring) {
    for (auto& e : validateFunctionShape(args.shape, childPath(path, "shape"))) errs.push_back(std::move(e));
  } else if (!args.shape.empty()) {
    errs.push_back(
        invalid(childPath(path, "shape"), goShape(args.shape),
                "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"));
  }
  return errs;
}

FieldErrors validateNodeResourcesFitArgs(const std::string& path, const NodeResourcesFitArgs& args) {
  FieldErrors errs;
  for (size_t i = 0; i < args.ignoredResources.size(); i++) {
    validateLabelName(indexPath(childPath(path, "ignoredResources"), i), args.ignoredResources[i], errs);
  }
  for (size_t i = 0; i < args.ignoredResourceGroups.size(); i++) {
    const auto& g = args.ignoredResourceGroups[i];
    const std::string p = indexPath(childPath(path, "ignoredResourceGroups"), i);
    if (g.find('/') != std::string::npos)
      errs.push_back(invalid(p, goQuote(g), "resource group name can't contain '/'"));
    validateLabelName(p, g, errs);
  }
  const std::string sp = childPath(path, "scoringStrategy");
  const auto& s = args.scoringStrategy;
  if (s.type != "LeastAllocated" && s.type != "MostAllocated" && s.type != "RequestedToCapacityRatio") {
    errs.push_back(
        notSupported(sp + ".type", s.type, {"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"}));
  }
  for (size_t i = 0; i < s.resources.size(); i++) {
    if (s.resources[i].weight <= 0 || s.resources[i].weight > 100) {
      errs.push_back(invalid(indexPath(sp + ".resources", i) + ".weight",
                             std::to_string(s.resources[i].weight),
                             "resource weight of " + s.resources[i].name + " not in valid range (0, 100]"));
    }
  }
  if (s.type == "RequestedToCapacityRatio") {
    if (!s.requestedToCapacityRatio) {
      errs.push_back(required(sp + ".requestedToCapacityRatio",
                              "must be specified when type is RequestedToCapacityRatio"));
    } else {
      for (auto& e :
           validateFunctionShape(s.requestedToCapacityRatio->shape, sp + ".requestedToCapacityRatio.shape")) {
        errs.push_back(std::move(e));
      }
    }
  } else if (s.requestedToCapacityRatio) {
    errs.push_back(
        forbidden(sp + ".requestedToCapacityRatio", "must be nil when type is not RequestedToCapacityRatio"));
  }
  return errs;
}

FieldErrors validateDynamicResourcesArgs(const std::string& path, const DynamicResourcesArgs& args,
                                         const FeatureGates& features) {
  FieldErrors errs;
  const std::string p = childPath(path, "filterTimeout");
  if (features.draSchedulerFilterTimeout) {
    if (args.filterTimeout && args.filterTimeout->count() < 0) {
      errs.push_back(invalid(
          p, formatGoDuration(std::chrono::duration_cast<std::chrono::nanoseconds>(*args.filterTimeout)),
          "must be zero or positive"));
    }
  } else if (args.filterTimeout) {
    errs.push_back(forbidden(p, "DRASchedulingFilterTimeout feature gate is disabled"));
  }
  const std::string bp = childPath(path, "bindingTimeout");
  if (features.draDeviceBindingConditions && features.draResourceClaimDeviceStatus) {
    if (args.bindingTimeout && *args.bindingTimeout < std::chrono::seconds(1)) {
      errs.push_back(invalid(
          bp, formatGoDuration(std::chrono::duration_cast<std::chrono::nanoseconds>(*args.bindingTimeout)),
          "must be at least 1 second"));
    }
  } else if (args.bindingTimeout) {
    errs.push_back(forbidden(bp, "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"));
  }
  return errs;
}

}  // namespace ks::config
