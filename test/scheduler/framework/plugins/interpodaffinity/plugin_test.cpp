// Ports upstream plugins/interpodaffinity/plugin_test.go: Test_isSchedulableAfterAssignedPodChange and
// Test_isSchedulableAfterTargetPodUpdateLabel (v1.37.2), Test_isSchedulableAfterNodeChange (v1.34.4; case
// names are upstream's); plus construction and EventsToRegister.
#include <gtest/gtest.h>

#include "test/scheduler/framework/plugins/interpodaffinity/test_util.h"

namespace ks::plugins::interpodaffinity {
namespace {

using framework::EventObject;
using framework::QueueingHint;
using ks::testing::MakeNode;
using ks::testing::MakePod;
using plugintesting::FakeSharedLister;
using namespace testutil;

const char* hintName(QueueingHint h) {
  return h == QueueingHint::Queue ? "Queue" : "QueueSkip";
}

EventObject podObj(const std::optional<api::Pod>& p) {
  if (!p) return EventObject{};
  return EventObject{std::make_shared<const api::Pod>(*p)};
}

EventObject nodeObj(const std::optional<api::Node>& n) {
  if (!n) return EventObject{};
  return EventObject{std::make_shared<const api::Node>(*n)};
}

TEST(InterPodAffinityPluginTest, Test_isSchedulableAfterAssignedPodChange) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Pod> oldPod, newPod;
    QueueingHint expectedHint;
  };
  const std::vector<std::string> kScanOr2 = {"securityscan", "value2"};
  auto affinityPod = [&] {
    return MakePod().uid("p").name("p").podAffinityIn("service", "region", kScanOr2).obj();
  };
  auto antiAffinityPod = [&] {
    return MakePod().uid("p").name("p").podAntiAffinityIn("service", "region", kScanOr2).obj();
  };
  auto multiTermPod = [] {
    return MakePod()
        .uid("p")
        .name("p")
        .podAffinityExists("aaa", "hostname")
        .podAffinityExists("bbb", "hostname")
        .obj();
  };
  // Anti-affinity to service=securityscan or app=web: two terms, matching either is enough.
  auto twoAntiTermsPod = [] {
    return MakePod()
        .uid("p")
        .name("p")
        .podAntiAffinityIn("service", "region", {"securityscan"})
        .podAntiAffinityIn("app", "region", {"web"})
        .obj();
  };
  auto other = [] { return MakePod().uid("other"); };
  auto placed = [] { return MakePod().uid("other").node("fake-node"); };
  const std::vector<Case> cases = {
      {"add a pod which matches the pod affinity", affinityPod(), std::nullopt,
       placed().label("service", "securityscan").obj(), QueueingHint::Queue},
      {"add an un-scheduled pod", affinityPod(), std::nullopt, other().label("service", "securityscan").obj(),
       QueueingHint::QueueSkip},
      {"add a pod which doesn't match the pod affinity", affinityPod(), std::nullopt,
       placed().label("aaa", "a").obj(), QueueingHint::QueueSkip},
      {"update a pod from non-match to match pod affinity", affinityPod(), placed().label("aaa", "a").obj(),
       placed().label("service", "securityscan").obj(), QueueingHint::Queue},
      {"the updating pod matches target pod's affinity both before and after label changes", affinityPod(),
       placed().label("service", "value2").obj(), placed().label("service", "securityscan").obj(),
       QueueingHint::QueueSkip},
      {"update an un-scheduled pod", affinityPod(), other().label("aaa", "a").obj(),
       other().label("service", "securityscan").obj(), QueueingHint::QueueSkip},
      {"update a pod from match to non-match the pod affinity", affinityPod(),
       placed().label("service", "securityscan").obj(), placed().label("aaa", "a").obj(),
       QueueingHint::QueueSkip},
      {"update a pod from match to non-match pod's affinity - multiple terms case", multiTermPod(),
       placed().label("aaa", "a").obj(), placed().label("service", "securityscan").obj(),
       QueueingHint::QueueSkip},
      {"update a pod from non-match to match pod's affinity - multiple terms case", multiTermPod(),
       placed().label("aaa", "a").obj(), placed().label("aaa", "").label("bbb", "").obj(),
       QueueingHint::Queue},
      {"modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity",
       antiAffinityPod(), placed().label("service", "securityscan").obj(),
       placed().label("service", "aaaa").obj(), QueueingHint::Queue},
      {"modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity",
       antiAffinityPod(), placed().label("service", "bbb").obj(),
       placed().label("service", "securityscan").obj(), QueueingHint::QueueSkip},
      {"delete a pod which doesn't match pod's anti-affinity", antiAffinityPod(),
       placed().label("aaa", "a").obj(), std::nullopt, QueueingHint::QueueSkip},
      {"delete a pod which matches pod's anti-affinity", antiAffinityPod(),
       placed().label("service", "securityscan").obj(), std::nullopt, QueueingHint::Queue},
      {"delete a pod with anti-affinity that matches pending pod",
       MakePod().name("p").label("service", "securityscan").obj(),
       MakePod().node("fake-node").podAntiAffinityIn("service", "region", kScanOr2).obj(), std::nullopt,
       QueueingHint::Queue},
      {"delete a pod with anti-affinity that doesn't match pending pod",
       MakePod().name("p").label("service", "foo").obj(),
       MakePod().node("fake-node").podAntiAffinityIn("service", "region", kScanOr2).obj(), std::nullopt,
       QueueingHint::QueueSkip},
      {"delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that doesn't "
       "match pending pod",
       MakePod().name("p").podAntiAffinityIn("service", "region", kScanOr2).label("service", "foo").obj(),
       MakePod()
           .node("fake-node")
           .podAntiAffinityIn("service", "region", kScanOr2)
           .label("service", "foo")
           .obj(),
       std::nullopt, QueueingHint::QueueSkip},
      {"delete a nominated pod which doesn't match pod's anti-affinity",
       MakePod().name("p").podAntiAffinityIn("service", "region", kScanOr2).obj(),
       MakePod().nominatedNodeName("fake-node").label("aaa", "a").obj(), std::nullopt,
       QueueingHint::QueueSkip},
      {"delete a nominated pod which matches pod's anti-affinity",
       MakePod().name("p").podAntiAffinityIn("service", "region", kScanOr2).obj(),
       MakePod().nominatedNodeName("fake-node").label("service", "securityscan").obj(), std::nullopt,
       QueueingHint::Queue},
      {"modify pod label to change it from matching only one of target pod's anti-affinity terms to matching "
       "none",
       twoAntiTermsPod(), placed().label("service", "securityscan").label("app", "bar").obj(),
       placed().label("service", "foo").label("app", "bar").obj(), QueueingHint::Queue},
      {"modify pod label but it still matches one of target pod's anti-affinity terms", twoAntiTermsPod(),
       placed().label("service", "securityscan").label("app", "bar").obj(),
       placed().label("service", "foo").label("app", "web").obj(), QueueingHint::QueueSkip},
      {"delete a pod which matches only one of target pod's anti-affinity terms", twoAntiTermsPod(),
       placed().label("service", "securityscan").obj(), std::nullopt, QueueingHint::Queue},
      {"delete a pod with anti-affinity that matches pending pod on only one term",
       MakePod().name("p").label("service", "securityscan").obj(),
       MakePod()
           .node("fake-node")
           .uid("other")
           .podAntiAffinityIn("service", "region", {"securityscan"})
           .podAntiAffinityIn("app", "region", {"web"})
           .obj(),
       std::nullopt, QueueingHint::Queue},
  };
  PluginEnv env(argsWith(0), FakeSharedLister::create({}, {}), teamNamespaces());
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = env.plugin().isSchedulableAfterAssignedPodChange(c.pod, podObj(c.oldPod), podObj(c.newPod));
    ASSERT_TRUE(got.ok()) << "unexpected error: " << got.error().message();
    EXPECT_STREQ(hintName(*got), hintName(c.expectedHint));
  }
}

TEST(InterPodAffinityPluginTest, Test_isSchedulableAfterTargetPodUpdateLabel) {
  PluginEnv env(argsWith(0), FakeSharedLister::create({}, {}), teamNamespaces());
  const api::Pod pod = MakePod().uid("p").name("p").label("foo", "baz").obj();
  auto got = env.plugin().isSchedulableAfterTargetPodUpdateLabel(pod, podObj(pod), podObj(pod));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, QueueingHint::Queue);
}

TEST(InterPodAffinityPluginTest, Test_isSchedulableAfterNodeChange) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Node> oldNode, newNode;
    QueueingHint expectedHint;
  };
  auto affinityPod = [](std::string topologyKey) {
    return MakePod().name("p").podAffinityIn("service", topologyKey, {"securityscan", "value2"}).obj();
  };
  auto antiAffinityPod = [] {
    api::LabelSelector s;
    s.matchLabels = {{"another", "label"}};
    return MakePod().name("p").podAntiAffinity("zone", s).obj();
  };
  const std::vector<Case> cases = {
      // affinity
      {"add a new node with matched pod affinity topologyKey", affinityPod("zone"), std::nullopt,
       MakeNode().name("node-a").label("zone", "zone1").obj(), QueueingHint::Queue},
      {"add a new node without matched topologyKey", affinityPod("region"), std::nullopt,
       MakeNode().name("node-a").label("zone", "zone1").obj(), QueueingHint::QueueSkip},
      {"update node label but not topologyKey", affinityPod("zone"),
       MakeNode().name("node-a").label("aaa", "a").obj(), MakeNode().name("node-a").label("aaa", "b").obj(),
       QueueingHint::QueueSkip},
      {"update node label that isn't related to the pod affinity", affinityPod("zone"),
       MakeNode().name("node-a").label("zone", "zone1").obj(),
       MakeNode().name("node-a").label("zone", "zone1").label("unrelated-label", "unrelated").obj(),
       QueueingHint::QueueSkip},
      {"update node with different affinity topologyKey value", affinityPod("zone"),
       MakeNode().name("node-a").label("zone", "zone1").obj(),
       MakeNode().name("node-a").label("zone", "zone2").obj(), QueueingHint::Queue},
      {"update node to have the affinity topology label", affinityPod("zone"),
       MakeNode().name("node-a").label("aaa", "a").obj(),
       MakeNode().name("node-a").label("zone", "zone1").obj(), QueueingHint::Queue},
      // anti-affinity
      {"add a new node with matched pod anti-affinity topologyKey", antiAffinityPod(), std::nullopt,
       MakeNode().name("node-a").label("zone", "zone1").obj(), QueueingHint::Queue},
      {"add a new node without matched pod anti-affinity topologyKey", antiAffinityPod(), std::nullopt,
       MakeNode().name("node-a").obj(), QueueingHint::Queue},
      {"update node label that isn't related to the pod anti-affinity", antiAffinityPod(),
       MakeNode().name("node-a").label("zone", "zone1").obj(),
       MakeNode().name("node-a").label("zone", "zone1").label("unrelated-label", "unrelated").obj(),
       QueueingHint::QueueSkip},
      {"update node with different anti-affinity topologyKey value", antiAffinityPod(),
       MakeNode().name("node-a").label("zone", "zone1").obj(),
       MakeNode().name("node-a").label("zone", "zone2").obj(), QueueingHint::Queue},
      {"update node to have the anti-affinity topology label", antiAffinityPod(),
       MakeNode().name("node-a").label("aaa", "a").obj(),
       MakeNode().name("node-a").label("zone", "zone1").obj(), QueueingHint::QueueSkip},
      {"update node label not to have anti-affinity topology label", antiAffinityPod(),
       MakeNode().name("node-a").label("zone", "zone1").obj(),
       MakeNode().name("node-a").label("aaa", "a").obj(), QueueingHint::Queue},
  };
  PluginEnv env(argsWith(0), FakeSharedLister::create({}, {}), teamNamespaces());
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = env.plugin().isSchedulableAfterNodeChange(c.pod, nodeObj(c.oldNode), nodeObj(c.newNode));
    ASSERT_TRUE(got.ok()) << "unexpected error: " << got.error().message();
    EXPECT_STREQ(hintName(*got), hintName(c.expectedHint));
  }
}

// Not in upstream's plugin_test.go: the hints report a term that fails to parse as an error (treated as
// Queue), and an object of the wrong type likewise.
TEST(InterPodAffinityPluginTest, HintsReportParseAndTypeErrors) {
  PluginEnv env(argsWith(0), FakeSharedLister::create({}, {}));
  const api::Pod bad = MakePod().name("p").podAffinityIn("service", "zone", {"{{.bad-value.}}"}).obj();
  auto podHint = env.plugin().isSchedulableAfterAssignedPodChange(
      bad, EventObject{}, podObj(MakePod().node("n").label("service", "x").obj()));
  ASSERT_FALSE(podHint.ok());
  EXPECT_NE(podHint.error().message().find("Invalid value: \"{{.bad-value.}}\""), std::string::npos);
  auto nodeHint =
      env.plugin().isSchedulableAfterNodeChange(bad, EventObject{}, nodeObj(MakeNode().name("n").obj()));
  ASSERT_FALSE(nodeHint.ok());
  auto wrongType = env.plugin().isSchedulableAfterNodeChange(bad, EventObject{}, podObj(MakePod().obj()));
  ASSERT_FALSE(wrongType.ok());
  EXPECT_EQ(wrongType.error().message(), "expected *v1.Node, but got *v1.Pod");
}

// EventsToRegister as upstream v1.37: AssignedPod Add|UpdatePodLabel|Delete, TargetPod UpdatePodLabel and
// Node Add|UpdateNodeLabel, all with hints.
TEST(InterPodAffinityPluginTest, EventsToRegister) {
  PluginEnv env(argsWith(0), FakeSharedLister::create({}, {}));
  auto events = env.plugin().eventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  using namespace framework::action;
  using framework::EventResource;
  EXPECT_EQ((*events)[0].event,
            (framework::ClusterEvent{EventResource::AssignedPod, Add | UpdatePodLabel | Delete, {}}));
  EXPECT_EQ((*events)[1].event, (framework::ClusterEvent{EventResource::TargetPod, UpdatePodLabel, {}}));
  EXPECT_EQ((*events)[2].event, (framework::ClusterEvent{EventResource::Node, Add | UpdateNodeLabel, {}}));
  for (const auto& e : *events) ASSERT_TRUE(e.queueingHintFn);
  const api::Pod pod = MakePod().name("p").podAffinityIn("service", "zone", {"a"}).obj();
  auto hint =
      (*events)[2].queueingHintFn(pod, EventObject{}, nodeObj(MakeNode().name("n").label("zone", "z").obj()));
  ASSERT_TRUE(hint.ok());
  EXPECT_EQ(*hint, QueueingHint::Queue);
}

// Upstream New/getArgs/ValidateInterPodAffinityArgs.
TEST(InterPodAffinityPluginTest, Create) {
  auto lister = FakeSharedLister::create({}, {});
  client::MemoryClient client;
  informer::SharedInformerFactory factory(client);
  plugintesting::FakeHandle handle;

  auto noLister = InterPodAffinity::create(nullptr, handle);
  ASSERT_FALSE(noLister.ok());
  EXPECT_EQ(noLister.error().message(), "SnapshotSharedlister is nil");

  handle.setSnapshotSharedLister(lister.get());
  auto noFactory = InterPodAffinity::create(nullptr, handle);
  ASSERT_FALSE(noFactory.ok());

  handle.setSharedInformerFactory(&factory);
  auto defaults = InterPodAffinity::create(nullptr, handle);
  ASSERT_TRUE(defaults.ok()) << defaults.error().message();
  const auto* pl = dynamic_cast<const InterPodAffinity*>(defaults->get());
  ASSERT_NE(pl, nullptr);
  EXPECT_EQ(pl->name(), "InterPodAffinity");
  EXPECT_EQ(pl->args().hardPodAffinityWeight, 1);
  EXPECT_FALSE(pl->args().ignorePreferredTermsOfExistingPods);

  auto invalid =
      InterPodAffinity::create(std::make_unique<config::InterPodAffinityArgs>(argsWith(101)).get(), handle);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().message(),
            "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]");

  config::NodeAffinityArgs wrong;
  auto wrongType = InterPodAffinity::create(&wrong, handle);
  ASSERT_FALSE(wrongType.ok());
  EXPECT_EQ(wrongType.error().message(), "want args to be of type InterPodAffinityArgs");
}

// Upstream GetNamespaceLabelsSnapshot: the namespace's labels, none for an unknown namespace.
TEST(InterPodAffinityPluginTest, NamespaceLabels) {
  PluginEnv env(argsWith(0), FakeSharedLister::create({}, {}), teamNamespaces());
  EXPECT_EQ(env.plugin().namespaceLabels("subteam1.team2"), (api::Labels{{"team", "team2"}}));
  EXPECT_TRUE(env.plugin().namespaceLabels("missing").empty());
}

}  // namespace
}  // namespace ks::plugins::interpodaffinity
