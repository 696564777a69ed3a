// Ports upstream plugins/nodedeclaredfeatures/nodedeclaredfeatures_test.go (v1.37.2).
#include "pkg/scheduler/framework/plugins/nodedeclaredfeatures/node_declared_features.h"

#include <gtest/gtest.h>

#include "pkg/api/nodedeclaredfeatures/features.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::nodedeclaredfeatures {
namespace {

namespace ndf = api::nodedeclaredfeatures;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;
using ks::testing::MakeNode;
using ks::testing::MakePod;

Version v(std::string_view s) {
  return std::move(Version::parseSemantic(s)).value();
}

// Upstream createMockFeature: a feature every pod needs (or none), with an optional max version.
ndf::Feature mockFeature(std::string name, bool infer, std::string_view maxVersion = "") {
  std::optional<Version> max;
  if (!maxVersion.empty()) max = v(maxVersion);
  return ndf::Feature{std::move(name), [infer](const api::PodSpec&) { return infer; }, std::move(max)};
}

Status runPreFilter(NodeDeclaredFeatures& pl, framework::CycleState& state, const api::Pod& pod) {
  framework::PreFilterResult result;
  Status s = pl.preFilter(state, *plugintesting::podInfo(pod), {}, result);
  EXPECT_TRUE(result.allNodes()) << "PreFilter should always leave the result at all nodes";
  return s;
}

TEST(NodeDeclaredFeaturesTest, PreFilter) {
  const std::string feature1 = "TestFeature1";
  const std::string feature2 = "TestFeature2";
  const ndf::FeatureMapper mapper({feature1, feature2});
  struct Case {
    std::string name;
    bool pluginEnabled;
    std::vector<ndf::Feature> nodeFeatures;
    std::string componentVersion;
    Code expectedCode;
    std::optional<std::vector<std::string>> expectedState;  // the required features; none: no state
  };
  const std::vector<Case> cases = {
      {"plugin disabled",
       false,
       {mockFeature(feature1, true), mockFeature(feature2, false)},
       "1.35.0",
       Code::Skip,
       std::nullopt},
      {"Pod with feature requirements",
       true,
       {mockFeature(feature1, true), mockFeature(feature2, false)},
       "1.35.0",
       Code::Success,
       std::vector<std::string>{feature1}},
      {"Pod with multiple feature requirements",
       true,
       {mockFeature(feature1, true, "1.38.0"), mockFeature(feature2, true, "1.38.0")},
       "1.35.0",
       Code::Success,
       std::vector<std::string>{feature1, feature2}},
      {"Pod with no requirements",
       true,
       {mockFeature(feature1, false), mockFeature(feature2, false)},
       "1.35.0",
       Code::Skip,
       std::nullopt},
      {"Feature not required, version > MaxVersion",
       true,
       {mockFeature(feature1, true, "1.33.0"), mockFeature(feature2, false)},
       "1.34.0",
       Code::Skip,
       std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ndf::Framework ndfFramework(c.nodeFeatures);
    NodeDeclaredFeatures pl(&ndfFramework, v(c.componentVersion), c.pluginEnabled);
    framework::CycleState state;
    EXPECT_EQ(runPreFilter(pl, state, MakePod().name("test-pod").obj()).code(), c.expectedCode);
    const auto* s = state.read<PreFilterState>();
    if (!c.expectedState) {
      EXPECT_EQ(s, nullptr);
      continue;
    }
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->reqs(), mapper.mustMapSorted(*c.expectedState));
  }
}

// Upstream runs this table with a mock default framework of FeatureA < FeatureB < FeatureC; NodeInfo maps
// nodes with the real default framework here, so three of its features (in the same order) stand in.
TEST(NodeDeclaredFeaturesTest, Filter) {
  const std::string featureA(ndf::features::kRestartAllContainersOnContainerExits);
  const std::string featureB(ndf::features::kUserNamespacesHostNetworkSupport);
  const std::string featureC(ndf::features::kVolumeBindMountOptions);
  const ndf::Framework& f = ndf::defaultFramework();
  struct Case {
    std::string name;
    bool pluginEnabled;
    api::Node node;
    std::optional<std::vector<std::string>> preFilterReqs;
    Status expected;
  };
  const Status unsatisfied(Code::UnschedulableAndUnresolvable,
                           std::string(kErrReasonUnsatisfiedRequirements));
  const std::vector<Case> cases = {
      {"plugin disabled", false, MakeNode().name("node-1").declaredFeatures({featureA, featureB}).obj(),
       std::nullopt, Status()},
      {"Node matches requirements", true,
       MakeNode().name("node-1").declaredFeatures({featureA, featureB}).obj(),
       std::vector<std::string>{featureA}, Status()},
      {"Node does not match requirements", true, MakeNode().name("node-1").declaredFeatures({featureB}).obj(),
       std::vector<std::string>{featureA}, unsatisfied},
      // Upstream leaves pluginEnabled unset (false) in this case.
      {"Node with multiple features, pod requires subset", false,
       MakeNode().name("node-multi").declaredFeatures({featureA, featureB, featureC}).obj(),
       std::vector<std::string>{featureA, featureC}, Status()},
      {"Node has no declared features", true, MakeNode().name("node-1").obj(),
       std::vector<std::string>{featureA}, unsatisfied},
      {"Node with some but not all required features", true,
       MakeNode().name("node-1").declaredFeatures({featureA}).obj(),
       std::vector<std::string>{featureA, featureB}, unsatisfied},
      {"Error getting pre-filter state", true, MakeNode().name("node-1").obj(), std::nullopt,
       Status::error("error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found")},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    framework::NodeInfo nodeInfo;
    nodeInfo.setNode(std::make_shared<const api::Node>(c.node));
    NodeDeclaredFeatures pl(&f, v("1.35.0"), c.pluginEnabled);
    framework::CycleState state;
    if (c.preFilterReqs) state.write(std::make_unique<PreFilterState>(f.mustMapSorted(*c.preFilterReqs)));
    const Status got = pl.filter(state, *plugintesting::podInfo(MakePod().name("test-pod").obj()), nodeInfo);
    EXPECT_EQ(got.code(), c.expected.code());
    EXPECT_EQ(got.message(), c.expected.message());
  }
}

TEST(NodeDeclaredFeaturesTest, EnqueueExtensionsNodeUpdate) {
  struct Case {
    std::string name;
    EventObject oldNode, newNode;
    QueueingHint expectedHint;
  };
  const std::vector<Case> cases = {
      {"Node Add with feature",
       {},
       MakeNode().name("node-1").declaredFeatures({"FeatureA"}).ptr(),
       QueueingHint::Queue},
      {"Node Update (Features Added)", MakeNode().name("node-1").ptr(),
       MakeNode().name("node-1").declaredFeatures({"FeatureA"}).ptr(), QueueingHint::Queue},
      {"Node Update (Features Unchanged)", MakeNode().name("node-1").declaredFeatures({"FeatureA"}).ptr(),
       MakeNode().name("node-1").declaredFeatures({"FeatureA"}).ptr(), QueueingHint::QueueSkip},
  };
  const api::Pod pod = MakePod().name("test-pod").obj();
  for (const auto& c : cases) {
    auto got = NodeDeclaredFeatures::isSchedulableAfterNodeChange(pod, c.oldNode, c.newNode);
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.error().message();
    EXPECT_EQ(*got, c.expectedHint) << c.name;
  }
  // Another kind of object is an error, which the queue answers with Queue.
  EXPECT_FALSE(NodeDeclaredFeatures::isSchedulableAfterNodeChange(pod, {}, MakePod().ptr()).ok());
}

TEST(NodeDeclaredFeaturesTest, IsSchedulableAfterTargetPodUpdate) {
  // Upstream's stateful mock: answers `first`, then `second`, and fails the test on a third call.
  auto sequence = [](bool first, bool second) {
    auto calls = std::make_shared<int>(0);
    return [calls, first, second](const api::PodSpec&) {
      EXPECT_LT(*calls, 2) << "unexpected calls to InferForScheduling";
      return (*calls)++ == 0 ? first : second;
    };
  };
  const std::string name = "test-pod";
  const std::string uid = "123";
  struct Case {
    std::string testName;
    EventObject oldPod, newPod;
    std::function<bool(const api::PodSpec&)> infer;
    std::optional<Version> componentVersion;
    QueueingHint expectedHint;
    std::string expectedErr;
  };
  const std::vector<Case> cases = {
      {"Pod Update adds requirement", MakePod().name(name).uid(uid).ptr(),
       MakePod().name(name).uid(uid).label("foo", "bar").ptr(), sequence(false, true), v("1.35.0"),
       QueueingHint::Queue, ""},
      {"Pod Update removes requirement", MakePod().name(name).uid(uid).label("foo", "bar").ptr(),
       MakePod().name(name).uid(uid).ptr(), sequence(true, false), v("1.35.0"), QueueingHint::Queue, ""},
      {"Pod Update with no change in requirements", MakePod().name(name).uid(uid).ptr(),
       MakePod().name(name).uid(uid).ptr(), [](const api::PodSpec&) { return false; }, v("1.35.0"),
       QueueingHint::QueueSkip, ""},
      {"Infer returns error", MakePod().name(name).uid(uid).ptr(),
       MakePod().name(name).uid(uid).label("foo", "bar").ptr(), [](const api::PodSpec&) { return true; },
       std::nullopt, QueueingHint::Queue, "target version cannot be nil"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.testName);
    const ndf::Framework ndfFramework({ndf::Feature{"TestFeature", c.infer, std::nullopt}});
    const NodeDeclaredFeatures pl(&ndfFramework, c.componentVersion, true);
    auto got = pl.isSchedulableAfterTargetPodUpdate(MakePod().name(name).uid(uid).obj(), c.oldPod, c.newPod);
    if (!c.expectedErr.empty()) {
      // The queue treats a hint's error as Queue.
      ASSERT_FALSE(got.ok());
      EXPECT_NE(got.error().message().find(c.expectedErr), std::string::npos) << got.error().message();
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(*got, c.expectedHint);
  }
}

TEST(NodeDeclaredFeaturesTest, EventsToRegister) {
  NodeDeclaredFeatures disabled(nullptr, std::nullopt, false);
  auto none = disabled.eventsToRegister();
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->size(), 0u);

  NodeDeclaredFeatures enabled(&ndf::defaultFramework(), v("1.35.0"), true);
  auto events = enabled.eventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event.resource, framework::EventResource::Node);
  EXPECT_EQ((*events)[0].event.actionType,
            framework::action::Add | framework::action::UpdateNodeDeclaredFeature);
  EXPECT_EQ((*events)[1].event.resource, framework::EventResource::TargetPod);
  EXPECT_EQ((*events)[1].event.actionType, framework::action::Update);
  for (const auto& e : *events) EXPECT_TRUE(e.queueingHintFn);
}

TEST(NodeDeclaredFeaturesTest, DeferredResizeSkipped) {
  const api::Pod pod = MakePod().name("p").uid("p").condition("PodResizePending", "True", "Deferred").obj();
  framework::NodeInfo nodeInfo;
  nodeInfo.setNode(MakeNode().name("node1").ptr());
  NodeDeclaredFeatures pl(nullptr, std::nullopt, true,
                          /*enableInPlacePodVerticalScalingSchedulerPreemption=*/true);
  framework::CycleState state;
  EXPECT_EQ(runPreFilter(pl, state, pod).code(), Code::Skip);
  EXPECT_EQ(pl.filter(state, *plugintesting::podInfo(pod), nodeInfo).code(), Code::Success);
}

// Not an upstream case: the registered plugin infers from the pod's spec with the default framework and
// filters on the features NodeInfo mapped from the node.
TEST(NodeDeclaredFeaturesTest, RegisteredPluginEndToEnd) {
  plugintesting::FakeHandle handle;
  auto registry = newInTreeRegistry();
  ASSERT_TRUE(registry.contains("NodeDeclaredFeatures"));
  auto created = NodeDeclaredFeatures::create(nullptr, handle, NodeDeclaredFeatures::Features{});
  ASSERT_TRUE(created.ok());
  auto& pl = dynamic_cast<NodeDeclaredFeatures&>(**created);

  api::Pod pod = MakePod().name("p").container("image").obj();
  pod.spec.hostNetwork = true;
  pod.spec.hostUsers = false;
  framework::CycleState state;
  ASSERT_EQ(runPreFilter(pl, state, pod).code(), Code::Success);

  const std::string userns(ndf::features::kUserNamespacesHostNetworkSupport);
  framework::NodeInfo declares;
  declares.setNode(MakeNode().name("declares").declaredFeatures({"SomethingNewer", userns}).ptr());
  framework::NodeInfo lacks;
  lacks.setNode(MakeNode().name("lacks").declaredFeatures({"SomethingNewer"}).ptr());
  EXPECT_TRUE(pl.filter(state, *plugintesting::podInfo(pod), declares).isSuccess());
  EXPECT_EQ(pl.filter(state, *plugintesting::podInfo(pod), lacks).code(), Code::UnschedulableAndUnresolvable);

  // A pod that needs no feature is skipped.
  framework::CycleState plain;
  EXPECT_EQ(runPreFilter(pl, plain, MakePod().name("q").container("image").obj()).code(), Code::Skip);

  // With the gate off the plugin does nothing.
  auto off = NodeDeclaredFeatures::create(nullptr, handle, NodeDeclaredFeatures::Features{false, false});
  ASSERT_TRUE(off.ok());
  framework::CycleState offState;
  EXPECT_EQ(runPreFilter(dynamic_cast<NodeDeclaredFeatures&>(**off), offState, pod).code(), Code::Skip);
}

}  // namespace
}  // namespace ks::plugins::nodedeclaredfeatures
