// Tables ported from k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity_test.go.

#include "pkg/api/nodeselector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ks::api {
namespace {

using Req = NodeSelectorRequirement;

const std::string kNameRegexDetail =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

NodeSelectorTerm term(std::vector<Req> exprs, std::vector<Req> fields = {}) {
  NodeSelectorTerm t;
  t.matchExpressions = std::move(exprs);
  t.matchFields = std::move(fields);
  return t;
}

Node node(std::string name, Labels labels = {}) {
  Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels = std::move(labels);
  return n;
}

TEST(NodeSelectorTest, InvalidFieldSelectorAndLabelSelector) {
  NodeSelector ns{{
      term({}, {{"metadata.name", "In", {"host_1", "host_2"}}}),
      term({{"label_1", "In", {"label_1_val"}}}, {{"metadata.name", "In", {"host_1"}}}),
      term({{"invalid key", "In", {"label_value"}}}),
  }};
  auto s = CompiledNodeSelector::create(ns);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "[nodeSelectorTerms[0].matchFields[0].values: Invalid value: []string{\"host_1\", \"host_2\"}: "
            "must have one "
            "element, nodeSelectorTerms[2].matchExpressions[0].key: Invalid value: \"invalid key\": " +
                kNameRegexDetail + "]");

  // The lazy selector still matches through the valid term and reports errors only when nothing matched.
  auto lazy = LazyErrorNodeSelector::create(ns);
  std::string err;
  EXPECT_TRUE(lazy.match(node("host_1", {{"label_1", "label_1_val"}}), &err));
  EXPECT_EQ(err, "");
  EXPECT_FALSE(lazy.match(node("host_2", {{"label_1", "label_1_val"}}), &err));
  EXPECT_EQ(err, s.error().message());
}

TEST(NodeSelectorTest, Match) {
  struct Case {
    std::string name;
    NodeSelector ns;
    Node node;
    bool want;
  };
  const std::vector<Case> cases = {
      {"node matches field selector, but not labels",
       {{term({{"label_1", "In", {"label_1_val"}}}, {{"metadata.name", "In", {"host_1"}}})}},
       node("host_1"),
       false},
      {"node matches field selector and label selector",
       {{term({{"label_1", "In", {"label_1_val"}}}, {{"metadata.name", "In", {"host_1"}}})}},
       node("host_1", {{"label_1", "label_1_val"}}),
       true},
      {"second term matches",
       {{term({{"label_1", "In", {"label_1_val"}}}), term({}, {{"metadata.name", "In", {"host_1"}}})}},
       node("host_1"),
       true},
      {"NotIn field", {{term({}, {{"metadata.name", "NotIn", {"host_1"}}})}}, node("host_2"), true},
      {"NotIn field excludes", {{term({}, {{"metadata.name", "NotIn", {"host_1"}}})}}, node("host_1"), false},
      {"unnamed node skips matchFields", {{term({}, {{"metadata.name", "In", {"host_1"}}})}}, node(""), true},
      {"empty term matches nothing", {{term({}, {})}}, node("host_1"), false},
      {"no terms matches nothing", {}, node("host_1"), false},
  };
  for (const auto& c : cases) {
    auto s = CompiledNodeSelector::create(c.ns);
    ASSERT_TRUE(s.ok()) << c.name << ": " << s.error().message();
    EXPECT_EQ(s->match(c.node), c.want) << c.name;
  }
}

TEST(NodeSelectorTest, PreferredSchedulingTermsScore) {
  {
    std::vector<PreferredSchedulingTerm> terms = {
        {1, term({}, {{"metadata.name", "In", {"host_1", "host_2"}}})},
        {1, term({{"label_1", "In", {"label_1_val"}}}, {{"metadata.name", "In", {"host_1"}}})},
        {1, term({{"invalid key", "In", {"label_value"}}})},
    };
    auto p = PreferredSchedulingTerms::create(terms);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(
        p.error().message(),
        "[[0].matchFields[0].values: Invalid value: []string{\"host_1\", \"host_2\"}: must have one element, "
        "[2].matchExpressions[0].key: Invalid value: \"invalid key\": " +
            kNameRegexDetail + "]");
  }
  {
    // invalid field selector but no weight, error not reported
    auto p =
        PreferredSchedulingTerms::create({{0, term({}, {{"metadata.name", "In", {"host_1", "host_2"}}})}});
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->score(node("host_1")), 0);
  }
  {
    auto p = PreferredSchedulingTerms::create({
        {5, term({}, {{"metadata.name", "In", {"host_1"}}})},
        {7, term({{"unknown_label", "In", {"unknown_label_val"}}})},
        {11, term({{"label_1", "In", {"label_1_val"}}})},
    });
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->score(node("host_1", {{"label_1", "label_1_val"}})), 16);
  }
}

TEST(NodeSelectorTest, RequirementsAsSelector) {
  struct Case {
    std::vector<Req> in;
    std::string out;  // Selector string, or the error
    bool wantErr;
  };
  const std::vector<Case> cases = {
      {{{"foo", "In", {"bar", "baz"}}}, "foo in (bar,baz)", false},
      {{{"foo", "Exists", {"bar", "baz"}}},
       "root[0].values: Invalid value: []string{\"bar\", \"baz\"}: values set must be empty for exists and "
       "does not exist",
       true},
      {{{"foo", "Gt", {"1"}}}, "foo>1", false},
      {{{"bar", "Lt", {"7"}}}, "bar<7", false},
      {{{"foo", "Gt", {"1.5"}}},
       "root[0].values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' operators, the value must be an integer",
       true},
      {{{"foo", "Foo", {"1"}}},
       "root[0].operator: Unsupported value: \"Foo\": supported values: \"In\", \"NotIn\", \"Exists\", "
       "\"DoesNotExist\", \"Gt\", \"Lt\"",
       true},
  };
  for (const auto& c : cases) {
    // Via a term with path "root" the matchExpressions path reads root.matchExpressions; rebuild the
    // upstream helper's "root" path by checking the suffix after it.
    auto t = NodeSelectorTermMatcher::create(term(c.in), "");
    if (!c.wantErr) {
      EXPECT_TRUE(t.parseErrors().empty()) << c.out;
      continue;
    }
    ASSERT_EQ(t.parseErrors().size(), 1u) << c.out;
    std::string got = t.parseErrors()[0];
    const std::string prefix = "matchExpressions";
    ASSERT_EQ(got.rfind(prefix, 0), 0u) << got;
    EXPECT_EQ("root" + got.substr(prefix.size()), c.out);
  }
  // Compiled selectors match as the equivalent parsed label selector would.
  auto t = NodeSelectorTermMatcher::create(term({{"foo", "In", {"bar", "baz"}}, {"n", "Gt", {"5"}}}), "");
  EXPECT_TRUE(t.matches(node("x", {{"foo", "baz"}, {"n", "6"}})));
  EXPECT_FALSE(t.matches(node("x", {{"foo", "baz"}, {"n", "5"}})));
  EXPECT_FALSE(t.matches(node("x", {{"foo", "baz"}, {"n", "x"}})));
}

TEST(NodeSelectorTest, FieldOperatorErrors) {
  auto s = CompiledNodeSelector::create({{term({}, {{"metadata.name", "Exists", {}}})}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: \"Exists\": supported values: "
            "\"In\", "
            "\"NotIn\"");
  auto empty = CompiledNodeSelector::create({{term({}, {{"metadata.name", "In", {}}})}});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(
      empty.error().message(),
      "nodeSelectorTerms[0].matchFields[0].values: Invalid value: []string(nil): must have one element");
}

Pod podWith(Labels nodeSelector, std::optional<NodeSelector> required) {
  Pod p;
  p.spec.nodeSelector = std::move(nodeSelector);
  if (required) {
    p.spec.affinity = Affinity{};
    p.spec.affinity->nodeAffinity = NodeAffinity{};
    p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution = std::move(required);
  }
  return p;
}

TEST(NodeSelectorTest, PodMatchesNodeSelectorAndAffinityTerms) {
  struct Case {
    std::string name;
    Pod pod;
    Labels labels;
    std::string nodeName;
    bool want;
  };
  Pod affinityNoRequired;
  affinityNoRequired.spec.affinity = Affinity{};
  affinityNoRequired.spec.affinity->nodeAffinity = NodeAffinity{};
  const std::vector<Case> cases = {
      {"no selector", Pod{}, {}, "", true},
      {"missing labels", podWith({{"foo", "bar"}}, std::nullopt), {}, "", false},
      {"same labels", podWith({{"foo", "bar"}}, std::nullopt), {{"foo", "bar"}}, "", true},
      {"node labels are superset",
       podWith({{"foo", "bar"}}, std::nullopt),
       {{"foo", "bar"}, {"baz", "blah"}},
       "",
       true},
      {"node labels are subset",
       podWith({{"foo", "bar"}, {"baz", "blah"}}, std::nullopt),
       {{"foo", "bar"}},
       "",
       false},
      {"In operator matches",
       podWith({}, NodeSelector{{term({{"foo", "In", {"bar", "value2"}}})}}),
       {{"foo", "bar"}},
       "",
       true},
      {"Gt operator matches",
       podWith({}, NodeSelector{{term({{"kernel-version", "Gt", {"0204"}}})}}),
       {{"kernel-version", "0206"}},
       "",
       true},
      {"NotIn operator matches",
       podWith({}, NodeSelector{{term({{"mem-type", "NotIn", {"DDR", "DDR2"}}})}}),
       {{"mem-type", "DDR3"}},
       "",
       true},
      {"Exists operator matches",
       podWith({}, NodeSelector{{term({{"GPU", "Exists", {}}})}}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       true},
      {"affinity doesn't match",
       podWith({}, NodeSelector{{term({{"foo", "In", {"value1", "value2"}}})}}),
       {{"foo", "bar"}},
       "",
       false},
      {"nil terms", podWith({}, NodeSelector{}), {{"foo", "bar"}}, "", false},
      {"empty matchExpressions", podWith({}, NodeSelector{{term({})}}), {{"foo", "bar"}}, "", false},
      {"no affinity", Pod{}, {{"foo", "bar"}}, "", true},
      {"affinity but nil node selector", affinityNoRequired, {{"foo", "bar"}}, "", true},
      {"multiple matchExpressions ANDed match",
       podWith({}, NodeSelector{{term({{"GPU", "Exists", {}}, {"GPU", "NotIn", {"AMD", "INTER"}}})}}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       true},
      {"multiple matchExpressions ANDed don't match",
       podWith({}, NodeSelector{{term({{"GPU", "Exists", {}}, {"GPU", "In", {"AMD", "INTER"}}})}}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       false},
      {"terms ORed",
       podWith({}, NodeSelector{{term({{"foo", "In", {"bar", "value2"}}}),
                                 term({{"diffkey", "In", {"wrong", "value2"}}})}}),
       {{"foo", "bar"}},
       "",
       true},
      {"affinity and nodeSelector both satisfied",
       podWith({{"foo", "bar"}}, NodeSelector{{term({{"foo", "Exists", {}}})}}),
       {{"foo", "bar"}},
       "",
       true},
      {"affinity matches but nodeSelector not",
       podWith({{"foo", "bar"}}, NodeSelector{{term({{"foo", "Exists", {}}})}}),
       {{"foo", "barrrrrr"}},
       "",
       false},
      {"invalid value in affinity term",
       podWith({}, NodeSelector{{term({{"foo", "NotIn", {"invalid value: ___@#$%^"}}})}}),
       {{"foo", "bar"}},
       "",
       false},
      {"matchFields In matches",
       podWith({}, NodeSelector{{term({}, {{"metadata.name", "In", {"node_1"}}})}}),
       {},
       "node_1",
       true},
      {"matchFields In does not match",
       podWith({}, NodeSelector{{term({}, {{"metadata.name", "In", {"node_1"}}})}}),
       {},
       "node_2",
       false},
      {"two terms: matchFields no, matchExpressions yes",
       podWith({}, NodeSelector{{term({}, {{"metadata.name", "In", {"node_1"}}}),
                                 term({{"foo", "In", {"bar"}}})}}),
       {{"foo", "bar"}},
       "node_2",
       true},
      {"one term: matchFields no, matchExpressions yes",
       podWith({}, NodeSelector{{term({{"foo", "In", {"bar"}}}, {{"metadata.name", "In", {"node_1"}}})}}),
       {{"foo", "bar"}},
       "node_2",
       false},
      {"one term: both match",
       podWith({}, NodeSelector{{term({{"foo", "In", {"bar"}}}, {{"metadata.name", "In", {"node_1"}}})}}),
       {{"foo", "bar"}},
       "node_1",
       true},
      {"two terms: neither matches",
       podWith({}, NodeSelector{{term({}, {{"metadata.name", "In", {"node_1"}}}),
                                 term({{"foo", "In", {"not-match-to-bar"}}})}}),
       {{"foo", "bar"}},
       "node_2",
       false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(RequiredNodeAffinity::fromPod(c.pod).match(node(c.nodeName, c.labels)), c.want) << c.name;
  }
  std::string err;
  auto invalid =
      RequiredNodeAffinity::fromPod(podWith({}, NodeSelector{{term({{"foo", "NotIn", {"a b"}}})}}));
  EXPECT_FALSE(invalid.match(node("n", {{"foo", "bar"}}), &err));
  EXPECT_NE(err.find("nodeSelectorTerms[0].matchExpressions[0].values[0][foo]: Invalid value: \"a b\""),
            std::string::npos)
      << err;
  EXPECT_TRUE(
      matchNodeSelectorTerms(node("n", {{"foo", "bar"}}), NodeSelector{{term({{"foo", "Exists", {}}})}}));
}

}  // namespace
}  // namespace ks::api
