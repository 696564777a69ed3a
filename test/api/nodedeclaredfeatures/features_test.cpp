// Ports the scheduling-inference tests of upstream k8s.io/component-helpers/nodedeclaredfeatures/features
// (restartallcontainers, usernamespaceshostnetwork, and the features that never constrain scheduling).
// Discover, Requirements and update inference are not ported, nor their tests.
#include "pkg/api/nodedeclaredfeatures/features.h"

#include <gtest/gtest.h>

namespace ks::api::nodedeclaredfeatures::features {
namespace {

Container plain(std::string name) {
  Container c;
  c.name = std::move(name);
  c.image = "image";
  return c;
}

// Upstream containerWithRestartAllContainersAction.
Container withRestartAllContainersAction() {
  Container c = plain("container");
  c.restartPolicy = "Never";
  c.restartPolicyRules.push_back(
      ContainerRestartRule{std::string(kContainerRestartRuleActionRestartAllContainers), {{"In", {1}}}});
  return c;
}

// Upstream restartallcontainers TestInferForScheduling.
TEST(RestartAllContainersTest, InferForScheduling) {
  struct Case {
    std::string name;
    PodSpec spec;
    bool expected;
  };
  std::vector<Case> cases(3);
  cases[0] = {"init container with rules", {}, true};
  cases[0].spec.initContainers = {withRestartAllContainersAction()};
  cases[0].spec.containers = {plain("name")};
  cases[1] = {"regular container with rules", {}, true};
  cases[1].spec.initContainers = {plain("name")};
  cases[1].spec.containers = {withRestartAllContainersAction()};
  cases[2] = {"no rules", {}, false};
  cases[2].spec.initContainers = {plain("name")};
  cases[2].spec.containers = {plain("name2")};
  for (const auto& c : cases) EXPECT_EQ(restartAllContainersInferForScheduling(c.spec), c.expected) << c.name;
}

// Not an upstream case: a Restart rule alone needs nothing of the node.
TEST(RestartAllContainersTest, RestartActionAloneIsNotRequired) {
  PodSpec spec;
  spec.containers = {withRestartAllContainersAction()};
  spec.containers[0].restartPolicyRules[0].action = "Restart";
  EXPECT_FALSE(restartAllContainersInferForScheduling(spec));
}

// Upstream usernamespaceshostnetwork TestInferForScheduling.
TEST(UserNamespacesHostNetworkTest, InferForScheduling) {
  struct Case {
    std::string name;
    bool hostNetwork;
    std::optional<bool> hostUsers;
    bool expected;
  };
  const std::vector<Case> cases = {
      {"HostNetwork true, HostUsers false", true, false, true},
      {"HostNetwork true, HostUsers nil", true, std::nullopt, false},
      {"HostNetwork true, HostUsers true", true, true, false},
      {"HostNetwork false, HostUsers false", false, false, false},
  };
  for (const auto& c : cases) {
    PodSpec spec;
    spec.hostNetwork = c.hostNetwork;
    spec.hostUsers = c.hostUsers;
    EXPECT_EQ(userNamespacesHostNetworkInferForScheduling(spec), c.expected) << c.name;
  }
}

// Upstream has no test for volumebindmountoptions; these follow its InferForScheduling.
TEST(VolumeBindMountOptionsTest, InferForScheduling) {
  const VolumeMount noexec{"data", "/data", {"noexec"}};
  const VolumeMount plainMount{"data", "/data", {}};
  PodSpec none;
  none.containers = {plain("c")};
  none.containers[0].volumeMounts = {plainMount};
  EXPECT_FALSE(volumeBindMountOptionsInferForScheduling(none));

  PodSpec inContainer = none;
  inContainer.containers[0].volumeMounts.push_back(noexec);
  EXPECT_TRUE(volumeBindMountOptionsInferForScheduling(inContainer));

  PodSpec inInit = none;
  inInit.initContainers = {plain("init")};
  inInit.initContainers[0].volumeMounts = {noexec};
  EXPECT_TRUE(volumeBindMountOptionsInferForScheduling(inInit));

  PodSpec inEphemeral = none;
  inEphemeral.ephemeralContainers = {EphemeralContainer{"debug", {noexec}, "c"}};
  EXPECT_TRUE(volumeBindMountOptionsInferForScheduling(inEphemeral));
}

// The registry: upstream's nine features; the in-place resize, DRA and websocket features never constrain
// scheduling (upstream *InferForScheduling / TestInferForSchedulingAndUpdate), and none has a max version
// (TestMaxVersion).
TEST(FeaturesTest, Registry) {
  const std::vector<Feature> all = allFeatures();
  ASSERT_EQ(all.size(), 9u);
  for (std::string_view never :
       {kInPlacePodLevelResourcesVerticalScaling, kExtendWebSocketsToKubelet,
        kInPlacePodVerticalScalingInitContainers, kInPlacePodVerticalScalingMemoryBackedVolumes,
        kDRANodeAllocatableResources, kDRAOptionalNodeOperations}) {
    auto it = std::find_if(all.begin(), all.end(), [&](const Feature& f) { return f.name == never; });
    ASSERT_NE(it, all.end()) << never;
    EXPECT_FALSE(it->inferForScheduling(PodSpec{})) << never;
  }
  for (const auto& f : all) EXPECT_FALSE(f.maxVersion.has_value()) << f.name;
  EXPECT_EQ(defaultFramework().registeredFeatures(),
            (std::vector<std::string>{
                "DRANodeAllocatableResources", "DRAOptionalNodeOperations", "ExtendWebSocketsToKubelet",
                "InPlacePodLevelResourcesVerticalScaling", "InPlacePodVerticalScalingInitContainers",
                "InPlacePodVerticalScalingMemoryBackedVolumes", "RestartAllContainersOnContainerExits",
                "UserNamespacesHostNetworkSupport", "VolumeBindMountOptions"}));
}

}  // namespace
}  // namespace ks::api::nodedeclaredfeatures::features
