// Ports upstream plugins/volumerestrictions/volume_restrictions_test.go (v1.34.4): TestGCEDiskConflicts,
// TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts, TestAccessModeConflicts,
// Test_isSchedulableAfterAssignedPodDeleted and Test_isSchedulableAfterPersistentVolumeClaimChange, every
// case. As upstream's SetupPluginWithInformers, claims go through the in-memory API and a started informer
// factory; the snapshot is a FakeSharedLister over the existing pods and nodes.
//
// Differences from upstream: the hints are static functions here (they read no lister), so the hint
// tables' existingPods / existingPVC(s), which upstream loads into a plugin it only calls the hint on, are
// left out.
// Added here (upstream has no such tests): EventsToRegister with and without queueing hints, read-only
// disk mounts, AddPod/RemovePod on the ReadWriteOncePod count, the missing-state errors, and create()
// without an informer factory.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::framework {
// Readable statuses in failure messages (found by gtest through ADL).
[[maybe_unused]] static void PrintTo(const Status& s, std::ostream* os) {
  *os << s.toString();
}
}  // namespace ks::framework

namespace ks::plugins::volumerestrictions {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;
using ks::testing::MakePod;

// The plugin with informers serving `pvcs` and a snapshot of `pods` on `nodes` (upstream
// newPluginWithListers; the informers are started and synced before the plugin is used).
class Env {
 public:
  explicit Env(const std::vector<api::PodPtr>& pods = {}, const std::vector<api::NodePtr>& nodes = {},
               const std::vector<api::PersistentVolumeClaim>& pvcs = {}, Features features = {false})
      : factory_(client_), lister_(plugintesting::FakeSharedLister::create(pods, nodes)) {
    for (const auto& c : pvcs) {
      auto created = client_.create(c);
      EXPECT_TRUE(created.ok());
    }
    handle_.setSnapshotSharedLister(lister_.get());
    handle_.setSharedInformerFactory(&factory_);
    auto p = VolumeRestrictions::create(nullptr, handle_, features);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    if (p.ok()) plugin_ = std::move(p).value();
    factory_.start();
    EXPECT_TRUE(factory_.waitForCacheSync(std::chrono::seconds(10)));
  }
  ~Env() {
    plugin_.reset();
    factory_.stop();
  }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  VolumeRestrictions& plugin() { return *plugin_; }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_;
  std::unique_ptr<plugintesting::FakeSharedLister> lister_;
  plugintesting::FakeHandle handle_;
  std::unique_ptr<VolumeRestrictions> plugin_;
};

struct FilterCase {
  std::string name;
  api::Pod pod;
  // The pods of the NodeInfo given to Filter (upstream framework.NewNodeInfo(pods...)).
  std::vector<api::PodPtr> nodePods;
  Status preFilterWantStatus;
  Status wantStatus;
};

// Upstream's loop: Filter runs only when PreFilter succeeded.
void runFilterCase(Env& env, const FilterCase& test) {
  SCOPED_TRACE(test.name);
  framework::CycleState state;
  framework::PreFilterResult result;
  auto podInfo = plugintesting::podInfo(test.pod);
  EXPECT_EQ(env.plugin().preFilter(state, *podInfo, {}, result), test.preFilterWantStatus);
  if (test.preFilterWantStatus.isSuccess()) {
    framework::NodeInfo nodeInfo(test.nodePods);
    EXPECT_EQ(env.plugin().filter(state, *podInfo, nodeInfo), test.wantStatus);
  }
}

// The four cases every disk table of upstream has, with two distinct volumes of one kind.
std::vector<FilterCase> diskCases(const api::Volume& volState, const api::Volume& volState2) {
  const Status errStatus(Code::Unschedulable, std::string(kErrReasonDiskConflict));
  return {
      {"nothing", api::Pod{}, {}, Status(Code::Skip), Status()},
      {"one state", api::Pod{}, {MakePod().volume(volState).ptr()}, Status(Code::Skip), Status()},
      {"same state",
       MakePod().volume(volState).obj(),
       {MakePod().volume(volState).ptr()},
       Status(),
       errStatus},
      {"different state",
       MakePod().volume(volState2).obj(),
       {MakePod().volume(volState).ptr()},
       Status(),
       Status()},
  };
}

api::Volume gceVolume(std::string pdName, bool readOnly = false) {
  api::Volume v;
  v.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{std::move(pdName), "", 0, readOnly};
  return v;
}
api::Volume awsVolume(std::string volumeID) {
  api::Volume v;
  v.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{std::move(volumeID), "", 0, false};
  return v;
}
api::Volume rbdVolume(std::vector<std::string> monitors, bool readOnly = false) {
  api::Volume v;
  v.rbd = api::RBDVolumeSource{std::move(monitors), "bar", "foo", readOnly};
  return v;
}
api::Volume iscsiVolume(std::string iqn, bool readOnly = false) {
  api::Volume v;
  v.iscsi = api::ISCSIVolumeSource{"127.0.0.1:3260", std::move(iqn), 0, readOnly};
  return v;
}

TEST(VolumeRestrictionsTest, GCEDiskConflicts) {
  auto cases = diskCases(gceVolume("foo"), gceVolume("bar"));
  api::Volume volWithNoRestriction;
  volWithNoRestriction.name = "volume with no restriction";
  cases.push_back({"pod with a volume that doesn't have restrictions",
                   MakePod().volume(volWithNoRestriction).obj(),
                   {},
                   Status(Code::Skip),
                   Status()});
  for (const auto& test : cases) {
    Env env;
    runFilterCase(env, test);
  }
}

TEST(VolumeRestrictionsTest, AWSDiskConflicts) {
  for (const auto& test : diskCases(awsVolume("foo"), awsVolume("bar"))) {
    Env env;
    runFilterCase(env, test);
  }
}

TEST(VolumeRestrictionsTest, RBDDiskConflicts) {
  for (const auto& test : diskCases(rbdVolume({"a", "b"}), rbdVolume({"c", "d"}))) {
    Env env;
    runFilterCase(env, test);
  }
}

TEST(VolumeRestrictionsTest, ISCSIDiskConflicts) {
  for (const auto& test : diskCases(iscsiVolume("iqn.2016-12.server:storage.target01"),
                                    iscsiVolume("iqn.2017-12.server:storage.target01"))) {
    Env env;
    runFilterCase(env, test);
  }
}

// Not upstream: mounts that are all read-only share GCE PDs, iSCSI and RBD volumes; AWS EBS never.
TEST(VolumeRestrictionsTest, ReadOnlyDisks) {
  const Status errStatus(Code::Unschedulable, std::string(kErrReasonDiskConflict));
  api::Volume awsReadOnly = awsVolume("foo");
  awsReadOnly.awsElasticBlockStore->readOnly = true;
  const std::vector<FilterCase> cases = {
      {"gce both read-only",
       MakePod().volume(gceVolume("foo", true)).obj(),
       {MakePod().volume(gceVolume("foo", true)).ptr()},
       Status(),
       Status()},
      {"gce one read-write",
       MakePod().volume(gceVolume("foo", true)).obj(),
       {MakePod().volume(gceVolume("foo")).ptr()},
       Status(),
       errStatus},
      {"iscsi both read-only",
       MakePod().volume(iscsiVolume("iqn", true)).obj(),
       {MakePod().volume(iscsiVolume("iqn", true)).ptr()},
       Status(),
       Status()},
      {"iscsi one read-write",
       MakePod().volume(iscsiVolume("iqn")).obj(),
       {MakePod().volume(iscsiVolume("iqn", true)).ptr()},
       Status(),
       errStatus},
      {"rbd both read-only, shared monitor",
       MakePod().volume(rbdVolume({"a", "b"}, true)).obj(),
       {MakePod().volume(rbdVolume({"b", "c"}, true)).ptr()},
       Status(),
       Status()},
      {"rbd one read-write, shared monitor",
       MakePod().volume(rbdVolume({"a", "b"})).obj(),
       {MakePod().volume(rbdVolume({"b", "c"}, true)).ptr()},
       Status(),
       errStatus},
      {"aws read-only",
       MakePod().volume(awsReadOnly).obj(),
       {MakePod().volume(awsReadOnly).ptr()},
       Status(),
       errStatus},
  };
  for (const auto& test : cases) {
    Env env;
    runFilterCase(env, test);
  }
}

api::PersistentVolumeClaim claim(std::string name, std::string accessMode) {
  api::PersistentVolumeClaim c;
  c.metadata.namespace_ = "default";
  c.metadata.name = std::move(name);
  c.spec.accessModes = {std::move(accessMode)};
  return c;
}

TEST(VolumeRestrictionsTest, AccessModeConflicts) {
  auto onNode1 = [](std::string name) {
    auto w = MakePod();
    w.name(std::move(name)).namespace_("default").node("node-1");
    return w;
  };
  const auto podWithOnePVC = onNode1("pod-with-one-pvc").pvc("claim-with-rwop-1").ptr();
  const auto podWithTwoPVCs =
      onNode1("pod-with-two-pvcs").pvc("claim-with-rwop-1").pvc("claim-with-rwop-2").ptr();
  const auto podWithOneConflict = onNode1("pod-with-one-conflict").pvc("claim-with-rwop-1").obj();
  const auto podWithTwoConflicts =
      onNode1("pod-with-two-conflicts").pvc("claim-with-rwop-1").pvc("claim-with-rwop-2").obj();
  const auto podWithReadWriteManyPVC = onNode1("pod-with-rwx").pvc("claim-with-rwx").ptr();

  auto node = std::make_shared<api::Node>();
  node->metadata.namespace_ = "default";
  node->metadata.name = "node-1";

  const auto readWriteOncePodPVC1 = claim("claim-with-rwop-1", "ReadWriteOncePod");
  const auto readWriteOncePodPVC2 = claim("claim-with-rwop-2", "ReadWriteOncePod");
  const auto readWriteManyPVC = claim("claim-with-rwx", "ReadWriteMany");

  struct Case {
    FilterCase filter;
    std::vector<api::PodPtr> existingPods;
    std::vector<api::NodePtr> existingNodes;
    std::vector<api::PersistentVolumeClaim> existingPVCs;
  };
  const Status rwopConflict(Code::Unschedulable, std::string(kErrReasonReadWriteOncePodConflict));
  const std::vector<Case> cases = {
      {{"nothing", api::Pod{}, {}, Status(Code::Skip), Status()}, {}, {}, {}},
      {{"failed to get PVC",
        *podWithOnePVC,
        {},
        Status(Code::UnschedulableAndUnresolvable, "persistentvolumeclaim \"claim-with-rwop-1\" not found"),
        Status()},
       {},
       {},
       {}},
      {{"no access mode conflict", *podWithOnePVC, {podWithReadWriteManyPVC}, Status(Code::Skip), Status()},
       {podWithReadWriteManyPVC},
       {node},
       {readWriteOncePodPVC1, readWriteManyPVC}},
      {{"access mode conflict, unschedulable",
        podWithOneConflict,
        {podWithOnePVC, podWithReadWriteManyPVC},
        Status(),
        rwopConflict},
       {podWithOnePVC, podWithReadWriteManyPVC},
       {node},
       {readWriteOncePodPVC1, readWriteManyPVC}},
      {{"two conflicts, unschedulable",
        podWithTwoConflicts,
        {podWithTwoPVCs, podWithReadWriteManyPVC},
        Status(),
        rwopConflict},
       {podWithTwoPVCs, podWithReadWriteManyPVC},
       {node},
       {readWriteOncePodPVC1, readWriteOncePodPVC2, readWriteManyPVC}},
  };
  for (const auto& test : cases) {
    Env env(test.existingPods, test.existingNodes, test.existingPVCs);
    runFilterCase(env, test.filter);
  }
}

// Not upstream: preemption's dry run removes the pod holding the ReadWriteOncePod claim (on a clone of the
// state) and adds it back.
TEST(VolumeRestrictionsTest, AddRemovePodUpdatesConflicts) {
  const auto holder = MakePod().name("holder").namespace_("default").node("node-1").pvc("rwop").ptr();
  const auto unrelated = MakePod().name("unrelated").namespace_("default").node("node-1").pvc("rwx").ptr();
  auto node = std::make_shared<api::Node>();
  node->metadata.name = "node-1";
  Env env({holder, unrelated}, {node}, {claim("rwop", "ReadWriteOncePod"), claim("rwx", "ReadWriteMany")});

  const auto pod =
      plugintesting::podInfo(MakePod().name("p").namespace_("default").pvc("rwop").pvc("rwx").obj());
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_EQ(env.plugin().preFilter(state, *pod, {}, result), Status());
  framework::NodeInfo nodeInfo({holder, unrelated});
  const Status rwopConflict(Code::Unschedulable, std::string(kErrReasonReadWriteOncePodConflict));
  EXPECT_EQ(env.plugin().filter(state, *pod, nodeInfo), rwopConflict);

  auto dryRun = state.clone();
  framework::NodeInfo emptied;
  EXPECT_EQ(env.plugin().removePod(*dryRun, *pod, *plugintesting::podInfo(*unrelated), emptied), Status());
  EXPECT_EQ(env.plugin().filter(*dryRun, *pod, emptied), rwopConflict);
  EXPECT_EQ(env.plugin().removePod(*dryRun, *pod, *plugintesting::podInfo(*holder), emptied), Status());
  EXPECT_EQ(env.plugin().filter(*dryRun, *pod, emptied), Status());
  EXPECT_EQ(env.plugin().addPod(*dryRun, *pod, *plugintesting::podInfo(*holder), emptied), Status());
  EXPECT_EQ(env.plugin().filter(*dryRun, *pod, emptied), rwopConflict);
  // The original state is untouched by the clone's updates.
  EXPECT_EQ(state.read<PreFilterState>()->conflictingPVCRefCount, 1);
}

// Not upstream: Filter and the extensions without PreFilter state.
TEST(VolumeRestrictionsTest, MissingPreFilterState) {
  Env env;
  framework::CycleState state;
  const auto pod = plugintesting::podInfo(api::Pod{});
  framework::NodeInfo nodeInfo;
  const Status want = Status::error("cannot read \"PreFilterVolumeRestrictions\" from cycleState");
  EXPECT_EQ(env.plugin().filter(state, *pod, nodeInfo), want);
  EXPECT_EQ(env.plugin().addPod(state, *pod, *pod, nodeInfo), want);
  EXPECT_EQ(env.plugin().removePod(state, *pod, *pod, nodeInfo), want);
}

struct HintCase {
  std::string name;
  api::Pod pod;
  EventObject oldObj, newObj;
  QueueingHint expectedHint;
  bool expectedErr = false;
};

using HintFn = Result<QueueingHint> (*)(const api::Pod&, const EventObject&, const EventObject&);

// Upstream checks only the error when one is expected.
void runHintCases(HintFn fn, const std::vector<HintCase>& cases) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto got = fn(tc.pod, tc.oldObj, tc.newObj);
    if (tc.expectedErr) {
      EXPECT_FALSE(got.ok());
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(*got, tc.expectedHint);
  }
}

TEST(VolumeRestrictionsTest, IsSchedulableAfterPodDeleted) {
  auto withVolume = [](const api::Volume& v) { return MakePod().volume(v).obj(); };
  auto ptrWithVolume = [](const api::Volume& v) { return MakePod().volume(v).ptr(); };
  const auto gce = gceVolume("foo"), gce2 = gceVolume("bar");
  const auto aws = awsVolume("foo"), aws2 = awsVolume("bar");
  const auto rbd = rbdVolume({"a", "b"}), rbd2 = rbdVolume({"c", "d"});
  const auto iscsi = iscsiVolume("iqn.2016-12.server:storage.target01");
  const auto iscsi2 = iscsiVolume("iqn.2017-12.server:storage.target01");
  runHintCases(
      &VolumeRestrictions::isSchedulableAfterAssignedPodDeleted,
      {
          {"queue-new-object-gcedisk-conflict", withVolume(gce), ptrWithVolume(gce), {}, QueueingHint::Queue},
          {"skip-new-object-gcedisk-no-conflict",
           withVolume(gce),
           ptrWithVolume(gce2),
           {},
           QueueingHint::QueueSkip},
          {"queue-new-object-awsdisk-conflict", withVolume(aws), ptrWithVolume(aws), {}, QueueingHint::Queue},
          {"skip-new-object-awsdisk-no-conflict",
           withVolume(aws),
           ptrWithVolume(aws2),
           {},
           QueueingHint::QueueSkip},
          {"queue-new-object-rbddisk-conflict", withVolume(rbd), ptrWithVolume(rbd), {}, QueueingHint::Queue},
          {"skip-new-object-rbddisk-no-conflict",
           withVolume(rbd),
           ptrWithVolume(rbd2),
           {},
           QueueingHint::QueueSkip},
          {"queue-new-object-iscsidisk-conflict",
           withVolume(iscsi),
           ptrWithVolume(iscsi),
           {},
           QueueingHint::Queue},
          {"skip-new-object-iscsidisk-no-conflict",
           withVolume(iscsi),
           ptrWithVolume(iscsi2),
           {},
           QueueingHint::QueueSkip},
          {"queue-has-same-claim",
           MakePod().name("pod1").pvc("claim-rwop").obj(),
           MakePod().name("pod2").pvc("claim-rwop").ptr(),
           {},
           QueueingHint::Queue},
          {"skip-no-same-claim",
           MakePod().name("pod1").pvc("claim-1-rwop").obj(),
           MakePod().name("pod2").pvc("claim-2-rwop").ptr(),
           {},
           QueueingHint::QueueSkip},
          // Not upstream: another namespace, and an object of another kind.
          {"skip-other-namespace",
           MakePod().name("pod1").pvc("claim-rwop").obj(),
           MakePod().name("pod2").namespace_("other").pvc("claim-rwop").ptr(),
           {},
           QueueingHint::QueueSkip},
          {"error-wrong-old-object",
           withVolume(gce),
           std::make_shared<const api::Node>(),
           {},
           QueueingHint::Queue,
           true},
      });
}

TEST(VolumeRestrictionsTest, IsSchedulableAfterPersistentVolumeClaimChange) {
  auto onNode1 = [](std::string name, std::string ns, std::string nodeName) {
    auto w = MakePod();
    w.name(std::move(name)).namespace_(std::move(ns)).node(std::move(nodeName));
    return w;
  };
  const auto podWithOnePVC = onNode1("pod-with-one-pvc", "default", "node-1").pvc("claim-with-rwx-1").obj();
  const auto podWithTwoPVCs =
      onNode1("pod-with-two-pvcs", "default", "node-1").pvc("claim-with-rwx-1").pvc("claim-with-rwx-2").obj();
  const auto podWithNotEqualNamespace =
      onNode1("pod-with-one-pvc", "kube-system", "claim-with-rwx-2").pvc("claim-with-rwx-1").obj();
  const EventObject PVC1 =
      std::make_shared<const api::PersistentVolumeClaim>(claim("claim-with-rwx-1", "ReadWriteMany"));
  const EventObject PVC2 =
      std::make_shared<const api::PersistentVolumeClaim>(claim("claim-with-rwx-2", "ReadWriteMany"));

  runHintCases(&VolumeRestrictions::isSchedulableAfterPersistentVolumeClaimAdded,
               {
                   {"queue-new-object-pvc-belong-pod", podWithTwoPVCs, {}, PVC1, QueueingHint::Queue},
                   {"skip-new-object-unused", podWithOnePVC, {}, PVC2, QueueingHint::QueueSkip},
                   {"skip-nil-old-object", podWithOnePVC, {}, PVC2, QueueingHint::QueueSkip},
                   {"skip-new-object-not-belong-pod", podWithOnePVC, {}, PVC2, QueueingHint::QueueSkip},
                   {"skip-new-object-namespace-not-equal-pod",
                    podWithNotEqualNamespace,
                    {},
                    PVC1,
                    QueueingHint::QueueSkip},
               });
  // Not upstream: an object of another kind.
  runHintCases(&VolumeRestrictions::isSchedulableAfterPersistentVolumeClaimAdded,
               {{"error-wrong-new-object",
                 podWithOnePVC,
                 {},
                 std::make_shared<const api::Pod>(),
                 QueueingHint::Queue,
                 true}});
}

// Not upstream: the registrations, with queueing hints (v1.34 default) and without.
TEST(VolumeRestrictionsTest, EventsToRegister) {
  namespace action = framework::action;
  for (bool hints : {true, false}) {
    SCOPED_TRACE(hints ? "queueing hints" : "no queueing hints");
    Env env({}, {}, {}, Features{hints});
    auto events = env.plugin().eventsToRegister();
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 3u);
    const framework::ActionType nodeActions =
        hints ? action::Add : action::Add | action::UpdateNodeTaint | action::UpdateNodeLabel;
    const std::vector<framework::ClusterEvent> want = {
        {framework::EventResource::AssignedPod, action::Delete, {}},
        {framework::EventResource::Node, nodeActions, {}},
        {framework::EventResource::PersistentVolumeClaim, action::Add, {}},
    };
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ((*events)[i].event, want[i]) << i;
      EXPECT_EQ(static_cast<bool>((*events)[i].queueingHintFn), i != 1) << i;
    }
  }
}

TEST(VolumeRestrictionsTest, CreateNeedsInformerFactory) {
  plugintesting::FakeHandle handle;
  auto p = VolumeRestrictions::create(nullptr, handle);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), "SharedInformerFactory is nil");
}

}  // namespace
}  // namespace ks::plugins::volumerestrictions
