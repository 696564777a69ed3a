// From gates to the scheduler's switches (pkg/scheduler/features/scheduler_features.h): the honoured gates
// flip their switch, the refused values fail with the gate's name and effect.

#include "pkg/scheduler/features/scheduler_features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ks::features {
namespace {

using ::testing::HasSubstr;

SchedulerFeatures featuresFor(const std::string& flag) {
  FeatureGate g;
  auto r = g.set(flag);
  EXPECT_TRUE(r.ok()) << r.error().message();
  auto f = schedulerFeatures(g);
  EXPECT_TRUE(f.ok()) << f.error().message();
  return f.ok() ? *f : SchedulerFeatures{};
}

TEST(SchedulerFeatures, Defaults) {
  SchedulerFeatures f = featuresFor("");
  EXPECT_TRUE(f.config.dynamicResourceAllocation);
  EXPECT_TRUE(f.config.draSchedulerFilterTimeout);
  EXPECT_FALSE(f.config.storageCapacityScoring);
  EXPECT_TRUE(f.plugins.enableAsyncPreemption);
  EXPECT_FALSE(f.plugins.enableStorageCapacityScoring);
  EXPECT_TRUE(f.plugins.enableVolumeAttributesClass);
  EXPECT_TRUE(f.plugins.enableMatchLabelKeysInPodTopologySpread);
  EXPECT_FALSE(f.plugins.assumeVolumeBindingCompletes);
  // VolumeLimitScaling: v1.37's default; not in the v1.34.4 gate table, so not settable yet.
  EXPECT_TRUE(f.plugins.enableVolumeLimitScaling);
  EXPECT_TRUE(f.popFromBackoffQ);
  // OpportunisticBatching: v1.37's default (the gate is not in the v1.34 table yet).
  EXPECT_TRUE(f.enableOpportunisticBatching);
  // DRAFractionalCapacityRange: Beta in v1.37.2 but on only with --min-compatibility-version >= 1.37.
  EXPECT_FALSE(f.plugins.enableDRAFractionalCapacityRange);
  // DRADeviceTaints, DRADeviceTaintRules and DRAExtendedResource: on, as in v1.37.2.
  EXPECT_TRUE(f.plugins.enableDRADeviceTaints);
  EXPECT_TRUE(f.plugins.enableDRADeviceTaintRules);
  EXPECT_TRUE(f.plugins.enableDRAExtendedResource);
}

TEST(SchedulerFeatures, HonouredGatesFlip) {
  EXPECT_FALSE(featuresFor("DynamicResourceAllocation=false").config.dynamicResourceAllocation);
  EXPECT_FALSE(featuresFor("DRASchedulerFilterTimeout=false").config.draSchedulerFilterTimeout);
  SchedulerFeatures scs = featuresFor("StorageCapacityScoring=true");
  EXPECT_TRUE(scs.config.storageCapacityScoring);
  EXPECT_TRUE(scs.plugins.enableStorageCapacityScoring);
  EXPECT_FALSE(featuresFor("SchedulerAsyncPreemption=false").plugins.enableAsyncPreemption);
  EXPECT_FALSE(featuresFor("VolumeAttributesClass=false").plugins.enableVolumeAttributesClass);
  EXPECT_FALSE(featuresFor("MatchLabelKeysInPodTopologySpread=false").plugins.enableMatchLabelKeysInPodTopologySpread);
  EXPECT_FALSE(featuresFor("SchedulerPopFromBackoffQ=false").popFromBackoffQ);
  if (findFeature("OpportunisticBatching") != nullptr) {
    EXPECT_FALSE(featuresFor("OpportunisticBatching=false").enableOpportunisticBatching);
  }
  // The DRA gates reach the DynamicResources plugin (and its allocator).
  EXPECT_FALSE(featuresFor("DynamicResourceAllocation=false").plugins.enableDynamicResourceAllocation);
  EXPECT_FALSE(featuresFor("DRASchedulerFilterTimeout=false").plugins.enableDRASchedulerFilterTimeout);
  EXPECT_FALSE(featuresFor("DRAAdminAccess=false").plugins.enableDRAAdminAccess);
  EXPECT_FALSE(featuresFor("DRAPrioritizedList=false").plugins.enableDRAPrioritizedList);
  EXPECT_FALSE(featuresFor("DRAResourceClaimDeviceStatus=false").plugins.enableDRAResourceClaimDeviceStatus);
  EXPECT_TRUE(featuresFor("DRAPartitionableDevices=true").plugins.enableDRAPartitionableDevices);
  EXPECT_TRUE(featuresFor("DRADeviceBindingConditions=true").plugins.enableDRADeviceBindingConditions);
  EXPECT_TRUE(featuresFor("DRAConsumableCapacity=true").plugins.enableDRAConsumableCapacity);
  // DRADeviceTaints: on as in v1.37 unless set (the v1.34.4 table's default is off); DRADeviceTaintRules is
  // not in the table and stays on.
  const auto defaults = schedulerFeatures(FeatureGate{});
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(defaults->plugins.enableDRADeviceTaints);
  EXPECT_TRUE(featuresFor("DRADeviceTaints=true").plugins.enableDRADeviceTaints);
  EXPECT_FALSE(featuresFor("DRADeviceTaints=false").plugins.enableDRADeviceTaints);
  EXPECT_TRUE(defaults->plugins.enableDRADeviceTaintRules);
}

TEST(SchedulerFeatures, RefusedValues) {
  for (const auto& u : unsupportedGateValues()) {
    FeatureGate g;
    ASSERT_TRUE(g.set(std::string(u.gate) + "=" + (u.value ? "true" : "false")).ok()) << u.gate;
    auto f = schedulerFeatures(g);
    ASSERT_FALSE(f.ok()) << u.gate;
    EXPECT_EQ(f.error().message(), "feature gate " + std::string(u.gate) + "=" + (u.value ? "true" : "false") +
                                       " is not supported by kube-scheduler-cpp: " + std::string(u.effect));
    // The value is never the gate's default (which is implemented).
    ASSERT_NE(findFeature(u.gate), nullptr) << u.gate;
    EXPECT_NE(findFeature(u.gate)->defaultValue, u.value) << u.gate;
  }
}

TEST(SchedulerFeatures, RefusedThroughAllAlpha) {
  FeatureGate g;
  ASSERT_TRUE(g.set("AllAlpha=true").ok());
  auto f = schedulerFeatures(g);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.error().message(), HasSubstr("(set through AllAlpha=true; add ClientsAllowCBOR=false to keep it off)"));
  // Switching the refused alpha gates back off makes AllAlpha=true usable (ComponentFlagz and
  // ComponentStatusz are implemented, so they may stay on).
  ASSERT_TRUE(g.set("ClientsAllowCBOR=false,ClientsPreferCBOR=false,DRADeviceTaints=false,"
                    "NominatedNodeNameForExpectation=false")
                  .ok());
  auto ok = schedulerFeatures(g);
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_TRUE(ok->plugins.enableStorageCapacityScoring);
  EXPECT_TRUE(ok->plugins.enableDRAExtendedResource);
  EXPECT_TRUE(g.enabled("ComponentFlagz"));
  EXPECT_TRUE(g.enabled("ComponentStatusz"));
}

// The zpages gates (Beta and on in v1.37, alpha and off in the v1.34.4 table) are accepted either way, and
// CBORServingAndStorage (application/cbor from them).
TEST(SchedulerFeatures, ZpagesGatesAccepted) {
  for (const char* value : {"ComponentFlagz=true,ComponentStatusz=true,CBORServingAndStorage=true",
                            "ComponentFlagz=false,ComponentStatusz=false"}) {
    FeatureGate g;
    ASSERT_TRUE(g.set(value).ok());
    auto f = schedulerFeatures(g);
    EXPECT_TRUE(f.ok()) << value << ": " << f.error().message();
  }
}

// DRAExtendedResource is GA and locked on in v1.37: on by default although the v1.34.4 table has it alpha
// and off; only an explicit value changes it.
TEST(SchedulerFeatures, DRAExtendedResourceOnByDefault) {
  FeatureGate g;
  auto f = schedulerFeatures(g);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_TRUE(f->plugins.enableDRAExtendedResource);
  ASSERT_TRUE(g.set("DRAExtendedResource=false").ok());
  auto off = schedulerFeatures(g);
  ASSERT_TRUE(off.ok()) << off.error().message();
  EXPECT_FALSE(off->plugins.enableDRAExtendedResource);
}

}  // namespace
}  // namespace ks::features
