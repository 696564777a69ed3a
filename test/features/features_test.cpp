// The feature gate table and upstream featuregate semantics (pkg/features/features.h); cases after
// k8s.io/component-base/featuregate/feature_gate_test.go and the compatibility registry's tests.

#include "pkg/features/features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ks::features {
namespace {

using ::testing::HasSubstr;

TEST(KnownFeatures, TableIsUpstreams) {
  auto all = knownFeatures();
  EXPECT_EQ(all.size(), 208u);  // kube-scheduler v1.34.4's DefaultMutableFeatureGate.GetAll()
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(),
                             [](const FeatureSpec& a, const FeatureSpec& b) { return a.name < b.name; }));
  struct Want {
    const char* name;
    bool def;
    Stage stage;
    bool locked;
  };
  for (const Want& w : std::vector<Want>{{"AllAlpha", false, Stage::Alpha, false},
                                         {"AllBeta", false, Stage::Beta, false},
                                         {"SchedulerQueueingHints", true, Stage::GA, true},
                                         {"SchedulerAsyncPreemption", true, Stage::Beta, false},
                                         {"SchedulerAsyncAPICalls", false, Stage::Beta, false},
                                         {"SchedulerPopFromBackoffQ", true, Stage::Beta, false},
                                         {"NominatedNodeNameForExpectation", false, Stage::Alpha, false},
                                         {"StorageCapacityScoring", false, Stage::Alpha, false},
                                         {"DynamicResourceAllocation", true, Stage::GA, false},
                                         {"VolumeAttributesClass", true, Stage::GA, false},
                                         {"SidecarContainers", true, Stage::GA, true},
                                         {"LoggingBetaOptions", true, Stage::Beta, false},
                                         {"LoggingAlphaOptions", false, Stage::Alpha, false},
                                         {"ContextualLogging", true, Stage::Beta, false},
                                         {"WatchListClient", false, Stage::Beta, false},
                                         {"InPlacePodVerticalScalingAllocatedStatus", false, Stage::Deprecated,
                                          false}}) {
    const FeatureSpec* f = findFeature(w.name);
    ASSERT_NE(f, nullptr) << w.name;
    EXPECT_EQ(f->defaultValue, w.def) << w.name;
    EXPECT_EQ(f->stage, w.stage) << w.name;
    EXPECT_EQ(f->lockToDefault, w.locked) << w.name;
  }
  // Removed before v1.34: unknown, as upstream.
  EXPECT_EQ(findFeature("LegacyServiceAccountTokenCleanUp"), nullptr);
}

TEST(KnownFeatures, HelpLines) {
  auto lines = knownFeaturesHelp();
  EXPECT_EQ(lines.size(), 130u);  // what `kube-scheduler --help` lists: no GA or deprecated gates
  EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end()));
  EXPECT_EQ(lines.front(), "kube:APIResponseCompression=true|false (BETA - default=true)");
  EXPECT_EQ(lines.back(), "kube:WindowsGracefulNodeShutdown=true|false (BETA - default=true)");
  EXPECT_THAT(lines, ::testing::Contains("kube:AllAlpha=true|false (ALPHA - default=false)"));
  EXPECT_THAT(lines, ::testing::Not(::testing::Contains(HasSubstr("SchedulerQueueingHints"))));
}

TEST(FeatureGate, SetAndDefaults) {
  FeatureGate g;
  EXPECT_TRUE(g.enabled("SchedulerAsyncPreemption"));
  EXPECT_FALSE(g.enabled("StorageCapacityScoring"));
  ASSERT_TRUE(g.set(" StorageCapacityScoring = true ,,SchedulerAsyncPreemption=false").ok());
  EXPECT_TRUE(g.enabled("StorageCapacityScoring"));
  EXPECT_FALSE(g.enabled("SchedulerAsyncPreemption"));
  // Values accumulate over calls; a later one wins.
  ASSERT_TRUE(g.set("SchedulerAsyncPreemption=true").ok());
  EXPECT_TRUE(g.enabled("SchedulerAsyncPreemption"));
  EXPECT_TRUE(g.enabled("StorageCapacityScoring"));
  EXPECT_EQ(g.toString(), "SchedulerAsyncPreemption=true,StorageCapacityScoring=true");
  // strconv.ParseBool spellings.
  ASSERT_TRUE(g.set("StorageCapacityScoring=F").ok());
  EXPECT_FALSE(g.enabled("StorageCapacityScoring"));
}

TEST(FeatureGate, Errors) {
  FeatureGate g;
  EXPECT_EQ(g.set("Foo=true").error().message(), "unrecognized feature gate: Foo");
  EXPECT_EQ(g.set("AllAlpha").error().message(), "missing bool value for AllAlpha");
  EXPECT_EQ(g.set("AllAlpha=maybe").error().message(),
            "invalid value of AllAlpha=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax");
  EXPECT_EQ(g.set("SchedulerQueueingHints=false").error().message(),
            "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true");
  EXPECT_EQ(g.set("SchedulerQueueingHints=false,SidecarContainers=false").error().message(),
            "[cannot set feature gate SchedulerQueueingHints to false, feature is locked to true, cannot set "
            "feature gate SidecarContainers to false, feature is locked to true]");
  // A failed set changes nothing.
  EXPECT_FALSE(g.set("StorageCapacityScoring=true,Foo=true").ok());
  EXPECT_FALSE(g.enabled("StorageCapacityScoring"));
  EXPECT_TRUE(g.explicitlySet().empty());
  // Setting a locked gate to its value is fine (with the GA warning).
  std::vector<std::string> warnings;
  ASSERT_TRUE(g.set("SchedulerQueueingHints=true,InPlacePodVerticalScalingAllocatedStatus=false", &warnings).ok());
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "Setting deprecated feature gate InPlacePodVerticalScalingAllocatedStatus=false. It will "
                          "be removed in a future release.",
                          "Setting GA feature gate SchedulerQueueingHints=true. It will be removed in a future "
                          "release."}));
}

TEST(FeatureGate, AllAlphaAndAllBeta) {
  // upstream TestFeatureGateOverride / setUnsetAlphaGates: explicit values win whatever their order.
  FeatureGate g;
  ASSERT_TRUE(g.set("AllAlpha=true,StorageCapacityScoring=false").ok());
  EXPECT_TRUE(g.enabled("AllAlpha"));
  EXPECT_TRUE(g.enabled("NominatedNodeNameForExpectation"));
  EXPECT_TRUE(g.enabled("LoggingAlphaOptions"));
  EXPECT_FALSE(g.enabled("StorageCapacityScoring"));
  EXPECT_FALSE(g.enabled("SchedulerAsyncAPICalls"));  // beta: untouched by AllAlpha
  EXPECT_TRUE(g.enabled("SchedulerAsyncPreemption"));
  EXPECT_EQ(g.explicitlySet().size(), 2u);

  FeatureGate b;
  ASSERT_TRUE(b.set("AllBeta=false").ok());
  EXPECT_FALSE(b.enabled("SchedulerAsyncPreemption"));
  EXPECT_FALSE(b.enabled("SchedulerPopFromBackoffQ"));
  EXPECT_TRUE(b.enabled("SchedulerQueueingHints"));  // GA
  EXPECT_FALSE(b.enabled("StorageCapacityScoring"));  // alpha
  ASSERT_TRUE(b.set("SchedulerPopFromBackoffQ=true").ok());
  EXPECT_TRUE(b.enabled("SchedulerPopFromBackoffQ"));
  EXPECT_FALSE(b.enabled("SchedulerAsyncPreemption"));
}

TEST(FeatureGatesFlags, Components) {
  FeatureGate g;
  ASSERT_TRUE(applyFeatureGatesFlags({"kube:StorageCapacityScoring=true", "kube:SchedulerAsyncPreemption=false"}, g).ok());
  EXPECT_TRUE(g.enabled("StorageCapacityScoring"));
  EXPECT_FALSE(g.enabled("SchedulerAsyncPreemption"));
  FeatureGate h;
  ASSERT_TRUE(applyFeatureGatesFlags({"StorageCapacityScoring=true"}, h).ok());
  EXPECT_TRUE(h.enabled("StorageCapacityScoring"));
  EXPECT_EQ(applyFeatureGatesFlags({"wardle:A=true"}, h).error().message(), "component not registered: wardle");
  EXPECT_EQ(applyFeatureGatesFlags({"A=true", "kube:B=false"}, h).error().message(),
            "set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use");
}

TEST(EmulatedVersion, OnlyTheBinarysOwn) {
  EXPECT_TRUE(applyEmulatedVersion({}).ok());
  EXPECT_TRUE(applyEmulatedVersion({"1.34"}).ok());
  EXPECT_TRUE(applyEmulatedVersion({"kube=1.34"}).ok());
  EXPECT_TRUE(applyEmulatedVersion({"v1.34.0"}).ok());
  EXPECT_EQ(applyEmulatedVersion({"1.31"}).error().message(),
            "--emulated-version kube=1.31 is not supported by kube-scheduler-cpp: it implements the v1.34 feature "
            "gates and behaviour only (use --emulated-version=1.34 or leave it unset)");
  EXPECT_EQ(applyEmulatedVersion({"1.30"}).error().message(), "emulation version 1.30 is not between [1.31, 1.34.0]");
  EXPECT_EQ(applyEmulatedVersion({"2.34"}).error().message(), "emulation version 2.34 is not between [1.31, 1.34.0]");
  EXPECT_EQ(applyEmulatedVersion({"1.34.2"}).error().message(), "patch version not allowed, got: kube=1.34.2");
  EXPECT_EQ(applyEmulatedVersion({"wardle=1.2"}).error().message(), "component not registered: wardle");
  EXPECT_EQ(applyEmulatedVersion({"1.34", "kube=1.34"}).error().message(), "duplicate version flag, kube=1.34 and kube=1.34");
  EXPECT_EQ(applyEmulatedVersion({"x"}).error().message(), "could not parse \"x\" as version");
  EXPECT_EQ(applyEmulatedVersion({"1"}).error().message(), "illegal version string \"1\"");
  EXPECT_EQ(applyEmulatedVersion({"1.034"}).error().message(), "illegal zero-prefixed version component \"034\" in \"1.034\"");
}

}  // namespace
}  // namespace ks::features
