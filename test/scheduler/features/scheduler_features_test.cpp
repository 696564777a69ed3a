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
  EXPECT_TRUE(f.config.storageCapacityScoring);  // Beta and on in v1.37
  EXPECT_TRUE(f.plugins.enableAsyncPreemption);
  EXPECT_FALSE(f.plugins.enableGenericWorkload);  // Beta but off in v1.37
  EXPECT_TRUE(f.plugins.enableStorageCapacityScoring);
  EXPECT_TRUE(f.plugins.enableVolumeAttributesClass);
  EXPECT_TRUE(f.plugins.enableMatchLabelKeysInPodTopologySpread);
  EXPECT_FALSE(f.plugins.assumeVolumeBindingCompletes);
  EXPECT_TRUE(f.plugins.enableVolumeLimitScaling);
  EXPECT_TRUE(f.plugins.enableNodeDeclaredFeatures);
  EXPECT_TRUE(f.popFromBackoffQ);
  EXPECT_TRUE(f.nominatedNodeNameForExpectation);
  EXPECT_TRUE(f.enableOpportunisticBatching);
  EXPECT_TRUE(f.watchListClient);
  // DRA at v1.37.2: partitionable devices, consumable capacity and binding conditions are Beta and on;
  // taints, taint rules and extended resources GA; DRAFractionalCapacityRange is Beta but on only with
  // --min-compatibility-version >= 1.37.
  EXPECT_TRUE(f.plugins.enableDRAPartitionableDevices);
  EXPECT_TRUE(f.plugins.enableDRAConsumableCapacity);
  EXPECT_TRUE(f.plugins.enableDRADeviceBindingConditions);
  EXPECT_TRUE(f.config.draDeviceBindingConditions);
  EXPECT_TRUE(f.plugins.enableDRADeviceTaints);
  EXPECT_TRUE(f.plugins.enableDRADeviceTaintRules);
  EXPECT_TRUE(f.plugins.enableDRAExtendedResource);
  EXPECT_FALSE(f.plugins.enableDRAFractionalCapacityRange);
  FeatureGate compat37;
  ASSERT_TRUE(applyMinCompatibilityVersion({"1.37"}, compat37).ok());
  auto at37 = schedulerFeatures(compat37);
  ASSERT_TRUE(at37.ok()) << at37.error().message();
  EXPECT_TRUE(at37->plugins.enableDRAFractionalCapacityRange);
}

TEST(SchedulerFeatures, HonouredGatesFlip) {
  EXPECT_FALSE(featuresFor("DRASchedulerFilterTimeout=false").config.draSchedulerFilterTimeout);
  SchedulerFeatures scs = featuresFor("StorageCapacityScoring=false");
  EXPECT_FALSE(scs.config.storageCapacityScoring);
  EXPECT_FALSE(scs.plugins.enableStorageCapacityScoring);
  EXPECT_FALSE(featuresFor("SchedulerAsyncPreemption=false").plugins.enableAsyncPreemption);
  // DefaultPreemption reads GenericWorkload too (pod-group victims, PreEnqueue of a group's members).
  SchedulerFeatures gw = featuresFor("GenericWorkload=true");
  EXPECT_TRUE(gw.config.genericWorkload);
  EXPECT_TRUE(gw.plugins.enableGenericWorkload);
  EXPECT_FALSE(featuresFor("MatchLabelKeysInPodTopologySpread=false").plugins.enableMatchLabelKeysInPodTopologySpread);
  EXPECT_FALSE(featuresFor("SchedulerPopFromBackoffQ=false").popFromBackoffQ);
  EXPECT_FALSE(featuresFor("OpportunisticBatching=false").enableOpportunisticBatching);
  EXPECT_FALSE(featuresFor("NominatedNodeNameForExpectation=false").nominatedNodeNameForExpectation);
  EXPECT_FALSE(featuresFor("WatchListClient=false").watchListClient);
  EXPECT_FALSE(featuresFor("VolumeLimitScaling=false").plugins.enableVolumeLimitScaling);
  // The DRA gates reach the DynamicResources plugin (and its allocator).
  EXPECT_FALSE(featuresFor("DRASchedulerFilterTimeout=false").plugins.enableDRASchedulerFilterTimeout);
  EXPECT_FALSE(featuresFor("DRAPartitionableDevices=false").plugins.enableDRAPartitionableDevices);
  SchedulerFeatures bc = featuresFor("DRADeviceBindingConditions=false");
  EXPECT_FALSE(bc.plugins.enableDRADeviceBindingConditions);
  EXPECT_FALSE(bc.config.draDeviceBindingConditions);
  EXPECT_FALSE(featuresFor("DRAConsumableCapacity=false,DRAFractionalCapacityRange=false")
                   .plugins.enableDRAConsumableCapacity);
  EXPECT_TRUE(featuresFor("DRAFractionalCapacityRange=true").plugins.enableDRAFractionalCapacityRange);
  EXPECT_FALSE(featuresFor("DRADeviceTaints=false").plugins.enableDRADeviceTaints);
  EXPECT_FALSE(featuresFor("DRADeviceTaintRules=false").plugins.enableDRADeviceTaintRules);
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
  // Switching the refused alpha gates back off makes AllAlpha=true usable.
  std::string off;
  for (const auto& u : unsupportedGateValues()) {
    const FeatureSpec* spec = findFeature(u.gate);
    if (spec != nullptr && spec->stage == Stage::Alpha && u.value) off += std::string(off.empty() ? "" : ",") +
                                                                          std::string(u.gate) + "=false";
  }
  ASSERT_TRUE(g.set(off).ok()) << off;
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

}  // namespace
}  // namespace ks::features
