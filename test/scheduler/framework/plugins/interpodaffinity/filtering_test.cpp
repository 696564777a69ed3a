// Ports upstream plugins/interpodaffinity/filtering_test.go (v1.34.4): TestRequiredAffinitySingleNode,
// TestRequiredAffinityMultipleNodes, TestPreFilterDisabled, TestPreFilterStateAddRemovePod,
// TestPreFilterStateClone, TestGetTPMapMatchingIncomingAffinityAntiAffinity. Case names are upstream's.
#include <gtest/gtest.h>

#include "test/scheduler/framework/plugins/interpodaffinity/test_util.h"

namespace ks::plugins::interpodaffinity {
namespace {

using framework::Code;
using framework::Status;
using ks::testing::MakePod;
using plugintesting::FakeSharedLister;
using namespace testutil;

const std::string kDefaultNamespace;

// createPodWithAffinityTerms: both podAffinity and podAntiAffinity set (possibly without terms).
api::PodPtr createPodWithAffinityTerms(std::string ns, std::string nodeName, Labels labels,
                                       std::vector<api::PodAffinityTerm> affinity,
                                       std::vector<api::PodAffinityTerm> antiAffinity) {
  api::Affinity a;
  a.podAffinity = api::PodAffinity{std::move(affinity), {}};
  a.podAntiAffinity = api::PodAffinity{std::move(antiAffinity), {}};
  return makePod(std::move(ns), std::move(nodeName), std::move(labels), std::move(a));
}

TEST(InterPodAffinityFilteringTest, TestRequiredAffinitySingleNode) {
  const Labels podLabel{{"service", "securityscan"}};
  const api::PodPtr pod = MakePod().labels(podLabel).node("node1").ptr();
  const Labels labels1{{"region", "r1"}, {"zone", "z11"}};
  const Labels podLabel2{{"security", "S1"}};
  const api::NodePtr node1 = makeNode("node1", labels1);
  const Status skip(Code::Skip);
  const Status errAffinity(Code::UnschedulableAndUnresolvable, std::string(kErrReasonAffinityRulesNotMatch));
  const Status errAntiAffinity(Code::Unschedulable, std::string(kErrReasonAntiAffinityRulesNotMatch));
  const Status errExisting(Code::Unschedulable, std::string(kErrReasonExistingAntiAffinityRulesNotMatch));
  const std::string badValueMessage =
      "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": a valid "
      "label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
      "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
      "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const api::LabelSelector team1 = exprs({req("team", "In", {"team1"})});

  struct Case {
    std::string name;
    api::PodPtr pod;
    std::vector<api::PodPtr> pods;
    Status wantPreFilterStatus;
    Status wantFilterStatus;
  };
  auto ns = [](ks::testing::PodWrapper w) { return w.namespace_(kDefaultNamespace); };
  const std::vector<Case> cases = {
      {"A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing "
       "pods",
       std::make_shared<api::Pod>(),
       {},
       skip,
       {}},
      {"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that "
       "matches the existing pod",
       ns(MakePod()).labels(podLabel2).podAffinityIn("service", "region", {"securityscan", "value2"}).ptr(),
       {pod},
       {},
       {}},
      {"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in "
       "operator "
       "in labelSelector that matches the existing pod",
       [&] {
         auto w = ns(MakePod()).labels(podLabel2);
         return podAffinityNotIn(w, "service", "region", {"securityscan3", "value3"}).ptr();
       }(),
       {pod},
       {},
       {}},
      {"Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term({req("service", "In", {"securityscan", "value2"})}, "", {"DiffNameSpace"})}, {}),
       {MakePod().namespace_("ns").label("service", "securityscan").node("node1").ptr()},
       {},
       errAffinity},
      {"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
       ns(MakePod()).labels(podLabel).podAffinityIn("service", "", {"antivirusscan", "value2"}).ptr(),
       {pod},
       {},
       errAffinity},
      {"satisfies the PodAffinity with different label Operators in multiple "
       "RequiredDuringSchedulingIgnoredDuringExecution ",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term({req("service", "Exists"), req("wrongkey", "DoesNotExist")}, "region"),
            term({req("service", "In", {"securityscan"}), req("service", "NotIn", {"WrongValue"})},
                 "region")},
           {}),
       {pod},
       {},
       {}},
      {"The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto "
       "the node "
       "because one of the matchExpression item don't match.",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term({req("service", "Exists"), req("wrongkey", "DoesNotExist")}, "region"),
            term({req("service", "In", {"securityscan2"}), req("service", "NotIn", {"WrongValue"})},
                 "region")},
           {}),
       {pod},
       {},
       errAffinity},
      {"satisfies the PodAffinity and PodAntiAffinity with the existing pod",
       ns(MakePod())
           .labels(podLabel2)
           .podAffinityIn("service", "region", {"securityscan", "value2"})
           .podAntiAffinityIn("service", "node", {"antivirusscan", "value2"})
           .ptr(),
       {pod},
       {},
       {}},
      {"satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
       ns(MakePod())
           .labels(podLabel2)
           .podAffinityIn("service", "region", {"securityscan", "value2"})
           .podAntiAffinityIn("service", "node", {"antivirusscan", "value2"})
           .ptr(),
       {ns(MakePod())
            .node("node1")
            .labels(podLabel)
            .podAntiAffinityIn("service", "node", {"antivirusscan", "value2"})
            .ptr()},
       {},
       {}},
      {"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
       ns(MakePod())
           .labels(podLabel2)
           .podAffinityIn("service", "region", {"securityscan", "value2"})
           .podAntiAffinityIn("service", "zone", {"securityscan", "value2"})
           .ptr(),
       {pod},
       {},
       errAntiAffinity},
      {"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the "
       "existing pod",
       ns(MakePod())
           .labels(podLabel)
           .podAffinityIn("service", "region", {"securityscan", "value2"})
           .podAntiAffinityIn("service", "node", {"antivirusscan", "value2"})
           .ptr(),
       {ns(MakePod())
            .labels(podLabel)
            .node("node1")
            .podAntiAffinityIn("service", "zone", {"securityscan", "value2"})
            .ptr()},
       {},
       errExisting},
      {"pod matches its own Label in PodAffinity and that matches the existing pod Labels",
       [&] {
         auto w = ns(MakePod()).labels(podLabel);
         return podAffinityNotIn(w, "service", "region", {"securityscan", "value2"}).ptr();
       }(),
       {MakePod().label("service", "securityscan").node("node2").ptr()},
       {},
       errAffinity},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. "
       "doesn't "
       "satisfy PodAntiAffinity symmetry with the existing pod",
       MakePod().labels(podLabel).ptr(),
       {ns(MakePod())
            .node("node1")
            .labels(podLabel)
            .podAntiAffinityIn("service", "zone", {"securityscan", "value2"})
            .ptr()},
       {},
       errExisting},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. "
       "satisfy "
       "PodAntiAffinity symmetry with the existing pod",
       MakePod().labels(podLabel).ptr(),
       {[&] {
         auto w = ns(MakePod()).node("node1").labels(podLabel);
         return podAntiAffinityNotIn(w, "service", "zone", {"securityscan", "value2"}).ptr();
       }()},
       skip,
       {}},
      {"satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with "
       "incoming pod",
       ns(MakePod())
           .labels(podLabel)
           .podAntiAffinityExists("service", "region")
           .podAntiAffinityExists("security", "region")
           .ptr(),
       {ns(MakePod()).node("node1").labels(podLabel2).podAntiAffinityExists("security", "zone").ptr()},
       {},
       errAntiAffinity},
      {"PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on "
       "AffinityTerms",
       ns(MakePod())
           .labels(podLabel)
           .podAntiAffinityExists("service", "zone")
           .podAntiAffinityExists("security", "zone")
           .ptr(),
       {ns(MakePod()).node("node1").labels(podLabel2).podAntiAffinityExists("security", "zone").ptr()},
       {},
       errAntiAffinity},
      {"PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on "
       "AffinityTerms",
       ns(MakePod()).labels(podLabel2).podAntiAffinityExists("security", "zone").ptr(),
       {ns(MakePod())
            .node("node1")
            .labels(podLabel)
            .podAntiAffinityExists("service", "zone")
            .podAntiAffinityExists("security", "zone")
            .ptr()},
       {},
       errExisting},
      {"PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on "
       "AffinityTerms",
       ns(MakePod())
           .labels({{"abc", ""}, {"xyz", ""}})
           .podAntiAffinityExists("abc", "zone")
           .podAntiAffinityExists("def", "zone")
           .ptr(),
       {ns(MakePod())
            .node("node1")
            .labels({{"def", ""}, {"xyz", ""}})
            .podAntiAffinityExists("abc", "zone")
            .podAntiAffinityExists("def", "zone")
            .ptr()},
       {},
       errAntiAffinity},
      {"PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on "
       "AffinityTerms",
       ns(MakePod())
           .labels({{"def", ""}, {"xyz", ""}})
           .podAntiAffinityExists("abc", "zone")
           .podAntiAffinityExists("def", "zone")
           .ptr(),
       {ns(MakePod())
            .node("node1")
            .labels({{"abc", ""}, {"xyz", ""}})
            .podAntiAffinityExists("abc", "zone")
            .podAntiAffinityExists("def", "zone")
            .ptr()},
       {},
       errAntiAffinity},
      {"PodAffinity fails PreFilter with an invalid affinity label syntax",
       ns(MakePod())
           .labels(podLabel)
           .podAffinityIn("service", "region", {"{{.bad-value.}}"})
           .podAffinityIn("service", "node", {"antivirusscan", "value2"})
           .ptr(),
       {},
       Status(Code::UnschedulableAndUnresolvable, badValueMessage),
       {}},
      {"PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
       ns(MakePod())
           .labels(podLabel)
           .podAffinityIn("service", "region", {"foo"})
           .podAffinityIn("service", "node", {"{{.bad-value.}}"})
           .ptr(),
       {},
       Status(Code::UnschedulableAndUnresolvable, badValueMessage),
       {}},
      {"affinity with NamespaceSelector",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term({req("service", "In", {"securityscan", "value2"})}, "region", {}, team1)}, {}),
       {makePod("subteam1.team1", "node1", podLabel)},
       {},
       {}},
      {"affinity with non-matching NamespaceSelector",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term({req("service", "In", {"securityscan", "value2"})}, "region", {}, team1)}, {}),
       {makePod("subteam1.team2", "node1", podLabel)},
       {},
       errAffinity},
      {"anti-affinity with matching NamespaceSelector",
       createPodWithAffinityTerms(
           "subteam1.team1", "", podLabel2, {},
           {term({req("service", "In", {"securityscan", "value2"})}, "zone", {}, team1)}),
       {makePod("subteam2.team1", "node1", podLabel)},
       {},
       errAntiAffinity},
      {"anti-affinity with matching all NamespaceSelector",
       createPodWithAffinityTerms(
           "subteam1.team1", "", podLabel2, {},
           {term({req("service", "In", {"securityscan", "value2"})}, "zone", {}, api::LabelSelector{})}),
       {makePod("subteam2.team1", "node1", podLabel)},
       {},
       errAntiAffinity},
      {"anti-affinity with non-matching NamespaceSelector",
       createPodWithAffinityTerms(
           "subteam1.team1", "", podLabel2, {},
           {term({req("service", "In", {"securityscan", "value2"})}, "zone", {}, team1)}),
       {makePod("subteam1.team2", "node1", podLabel)},
       {},
       {}},
  };

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    PluginEnv env(argsWith(0), FakeSharedLister::create(c.pods, {node1}), teamNamespaces());
    framework::CycleState state;
    framework::PreFilterResult result;
    auto podInfo = framework::PodInfo::create(c.pod);
    const Status preFilterStatus = env.plugin().preFilter(state, *podInfo, env.lister().list(), result);
    EXPECT_EQ(describe(preFilterStatus), describe(c.wantPreFilterStatus)) << "PreFilter";
    EXPECT_TRUE(preFilterStatus == c.wantPreFilterStatus);
    if (!preFilterStatus.isSuccess()) continue;
    const Status got = env.plugin().filter(state, *podInfo, *env.nodeInfo("node1"));
    EXPECT_EQ(describe(got), describe(c.wantFilterStatus)) << "Filter";
    EXPECT_TRUE(got == c.wantFilterStatus);
  }
}

TEST(InterPodAffinityFilteringTest, TestRequiredAffinityMultipleNodes) {
  const Labels podLabelA{{"foo", "bar"}};
  const Labels labelRgChina{{"region", "China"}};
  const Labels labelRgChinaAzAz1{{"region", "China"}, {"az", "az1"}};
  const Labels labelRgIndia{{"region", "India"}};
  const Status skip(Code::Skip);
  const Status errAffinity(Code::UnschedulableAndUnresolvable, std::string(kErrReasonAffinityRulesNotMatch));
  const Status errAntiAffinity(Code::Unschedulable, std::string(kErrReasonAntiAffinityRulesNotMatch));
  const Status errExisting(Code::Unschedulable, std::string(kErrReasonExistingAntiAffinityRulesNotMatch));
  const Status ok;

  struct Case {
    api::PodPtr pod;
    std::vector<api::PodPtr> pods;
    std::vector<api::NodePtr> nodes;
    std::vector<Status> wantFilterStatuses;
    Status wantPreFilterStatus;
    std::string name;
  };
  auto ns = [](ks::testing::PodWrapper w) { return w.namespace_(kDefaultNamespace); };
  auto hostNode = [](std::string name, std::string region, std::string zone) {
    return makeNode(name, {{"region", std::move(region)}, {"zone", std::move(zone)}, {"hostname", name}});
  };
  const std::vector<Case> cases = {
      {ns(MakePod()).podAffinityIn("foo", "region", {"bar"}).ptr(),
       {MakePod().name("p1").node("node1").labels(podLabelA).ptr()},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgChinaAzAz1),
        makeNode("node3", labelRgIndia)},
       {ok, ok, errAffinity},
       {},
       "A pod can be scheduled onto all the nodes that have the same topology key & label value with one of "
       "them "
       "has an existing pod that matches the affinity rules"},
      {ns(MakePod())
           .labels({{"foo", "bar"}, {"service", "securityscan"}})
           .podAffinityIn("foo", "zone", {"bar"})
           .podAffinityIn("service", "zone", {"securityscan"})
           .ptr(),
       {MakePod().name("p1").node("nodeA").labels({{"foo", "bar"}}).ptr()},
       {makeNode("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}),
        makeNode("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
       {ok, ok},
       {},
       "The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod "
       "of the "
       "collection should not be blocked from being scheduled onto any node, even there's no existing pod "
       "that "
       "matches the rule anywhere."},
      {ns(MakePod())
           .labels({{"foo", "bar"}, {"service", "securityscan"}})
           .podAffinityIn("foo", "zone", {"bar"})
           .podAffinityIn("service", "zone", {"securityscan"})
           .ptr(),
       {MakePod().name("p1").node("nodeA").labels({{"foo", "bar"}}).ptr()},
       {makeNode("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
        makeNode("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
       {errAffinity, errAffinity},
       {},
       "The first pod of the collection can only be scheduled on nodes labelled with the requested topology "
       "keys"},
      {ns(MakePod()).podAntiAffinityIn("foo", "region", {"abc"}).ptr(),
       {MakePod().node("nodeA").labels({{"foo", "abc"}}).ptr()},
       {makeNode("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
        makeNode("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}})},
       {errAntiAffinity, errAntiAffinity},
       {},
       "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
       "inter pod "
       "affinity rule. The pod can not be scheduled onto nodeA and nodeB."},
      {ns(MakePod())
           .podAntiAffinityIn("foo", "region", {"abc"})
           .podAntiAffinityIn("service", "zone", {"securityscan"})
           .ptr(),
       {MakePod().node("nodeA").labels({{"foo", "abc"}, {"service", "securityscan"}}).ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2")},
       {errAntiAffinity, errAntiAffinity},
       {},
       "This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a "
       "pod."},
      {ns(MakePod()).podAntiAffinityIn("foo", "region", {"abc"}).ptr(),
       {MakePod().node("nodeA").labels({{"foo", "abc"}}).ptr()},
       {makeNode("nodeA", labelRgChina), makeNode("nodeB", labelRgChinaAzAz1),
        makeNode("nodeC", labelRgIndia)},
       {errAntiAffinity, errAntiAffinity, ok},
       {},
       "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
       "inter pod "
       "affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC"},
      {MakePod().namespace_("NS1").labels({{"foo", "123"}}).podAntiAffinityIn("foo", "region", {"bar"}).ptr(),
       {MakePod().node("nodeA").namespace_("NS1").labels({{"foo", "bar"}}).ptr(),
        MakePod().node("nodeC").namespace_("NS2").podAntiAffinityIn("foo", "region", {"123"}).ptr()},
       {makeNode("nodeA", labelRgChina), makeNode("nodeB", labelRgChinaAzAz1),
        makeNode("nodeC", labelRgIndia)},
       {errAntiAffinity, errAntiAffinity, ok},
       {},
       "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
       "inter pod "
       "affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC "
       "(NodeC has an "
       "existing pod that match the inter pod affinity rule but in different namespace)"},
      {MakePod().label("foo", "").ptr(),
       {ns(MakePod()).node("nodeA").podAntiAffinityExists("foo", "invalid-node-label").ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z1")},
       {ok, ok},
       skip,
       "Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
       "labelSelector of "
       "the term is firstly checked, and then topologyKey of the term is also checked"},
      {ns(MakePod().node("nodeA")).podAntiAffinityExists("foo", "invalid-node-label").ptr(),
       {MakePod().node("nodeA").labels({{"foo", ""}}).ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z1")},
       {ok, ok},
       {},
       "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey "
       "matches"},
      {MakePod().label("foo", "").label("bar", "").ptr(),
       {ns(MakePod()).node("nodeA").podAntiAffinityExists("foo", "zone").ptr(),
        ns(MakePod()).node("nodeA").podAntiAffinityExists("bar", "region").ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2")},
       {errExisting, errExisting},
       {},
       "Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each "
       "existingPod's terms on all nodes"},
      {ns(MakePod()).podAntiAffinityExists("foo", "zone").podAntiAffinityExists("bar", "region").ptr(),
       {MakePod().node("nodeA").labels({{"foo", ""}}).ptr(),
        MakePod().node("nodeB").labels({{"bar", ""}}).ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2")},
       {errAntiAffinity, errAntiAffinity},
       {},
       "Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates "
       "one "
       "anti-affinity rule of existingPod"},
      {MakePod().label("foo", "").label("bar", "").ptr(),
       {ns(MakePod())
            .node("nodeA")
            .podAntiAffinityExists("foo", "invalid-node-label")
            .podAntiAffinityExists("bar", "zone")
            .ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2")},
       {errExisting, ok},
       {},
       "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted "
       "as a "
       "single term match - case when one term has invalid topologyKey"},
      {ns(MakePod())
           .podAntiAffinityExists("foo", "invalid-node-label")
           .podAntiAffinityExists("bar", "zone")
           .ptr(),
       {MakePod().name("podA").node("nodeA").labels({{"foo", ""}, {"bar", ""}}).ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2")},
       {errAntiAffinity, ok},
       {},
       "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted "
       "as a "
       "single term match - case when one term has invalid topologyKey"},
      {MakePod().label("foo", "").label("bar", "").ptr(),
       {ns(MakePod())
            .node("nodeA")
            .podAntiAffinityExists("foo", "region")
            .podAntiAffinityExists("bar", "zone")
            .ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2")},
       {errExisting, errExisting},
       {},
       "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted "
       "as a "
       "single term match - case when all terms have valid topologyKey"},
      {ns(MakePod()).podAntiAffinityExists("foo", "region").podAntiAffinityExists("bar", "zone").ptr(),
       {MakePod().node("nodeA").labels({{"foo", ""}, {"bar", ""}}).ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2")},
       {errAntiAffinity, errAntiAffinity},
       {},
       "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted "
       "as a "
       "single term match - case when all terms have valid topologyKey"},
      {MakePod().label("foo", "").label("bar", "").ptr(),
       {ns(MakePod())
            .node("nodeA")
            .podAntiAffinityExists("foo", "zone")
            .podAntiAffinityExists("labelA", "zone")
            .ptr(),
        ns(MakePod())
            .node("nodeB")
            .podAntiAffinityExists("bar", "zone")
            .podAntiAffinityExists("labelB", "zone")
            .ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2"), hostNode("nodeC", "r1", "z3")},
       {errExisting, errExisting, ok},
       {},
       "Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity "
       "term matches "
       "incoming pod, so incoming pod can only be scheduled to nodeC"},
      {ns(MakePod()).podAffinityExists("foo", "region").podAffinityExists("bar", "zone").ptr(),
       {MakePod().name("pod1").labels({{"foo", ""}, {"bar", ""}}).node("nodeA").ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z1")},
       {ok, ok},
       {},
       "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
       "topologyKeys "
       "match"},
      {ns(MakePod()).podAffinityExists("foo", "region").podAffinityExists("bar", "zone").ptr(),
       {ns(MakePod().node("nodeA").name("pod1")).labels({{"foo", ""}}).ptr(),
        ns(MakePod().node("nodeB").name("pod2")).labels({{"bar", ""}}).ptr()},
       {hostNode("nodeA", "r1", "z1"), hostNode("nodeB", "r1", "z2")},
       {errAffinity, errAffinity},
       {},
       "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
       "topologyKeys "
       "match, and the match logic should be satisfied on the same pod"},
  };

  for (std::size_t indexTest = 0; indexTest < cases.size(); ++indexTest) {
    const Case& c = cases[indexTest];
    SCOPED_TRACE(c.name);
    PluginEnv env(argsWith(0), FakeSharedLister::create(c.pods, c.nodes), {makeNamespace("NS1")});
    framework::CycleState state;
    framework::PreFilterResult result;
    auto podInfo = framework::PodInfo::create(c.pod);
    const Status preFilterStatus = env.plugin().preFilter(state, *podInfo, env.lister().list(), result);
    EXPECT_EQ(describe(preFilterStatus), describe(c.wantPreFilterStatus)) << "PreFilter";
    if (preFilterStatus.isSkip()) continue;
    for (std::size_t indexNode = 0; indexNode < c.nodes.size(); ++indexNode) {
      const Status got =
          env.plugin().filter(state, *podInfo, *env.nodeInfo(c.nodes[indexNode]->metadata.name));
      EXPECT_EQ(describe(got), describe(c.wantFilterStatuses[indexNode]))
          << "index: " << indexTest << ": node " << c.nodes[indexNode]->metadata.name;
      EXPECT_TRUE(got == c.wantFilterStatuses[indexNode]);
    }
  }
}

TEST(InterPodAffinityFilteringTest, TestPreFilterDisabled) {
  auto nodeInfo = std::make_shared<framework::NodeInfo>();
  nodeInfo->setNode(std::make_shared<api::Node>());
  PluginEnv env(argsWith(0), FakeSharedLister::create({}, {}));
  framework::CycleState state;
  auto podInfo = framework::PodInfo::create(std::make_shared<api::Pod>());
  const Status got = env.plugin().filter(state, *podInfo, *nodeInfo);
  EXPECT_EQ(got.code(), Code::Error);
  EXPECT_EQ(got.message(), "error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
}

TEST(InterPodAffinityFilteringTest, TestPreFilterStateAddRemovePod) {
  const Labels label1{{"region", "r1"}, {"zone", "z11"}};
  const Labels label2{{"region", "r1"}, {"zone", "z12"}};
  const Labels label3{{"region", "r2"}, {"zone", "z21"}};
  const Labels selector1{{"foo", "bar"}};
  const api::PodAffinity antiAffinityFooBar{{term({req("foo", "In", {"bar"})}, "region")}, {}};
  const api::PodAffinity antiAffinityComplex{
      {term({req("foo", "In", {"bar", "buzz"})}, "region"),
       term({req("service", "NotIn", {"bar", "security", "test"})}, "zone")},
      {}};
  const api::PodAffinity affinityComplex = antiAffinityComplex;

  auto named = [](std::string name, std::string nodeName, Labels labels,
                  std::optional<api::PodAffinity> affinity, std::optional<api::PodAffinity> antiAffinity) {
    auto p = std::make_shared<api::Pod>();
    p->metadata.name = std::move(name);
    p->metadata.labels = std::move(labels);
    p->spec.nodeName = std::move(nodeName);
    if (affinity || antiAffinity) {
      p->spec.affinity = api::Affinity{};
      p->spec.affinity->podAffinity = std::move(affinity);
      p->spec.affinity->podAntiAffinity = std::move(antiAffinity);
    }
    return api::PodPtr(p);
  };
  const std::vector<api::NodePtr> nodes = {makeNode("nodeA", label1), makeNode("nodeB", label2),
                                           makeNode("nodeC", label3)};

  struct Case {
    std::string name;
    api::PodPtr pendingPod;
    api::PodPtr addedPod;
    std::vector<api::PodPtr> existingPods;
    TopologyToMatchedTermCount expectedAntiAffinity;
    TopologyToMatchedTermCount expectedAffinity;
  };
  const std::vector<Case> cases = {
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
       named("pending", "", selector1, std::nullopt, antiAffinityFooBar),
       named("addedPod", "nodeB", selector1, std::nullopt, antiAffinityFooBar),
       {named("p1", "nodeA", selector1, std::nullopt, std::nullopt),
        named("p2", "nodeC", {}, std::nullopt, antiAffinityFooBar)},
       {{{"region", "r1"}, 2}},
       {}},
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
       named("pending", "", selector1, std::nullopt, antiAffinityComplex),
       named("addedPod", "nodeA", selector1, std::nullopt, antiAffinityComplex),
       {named("p1", "nodeA", selector1, std::nullopt, std::nullopt),
        named("p2", "nodeC", {}, std::nullopt, antiAffinityFooBar)},
       {{{"region", "r1"}, 2}, {{"zone", "z11"}, 2}, {{"zone", "z21"}, 1}},
       {}},
      {"preFilterState matching pod affinity and anti-affinity are updated correctly after adding and "
       "removing a pod",
       named("pending", "", selector1, affinityComplex, std::nullopt),
       named("addedPod", "nodeA", selector1, std::nullopt, antiAffinityComplex),
       {named("p1", "nodeA", selector1, std::nullopt, std::nullopt),
        named("p2", "nodeC", {}, affinityComplex, antiAffinityFooBar)},
       {},
       {{{"region", "r1"}, 2}, {{"zone", "z11"}, 2}}},
  };

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto pendingInfo = framework::PodInfo::create(c.pendingPod);
    // The state PreFilter computes for `pods`.
    struct Prepared {
      std::unique_ptr<PluginEnv> env;
      framework::CycleState cycleState;
    };
    auto getState = [&](const std::vector<api::PodPtr>& pods) {
      auto p = std::make_unique<Prepared>();
      p->env = std::make_unique<PluginEnv>(argsWith(0), FakeSharedLister::create(pods, nodes));
      framework::PreFilterResult result;
      const Status s =
          p->env->plugin().preFilter(p->cycleState, *pendingInfo, p->env->lister().list(), result);
      EXPECT_TRUE(s.isSuccess()) << "prefilter failed with status: " << s.toString();
      EXPECT_NE(p->cycleState.read<PreFilterState>(), nullptr);
      return p;
    };

    // allPodsState is the state produced when all pods, including the added pod, are given to PreFilter.
    std::vector<api::PodPtr> all = c.existingPods;
    all.push_back(c.addedPod);
    auto allPods = getState(all);
    const PreFilterState* allPodsState = allPods->cycleState.read<PreFilterState>();
    ASSERT_NE(allPodsState, nullptr);

    // The state for the existing pods only.
    auto existing = getState(c.existingPods);
    const PreFilterState* state = existing->cycleState.read<PreFilterState>();
    ASSERT_NE(state, nullptr);
    auto originalState = state->clone();
    const auto* original = dynamic_cast<const PreFilterState*>(originalState.get());

    // Adding the pod makes it equal to allPodsState.
    auto nodeInfo = existing->env->nodeInfo(c.addedPod->spec.nodeName);
    auto addedInfo = framework::PodInfo::create(c.addedPod);
    EXPECT_TRUE(existing->env->plugin()
                    .addPod(existing->cycleState, *pendingInfo, *addedInfo, *nodeInfo)
                    .isSuccess());
    const PreFilterState* newState = existing->cycleState.read<PreFilterState>();
    EXPECT_EQ(newState->antiAffinityCounts, c.expectedAntiAffinity);
    EXPECT_EQ(newState->affinityCounts, c.expectedAffinity);
    EXPECT_EQ(state->existingAntiAffinityCounts, allPodsState->existingAntiAffinityCounts);
    EXPECT_EQ(state->affinityCounts, allPodsState->affinityCounts);
    EXPECT_EQ(state->antiAffinityCounts, allPodsState->antiAffinityCounts);

    // Removing it again restores the original state.
    EXPECT_TRUE(existing->env->plugin()
                    .removePod(existing->cycleState, *pendingInfo, *addedInfo, *nodeInfo)
                    .isSuccess());
    EXPECT_EQ(state->existingAntiAffinityCounts, original->existingAntiAffinityCounts);
    EXPECT_EQ(state->affinityCounts, original->affinityCounts);
    EXPECT_EQ(state->antiAffinityCounts, original->antiAffinityCounts);
    EXPECT_EQ(state->incoming, original->incoming);
  }
}

TEST(InterPodAffinityFilteringTest, TestPreFilterStateClone) {
  PreFilterState source;
  source.existingAntiAffinityCounts = {{{"name", "node1"}, 1}, {{"name", "node2"}, 1}};
  source.affinityCounts = {{{"name", "nodeA"}, 1}, {{"name", "nodeC"}, 2}};
  source.antiAffinityCounts = {{{"name", "nodeN"}, 3}, {{"name", "nodeM"}, 1}};

  auto clone = source.clone();
  ASSERT_NE(clone.get(), &source) << "Clone returned the exact same object!";
  const auto* c = dynamic_cast<const PreFilterState*>(clone.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->existingAntiAffinityCounts, source.existingAntiAffinityCounts);
  EXPECT_EQ(c->affinityCounts, source.affinityCounts);
  EXPECT_EQ(c->antiAffinityCounts, source.antiAffinityCounts);
  // The copy is independent of the source.
  source.affinityCounts.clear();
  EXPECT_EQ(c->affinityCounts, (TopologyToMatchedTermCount{{{"name", "nodeA"}, 1}, {{"name", "nodeC"}, 2}}));
}

// Not an upstream case: pins upstream v1.37's namespace merging. mergeAffinityTermNamespacesIfNotEmpty
// adds the selected namespaces to the term and then sets its NamespaceSelector to Nothing(), so a selector
// that matches an unlabelled namespace (here "team DoesNotExist") matches pods in the namespaces it
// selected only. (v1.34 cleared the selector on a copy of the term: it matched the pod below too.)
TEST(InterPodAffinityFilteringTest, IncomingNamespaceSelectorIsReplacedByItsNamespaces) {
  const api::NodePtr node1 = makeNode("node1", {{"zone", "z1"}});
  const api::PodPtr incoming = createPodWithAffinityTerms(
      "subteam1.team1", "", {}, {},
      {term({req("app", "In", {"web"})}, "zone", {}, exprs({req("team", "DoesNotExist")}))});
  // "subteam1.team2" has a team label, so the namespace selector does not select it: the pod in it does
  // not count for the anti-affinity term.
  PluginEnv env(argsWith(0),
                FakeSharedLister::create({makePod("subteam1.team2", "node1", {{"app", "web"}})}, {node1}),
                teamNamespaces());
  framework::CycleState state;
  framework::PreFilterResult result;
  auto podInfo = framework::PodInfo::create(incoming);
  ASSERT_TRUE(env.plugin().preFilter(state, *podInfo, env.lister().list(), result).isSuccess());
  const auto* s = state.read<PreFilterState>();
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->antiAffinityCounts.empty());
  EXPECT_TRUE(env.plugin().filter(state, *podInfo, *env.nodeInfo("node1")).isSuccess());
}

// TestGetTPMapMatchingIncomingAffinityAntiAffinity tests getIncomingAffinityAntiAffinityCounts on anti
// affinity cases.
TEST(InterPodAffinityFilteringTest, TestGetTPMapMatchingIncomingAffinityAntiAffinity) {
  auto newPod = [](std::vector<std::string> labels) {
    auto w = MakePod().name("normal").node("nodeA");
    for (const auto& l : labels) w.label(l, "");
    return w.ptr();
  };
  const api::PodPtr normalPodA = newPod({"aaa"});
  const api::PodPtr normalPodB = newPod({"bbb"});
  const api::PodPtr normalPodAB = newPod({"aaa", "bbb"});
  const api::NodePtr nodeA = makeNode("nodeA", {{"hostname", "nodeA"}});
  const TopologyToMatchedTermCount hostA1{{{"hostname", "nodeA"}, 1}};

  struct Case {
    std::string name;
    std::vector<api::PodPtr> existingPods;
    std::vector<api::NodePtr> nodes;
    api::PodPtr pod;
    TopologyToMatchedTermCount wantAffinityPodsMap;
    TopologyToMatchedTermCount wantAntiAffinityPodsMap;
  };
  const std::vector<Case> cases = {
      {"nil test", {}, {nodeA}, MakePod().name("aaa-normal").ptr(), {}, {}},
      {"incoming pod without affinity/anti-affinity causes a no-op",
       {normalPodA},
       {nodeA},
       MakePod().name("aaa-normal").ptr(),
       {},
       {}},
      {"no pod has label that violates incoming pod's affinity and anti-affinity",
       {normalPodB},
       {nodeA},
       MakePod()
           .name("aaa-anti")
           .podAffinityExists("aaa", "hostname")
           .podAntiAffinityExists("aaa", "hostname")
           .ptr(),
       {},
       {}},
      {"existing pod matches incoming pod's affinity and anti-affinity - single term case",
       {normalPodA},
       {nodeA},
       MakePod()
           .name("affi-antiaffi")
           .podAffinityExists("aaa", "hostname")
           .podAntiAffinityExists("aaa", "hostname")
           .ptr(),
       hostA1,
       hostA1},
      {"existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
       {normalPodAB},
       {nodeA},
       MakePod()
           .name("affi-antiaffi")
           .podAffinityExists("aaa", "hostname")
           .podAffinityExists("bbb", "hostname")
           .podAntiAffinityExists("aaa", "hostname")
           .ptr(),
       {{{"hostname", "nodeA"}, 2}},  // 2 one for each term.
       hostA1},
      {"existing pod not match incoming pod's affinity but matches anti-affinity",
       {normalPodA},
       {nodeA},
       MakePod()
           .name("affi-antiaffi")
           .podAffinityExists("aaa", "hostname")
           .podAffinityExists("bbb", "hostname")
           .podAntiAffinityExists("aaa", "hostname")
           .podAntiAffinityExists("bbb", "hostname")
           .ptr(),
       {},
       hostA1},
      {"incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1",
       {normalPodAB},
       {nodeA},
       MakePod()
           .name("anaffi-antiaffiti")
           .podAffinityExists("aaa", "hostname")
           .podAffinityExists("ccc", "hostname")
           .podAntiAffinityExists("aaa", "hostname")
           .podAntiAffinityExists("ccc", "hostname")
           .ptr(),
       {},
       hostA1},
      {"incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2",
       {normalPodB},
       {nodeA},
       MakePod()
           .name("affi-antiaffi")
           .podAffinityExists("aaa", "hostname")
           .podAffinityExists("bbb", "hostname")
           .podAntiAffinityExists("aaa", "hostname")
           .podAntiAffinityExists("bbb", "hostname")
           .ptr(),
       {},
       hostA1},
  };

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    PluginEnv env(argsWith(0), FakeSharedLister::create(c.existingPods, c.nodes));
    auto podInfo = framework::PodInfo::create(c.pod);
    auto [gotAffinityPodsMap, gotAntiAffinityPodsMap] = env.plugin().getIncomingAffinityAntiAffinityCounts(
        podInfo->requiredAffinityTerms(), podInfo->requiredAntiAffinityTerms(), env.lister().list());
    EXPECT_EQ(gotAffinityPodsMap, c.wantAffinityPodsMap);
    EXPECT_EQ(gotAntiAffinityPodsMap, c.wantAntiAffinityPodsMap);
  }
}

}  // namespace
}  // namespace ks::plugins::interpodaffinity
