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
  EXPECT_EQ(all.size(), 253u);  // kube-scheduler v1.37.2's DefaultMutableFeatureGate.GetAll()
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
                                         {"NodeDeclaredFeatures", true, Stage::GA, true},
                                         {"SchedulerAsyncPreemption", true, Stage::Beta, false},
                                         {"SchedulerAsyncAPICalls", false, Stage::Beta, false},
                                         {"SchedulerPopFromBackoffQ", true, Stage::Beta, false},
                                         {"NominatedNodeNameForExpectation", true, Stage::Beta, false},
                                         {"StorageCapacityScoring", true, Stage::Beta, false},
                                         {"DynamicResourceAllocation", true, Stage::GA, true},
                                         {"VolumeAttributesClass", true, Stage::GA, true},
                                         {"OpportunisticBatching", true, Stage::Beta, false},
                                         {"DRAFractionalCapacityRange", false, Stage::Beta, false},
                                         {"LoggingBetaOptions", true, Stage::Beta, false},
                                         {"LoggingAlphaOptions", false, Stage::Alpha, false},
                                         {"ContextualLogging", true, Stage::Beta, false},
                                         {"WatchListClient", true, Stage::Beta, false},
                                         {"AllowDNSOnlyNodeCSR", false, Stage::Deprecated, false}}) {
    const FeatureSpec* f = findFeature(w.name);
    ASSERT_NE(f, nullptr) << w.name;
    EXPECT_EQ(f->defaultValue, w.def) << w.name;
    EXPECT_EQ(f->stage, w.stage) << w.name;
    EXPECT_EQ(f->lockToDefault, w.locked) << w.name;
  }
  // Removed by v1.37 (SchedulerQueueingHints, SidecarContainers after GA): unknown, as upstream.
  EXPECT_EQ(findFeature("SchedulerQueueingHints"), nullptr);
  EXPECT_EQ(findFeature("SidecarContainers"), nullptr);
  EXPECT_EQ(findFeature("InPlacePodVerticalScalingAllocatedStatus"), nullptr);
}

TEST(KnownFeatures, HelpLines) {
  auto lines = knownFeaturesHelp();
  EXPECT_EQ(lines.size(), 165u);  // what `kube-scheduler --help` lists: no GA or deprecated gates
  EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end()));
  EXPECT_EQ(lines.front(), "kube:APIResponseCompression=true|false (BETA - default=true)");
  EXPECT_EQ(lines.back(), "kube:WorkloadWithJob=true|false (ALPHA - default=false)");
  EXPECT_THAT(lines, ::testing::Contains("kube:AllAlpha=true|false (ALPHA - default=false)"));
  EXPECT_THAT(lines, ::testing::Not(::testing::Contains(HasSubstr("NodeDeclaredFeatures"))));
  // A default that moves with --min-compatibility-version, as the v1.37.2 binary's --help shows it.
  EXPECT_THAT(lines, ::testing::Contains("kube:DRAFractionalCapacityRange=true|false (BETA - default=false), or "
                                         "DRAFractionalCapacityRange=true|false (BETA - default=true) if "
                                         "--min-compatibility-version>=1.37"));
}

TEST(FeatureGate, SetAndDefaults) {
  FeatureGate g;
  EXPECT_TRUE(g.enabled("SchedulerAsyncPreemption"));
  EXPECT_FALSE(g.enabled("SchedulerAsyncAPICalls"));
  ASSERT_TRUE(g.set(" SchedulerAsyncAPICalls = true ,,SchedulerAsyncPreemption=false").ok());
  EXPECT_TRUE(g.enabled("SchedulerAsyncAPICalls"));
  EXPECT_FALSE(g.enabled("SchedulerAsyncPreemption"));
  // Values accumulate over calls; a later one wins.
  ASSERT_TRUE(g.set("SchedulerAsyncPreemption=true").ok());
  EXPECT_TRUE(g.enabled("SchedulerAsyncPreemption"));
  EXPECT_TRUE(g.enabled("SchedulerAsyncAPICalls"));
  EXPECT_EQ(g.toString(), "SchedulerAsyncAPICalls=true,SchedulerAsyncPreemption=true");
  // strconv.ParseBool spellings.
  ASSERT_TRUE(g.set("SchedulerAsyncAPICalls=F").ok());
  EXPECT_FALSE(g.enabled("SchedulerAsyncAPICalls"));
}

TEST(FeatureGate, Errors) {
  FeatureGate g;
  EXPECT_EQ(g.set("Foo=true").error().message(), "unrecognized feature gate: Foo");
  EXPECT_EQ(g.set("SchedulerQueueingHints=true").error().message(),
            "unrecognized feature gate: SchedulerQueueingHints");  // removed in v1.37
  EXPECT_EQ(g.set("AllAlpha").error().message(), "missing bool value for AllAlpha");
  EXPECT_EQ(g.set("AllAlpha=maybe").error().message(),
            "invalid value of AllAlpha=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax");
  EXPECT_EQ(g.set("NodeDeclaredFeatures=false").error().message(),
            "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true");
  EXPECT_EQ(g.set("NodeDeclaredFeatures=false,DynamicResourceAllocation=false").error().message(),
            "[cannot set feature gate DynamicResourceAllocation to false, feature is locked to true, cannot set "
            "feature gate NodeDeclaredFeatures to false, feature is locked to true]");
  // A failed set changes nothing.
  EXPECT_FALSE(g.set("SchedulerAsyncAPICalls=true,Foo=true").ok());
  EXPECT_FALSE(g.enabled("SchedulerAsyncAPICalls"));
  EXPECT_TRUE(g.explicitlySet().empty());
  // Setting a locked gate to its value is fine (with the GA warning).
  std::vector<std::string> warnings;
  ASSERT_TRUE(g.set("NodeDeclaredFeatures=true,AllowDNSOnlyNodeCSR=false", &warnings).ok());
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "Setting deprecated feature gate AllowDNSOnlyNodeCSR=false. It will be removed in a "
                          "future release.",
                          "Setting GA feature gate NodeDeclaredFeatures=true. It will be removed in a future "
                          "release."}));
}

TEST(FeatureGate, AllAlphaAndAllBeta) {
  // upstream TestFeatureGateOverride / setUnsetAlphaGates: explicit values win whatever their order.
  FeatureGate g;
  ASSERT_TRUE(g.set("AllAlpha=true,InPlacePodVerticalScalingSchedulerPreemption=false").ok());
  EXPECT_TRUE(g.enabled("AllAlpha"));
  EXPECT_TRUE(g.enabled("SchedulerPreQueueingHints"));
  EXPECT_TRUE(g.enabled("LoggingAlphaOptions"));
  EXPECT_FALSE(g.enabled("InPlacePodVerticalScalingSchedulerPreemption"));
  EXPECT_FALSE(g.enabled("SchedulerAsyncAPICalls"));  // beta: untouched by AllAlpha
  EXPECT_TRUE(g.enabled("SchedulerAsyncPreemption"));
  EXPECT_EQ(g.explicitlySet().size(), 2u);

  FeatureGate b;
  ASSERT_TRUE(b.set("AllBeta=false").ok());
  EXPECT_FALSE(b.enabled("SchedulerAsyncPreemption"));
  EXPECT_FALSE(b.enabled("SchedulerPopFromBackoffQ"));
  EXPECT_TRUE(b.enabled("NodeDeclaredFeatures"));  // GA
  EXPECT_FALSE(b.enabled("SchedulerPreQueueingHints"));  // alpha
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

TEST(EmulatedVersion, UpstreamsRangeAndTexts) {
  FeatureGate g;
  EXPECT_TRUE(applyEmulatedVersion({}, g).ok());
  EXPECT_EQ(g.emulationMinor(), 37u);
  EXPECT_EQ(g.minCompatibilityMinor(), 36u);
  EXPECT_TRUE(applyEmulatedVersion({"kube=1.37"}, g).ok());
  EXPECT_TRUE(applyEmulatedVersion({"v1.37.0"}, g).ok());
  ASSERT_TRUE(applyEmulatedVersion({"1.35"}, g).ok());
  EXPECT_EQ(g.emulationMinor(), 35u);
  EXPECT_EQ(g.minCompatibilityMinor(), 34u);
  ASSERT_TRUE(applyEmulatedVersion({"1.34"}, g).ok());
  EXPECT_EQ(g.minCompatibilityMinor(), 34u);  // not under the floor
  EXPECT_EQ(applyEmulatedVersion({"1.33"}, g).error().message(), "emulation version 1.33 is not between [1.34, 1.37.0]");
  EXPECT_EQ(applyEmulatedVersion({"2.37"}, g).error().message(), "emulation version 2.37 is not between [1.34, 1.37.0]");
  EXPECT_EQ(applyEmulatedVersion({"1.37.2"}, g).error().message(), "patch version not allowed, got: kube=1.37.2");
  EXPECT_EQ(applyEmulatedVersion({"wardle=1.2"}, g).error().message(), "component not registered: wardle");
  EXPECT_EQ(applyEmulatedVersion({"1.37", "kube=1.37"}, g).error().message(), "duplicate version flag, kube=1.37 and kube=1.37");
  EXPECT_EQ(applyEmulatedVersion({"x"}, g).error().message(), "could not parse \"x\" as version");
  EXPECT_EQ(applyEmulatedVersion({"1"}, g).error().message(), "illegal version string \"1\"");
  EXPECT_EQ(applyEmulatedVersion({"1.034"}, g).error().message(), "illegal zero-prefixed version component \"034\" in \"1.034\"");
}

// Gates at the emulated version, as component-base evaluates their versioned specs (checked against the
// upstream v1.37.2 binary: `kube-scheduler --emulated-version=1.34 --feature-gates=GenericWorkload=true`).
TEST(EmulatedVersion, GatesTakeTheirSpecsThere) {
  FeatureGate g;
  ASSERT_TRUE(applyEmulatedVersion({"1.34"}, g).ok());
  EXPECT_EQ(g.spec("NominatedNodeNameForExpectation")->stage, Stage::Alpha);
  EXPECT_FALSE(g.enabled("NominatedNodeNameForExpectation"));
  EXPECT_FALSE(g.enabled("StorageCapacityScoring"));
  EXPECT_FALSE(g.enabled("WatchListClient"));
  EXPECT_EQ(g.spec("DynamicResourceAllocation")->lockToDefault, false);  // GA in 1.34, locked from 1.35
  EXPECT_EQ(g.spec("GenericWorkload")->stage, Stage::PreAlpha);
  EXPECT_FALSE(g.enabled("GenericWorkload"));
  EXPECT_EQ(g.set("GenericWorkload=true").error().message(),
            "cannot set feature gate GenericWorkload to true, feature is PreAlpha at emulated version 1.34, min "
            "compatibility version 1.34");
  // AllAlpha follows the stages at the emulated version.
  ASSERT_TRUE(g.set("AllAlpha=true").ok());
  EXPECT_TRUE(g.enabled("NominatedNodeNameForExpectation"));
  EXPECT_FALSE(g.enabled("GenericWorkload"));
  EXPECT_THAT(g.enabledAlphaFeatures(), ::testing::Contains("NominatedNodeNameForExpectation"));

  FeatureGate at36;
  ASSERT_TRUE(applyEmulatedVersion({"1.36"}, at36).ok());
  EXPECT_EQ(applyMinCompatibilityVersion({"1.37"}, at36).error().message(),
            "minCompatibilityVersion version 1.37 is not between [1.34, 1.36]");
  EXPECT_TRUE(applyMinCompatibilityVersion({"1.35"}, at36).ok());
  EXPECT_EQ(at36.minCompatibilityMinor(), 35u);
  // Every version pair's defaults are consistent with the dependencies.
  for (unsigned emu = kVersionFloorMinor; emu <= kBinaryMinor; ++emu) {
    for (unsigned mc = kVersionFloorMinor; mc <= emu; ++mc) {
      FeatureGate d;
      d.setVersions(emu, mc);
      EXPECT_TRUE(d.validateDependencies().ok()) << emu << "/" << mc << ": " << d.validateDependencies().error().message();
    }
  }
}

// upstream's dependency check; the text as the v1.37.2 binary prints it.
TEST(FeatureGate, Dependencies) {
  FeatureGate g;
  ASSERT_TRUE(applyMinCompatibilityVersion({"1.37"}, g).ok());
  ASSERT_TRUE(g.set("DRADeviceTaints=false,DRAConsumableCapacity=false").ok());
  // Upstream lists them in Go map order (random); here by gate name.
  EXPECT_EQ(g.validateDependencies().error().message(),
            "[DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints], "
            "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: "
            "[DRAConsumableCapacity]]");
  ASSERT_TRUE(g.set("DRADeviceTaintRules=false,DRAFractionalCapacityRange=false").ok());
  EXPECT_TRUE(g.validateDependencies().ok());
  FeatureGate one;
  ASSERT_TRUE(one.set("DRAResourceClaimDeviceStatus=true,DRAPartitionableDevices=false,DRADeviceCompatibilityGroups=true").ok());
  EXPECT_EQ(one.validateDependencies().error().message(),
            "DRADeviceCompatibilityGroups is enabled, but depends on features that are disabled: "
            "[DRAPartitionableDevices]");
}

// featuregate's MinCompatibilityVersion specs: DRAFractionalCapacityRange is Beta in v1.37, off by default
// (min compatibility 1.36) and on from --min-compatibility-version=1.37; an explicit value still wins.
TEST(MinCompatibilityVersion, MovesTheDefaultsThatDependOnIt) {
  FeatureGate g;
  EXPECT_FALSE(g.enabled("DRAFractionalCapacityRange"));
  ASSERT_TRUE(applyMinCompatibilityVersion({}, g).ok());
  EXPECT_FALSE(g.enabled("DRAFractionalCapacityRange"));
  ASSERT_TRUE(applyMinCompatibilityVersion({"1.34"}, g).ok());
  EXPECT_FALSE(g.enabled("DRAFractionalCapacityRange"));
  ASSERT_TRUE(applyMinCompatibilityVersion({"kube=1.37"}, g).ok());
  EXPECT_TRUE(g.enabled("DRAFractionalCapacityRange"));
  EXPECT_TRUE(g.enabled("DRAConsumableCapacity"));  // unaffected: no MinCompatibilityVersion spec
  ASSERT_TRUE(g.set("DRAFractionalCapacityRange=false").ok());
  EXPECT_FALSE(g.enabled("DRAFractionalCapacityRange"));

  FeatureGate h;
  EXPECT_EQ(applyMinCompatibilityVersion({"1.33"}, h).error().message(),
            "minCompatibilityVersion version 1.33 is not between [1.34, 1.37]");
  EXPECT_EQ(applyMinCompatibilityVersion({"1.38"}, h).error().message(),
            "minCompatibilityVersion version 1.38 is not between [1.34, 1.37]");
  EXPECT_EQ(applyMinCompatibilityVersion({"1.37.1"}, h).error().message(),
            "patch version not allowed, got: kube=1.37.1");
  EXPECT_EQ(applyMinCompatibilityVersion({"wardle=1.2"}, h).error().message(), "component not registered: wardle");
  EXPECT_FALSE(h.enabled("DRAFractionalCapacityRange"));
}

}  // namespace
}  // namespace ks::features
