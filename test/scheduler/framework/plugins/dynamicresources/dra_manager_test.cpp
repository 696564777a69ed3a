// Ports the patching part of k8s.io/dynamic-resource-allocation v0.37.2 resourceslice/tracker
// tracker_test.go (TestListPatchedResourceSlices): each case's objects after its event sequence, and the
// slices ListPatchedResourceSlices returns for them, through DefaultDRAManager::listWithDeviceTaintRules
// over informers on the in-memory API. Not ported: the handler events the tracker emits (the scheduler
// turns a DeviceTaintRule change into one ResourceSlice update event instead, event_handlers.cpp), and the
// event-order permutations (the manager keeps no patched state: it applies the rules when listing).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"

namespace ks::plugins::dynamicresources {
namespace {

const api::Time kNow = std::chrono::sys_days{std::chrono::year{2006} / 1 / 2} + std::chrono::hours(15) +
                       std::chrono::minutes(4) + std::chrono::seconds(5);
const std::string kDriver1 = "driver1.example.com";
const std::string kDriver2 = "driver2.example.com";
const std::string kPool1 = "pool-1";
const std::string kPool2 = "pool-2";

api::Device device(const std::string& name, std::vector<api::DeviceTaint> taints = {}) {
  api::Device d;
  d.name = name;
  d.taints = std::move(taints);
  return d;
}

api::DeviceTaint taint1() {
  return api::DeviceTaint{"example.com/taint", "tainted", "NoExecute", kNow};
}
api::DeviceTaint taint2() {
  return api::DeviceTaint{"example.com/taint2", "tainted2", "NoExecute", kNow};
}

api::ResourceSlice slice(const std::string& name, const std::string& driver, const std::string& pool,
                         std::vector<api::Device> devices) {
  api::ResourceSlice s;
  s.metadata.name = name;
  s.spec.driver = driver;
  s.spec.pool.name = pool;
  s.spec.devices = std::move(devices);
  return s;
}
// Overloads rather than default arguments: GCC 12 mis-evaluates a braced std::vector default argument here.
api::ResourceSlice slice1(std::vector<api::Device> devices) {
  return slice("s1", kDriver1, kPool1, std::move(devices));
}
api::ResourceSlice slice1() {
  return slice1(std::vector<api::Device>{device("device-1")});
}
api::ResourceSlice slice2(std::vector<api::Device> devices) {
  return slice("s2", kDriver2, kPool2, std::move(devices));
}
api::ResourceSlice slice2() {
  return slice2(std::vector<api::Device>{device("device-2")});
}
api::ResourceSlice unchangedSlice() {
  api::ResourceSlice s;
  s.metadata.name = "no-change";
  return s;
}

// taintAllDevicesRule with the selector fields given (none set: every device).
api::DeviceTaintRule rule(std::optional<std::string> driver = {}, std::optional<std::string> pool = {},
                          std::optional<std::string> dev = {}) {
  api::DeviceTaintRule r;
  r.metadata.name = "rule";
  r.spec.deviceSelector = api::DeviceTaintSelector{std::move(driver), std::move(pool), std::move(dev)};
  r.spec.taint = taint1();
  return r;
}

struct Case {
  std::string name;
  std::vector<api::ResourceSlice> slices;
  std::vector<api::DeviceTaintRule> rules;
  std::vector<api::ResourceSlice> expectedPatchedSlices;
};

std::vector<Case> cases() {
  const auto device1Tainted = device("device-1", {taint1()});
  const std::vector<api::Device> threeDevices = {device("device-0"), device("device-1"), device("device-2")};
  api::DeviceTaintRule noSelector = rule();
  noSelector.metadata.name = "rule-no-selector";
  noSelector.spec.deviceSelector.reset();
  return {
      {"add-slices-no-patches", {slice1(), slice2()}, {}, {slice1(), slice2()}},
      {"update-slices-no-patches",
       {slice1(), slice2(), unchangedSlice()},
       {},
       {slice1(), slice2(), unchangedSlice()}},
      {"delete-slices", {unchangedSlice()}, {}, {unchangedSlice()}},
      {"patch-all-slices", {slice1()}, {rule()}, {slice1({device1Tainted})}},
      {"update-patch",
       {slice1(), slice2()},
       {rule({}, kPool2)},
       {slice1(), slice2({device("device-2", {taint1()})})}},
      {"remove-patch-known-deleted-rule", {slice1(), slice2()}, {}, {slice1(), slice2()}},
      {"remove-patch-unknown-deleted-rule", {slice1(), slice2()}, {}, {slice1(), slice2()}},
      {"merge-taints",
       {slice1({device("device-1", {taint2()})})},
       {rule()},
       {slice1({device("device-1", {taint2(), taint1()})})}},
      {"add-taint-for-driver", {slice1(), slice2()}, {rule(kDriver1)}, {slice1({device1Tainted}), slice2()}},
      {"add-taint-for-pool", {slice1(), slice2()}, {rule({}, kPool1)}, {slice1({device1Tainted}), slice2()}},
      {"add-taint-for-device",
       {slice1(), slice2()},
       {rule({}, {}, "device-1")},
       {slice1({device1Tainted}), slice2()}},
      {"filter-all-criteria",
       {slice1(), slice2()},
       {rule(kDriver1, kPool1, "device-1")},
       {slice1({device1Tainted}), slice2()}},
      {"update-patched-slice",
       {slice1(threeDevices), slice2({device("device-1")})},
       {rule({}, {}, "device-1")},
       {slice1({device("device-0"), device1Tainted, device("device-2")}), slice2({device1Tainted})}},
      {"nil-selector-matches-none", {slice1(), slice2()}, {noSelector}, {slice1(), slice2()}},
  };
}

// Name, devices and their taints: what the patching changes (the API server assigns the rest).
std::vector<std::string> summary(std::vector<api::ResourceSlice> slices) {
  std::sort(slices.begin(), slices.end(),
            [](const auto& a, const auto& b) { return a.metadata.name < b.metadata.name; });
  std::vector<std::string> out;
  for (const auto& s : slices) {
    std::string line = s.metadata.name + ":";
    for (const auto& d : s.spec.devices) {
      line += " " + d.name + "[";
      for (const auto& t : d.taints) {
        line += t.key + "=" + t.value + ":" + t.effect + (t.timeAdded == kNow ? "@now" : "@?") + ";";
      }
      line += "]";
    }
    out.push_back(line);
  }
  return out;
}

std::vector<api::ResourceSlice> listPatched(const Case& tc, bool enableDeviceTaintRules) {
  client::MemoryClient client;
  informer::SharedInformerFactory factory(client);
  DefaultDRAManager manager(factory, false, enableDeviceTaintRules);
  for (const auto& s : tc.slices) EXPECT_TRUE(client.create(s).ok());
  for (const auto& r : tc.rules) EXPECT_TRUE(client.create(r).ok());
  factory.start();
  EXPECT_TRUE(factory.waitForCacheSync(std::chrono::seconds(30)));
  auto listed =
      static_cast<framework::SharedDRAManager&>(manager).resourceSlices().listWithDeviceTaintRules();
  factory.stop();
  std::vector<api::ResourceSlice> out;
  if (!listed.ok()) {
    ADD_FAILURE() << listed.error().message();
    return out;
  }
  for (const auto& s : *listed) out.push_back(*s);
  return out;
}

TEST(DRAManager, ListPatchedResourceSlices) {
  for (const auto& tc : cases()) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(summary(listPatched(tc, true)), summary(tc.expectedPatchedSlices));
  }
}

// Without DRADeviceTaintRules the slices are listed as stored.
TEST(DRAManager, DeviceTaintRulesDisabled) {
  const Case tc{"disabled", {slice1(), slice2()}, {rule()}, {}};
  EXPECT_EQ(summary(listPatched(tc, false)), summary(tc.slices));
}

// The slice itself when no rule applies (no copy); a patched copy leaves the stored slice alone.
TEST(DRAManager, ApplyDeviceTaintRulesCopiesOnlyWhenPatching) {
  auto s = std::make_shared<const api::ResourceSlice>(slice1());
  auto other = std::make_shared<const api::DeviceTaintRule>(rule(kDriver2));
  EXPECT_EQ(applyDeviceTaintRules(s, {other}), s);
  auto all = std::make_shared<const api::DeviceTaintRule>(rule());
  auto patched = applyDeviceTaintRules(s, {all, all});
  ASSERT_NE(patched, s);
  EXPECT_EQ(patched->spec.devices[0].taints, (std::vector<api::DeviceTaint>{taint1(), taint1()}));
  EXPECT_TRUE(s->spec.devices[0].taints.empty());
}

}  // namespace
}  // namespace ks::plugins::dynamicresources
