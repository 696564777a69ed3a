// Ports upstream plugins/volumezone/volume_zone_test.go (v1.34.4): TestSingleZone, TestMultiZone,
// TestWithBinding, TestIsSchedulableAfterPersistentVolumeClaimAdded, TestIsSchedulableAfterStorageClassAdded
// and TestIsSchedulableAfterPersistentVolumeChange, every case. As upstream's fake listers, the objects go
// straight into the informers' stores (the informers are never started).
//
// Differences from upstream:
//   - "unbound volume no storage class" expects `storageclass.storage.k8s.io "Class_0" not found`:
//     upstream's test lister (tf.StorageClassLister) says "storageclasses...", but the informer lister the
//     scheduler runs with says "storageclass...", which is what we reproduce.
//   - The hints' "not-a-pvc"-style string objects are objects of another kind (a Pod): an EventObject can
//     only hold API objects.
//   - Not ported: BenchmarkVolumeZone (a benchmark, not a test).
// Added here (upstream has no such tests): EventsToRegister with and without queueing hints, the
// missing-object and unnamed-claim rejections, Filter reusing a cloned PreFilter state, and create()
// without an informer factory.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/volumezone/volume_zone.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::framework {
// Readable statuses in failure messages (found by gtest through ADL).
[[maybe_unused]] static void PrintTo(const Status& s, std::ostream* os) {
  *os << s.toString();
}
}  // namespace ks::framework

namespace ks::plugins::volumezone {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;
using ks::testing::MakePod;
using Labels = std::map<std::string, std::string>;

const std::string kBetaZone(kLabelFailureDomainBetaZone);
const std::string kBetaRegion(kLabelFailureDomainBetaRegion);
const std::string kZone(kLabelTopologyZone);
const std::string kRegion(kLabelTopologyRegion);

api::PersistentVolume pv(std::string name, Labels labels) {
  api::PersistentVolume v;
  v.metadata.name = std::move(name);
  v.metadata.labels = std::move(labels);
  return v;
}
std::shared_ptr<const api::PersistentVolume> pvPtr(std::string name, Labels labels) {
  return std::make_shared<const api::PersistentVolume>(pv(std::move(name), std::move(labels)));
}

api::PersistentVolumeClaim pvc(std::string name, std::string volumeName,
                               std::optional<std::string> storageClassName = std::nullopt,
                               std::string ns = "default") {
  api::PersistentVolumeClaim c;
  c.metadata.name = std::move(name);
  c.metadata.namespace_ = std::move(ns);
  c.spec.volumeName = std::move(volumeName);
  c.spec.storageClassName = std::move(storageClassName);
  return c;
}
std::shared_ptr<const api::PersistentVolumeClaim> pvcPtr(std::string name, std::string volumeName,
                                                         std::string ns = "default") {
  return std::make_shared<const api::PersistentVolumeClaim>(
      pvc(std::move(name), std::move(volumeName), {}, ns));
}

api::StorageClass storageClass(std::string name, std::optional<std::string> mode) {
  api::StorageClass sc;
  sc.metadata.name = std::move(name);
  sc.volumeBindingMode = std::move(mode);
  return sc;
}

api::Pod createPodWithVolume(std::string pod, std::string claim) {
  return MakePod().name(std::move(pod)).namespace_("default").pvc(std::move(claim)).obj();
}

api::NodePtr node(Labels labels) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = "host1";
  n->metadata.labels = std::move(labels);
  return n;
}

// The plugin over stores holding these objects (upstream's struct literal with fake listers; the tests of
// the filter run with queueing hints off, as upstream's).
class Env {
 public:
  Env(const std::vector<api::PersistentVolume>& pvs, const std::vector<api::PersistentVolumeClaim>& pvcs,
      const std::vector<api::StorageClass>& classes = {}, Features features = {false})
      : factory_(client_) {
    for (const auto& v : pvs)
      factory_.persistentVolumes().store().upsert(std::make_shared<const api::PersistentVolume>(v));
    for (const auto& c : pvcs) {
      factory_.persistentVolumeClaims().store().upsert(std::make_shared<const api::PersistentVolumeClaim>(c));
    }
    for (const auto& sc : classes)
      factory_.storageClasses().store().upsert(std::make_shared<const api::StorageClass>(sc));
    handle_.setSharedInformerFactory(&factory_);
    auto p = VolumeZone::create(nullptr, handle_, features);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    if (p.ok()) plugin_ = std::move(p).value();
  }

  VolumeZone& plugin() { return *plugin_; }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_;
  plugintesting::FakeHandle handle_;
  std::unique_ptr<VolumeZone> plugin_;
};

struct FilterCase {
  std::string name;
  api::Pod pod;
  api::NodePtr node;
  Status wantPreFilterStatus;
  Status wantFilterStatus;
};

// Upstream's loop: PreFilter, then Filter on the same state whatever PreFilter returned.
void runFilterCases(Env& env, const std::vector<FilterCase>& cases) {
  for (const auto& test : cases) {
    SCOPED_TRACE(test.name);
    framework::CycleState state;
    framework::PreFilterResult result;
    auto podInfo = plugintesting::podInfo(test.pod);
    framework::NodeInfo nodeInfo;
    nodeInfo.setNode(test.node);
    EXPECT_EQ(env.plugin().preFilter(state, *podInfo, {}, result), test.wantPreFilterStatus);
    EXPECT_EQ(env.plugin().filter(state, *podInfo, nodeInfo), test.wantFilterStatus);
  }
}

const Status kConflict(Code::UnschedulableAndUnresolvable, std::string(kErrReasonConflict));

TEST(VolumeZoneTest, SingleZone) {
  Env env(
      {
          pv("Vol_1", {{kBetaZone, "us-west1-a"}}),
          pv("Vol_2", {{kBetaRegion, "us-west1"}, {"uselessLabel", "none"}}),
          pv("Vol_3", {{kBetaRegion, "us-west1"}}),
          pv("Vol_Stable_1", {{kZone, "us-west1-a"}}),
          pv("Vol_Stable_2", {{kRegion, "us-west1"}, {"uselessLabel", "none"}}),
          pv("Vol_Stable_3", {{kZone, "us-west1-a"}, {kRegion, "us-west1-a"}}),
      },
      {
          pvc("PVC_1", "Vol_1"),
          pvc("PVC_2", "Vol_2"),
          pvc("PVC_3", "Vol_3"),
          pvc("PVC_4", "Vol_not_exist"),
          pvc("PVC_Stable_1", "Vol_Stable_1"),
          pvc("PVC_Stable_2", "Vol_Stable_2"),
          pvc("PVC_Stable_3", "Vol_Stable_3"),
      });
  const std::vector<FilterCase> cases = {
      {"pod without volume", MakePod().name("pod_1").namespace_("default").obj(),
       node({{kBetaZone, "us-west1-a"}}), Status(Code::Skip), Status()},
      {"node without labels", createPodWithVolume("pod_1", "PVC_1"), node({}), Status(), Status()},
      {"beta zone label matched", createPodWithVolume("pod_1", "PVC_1"),
       node({{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}}), Status(), Status()},
      {"beta region label matched", createPodWithVolume("pod_1", "PVC_2"),
       node({{kBetaRegion, "us-west1"}, {"uselessLabel", "none"}}), Status(), Status()},
      {"beta region label doesn't match", createPodWithVolume("pod_1", "PVC_2"),
       node({{kBetaRegion, "no_us-west1"}, {"uselessLabel", "none"}}), Status(), kConflict},
      {"beta zone label doesn't match", createPodWithVolume("pod_1", "PVC_1"),
       node({{kBetaZone, "no_us-west1-a"}, {"uselessLabel", "none"}}), Status(), kConflict},
      {"zone label matched", createPodWithVolume("pod_1", "PVC_Stable_1"),
       node({{kZone, "us-west1-a"}, {"uselessLabel", "none"}}), Status(), Status()},
      {"region label matched", createPodWithVolume("pod_1", "PVC_Stable_2"),
       node({{kRegion, "us-west1"}, {"uselessLabel", "none"}}), Status(), Status()},
      {"region label doesn't match", createPodWithVolume("pod_1", "PVC_Stable_2"),
       node({{kRegion, "no_us-west1"}, {"uselessLabel", "none"}}), Status(), kConflict},
      {"zone label doesn't match", createPodWithVolume("pod_1", "PVC_Stable_1"),
       node({{kZone, "no_us-west1-a"}, {"uselessLabel", "none"}}), Status(), kConflict},
      {"pv with zone and region, node with only zone", createPodWithVolume("pod_1", "PVC_Stable_3"),
       node({{kZone, "us-west1-a"}}), Status(), kConflict},
      {"pv with zone,node with beta zone", createPodWithVolume("pod_1", "PVC_Stable_1"),
       node({{kBetaZone, "us-west1-a"}}), Status(), kConflict},
      {"pv with beta label,node with ga label, matched", createPodWithVolume("pod_1", "PVC_1"),
       node({{kZone, "us-west1-a"}}), Status(), Status()},
      {"pv with beta label,node with ga label, don't match", createPodWithVolume("pod_1", "PVC_1"),
       node({{kZone, "us-west1-b"}}), Status(), kConflict},
  };
  runFilterCases(env, cases);
}

TEST(VolumeZoneTest, MultiZone) {
  Env env(
      {
          pv("Vol_1", {{kBetaZone, "us-west1-a"}}),
          pv("Vol_2", {{kBetaZone, "us-west1-b"}, {"uselessLabel", "none"}}),
          pv("Vol_3", {{kBetaZone, "us-west1-c__us-west1-a"}}),
          pv("Vol_Stable_1", {{kZone, "us-west1-a"}}),
          pv("Vol_Stable_2", {{kZone, "us-west1-c__us-west1-a"}}),
      },
      {
          pvc("PVC_1", "Vol_1"),
          pvc("PVC_2", "Vol_2"),
          pvc("PVC_3", "Vol_3"),
          pvc("PVC_4", "Vol_not_exist"),
          pvc("PVC_Stable_1", "Vol_Stable_1"),
          pvc("PVC_Stable_2", "Vol_Stable_2"),
      });
  const std::vector<FilterCase> cases = {
      {"node without labels", createPodWithVolume("pod_1", "PVC_3"), node({}), Status(), Status()},
      {"beta zone label matched", createPodWithVolume("pod_1", "PVC_3"),
       node({{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}}), Status(), Status()},
      {"beta zone label doesn't match", createPodWithVolume("pod_1", "PVC_1"),
       node({{kBetaZone, "us-west1-b"}, {"uselessLabel", "none"}}), Status(), kConflict},
      {"zone label matched", createPodWithVolume("pod_1", "PVC_Stable_2"),
       node({{kZone, "us-west1-a"}, {"uselessLabel", "none"}}), Status(), Status()},
      {"zone label doesn't match", createPodWithVolume("pod_1", "PVC_Stable_1"),
       node({{kZone, "us-west1-b"}, {"uselessLabel", "none"}}), Status(), kConflict},
  };
  runFilterCases(env, cases);
}

TEST(VolumeZoneTest, WithBinding) {
  const std::string modeWait = "WaitForFirstConsumer";
  Env env({pv("Vol_1", {{kBetaZone, "us-west1-a"}})},
          {
              pvc("PVC_1", "Vol_1"),
              pvc("PVC_NoSC", "", "Class_0"),
              pvc("PVC_EmptySC", ""),
              pvc("PVC_WaitSC", "", "Class_Wait"),
              pvc("PVC_ImmediateSC", "", "Class_Immediate"),
          },
          {storageClass("Class_Immediate", std::nullopt), storageClass("Class_Wait", modeWait)});
  const auto testNode = node({{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}});
  const Status noPVNameNorClass(Code::UnschedulableAndUnresolvable,
                                "PersistentVolumeClaim had no pv name and storageClass name");
  const Status classNotFound(Code::UnschedulableAndUnresolvable,
                             "storageclass.storage.k8s.io \"Class_0\" not found");
  const Status modeNotSet(Code::UnschedulableAndUnresolvable,
                          "VolumeBindingMode not set for StorageClass \"Class_Immediate\"");
  const std::vector<FilterCase> cases = {
      {"label zone failure domain matched", createPodWithVolume("pod_1", "PVC_1"), testNode, Status(),
       Status()},
      {"unbound volume empty storage class", createPodWithVolume("pod_1", "PVC_EmptySC"), testNode,
       noPVNameNorClass, noPVNameNorClass},
      {"unbound volume no storage class", createPodWithVolume("pod_1", "PVC_NoSC"), testNode, classNotFound,
       classNotFound},
      {"unbound volume immediate binding mode", createPodWithVolume("pod_1", "PVC_ImmediateSC"), testNode,
       modeNotSet, modeNotSet},
      {"unbound volume wait binding mode", createPodWithVolume("pod_1", "PVC_WaitSC"), testNode,
       Status(Code::Skip), Status()},
  };
  runFilterCases(env, cases);
}

// Not upstream: the other rejections of getPVbyPod.
TEST(VolumeZoneTest, MissingObjects) {
  auto bindsImmediate = storageClass("Class_Immediate", "Immediate");
  Env env({pv("Vol_1", {{kBetaZone, "us-west1-a"}})},
          {pvc("PVC_1", "Vol_1"), pvc("PVC_4", "Vol_not_exist"), pvc("PVC_Immediate", "", "Class_Immediate")},
          {bindsImmediate});
  const auto testNode = node({{kBetaZone, "us-west1-a"}});
  auto unresolvable = [](std::string msg) {
    return Status(Code::UnschedulableAndUnresolvable, std::move(msg));
  };
  const std::vector<FilterCase> cases = {
      {"claim not found", createPodWithVolume("pod_1", "PVC_missing"), testNode,
       unresolvable("persistentvolumeclaim \"PVC_missing\" not found"),
       unresolvable("persistentvolumeclaim \"PVC_missing\" not found")},
      {"pv not found", createPodWithVolume("pod_1", "PVC_4"), testNode,
       unresolvable("persistentvolume \"Vol_not_exist\" not found"),
       unresolvable("persistentvolume \"Vol_not_exist\" not found")},
      {"unnamed claim", createPodWithVolume("pod_1", ""), testNode,
       unresolvable("PersistentVolumeClaim had no name"), unresolvable("PersistentVolumeClaim had no name")},
      {"unbound claim of an Immediate class", createPodWithVolume("pod_1", "PVC_Immediate"), testNode,
       unresolvable("PersistentVolume had no name"), unresolvable("PersistentVolume had no name")},
      {"second claim missing", MakePod().name("pod_1").namespace_("default").pvc("PVC_1").pvc("PVC_x").obj(),
       testNode, unresolvable("persistentvolumeclaim \"PVC_x\" not found"),
       unresolvable("persistentvolumeclaim \"PVC_x\" not found")},
  };
  runFilterCases(env, cases);
}

// Not upstream: preemption runs Filter on a clone of the cycle state.
TEST(VolumeZoneTest, FilterWithClonedState) {
  Env env({pv("Vol_1", {{kZone, "us-west1-a"}})}, {pvc("PVC_1", "Vol_1")});
  framework::CycleState state;
  framework::PreFilterResult result;
  auto podInfo = plugintesting::podInfo(createPodWithVolume("pod_1", "PVC_1"));
  ASSERT_EQ(env.plugin().preFilter(state, *podInfo, {}, result), Status());
  auto cloned = state.clone();
  framework::NodeInfo matching, other;
  matching.setNode(node({{kZone, "us-west1-a"}}));
  other.setNode(node({{kZone, "us-west1-b"}}));
  EXPECT_EQ(env.plugin().filter(*cloned, *podInfo, matching), Status());
  EXPECT_EQ(env.plugin().filter(*cloned, *podInfo, other), kConflict);
}

struct HintCase {
  std::string name;
  api::Pod pod;
  EventObject oldObj, newObj;
  QueueingHint expectedHint;
  bool expectedErr = false;
};

using HintFn = Result<QueueingHint> (*)(const api::Pod&, const EventObject&, const EventObject&);

// An error is answered with Queue (upstream returns Queue with the error).
void runHintCases(HintFn fn, const std::vector<HintCase>& cases) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto got = fn(tc.pod, tc.oldObj, tc.newObj);
    EXPECT_EQ(!got.ok(), tc.expectedErr) << (got.ok() ? "" : got.error().message());
    EXPECT_EQ(got.ok() ? *got : QueueingHint::Queue, tc.expectedHint);
  }
}

TEST(VolumeZoneTest, IsSchedulableAfterPersistentVolumeClaimAdded) {
  const EventObject notAPVC = std::make_shared<const api::Pod>();
  const auto podNoPVC = MakePod().name("pod_1").namespace_("default").obj();
  runHintCases(&VolumeZone::isSchedulableAfterPersistentVolumeClaimChange,
               {
                   {"error-wrong-new-object",
                    createPodWithVolume("pod_1", "PVC_1"),
                    {},
                    notAPVC,
                    QueueingHint::Queue,
                    true},
                   {"pvc-was-added-but-pod-refers-no-pvc",
                    podNoPVC,
                    {},
                    pvcPtr("PVC_1", "Vol_1"),
                    QueueingHint::QueueSkip},
                   {"pvc-was-added-and-pod-was-bound-to-different-pvc",
                    createPodWithVolume("pod_1", "PVC_2"),
                    {},
                    pvcPtr("PVC_1", "Vol_1"),
                    QueueingHint::QueueSkip},
                   {"pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns",
                    createPodWithVolume("pod_1", "PVC_1"),
                    {},
                    pvcPtr("PVC_1", "Vol_1", "ns1"),
                    QueueingHint::QueueSkip},
                   {"pvc-was-added-and-pod-was-bound-to-the-pvc",
                    createPodWithVolume("pod_1", "PVC_1"),
                    {},
                    pvcPtr("PVC_1", "Vol_1"),
                    QueueingHint::Queue},
                   {"pvc-was-updated-and-pod-was-bound-to-the-pvc", createPodWithVolume("pod_1", "PVC_1"),
                    pvcPtr("PVC_1", ""), pvcPtr("PVC_1", "Vol_1"), QueueingHint::Queue},
                   {"pvc-was-updated-but-pod-refers-no-pvc", podNoPVC, pvcPtr("PVC_1", ""),
                    pvcPtr("PVC_1", "Vol_1"), QueueingHint::QueueSkip},
               });
}

TEST(VolumeZoneTest, IsSchedulableAfterStorageClassAdded) {
  const EventObject notAStorageClass = std::make_shared<const api::Pod>();
  runHintCases(&VolumeZone::isSchedulableAfterStorageClassAdded,
               {
                   {"error-wrong-new-object",
                    createPodWithVolume("pod_1", "PVC_1"),
                    {},
                    notAStorageClass,
                    QueueingHint::Queue,
                    true},
                   {"sc-doesn't-have-volume-binding-mode",
                    createPodWithVolume("pod_1", "PVC_1"),
                    {},
                    std::make_shared<const api::StorageClass>(storageClass("SC_1", std::nullopt)),
                    QueueingHint::QueueSkip},
                   {"new-sc-is-wait-for-first-consumer-mode",
                    createPodWithVolume("pod_1", "PVC_1"),
                    {},
                    std::make_shared<const api::StorageClass>(storageClass("SC_1", "WaitForFirstConsumer")),
                    QueueingHint::Queue},
               });
}

TEST(VolumeZoneTest, IsSchedulableAfterPersistentVolumeChange) {
  const EventObject notAPV = std::make_shared<const api::Pod>();
  const auto pod = createPodWithVolume("pod_1", "PVC_1");
  runHintCases(
      &VolumeZone::isSchedulableAfterPersistentVolumeChange,
      {
          {"error-wrong-new-object", pod, {}, notAPV, QueueingHint::Queue, true},
          {"error-wrong-old-object", pod, notAPV, pvPtr("Vol_1", {}), QueueingHint::Queue, true},
          {"new-pv-was-added", pod, {}, pvPtr("Vol_1", {{kBetaZone, "us-west1-b"}}), QueueingHint::Queue},
          {"pv-was-updated-and-changed-topology", pod, pvPtr("Vol_1", {{kBetaZone, "us-west1-a"}}),
           pvPtr("Vol_1", {{kBetaZone, "us-west1-b"}}), QueueingHint::Queue},
          {"pv-was-updated-and-added-topology-label", pod, pvPtr("Vol_1", {{kBetaZone, "us-west1-a"}}),
           pvPtr("Vol_1", {{kBetaZone, "us-west1-a"}, {kZone, "zone"}}), QueueingHint::Queue},
          {"pv-was-updated-but-no-topology-is-changed", pod,
           pvPtr("Vol_1", {{kBetaZone, "us-west1-a"}, {kZone, "zone"}}),
           pvPtr("Vol_1", {{kBetaZone, "us-west1-a"}, {kZone, "zone"}}), QueueingHint::QueueSkip},
      });
}

// Not upstream: zone lists as cloud-provider's LabelZonesToSet parses them.
TEST(VolumeZoneTest, GetPVTopologies) {
  EXPECT_EQ(getPVTopologies(pv("v", {{kZone, " a__b "}, {kRegion, "r"}, {"other", "x"}})),
            (std::vector<PVTopology>{{"v", kZone, {"a", "b"}}, {"v", kRegion, {"r"}}}));
  // A list with an empty element is ignored.
  EXPECT_EQ(getPVTopologies(pv("v", {{kZone, "a____b"}, {kBetaZone, "z"}})),
            (std::vector<PVTopology>{{"v", kBetaZone, {"z"}}}));
  EXPECT_TRUE(getPVTopologies(pv("v", {{kZone, ""}})).empty());
}

// Not upstream: the registrations, with queueing hints (v1.34 default) and without.
TEST(VolumeZoneTest, EventsToRegister) {
  namespace action = framework::action;
  for (bool hints : {true, false}) {
    SCOPED_TRACE(hints ? "queueing hints" : "no queueing hints");
    Env env({}, {}, {}, Features{hints});
    auto events = env.plugin().eventsToRegister();
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 4u);
    const framework::ActionType nodeActions =
        hints ? action::Add | action::UpdateNodeLabel
              : action::Add | action::UpdateNodeLabel | action::UpdateNodeTaint;
    const std::vector<framework::ClusterEvent> want = {
        {framework::EventResource::StorageClass, action::Add, {}},
        {framework::EventResource::Node, nodeActions, {}},
        {framework::EventResource::PersistentVolumeClaim, action::Add | action::Update, {}},
        {framework::EventResource::PersistentVolume, action::Add | action::Update, {}},
    };
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ((*events)[i].event, want[i]) << i;
      // Every registration but the Node one has a hint.
      EXPECT_EQ(static_cast<bool>((*events)[i].queueingHintFn), i != 1) << i;
    }
  }
}

TEST(VolumeZoneTest, CreateNeedsInformerFactory) {
  plugintesting::FakeHandle handle;
  auto p = VolumeZone::create(nullptr, handle);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), "SharedInformerFactory is nil");
}

}  // namespace
}  // namespace ks::plugins::volumezone
