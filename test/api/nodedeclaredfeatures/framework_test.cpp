// Ports upstream k8s.io/component-helpers/nodedeclaredfeatures framework_test.go (TestInferForPodScheduling,
// TestMatchNode). TestDiscoverNodeFeatures and TestInferForPodUpdate test what the scheduler doesn't port.
#include "pkg/api/nodedeclaredfeatures/framework.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace ks::api::nodedeclaredfeatures {
namespace {

Version v(std::string_view s) {
  return std::move(Version::parseSemantic(s)).value();
}

// A feature needed by pods with pod-level resources (upstream's mockFeature "PodLevelResources").
Feature podLevelResources(std::optional<Version> maxVersion = std::nullopt) {
  return Feature{"PodLevelResources", [](const PodSpec& spec) { return spec.resources.has_value(); },
                 std::move(maxVersion)};
}

// Upstream newTestFramework: features that no pod needs.
Framework newTestFramework(const std::vector<std::string>& names) {
  std::vector<Feature> registry;
  for (const auto& n : names)
    registry.push_back(Feature{n, [](const PodSpec&) { return false; }, std::nullopt});
  return Framework(std::move(registry));
}

TEST(FrameworkTest, InferForPodScheduling) {
  PodSpec withPodLevelResources;
  withPodLevelResources.resources = ResourceRequirements{{}, {{"cpu", Quantity::fromMilli(500)}}};
  const PodSpec withoutPodLevelResources;
  struct Case {
    std::string name;
    Feature feature;
    PodSpec spec;
    std::optional<Version> targetVersion;
    std::vector<std::string> expectedReqs;
    std::string expectedErr;
  };
  const std::vector<Case> cases = {
      {"pod with feature, inferred during scheduling",
       podLevelResources(),
       withPodLevelResources,
       v("1.30.0"),
       {"PodLevelResources"},
       ""},
      {"pod without feature", podLevelResources(), withoutPodLevelResources, v("1.30.0"), {}, ""},
      {"feature universally available, not inferred during create",
       podLevelResources(v("1.30.0")),
       withPodLevelResources,
       v("1.31.0"),
       {},
       ""},
      {"pre-release target version",
       podLevelResources(v("1.30.0")),
       withPodLevelResources,
       v("0.0.0-alpha.2.39+049eafd34dfbd2"),
       {"PodLevelResources"},
       ""},
      {"exceeds max version", podLevelResources(v("1.30.0")), withPodLevelResources, v("1.40.0"), {}, ""},
      {"target version nil",
       podLevelResources(),
       withPodLevelResources,
       std::nullopt,
       {},
       "target version cannot be nil"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Framework framework({c.feature});
    auto reqs = framework.inferForPodScheduling(c.spec, c.targetVersion);
    if (!c.expectedErr.empty()) {
      ASSERT_FALSE(reqs.ok());
      EXPECT_NE(reqs.error().message().find(c.expectedErr), std::string::npos) << reqs.error().message();
      continue;
    }
    ASSERT_TRUE(reqs.ok()) << reqs.error().message();
    auto unmapped = framework.unmap(*reqs);
    ASSERT_TRUE(unmapped.ok());
    EXPECT_EQ(*unmapped, c.expectedReqs);
  }
}

TEST(FrameworkTest, MatchNode) {
  const Framework framework = newTestFramework({"feature-a", "feature-b", "feature-c"});
  struct Case {
    std::string name;
    std::vector<std::string> podFeatureRequirements;
    std::vector<std::string> nodeFeatures;
    bool expectedMatch;
    std::vector<std::string> expectedUnsatisfied;
  };
  const std::vector<Case> cases = {
      {"all features match", {"feature-a", "feature-b"}, {"feature-a", "feature-b", "feature-c"}, true, {}},
      {"some features missing", {"feature-a", "feature-b"}, {"feature-a", "feature-c"}, false, {"feature-b"}},
      {"all features missing", {"feature-a", "feature-b"}, {"feature-c"}, false, {"feature-a", "feature-b"}},
      {"no node features", {"feature-a", "feature-b"}, {}, false, {"feature-a", "feature-b"}},
      {"no requirements", {}, {"feature-a", "feature-b", "feature-c"}, true, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const FeatureSet required = framework.mustMapSorted(c.podFeatureRequirements);
    Node node;
    node.status.declaredFeatures = c.nodeFeatures;
    for (auto result : {framework.matchNode(required, &node),
                        framework.matchNodeFeatureSet(required, framework.mustMapSorted(c.nodeFeatures))}) {
      ASSERT_TRUE(result.ok()) << result.error().message();
      EXPECT_EQ(result->isMatch, c.expectedMatch);
      if (!c.expectedMatch) {
        EXPECT_EQ(result->unsatisfiedRequirements, c.expectedUnsatisfied);
      }
    }
  }
  auto nilNode = framework.matchNode(framework.mustMapSorted({"feature-a"}), nullptr);
  ASSERT_FALSE(nilNode.ok());
  EXPECT_EQ(nilNode.error().message(), "node cannot be nil");
}

// Upstream New sorts the registry: bit i is the i-th feature by name, whatever the order given.
TEST(FrameworkTest, RegistrySortedByName) {
  const Framework framework = newTestFramework({"c", "a", "b"});
  ASSERT_EQ(framework.registry().size(), 3u);
  EXPECT_EQ(framework.registry()[0].name, "a");
  EXPECT_EQ(framework.registry()[2].name, "c");
  EXPECT_EQ(framework.registeredFeatures(), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace ks::api::nodedeclaredfeatures
