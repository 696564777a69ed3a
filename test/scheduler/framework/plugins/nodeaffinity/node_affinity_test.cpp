// Ports upstream plugins/nodeaffinity/node_affinity_test.go.
#include <gtest/gtest.h>

#include "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::nodeaffinity {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;
using ks::testing::MakeNode;
using ks::testing::MakePod;

api::NodeSelectorRequirement req(std::string key, std::string op, std::vector<std::string> values = {}) {
  return api::NodeSelectorRequirement{std::move(key), std::move(op), std::move(values)};
}
api::NodeSelectorTerm exprs(std::vector<api::NodeSelectorRequirement> e) {
  return api::NodeSelectorTerm{std::move(e), {}};
}
api::NodeSelectorTerm fields(std::vector<api::NodeSelectorRequirement> f) {
  return api::NodeSelectorTerm{{}, std::move(f)};
}
api::NodeSelectorRequirement nameIn(std::vector<std::string> names) {
  return req("metadata.name", "In", std::move(names));
}

api::NodeAffinity requiredAffinity(std::vector<api::NodeSelectorTerm> terms) {
  api::NodeAffinity a;
  a.requiredDuringSchedulingIgnoredDuringExecution = api::NodeSelector{std::move(terms)};
  return a;
}

api::Pod podWithRequired(std::vector<api::NodeSelectorTerm> terms,
                         std::map<std::string, std::string> nodeSelector = {}) {
  api::Pod p;
  p.spec.nodeSelector = std::move(nodeSelector);
  p.spec.affinity = api::Affinity{};
  p.spec.affinity->nodeAffinity = requiredAffinity(std::move(terms));
  return p;
}

std::unique_ptr<NodeAffinity> makePlugin(const config::NodeAffinityArgs& args) {
  auto p = NodeAffinity::create(args);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  return p.ok() ? std::move(p).value() : nullptr;
}

TEST(NodeAffinityTest, FilterAndPreFilter) {
  const Status errPod(Code::UnschedulableAndUnresolvable,
                      "node(s) didn't match Pod's node affinity/selector");
  const Status errEnforced(Code::UnschedulableAndUnresolvable,
                           "node(s) didn't match scheduler-enforced node affinity");
  const Status skip(Code::Skip);
  using Names = std::optional<std::set<std::string>>;
  struct Case {
    std::string name;
    api::Pod pod;
    std::map<std::string, std::string> labels;
    std::string nodeName;
    Status wantStatus;
    Status wantPreFilterStatus;
    Names wantPreFilterResult;
    config::NodeAffinityArgs args;
    bool runPreFilter = true;
  };
  config::NodeAffinityArgs addedNode2;
  addedNode2.addedAffinity = requiredAffinity({fields({nameIn({"node2"})})});
  config::NodeAffinityArgs addedZoneBar;
  addedZoneBar.addedAffinity = requiredAffinity({exprs({req("zone", "In", {"bar"})})});

  const std::vector<Case> cases = {
      {"missing labels", MakePod().nodeSelector({{"foo", "bar"}}).obj(), {}, "", errPod, {}, {}, {}},
      {"same labels", MakePod().nodeSelector({{"foo", "bar"}}).obj(), {{"foo", "bar"}}, "", {}, {}, {}, {}},
      {"node labels are superset",
       MakePod().nodeSelector({{"foo", "bar"}}).obj(),
       {{"foo", "bar"}, {"baz", "blah"}},
       "",
       {},
       {},
       {},
       {}},
      {"node labels are subset",
       MakePod().nodeSelector({{"foo", "bar"}, {"baz", "blah"}}).obj(),
       {{"foo", "bar"}},
       "",
       errPod,
       {},
       {},
       {}},
      {"Pod with matchExpressions using In operator that matches the existing node",
       podWithRequired({exprs({req("foo", "In", {"bar", "value2"})})}),
       {{"foo", "bar"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with matchExpressions using Gt operator that matches the existing node",
       podWithRequired({exprs({req("kernel-version", "Gt", {"0204"})})}),
       {{"kernel-version", "0206"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with matchExpressions using NotIn operator that matches the existing node",
       podWithRequired({exprs({req("mem-type", "NotIn", {"DDR", "DDR2"})})}),
       {{"mem-type", "DDR3"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with matchExpressions using Exists operator that matches the existing node",
       podWithRequired({exprs({req("GPU", "Exists")})}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with affinity that don't match node's labels won't schedule onto the node",
       podWithRequired({exprs({req("foo", "In", {"value1", "value2"})})}),
       {{"foo", "bar"}},
       "",
       errPod,
       {},
       {},
       {}},
      {"Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto "
       "the node",
       podWithRequired({exprs({})}),
       {{"foo", "bar"}},
       "",
       errPod,
       {},
       {},
       {}},
      {"Pod with no Affinity will schedule onto a node", api::Pod{}, {{"foo", "bar"}}, "", {}, skip, {}, {}},
      {"Pod with Affinity but nil NodeSelector will schedule onto a node",
       [] {
         api::Pod p;
         p.spec.affinity = api::Affinity{};
         p.spec.affinity->nodeAffinity = api::NodeAffinity{};
         return p;
       }(),
       {{"foo", "bar"}},
       "",
       {},
       skip,
       {},
       {}},
      {"Pod with multiple matchExpressions ANDed that matches the existing node",
       podWithRequired({exprs({req("GPU", "Exists"), req("GPU", "NotIn", {"AMD", "INTER"})})}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with multiple matchExpressions ANDed that doesn't match the existing node",
       podWithRequired({exprs({req("GPU", "Exists"), req("GPU", "In", {"AMD", "INTER"})})}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       errPod,
       {},
       {},
       {}},
      {"Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule "
       "onto the node",
       podWithRequired({exprs({req("foo", "In", {"bar", "value2"})}),
                        exprs({req("diffkey", "In", {"wrong", "value2"})})}),
       {{"foo", "bar"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are "
       "satisfied, will "
       "schedule onto the node",
       podWithRequired({exprs({req("foo", "Exists")})}, {{"foo", "bar"}}),
       {{"foo", "bar"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are "
       "deprecating) "
       "is not satisfied, won't schedule onto the node",
       podWithRequired({exprs({req("foo", "Exists")})}, {{"foo", "bar"}}),
       {{"foo", "barrrrrr"}},
       "",
       errPod,
       {},
       {},
       {}},
      {"Pod with an invalid value in Affinity term won't be scheduled onto the node",
       podWithRequired({exprs({req("foo", "NotIn", {"invalid value: ___@#$%^"})})}),
       {{"foo", "bar"}},
       "",
       errPod,
       {},
       {},
       {}},
      {"Pod with matchFields using In operator that matches the existing node",
       podWithRequired({fields({nameIn({"node1"})})}),
       {},
       "node1",
       {},
       {},
       Names{{"node1"}},
       {}},
      {"Pod with matchFields using In operator that does not match the existing node",
       podWithRequired({fields({nameIn({"node1"})})}),
       {},
       "node2",
       errPod,
       {},
       Names{{"node1"}},
       {}},
      {"Pod with two terms: matchFields does not match, but matchExpressions matches",
       podWithRequired({fields({nameIn({"node1"})}), exprs({req("foo", "In", {"bar"})})}),
       {{"foo", "bar"}},
       "node2",
       {},
       {},
       {},
       {}},
      {"Pod with one term: matchFields does not match, but matchExpressions matches",
       podWithRequired({api::NodeSelectorTerm{{req("foo", "In", {"bar"})}, {nameIn({"node1"})}}}),
       {{"foo", "bar"}},
       "node2",
       errPod,
       {},
       Names{{"node1"}},
       {}},
      {"Pod with one term: both matchFields and matchExpressions match",
       podWithRequired({api::NodeSelectorTerm{{req("foo", "In", {"bar"})}, {nameIn({"node1"})}}}),
       {{"foo", "bar"}},
       "node1",
       {},
       {},
       Names{{"node1"}},
       {}},
      {"Pod with two terms: both matchFields and matchExpressions do not match",
       podWithRequired({fields({nameIn({"node1"})}), exprs({req("foo", "In", {"not-match-to-bar"})})}),
       {{"foo", "bar"}},
       "node2",
       errPod,
       {},
       {},
       {}},
      {"Pod with two terms of node.Name affinity",
       podWithRequired({fields({nameIn({"node1"})}), fields({nameIn({"node2"})})}),
       {},
       "node2",
       {},
       {},
       Names{{"node1", "node2"}},
       {}},
      {"Pod with two conflicting mach field requirements",
       podWithRequired({fields({nameIn({"node1"}), nameIn({"node2"})})}),
       {{"foo", "bar"}},
       "node2",
       errPod,
       Status(Code::UnschedulableAndUnresolvable, "pod affinity terms conflict"),
       {},
       {}},
      {"Matches added affinity and Pod's node affinity",
       podWithRequired({exprs({req("zone", "In", {"foo"})})}),
       {{"zone", "foo"}},
       "node2",
       {},
       {},
       {},
       addedNode2},
      {"Matches added affinity but not Pod's node affinity",
       podWithRequired({exprs({req("zone", "In", {"bar"})})}),
       {{"zone", "foo"}},
       "node2",
       errPod,
       {},
       {},
       addedNode2},
      {"Doesn't match added affinity",
       api::Pod{},
       {{"zone", "foo"}},
       "node2",
       errEnforced,
       {},
       {},
       addedZoneBar},
      {"Matches node selector correctly even if PreFilter is not called",
       MakePod().nodeSelector({{"foo", "bar"}}).obj(),
       {{"foo", "bar"}, {"baz", "blah"}},
       "",
       {},
       {},
       {},
       {},
       false},
      {"Matches node affinity correctly even if PreFilter is not called",
       podWithRequired({exprs({req("GPU", "Exists"), req("GPU", "NotIn", {"AMD", "INTER"})})}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       {},
       {},
       {},
       {},
       false},
  };
  for (const auto& c : cases) {
    api::Node node;
    node.metadata.name = c.nodeName;
    node.metadata.labels = c.labels;
    auto ni = plugintesting::nodeInfoWith(node);
    auto p = makePlugin(c.args);
    ASSERT_NE(p, nullptr) << c.name;
    auto pi = plugintesting::podInfo(c.pod);
    framework::CycleState state;
    if (c.runPreFilter) {
      framework::PreFilterResult result;
      EXPECT_EQ(p->preFilter(state, *pi, {}, result), c.wantPreFilterStatus) << c.name;
      EXPECT_EQ(result.nodeNames, c.wantPreFilterResult) << c.name;
    }
    EXPECT_EQ(p->filter(state, *pi, *ni), c.wantStatus) << c.name;
  }
}

TEST(NodeAffinityTest, Priority) {
  const api::Labels label1{{"foo", "bar"}};
  const api::Labels label2{{"key", "value"}};
  const api::Labels label3{{"az", "az1"}};
  const api::Labels label4{{"abc", "az11"}, {"def", "az22"}};
  const api::Labels label5{{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};

  api::NodeAffinity affinity1;
  affinity1.preferredDuringSchedulingIgnoredDuringExecution = {{2, exprs({req("foo", "In", {"bar"})})}};
  api::NodeAffinity affinity2;
  affinity2.preferredDuringSchedulingIgnoredDuringExecution = {
      {2, exprs({req("foo", "In", {"bar"})})},
      {4, exprs({req("key", "In", {"value"})})},
      {5, exprs({req("foo", "In", {"bar"}), req("key", "In", {"value"}), req("az", "In", {"az1"})})},
  };
  auto podWith = [](const api::NodeAffinity& a) {
    api::Pod p;
    p.spec.affinity = api::Affinity{};
    p.spec.affinity->nodeAffinity = a;
    return p;
  };
  auto node = [](std::string name, const api::Labels& labels) {
    api::Node n;
    n.metadata.name = std::move(name);
    n.metadata.labels = labels;
    return std::make_shared<const api::Node>(std::move(n));
  };
  api::NodeAffinity brokenAffinity;
  brokenAffinity.preferredDuringSchedulingIgnoredDuringExecution = {
      {2, exprs({req("invalid key", "In", {"bar"})})}};
  config::NodeAffinityArgs added1;
  added1.addedAffinity = affinity1;
  config::NodeAffinityArgs addedKey;
  addedKey.addedAffinity = api::NodeAffinity{};
  addedKey.addedAffinity->preferredDuringSchedulingIgnoredDuringExecution = {
      {3, exprs({req("key", "In", {"value"})})}};

  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::NodePtr> nodes;
    framework::NodeScoreList expectedList;
    config::NodeAffinityArgs args;
    bool runPreScore = false;
    Status wantPreScoreStatus;
  };
  const std::vector<Case> cases = {
      {"all nodes are same priority as NodeAffinity is nil",
       api::Pod{},
       {node("node1", label1), node("node2", label2), node("node3", label3)},
       {{"node1", 0}, {"node2", 0}, {"node3", 0}},
       {}},
      {"Skip is returned in PreScore when NodeAffinity is nil",
       api::Pod{},
       {node("node1", label1)},
       {},
       {},
       true,
       Status(Code::Skip)},
      {"PreScore returns error when an incoming Pod has a broken affinity",
       podWith(brokenAffinity),
       {node("node1", label1)},
       {},
       {},
       true,
       Status::error(
           "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name part must consist of "
           "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
           "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")},
      {"no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is "
       "zero",
       podWith(affinity1),
       {node("node1", label4), node("node2", label2), node("node3", label3)},
       {{"node1", 0}, {"node2", 0}, {"node3", 0}},
       {},
       true},
      {"only node1 matches the preferred scheduling requirements of pod",
       podWith(affinity1),
       {node("node1", label1), node("node2", label2), node("node3", label3)},
       {{"node1", framework::kMaxNodeScore}, {"node2", 0}, {"node3", 0}},
       {},
       true},
      {"all nodes matches the preferred scheduling requirements of pod but with different priorities ",
       podWith(affinity2),
       {node("node1", label1), node("node5", label5), node("node2", label2)},
       {{"node1", 18}, {"node5", framework::kMaxNodeScore}, {"node2", 36}},
       {},
       true},
      {"added affinity",
       api::Pod{},
       {node("node1", label1), node("node2", label2)},
       {{"node1", framework::kMaxNodeScore}, {"node2", 0}},
       added1,
       true},
      {"added affinity and pod has default affinity",
       podWith(affinity1),
       {node("node1", label1), node("node2", label2), node("node3", label5)},
       {{"node1", 40}, {"node2", 60}, {"node3", framework::kMaxNodeScore}},
       addedKey,
       true},
      {"calculate the priorities correctly even if PreScore is not called",
       podWith(affinity2),
       {node("node1", label1), node("node5", label5), node("node2", label2)},
       {{"node1", 18}, {"node5", framework::kMaxNodeScore}, {"node2", 36}},
       {},
       false},
  };
  for (const auto& c : cases) {
    auto lister = plugintesting::FakeSharedLister::create({}, c.nodes);
    auto p = makePlugin(c.args);
    ASSERT_NE(p, nullptr) << c.name;
    auto pi = plugintesting::podInfo(c.pod);
    framework::CycleState state;
    if (c.runPreScore) {
      auto s = p->preScore(state, *pi, lister->list());
      EXPECT_EQ(s.code(), c.wantPreScoreStatus.code()) << c.name;
      EXPECT_EQ(s.message(), c.wantPreScoreStatus.message()) << c.name;
      if (!s.isSuccess()) continue;
    }
    framework::NodeScoreList got;
    for (const auto& ni : lister->list()) {
      int64_t score = -1;
      EXPECT_TRUE(p->score(state, *pi, *ni, score).isSuccess()) << c.name;
      got.push_back({ni->nodeName(), score});
    }
    EXPECT_TRUE(p->normalizeScore(state, *pi, got).isSuccess()) << c.name;
    EXPECT_EQ(got, c.expectedList) << c.name;
  }
}

TEST(NodeAffinityTest, IsSchedulableAfterNodeChange) {
  const auto podWithNodeAffinity = MakePod().nodeAffinityIn("foo", {"bar"}).obj();
  config::NodeAffinityArgs enforced;
  enforced.addedAffinity = requiredAffinity({exprs({req("foo", "In", {"bar"})})});
  struct Case {
    std::string name;
    config::NodeAffinityArgs args;
    EventObject oldObj, newObj;
    QueueingHint expectedHint;
    bool expectedErr;
  };
  const std::vector<Case> cases = {
      {"backoff-wrong-new-object", {}, {}, MakePod().ptr(), QueueingHint::Queue, true},
      {"backoff-wrong-old-object", {}, MakePod().ptr(), MakeNode().ptr(), QueueingHint::Queue, true},
      {"skip-queue-on-add", {}, {}, MakeNode().ptr(), QueueingHint::QueueSkip, false},
      {"queue-on-add", {}, {}, MakeNode().label("foo", "bar").ptr(), QueueingHint::Queue, false},
      {"skip-unrelated-changes",
       {},
       MakeNode().ptr(),
       MakeNode().capacity({{"cpu", "1"}}).ptr(),
       QueueingHint::QueueSkip,
       false},
      {"skip-unrelated-changes-on-labels",
       {},
       MakeNode().ptr(),
       MakeNode().label("k", "v").ptr(),
       QueueingHint::QueueSkip,
       false},
      {"skip-labels-changes-on-node-from-suitable-to-unsuitable",
       {},
       MakeNode().label("foo", "bar").ptr(),
       MakeNode().label("k", "v").ptr(),
       QueueingHint::QueueSkip,
       false},
      {"queue-on-labels-change-makes-pod-schedulable",
       {},
       MakeNode().ptr(),
       MakeNode().label("foo", "bar").ptr(),
       QueueingHint::Queue,
       false},
      {"skip-queue-on-add-scheduler-enforced-node-affinity",
       enforced,
       {},
       MakeNode().ptr(),
       QueueingHint::QueueSkip,
       false},
      {"queue-on-add-scheduler-enforced-node-affinity",
       enforced,
       {},
       MakeNode().label("foo", "bar").ptr(),
       QueueingHint::Queue,
       false},
  };
  for (const auto& c : cases) {
    auto p = makePlugin(c.args);
    ASSERT_NE(p, nullptr) << c.name;
    auto got = p->isSchedulableAfterNodeChange(podWithNodeAffinity, c.oldObj, c.newObj);
    EXPECT_EQ(!got.ok(), c.expectedErr) << c.name;
    if (got.ok()) {
      EXPECT_EQ(*got, c.expectedHint) << c.name;
    }
  }
}

TEST(NodeAffinityTest, HintReportsParseErrors) {
  // A pod whose required terms fail to parse: upstream returns the error (Queue).
  auto pod = podWithRequired({exprs({req("foo", "Gt", {"not-a-number"})})});
  auto p = makePlugin({});
  auto got = p->isSchedulableAfterNodeChange(pod, {}, MakeNode().label("foo", "1").ptr());
  EXPECT_FALSE(got.ok());
}

TEST(NodeAffinityTest, FactoryArgs) {
  plugintesting::FakeHandle h;
  EXPECT_TRUE(NodeAffinity::create(nullptr, h).ok());
  config::OpaqueArgs wrong;
  auto bad = NodeAffinity::create(&wrong, h);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "args are not of type NodeAffinityArgs");
  // Invalid addedAffinity is rejected by args validation.
  config::NodeAffinityArgs invalid;
  invalid.addedAffinity = requiredAffinity({exprs({req("invalid key", "In", {"x"})})});
  auto inv = NodeAffinity::create(&invalid, h);
  ASSERT_FALSE(inv.ok());
  EXPECT_NE(inv.error().message().find("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"),
            std::string::npos)
      << inv.error().message();
}

TEST(NodeAffinityTest, EventsToRegister) {
  auto p = makePlugin({});
  auto events = p->eventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event.resource, framework::EventResource::Node);
  EXPECT_EQ((*events)[0].event.actionType, framework::action::Add | framework::action::UpdateNodeLabel);
  auto hint = (*events)[0].queueingHintFn(MakePod().nodeAffinityIn("foo", {"bar"}).obj(), EventObject{},
                                          MakeNode().label("foo", "bar").ptr());
  ASSERT_TRUE(hint.ok());
  EXPECT_EQ(*hint, QueueingHint::Queue);
}

}  // namespace
}  // namespace ks::plugins::nodeaffinity
