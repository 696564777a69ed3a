// Ports upstream plugins/interpodaffinity/scoring_test.go (v1.34.4): TestPreferredAffinity,
// TestPreferredAffinityWithHardPodAffinitySymmetricWeight. Case names are upstream's.
#include <gtest/gtest.h>

#include "test/scheduler/framework/plugins/interpodaffinity/test_util.h"

namespace ks::plugins::interpodaffinity {
namespace {

using framework::Code;
using framework::NodeScore;
using framework::NodeScoreList;
using framework::Status;
using plugintesting::FakeSharedLister;
using namespace testutil;

constexpr int64_t kMax = framework::kMaxNodeScore;

api::WeightedPodAffinityTerm weighted(int32_t weight, api::PodAffinityTerm t) {
  return api::WeightedPodAffinityTerm{weight, std::move(t)};
}

api::Affinity preferred(std::vector<api::WeightedPodAffinityTerm> affinity,
                        std::vector<api::WeightedPodAffinityTerm> antiAffinity = {}) {
  api::Affinity a;
  if (!affinity.empty()) a.podAffinity = api::PodAffinity{{}, std::move(affinity)};
  if (!antiAffinity.empty()) a.podAntiAffinity = api::PodAffinity{{}, std::move(antiAffinity)};
  return a;
}

// Runs PreScore over `nodes` (upstream tf.BuildNodeInfos) and, when it succeeds, Score on every node
// and NormalizeScore. Returns PreScore's status.
Status runScoring(PluginEnv& env, const api::PodPtr& pod, const std::vector<api::NodePtr>& nodes,
                  NodeScoreList& gotList, bool scoreSnapshotNodes) {
  framework::CycleState state;
  auto podInfo = framework::PodInfo::create(pod);
  const auto nodeInfos = plugintesting::buildNodeInfos(nodes);
  Status status = env.plugin().preScore(state, *podInfo, nodeInfos);
  if (!status.isSuccess()) return status;
  for (const auto& ni : nodeInfos) {
    const std::string& nodeName = ni->node()->metadata.name;
    framework::NodeInfoPtr scored = scoreSnapshotNodes ? env.nodeInfo(nodeName) : ni;
    int64_t score = 0;
    const Status s = env.plugin().score(state, *podInfo, *scored, score);
    EXPECT_TRUE(s.isSuccess()) << "unexpected error from Score: " << s.toString();
    gotList.push_back(NodeScore{nodeName, score});
  }
  const Status s = env.plugin().normalizeScore(state, *podInfo, gotList);
  EXPECT_TRUE(s.isSuccess()) << "unexpected error from NormalizeScore: " << s.toString();
  return status;
}

std::string describeList(const NodeScoreList& l) {
  std::string out;
  for (const auto& s : l) out += s.name + "=" + std::to_string(s.score) + " ";
  return out;
}

TEST(InterPodAffinityScoringTest, TestPreferredAffinity) {
  const Labels labelRgChina{{"region", "China"}};
  const Labels labelRgIndia{{"region", "India"}};
  const Labels labelAzAz1{{"az", "az1"}};
  const Labels labelAzAz2{{"az", "az2"}};
  const Labels labelRgChinaAzAz1{{"region", "China"}, {"az", "az1"}};
  const Labels podLabelSecurityS1{{"security", "S1"}};
  const Labels podLabelSecurityS2{{"security", "S2"}};
  const api::LabelSelector team1 = exprs({req("team", "In", {"team1"})});

  // Only preferredDuringSchedulingIgnoredDuringExecution in pod affinity.
  const api::Affinity stayWithS1InRegion =
      preferred({weighted(5, term({req("security", "In", {"S1"})}, "region"))});
  const api::Affinity stayWithS2InRegion =
      preferred({weighted(6, term({req("security", "In", {"S2"})}, "region"))});
  const api::Affinity affinity3 = preferred(
      {weighted(8, term({req("security", "NotIn", {"S1"}), req("security", "In", {"S2"})}, "region")),
       weighted(2, term({req("security", "Exists"), req("wrongkey", "DoesNotExist")}, "region"))});
  api::Affinity hardAffinity;
  hardAffinity.podAffinity =
      api::PodAffinity{{term({req("security", "In", {"S1", "value2"})}, "region"),
                        term({req("security", "Exists"), req("wrongkey", "DoesNotExist")}, "region")},
                       {}};
  const api::Affinity awayFromS1InAz =
      preferred({}, {weighted(5, term({req("security", "In", {"S1"})}, "az"))});
  // To stay away from security S2 in any az.
  const api::Affinity awayFromS2InAz =
      preferred({}, {weighted(5, term({req("security", "In", {"S2"})}, "az"))});
  // To stay with security S1 in the same region, away from security S2 in any az.
  const api::Affinity stayWithS1InRegionAwayFromS2InAz =
      preferred({weighted(8, term({req("security", "In", {"S1"})}, "region"))},
                {weighted(5, term({req("security", "In", {"S2"})}, "az"))});
  const api::Affinity affinityNamespaceSelector =
      preferred({weighted(5, term({req("security", "In", {"S1"})}, "region", {"subteam2.team2"}, team1))});
  const api::Affinity antiAffinityNamespaceSelector = preferred(
      {}, {weighted(5, term({req("security", "In", {"S1"})}, "region", {"subteam2.team2"}, team1))});
  // v1.37: the selected namespaces replace a selector that also matches "no labels" (NotIn).
  const api::LabelSelector notTeam1 = exprs({req("team", "NotIn", {"team1"})});
  const api::Affinity affinityNegativeNamespaceSelector =
      preferred({weighted(5, term({req("security", "In", {"S1"})}, "region", {}, notTeam1))});
  const api::Affinity antiAffinityNegativeNamespaceSelector =
      preferred({}, {weighted(5, term({req("security", "In", {"S1"})}, "region", {}, notTeam1))});
  const api::Affinity invalidAffinityLabels =
      preferred({weighted(8, term({req("security", "In", {"{{.bad-value.}}"})}, "region"))});
  const api::Affinity invalidAntiAffinityLabels =
      preferred({}, {weighted(5, term({req("security", "In", {"{{.bad-value.}}"})}, "az"))});

  struct Case {
    std::string name;
    api::PodPtr pod;
    std::vector<api::PodPtr> pods;
    std::vector<api::NodePtr> nodes;
    NodeScoreList expectedList;
    bool ignorePreferredTermsOfExistingPods = false;
    Status wantStatus;
  };
  auto pod = [](Labels labels, std::optional<api::Affinity> a = std::nullopt, std::string ns = "") {
    return makePod(std::move(ns), "", std::move(labels), std::move(a));
  };
  auto on = [](std::string node, Labels labels, std::optional<api::Affinity> a = std::nullopt,
               std::string ns = "") {
    return makePod(std::move(ns), std::move(node), std::move(labels), std::move(a));
  };
  const std::string badValue = "Invalid value: \"{{.bad-value.}}\"";
  const std::vector<Case> cases = {
      {"all nodes are same priority as Affinity is nil",
       pod(podLabelSecurityS1),
       {},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia), makeNode("node3", labelAzAz1)},
       {},
       false,
       Status(Code::Skip)},
      // The node (node1) with the topology key whose existing pods match the selector gets a high score;
      // node3 (no topology key) and node2 (pods that don't match) get a low score.
      {"Affinity: pod that matches topology key & pods in nodes will get high score comparing to others"
       "which doesn't match either pods in nodes or in topology key",
       pod(podLabelSecurityS1, stayWithS1InRegion),
       {on("node1", podLabelSecurityS1), on("node2", podLabelSecurityS2), on("node3", podLabelSecurityS1)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia), makeNode("node3", labelAzAz1)},
       {{"node1", kMax}, {"node2", 0}, {"node3", 0}}},
      // node1 and node2 share region China, where an existing pod matches; node3 (India) doesn't.
      {"All the nodes that have the same topology key & label value with one of them has an existing pod "
       "that match "
       "the affinity rules, have the same score",
       pod({}, stayWithS1InRegion),
       {on("node1", podLabelSecurityS1)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgChinaAzAz1),
        makeNode("node3", labelRgIndia)},
       {{"node1", kMax}, {"node2", kMax}, {"node3", 0}}},
      // Both regions have matching pods, China more: all China nodes get the high score, India the low one.
      {"Affinity: nodes in one region has more matching pods comparing to other region, so the region which "
       "has more "
       "matches will get high score",
       pod(podLabelSecurityS1, stayWithS2InRegion),
       {on("node1", podLabelSecurityS2), on("node1", podLabelSecurityS2), on("node2", podLabelSecurityS2),
        on("node3", podLabelSecurityS2), on("node4", podLabelSecurityS2), on("node5", podLabelSecurityS2)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia), makeNode("node3", labelRgChina),
        makeNode("node4", labelRgChina), makeNode("node5", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}, {"node3", kMax}, {"node4", kMax}, {"node5", 0}}},
      // Different operators and values, including some match failures.
      {"Affinity: different Label operators and values for pod affinity scheduling preference, including "
       "some match "
       "failures ",
       pod(podLabelSecurityS1, affinity3),
       {on("node1", podLabelSecurityS1), on("node2", podLabelSecurityS2), on("node3", podLabelSecurityS1)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia), makeNode("node3", labelAzAz1)},
       {{"node1", 20}, {"node2", kMax}, {"node3", 0}}},
      // Symmetry: the existing pods prefer the incoming pod.
      {"Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod "
       "affinity "
       "symmetry",
       pod(podLabelSecurityS2),
       {on("node1", podLabelSecurityS1, stayWithS1InRegion),
        on("node2", podLabelSecurityS2, stayWithS2InRegion)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia), makeNode("node3", labelAzAz1)},
       {{"node1", 0}, {"node2", kMax}, {"node3", 0}}},
      {"Affinity symmetry with namespace selector",
       pod(podLabelSecurityS1, std::nullopt, "subteam1.team1"),
       {on("node1", podLabelSecurityS1, affinityNamespaceSelector),
        on("node2", podLabelSecurityS2, stayWithS2InRegion)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia), makeNode("node3", labelAzAz1)},
       {{"node1", kMax}, {"node2", 0}, {"node3", 0}}},
      {"AntiAffinity symmetry with namespace selector",
       pod(podLabelSecurityS1, std::nullopt, "subteam1.team1"),
       {on("node1", podLabelSecurityS1, antiAffinityNamespaceSelector),
        on("node2", podLabelSecurityS2, stayWithS2InRegion)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia), makeNode("node3", labelAzAz1)},
       {{"node1", 0}, {"node2", kMax}, {"node3", kMax}}},
      {"Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity "
       "symmetry",
       pod(podLabelSecurityS1),
       {on("node1", podLabelSecurityS1, hardAffinity), on("node2", podLabelSecurityS2, hardAffinity)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia), makeNode("node3", labelAzAz1)},
       {{"node1", kMax}, {"node2", kMax}, {"node3", 0}}},
      // Anti-affinity at node level: nodes with the topology key and matching pods score low.
      {"Anti Affinity: pod that does not match existing pods in node will get high score ",
       pod(podLabelSecurityS1, awayFromS1InAz),
       {on("node1", podLabelSecurityS1), on("node2", podLabelSecurityS2)},
       {makeNode("node1", labelAzAz1), makeNode("node2", labelRgChina)},
       {{"node1", 0}, {"node2", kMax}}},
      {"Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score "
       "comparing to others ",
       pod(podLabelSecurityS1, awayFromS1InAz),
       {on("node1", podLabelSecurityS1), on("node2", podLabelSecurityS1)},
       {makeNode("node1", labelAzAz1), makeNode("node2", labelRgChina)},
       {{"node1", 0}, {"node2", kMax}}},
      {"Anti Affinity: one node has more matching pods comparing to other node, so the node which has more "
       "unmatches "
       "will get high score",
       pod(podLabelSecurityS1, awayFromS1InAz),
       {on("node1", podLabelSecurityS1), on("node1", podLabelSecurityS1), on("node2", podLabelSecurityS2)},
       {makeNode("node1", labelAzAz1), makeNode("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}}},
      // Symmetry for anti-affinity.
      {"Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
       pod(podLabelSecurityS2),
       {on("node1", podLabelSecurityS1, awayFromS2InAz), on("node2", podLabelSecurityS2, awayFromS1InAz)},
       {makeNode("node1", labelAzAz1), makeNode("node2", labelAzAz2)},
       {{"node1", 0}, {"node2", kMax}}},
      // Both affinity and anti-affinity.
      {"Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both "
       "pod "
       "affinity & anti affinity",
       pod(podLabelSecurityS1, stayWithS1InRegionAwayFromS2InAz),
       {on("node1", podLabelSecurityS1), on("node2", podLabelSecurityS1)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelAzAz1)},
       {{"node1", kMax}, {"node2", 0}}},
      // Same labels as the existing pods: together in a region, apart at node level.
      {"Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and "
       "existing "
       "pods have the same labels",
       pod(podLabelSecurityS1, stayWithS1InRegionAwayFromS2InAz),
       {on("node1", podLabelSecurityS1), on("node1", podLabelSecurityS1), on("node2", podLabelSecurityS1),
        on("node3", podLabelSecurityS1), on("node3", podLabelSecurityS1), on("node4", podLabelSecurityS1),
        on("node5", podLabelSecurityS1)},
       {makeNode("node1", labelRgChinaAzAz1), makeNode("node2", labelRgIndia),
        makeNode("node3", labelRgChina), makeNode("node4", labelRgChina), makeNode("node5", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}, {"node3", kMax}, {"node4", kMax}, {"node5", 0}}},
      // Affinity, anti-affinity and symmetry together:
      //   affinity 8, 0, 0, 0; anti-affinity 0, -5, 0, 0; affinity symmetry 0, 0, 8, 0;
      //   anti-affinity symmetry 0, 0, 0, -5.
      {"Affinity and Anti Affinity and symmetry: considered only "
       "preferredDuringSchedulingIgnoredDuringExecution in "
       "both pod affinity & anti affinity & symmetry",
       pod(podLabelSecurityS1, stayWithS1InRegionAwayFromS2InAz),
       {on("node1", podLabelSecurityS1), on("node2", podLabelSecurityS2),
        on("node3", {}, stayWithS1InRegionAwayFromS2InAz), on("node4", {}, awayFromS1InAz)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelAzAz1), makeNode("node3", labelRgIndia),
        makeNode("node4", labelAzAz2)},
       {{"node1", kMax}, {"node2", 0}, {"node3", kMax}, {"node4", 0}}},
      // kubernetes#82796: some nodes of a topology have no pods with affinity and the pod has none.
      {"Avoid panic when partial nodes in a topology don't have pods with affinity",
       pod(podLabelSecurityS1),
       {on("node1", podLabelSecurityS1), on("node2", {}, stayWithS1InRegionAwayFromS2InAz)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgChina)},
       {{"node1", 0}, {"node2", 0}}},
      {"invalid Affinity fails PreScore",
       pod({}, invalidAffinityLabels),
       {},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgChina)},
       {},
       false,
       Status(Code::Error, badValue)},
      {"invalid AntiAffinity fails PreScore",
       pod({}, invalidAntiAffinityLabels),
       {},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgChina)},
       {},
       false,
       Status(Code::Error, badValue)},
      {"Affinity with pods matching NamespaceSelector",
       pod(podLabelSecurityS1, affinityNamespaceSelector, "subteam1.team1"),
       {on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team2"),
        on("node2", podLabelSecurityS1, std::nullopt, "subteam2.team1")},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}}},
      {"Affinity with pods matching both NamespaceSelector and Namespaces fields",
       pod(podLabelSecurityS1, affinityNamespaceSelector, "subteam1.team1"),
       {on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam2.team2"),
        on("node2", podLabelSecurityS1, std::nullopt, "subteam2.team1")},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}}},
      {"Affinity with pods matching NamespaceSelector",
       pod(podLabelSecurityS1, antiAffinityNamespaceSelector, "subteam1.team1"),
       {on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team2"),
        on("node2", podLabelSecurityS1, std::nullopt, "subteam2.team1")},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}}},
      {"Affinity with pods matching both NamespaceSelector and Namespaces fields",
       pod(podLabelSecurityS1, antiAffinityNamespaceSelector, "subteam1.team1"),
       {on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam2.team2"),
        on("node2", podLabelSecurityS1, std::nullopt, "subteam2.team1")},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}}},
      {"Affinity with pods correctly enforcing negative NamespaceSelector",
       pod(podLabelSecurityS1, affinityNegativeNamespaceSelector, "subteam1.team1"),
       {on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node2", podLabelSecurityS1, std::nullopt, "subteam1.team2")},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}}},
      {"AntiAffinity with pods correctly enforcing negative NamespaceSelector",
       pod(podLabelSecurityS1, antiAffinityNegativeNamespaceSelector, "subteam1.team1"),
       {on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node1", podLabelSecurityS1, std::nullopt, "subteam1.team1"),
        on("node2", podLabelSecurityS1, std::nullopt, "subteam1.team2")},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}}},
      {"Ignore preferred terms of existing pods",
       pod(podLabelSecurityS2),
       {on("node1", podLabelSecurityS1, stayWithS1InRegionAwayFromS2InAz),
        on("node2", podLabelSecurityS2, stayWithS2InRegion)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", 0}},
       true,
       Status(Code::Skip)},
      {"Do not ignore preferred terms of existing pods",
       pod(podLabelSecurityS2),
       {on("node1", podLabelSecurityS1, stayWithS1InRegionAwayFromS2InAz),
        on("node2", podLabelSecurityS2, stayWithS2InRegion)},
       {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}},
       false},
      {"No nodes to score", pod(podLabelSecurityS2), {}, {}, {}, false, Status(Code::Skip)},
  };

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    PluginEnv env(argsWith(1, c.ignorePreferredTermsOfExistingPods),
                  FakeSharedLister::create(c.pods, c.nodes), teamNamespaces());
    NodeScoreList gotList;
    const Status status = runScoring(env, c.pod, c.nodes, gotList, false);
    if (!status.isSuccess()) {
      EXPECT_EQ(framework::codeName(status.code()), framework::codeName(c.wantStatus.code()))
          << "InterPodAffinity#PreScore() returned unexpected status " << status.toString();
      EXPECT_NE(status.message().find(c.wantStatus.message()), std::string::npos)
          << "InterPodAffinity#PreScore() returned unexpected status.Message got: " << status.message()
          << ", want: " << c.wantStatus.message();
      continue;
    }
    EXPECT_EQ(gotList, c.expectedList)
        << "got " << describeList(gotList) << ", want " << describeList(c.expectedList);
  }
}

TEST(InterPodAffinityScoringTest, TestPreferredAffinityWithHardPodAffinitySymmetricWeight) {
  const Labels podLabelServiceS1{{"service", "S1"}};
  const Labels labelRgChina{{"region", "China"}};
  const Labels labelRgIndia{{"region", "India"}};
  const Labels labelAzAz1{{"az", "az1"}};
  api::Affinity hardPodAffinity;
  hardPodAffinity.podAffinity =
      api::PodAffinity{{term({req("service", "In", {"S1"})}, "region", {"", "subteam2.team2"},
                             exprs({req("team", "In", {"team1"})}))},
                       {}};
  constexpr int32_t kDefaultHardPodAffinitySymmetricWeight = 1;

  struct Case {
    std::string name;
    api::PodPtr pod;
    int32_t hardPodAffinityWeight;
    NodeScoreList expectedList;
    Status wantStatus;
  };
  const std::vector<api::PodPtr> pods = {makePod("", "node1", {}, hardPodAffinity),
                                         makePod("", "node2", {}, hardPodAffinity)};
  const std::vector<api::NodePtr> nodes = {makeNode("node1", labelRgChina), makeNode("node2", labelRgIndia),
                                           makeNode("node3", labelAzAz1)};
  const NodeScoreList both = {{"node1", kMax}, {"node2", kMax}, {"node3", 0}};
  const std::vector<Case> cases = {
      {"with default weight",
       makePod("", "", podLabelServiceS1),
       kDefaultHardPodAffinitySymmetricWeight,
       both,
       {}},
      {"with zero weight", makePod("", "", podLabelServiceS1), 0, {}, Status(Code::Skip)},
      {"with no matching namespace",
       makePod("subteam1.team2", "", podLabelServiceS1),
       kDefaultHardPodAffinitySymmetricWeight,
       {},
       Status(Code::Skip)},
      {"with matching NamespaceSelector",
       makePod("subteam1.team1", "", podLabelServiceS1),
       kDefaultHardPodAffinitySymmetricWeight,
       both,
       {}},
      {"with matching Namespaces",
       makePod("subteam2.team2", "", podLabelServiceS1),
       kDefaultHardPodAffinitySymmetricWeight,
       both,
       {}},
  };

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    PluginEnv env(argsWith(c.hardPodAffinityWeight), FakeSharedLister::create(pods, nodes), teamNamespaces());
    NodeScoreList gotList;
    const Status status = runScoring(env, c.pod, nodes, gotList, true);
    EXPECT_TRUE(status == c.wantStatus)
        << "InterPodAffinity#PreScore() returned unexpected status got: " << describe(status)
        << ", want: " << describe(c.wantStatus);
    if (!status.isSuccess()) continue;
    EXPECT_EQ(gotList, c.expectedList)
        << "got " << describeList(gotList) << ", want " << describeList(c.expectedList);
  }
}

}  // namespace
}  // namespace ks::plugins::interpodaffinity
