// Ported from k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go and
// corev1/helpers.go (MatchNodeSelectorTerms).

#include "pkg/api/nodeselector.h"

#include <utility>

#include "pkg/util/strings.h"

namespace ks::api {

namespace {

using internal::childPath;
using internal::FieldErrors;
using internal::goStringSlice;
using internal::indexPath;

bool isEmptyTerm(const NodeSelectorTerm& term) {
  return term.matchExpressions.empty() && term.matchFields.empty();
}

std::string aggregateOf(const std::vector<std::string>& messages) {
  FieldErrors errs;
  for (const auto& m : messages) errs.add(m);
  return errs.aggregate();
}

}  // namespace

NodeSelectorTermMatcher NodeSelectorTermMatcher::create(const NodeSelectorTerm& term, std::string_view path) {
  NodeSelectorTermMatcher out;
  FieldErrors errs;
  if (!term.matchExpressions.empty()) {
    // nodeSelectorRequirementsAsSelector.
    const std::string p = childPath(path, "matchExpressions");
    std::vector<Requirement> reqs;
    bool ok = true;
    for (size_t i = 0; i < term.matchExpressions.size(); ++i) {
      const auto& expr = term.matchExpressions[i];
      const std::string ip = indexPath(p, i);
      SelectionOp op;
      if (expr.op == "In") {
        op = SelectionOp::In;
      } else if (expr.op == "NotIn") {
        op = SelectionOp::NotIn;
      } else if (expr.op == "Exists") {
        op = SelectionOp::Exists;
      } else if (expr.op == "DoesNotExist") {
        op = SelectionOp::DoesNotExist;
      } else if (expr.op == "Gt") {
        op = SelectionOp::GreaterThan;
      } else if (expr.op == "Lt") {
        op = SelectionOp::LessThan;
      } else {
        errs.notSupported(childPath(ip, "operator"), quote(expr.op),
                          {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"});
        ok = false;
        continue;
      }
      auto r = newRequirement(expr.key, op, expr.values, ip, errs);
      if (r) {
        reqs.push_back(std::move(*r));
      } else {
        ok = false;
      }
    }
    if (ok) out.matchLabels_ = Selector().add(std::move(reqs));
  }
  if (!term.matchFields.empty()) {
    // nodeSelectorRequirementsAsFieldSelector.
    const std::string p = childPath(path, "matchFields");
    std::vector<FieldRequirement> fields;
    bool ok = true;
    for (size_t i = 0; i < term.matchFields.size(); ++i) {
      const auto& expr = term.matchFields[i];
      const std::string ip = indexPath(p, i);
      if (expr.op == "In" || expr.op == "NotIn") {
        if (expr.values.size() != 1) {
          errs.invalid(childPath(ip, "values"), goStringSlice(expr.values), "must have one element");
          ok = false;
        } else {
          fields.push_back(FieldRequirement{expr.key, expr.values[0], expr.op == "In"});
        }
      } else {
        errs.notSupported(childPath(ip, "operator"), quote(expr.op), {"In", "NotIn"});
        ok = false;
      }
    }
    if (ok) out.matchFields_ = std::move(fields);
  }
  out.parseErrors_ = errs.messages();
  return out;
}

bool NodeSelectorTermMatcher::matches(const Node& node) const {
  if (!parseErrors_.empty()) return false;
  if (matchLabels_ && !matchLabels_->matches(node.metadata.labels)) return false;
  // The node's field set holds only metadata.name, and only when the name is set; an empty set skips
  // the field requirements entirely.
  if (matchFields_ && !node.metadata.name.empty()) {
    for (const auto& f : *matchFields_) {
      std::string_view value =
          f.key == "metadata.name" ? std::string_view(node.metadata.name) : std::string_view();
      if ((value == f.value) != f.equal) return false;
    }
  }
  return true;
}

LazyErrorNodeSelector LazyErrorNodeSelector::create(const NodeSelector& selector, std::string_view path) {
  LazyErrorNodeSelector out;
  out.terms_.reserve(selector.nodeSelectorTerms.size());
  const std::string p = childPath(path, "nodeSelectorTerms");
  for (size_t i = 0; i < selector.nodeSelectorTerms.size(); ++i) {
    const auto& term = selector.nodeSelectorTerms[i];
    if (isEmptyTerm(term)) continue;  // an empty term selects nothing
    out.terms_.push_back(NodeSelectorTermMatcher::create(term, indexPath(p, i)));
  }
  return out;
}

bool LazyErrorNodeSelector::match(const Node& node, std::string* error) const {
  if (error != nullptr) error->clear();
  bool anyErrors = false;
  for (const auto& term : terms_) {
    if (!term.parseErrors().empty()) {
      anyErrors = true;
      continue;
    }
    if (term.matches(node)) return true;
  }
  if (anyErrors && error != nullptr) {
    std::vector<std::string> all;
    for (const auto& term : terms_)
      all.insert(all.end(), term.parseErrors().begin(), term.parseErrors().end());
    *error = aggregateOf(all);
  }
  return false;
}

Result<CompiledNodeSelector> CompiledNodeSelector::create(const NodeSelector& selector,
                                                          std::string_view path) {
  CompiledNodeSelector out;
  out.lazy_ = LazyErrorNodeSelector::create(selector, path);
  std::vector<std::string> all;
  for (const auto& term : out.lazy_.terms()) {
    all.insert(all.end(), term.parseErrors().begin(), term.parseErrors().end());
  }
  if (!all.empty()) return Error(aggregateOf(all));
  return out;
}

Result<PreferredSchedulingTerms> PreferredSchedulingTerms::create(
    const std::vector<PreferredSchedulingTerm>& terms, std::string_view path) {
  PreferredSchedulingTerms out;
  std::vector<std::string> all;
  for (size_t i = 0; i < terms.size(); ++i) {
    const auto& term = terms[i];
    if (term.weight == 0 || isEmptyTerm(term.preference)) continue;
    auto parsed = NodeSelectorTermMatcher::create(term.preference, indexPath(path, i));
    if (!parsed.parseErrors().empty()) {
      all.insert(all.end(), parsed.parseErrors().begin(), parsed.parseErrors().end());
    } else {
      out.terms_.emplace_back(std::move(parsed), term.weight);
    }
  }
  if (!all.empty()) return Error(aggregateOf(all));
  return out;
}

int64_t PreferredSchedulingTerms::score(const Node& node) const {
  int64_t score = 0;
  for (const auto& [term, weight] : terms_) {
    if (term.matches(node)) score += weight;
  }
  return score;
}

RequiredNodeAffinity RequiredNodeAffinity::fromPod(const Pod& pod) {
  RequiredNodeAffinity out;
  if (!pod.spec.nodeSelector.empty()) out.labelSelector_ = Selector::fromSet(pod.spec.nodeSelector);
  const auto& affinity = pod.spec.affinity;
  if (affinity && affinity->nodeAffinity &&
      affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    out.nodeSelector_ = LazyErrorNodeSelector::create(
        *affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution);
  }
  return out;
}

bool RequiredNodeAffinity::match(const Node& node, std::string* error) const {
  if (error != nullptr) error->clear();
  if (labelSelector_ && !labelSelector_->matches(node.metadata.labels)) return false;
  if (nodeSelector_) return nodeSelector_->match(node, error);
  return true;
}

bool matchNodeSelectorTerms(const Node& node, const NodeSelector& selector, std::string* error) {
  return LazyErrorNodeSelector::create(selector).match(node, error);
}

}  // namespace ks::api
