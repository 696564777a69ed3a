#pragma once
// Compiled node selectors with upstream's semantics
// (k8s.io/component-helpers/scheduling/corev1/nodeaffinity): terms are ORed, the requirements inside a
// term ANDed; a term with neither matchExpressions nor matchFields matches nothing; matchFields compare
// against the node's fields, of which only metadata.name exists (In / NotIn with exactly one value).
// Everything is parsed once; matching allocates nothing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/labels.h"
#include "pkg/util/result.h"

namespace ks::api {

// One parsed v1.NodeSelectorTerm (nodeaffinity.nodeSelectorTerm).
class NodeSelectorTermMatcher {
 public:
  // Parses `term`; parse errors are kept (the term then never matches) and reported via parseErrors().
  // `path` prefixes field paths in error messages ("nodeSelectorTerms[0]").
  static NodeSelectorTermMatcher create(const NodeSelectorTerm& term, std::string_view path);

  // False when the term failed to parse. A node without a name ignores matchFields, as upstream.
  bool matches(const Node& node) const;

  const std::vector<std::string>& parseErrors() const { return parseErrors_; }

 private:
  struct FieldRequirement {
    std::string key;
    std::string value;
    bool equal = true;  // In (==) or NotIn (!=)
  };

  std::optional<Selector> matchLabels_;  // absent when the term has no matchExpressions
  std::optional<std::vector<FieldRequirement>> matchFields_;
  std::vector<std::string> parseErrors_;
};

// nodeaffinity.LazyErrorNodeSelector: parse errors only surface when no term matches.
class LazyErrorNodeSelector {
 public:
  static LazyErrorNodeSelector create(const NodeSelector& selector, std::string_view path = "");

  // True when some term matches. When none does and some term failed to parse, `*error` (if given)
  // receives the aggregated parse errors; otherwise it is cleared.
  bool match(const Node& node, std::string* error = nullptr) const;

  const std::vector<NodeSelectorTermMatcher>& terms() const { return terms_; }

 private:
  std::vector<NodeSelectorTermMatcher> terms_;
};

// nodeaffinity.NodeSelector: fails to compile on any parse error (upstream NewNodeSelector), e.g.
// "nodeSelectorTerms[0].matchFields[0].values: Invalid value: []string{\"a\", \"b\"}: must have one element".
class CompiledNodeSelector {
 public:
  static Result<CompiledNodeSelector> create(const NodeSelector& selector, std::string_view path = "");

  bool match(const Node& node) const { return lazy_.match(node); }

 private:
  LazyErrorNodeSelector lazy_;
};

// nodeaffinity.PreferredSchedulingTerms: terms with weight 0 or empty preference are skipped.
class PreferredSchedulingTerms {
 public:
  static Result<PreferredSchedulingTerms> create(const std::vector<PreferredSchedulingTerm>& terms,
                                                 std::string_view path = "");

  // Sum of the weights of the matching terms.
  int64_t score(const Node& node) const;

 private:
  std::vector<std::pair<NodeSelectorTermMatcher, int32_t>> terms_;
};

// nodeaffinity.RequiredNodeAffinity: pod.spec.nodeSelector AND the required node affinity terms.
class RequiredNodeAffinity {
 public:
  // GetRequiredNodeAffinity(pod).
  static RequiredNodeAffinity fromPod(const Pod& pod);

  // As Match: false when nodeSelector does not match; otherwise the lazy node selector's result
  // (its parse errors in `*error` when nothing matched).
  bool match(const Node& node, std::string* error = nullptr) const;

 private:
  std::optional<Selector> labelSelector_;
  std::optional<LazyErrorNodeSelector> nodeSelector_;
};

// corev1 helpers.MatchNodeSelectorTerms: LazyErrorNodeSelector built and matched in one go.
bool matchNodeSelectorTerms(const Node& node, const NodeSelector& selector, std::string* error = nullptr);

}  // namespace ks::api
