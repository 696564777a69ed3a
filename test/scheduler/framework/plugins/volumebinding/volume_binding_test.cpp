// Ports upstream (v1.34.4) volumebinding/volume_binding_test.go: TestVolumeBinding (every case: PreFilter,
// the claims PreFilter keeps, Filter, PreScore and Score), Test_PreBindPreFlight,
// TestIsSchedulableAfterCSINodeChange, TestIsSchedulableAfterPersistentVolumeClaimChange,
// TestIsSchedulableAfterStorageClassChange, TestIsSchedulableAfterCSIStorageCapacityChange and
// TestIsSchedulableAfterCSIDriverChange (every case). As upstream, the plugin is made by create() over an
// informer factory whose objects are created in the (in-memory) API server before it starts.
//
// Differences from upstream:
//   - The plugin's cycle state is private, so "wantStateAfterPreFilter" is checked on what fills it: the
//     claims getPodVolumeClaims sorts out, from a binder over the same informers. Objects read back from
//     the API server are compared without the fields it assigns (uid, resourceVersion, creationTimestamp,
//     generation).
//   - Test_PreBindPreFlight writes its states through the plugin (PreFilter, Filter, Reserve) instead of
//     writing stateData directly. Its "state is nil" case expects upstream's fwk.AsStatus(fwk.ErrNotFound).
//   - The hints' "unexpected objects" / "type conversion error" cases pass objects of another kind (a Pod):
//     an EventObject can only hold API objects.
// Also scorer_test.go's TestScore (every case): the scorer is part of Score here, so each case's
// per-class requested / capacity bytes become a claim and a matching PV per class on one node, scored
// with the case's shape (upstream's raw scores are the args' shape scores times 10).
// Added here: EventsToRegister (with and without queueing hints), Reserve/Unreserve as seen by another
// pod's Filter, PreBind writing to the API, PreBind ending on shutdown, and create()'s argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/volumebinding/volume_binding.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/scheduler/framework/plugins/volumebinding/test_utils.h"
#include "test/support/wrappers.h"

namespace ks::framework {
// Readable statuses in failure messages (found by gtest through ADL).
[[maybe_unused]] static void PrintTo(const Status& s, std::ostream* os) {
  *os << s.toString();
}
}  // namespace ks::framework

namespace ks::plugins::volumebinding {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;
using ks::testing::mustParse;
using volumebinding::testutil::kLabelHostname;
using volumebinding::testutil::kNodeLabelKey;
using volumebinding::testutil::makeCapacity;
using volumebinding::testutil::makeNode;
using volumebinding::testutil::makePod;
using volumebinding::testutil::makePV;
using volumebinding::testutil::makePVC;
using PV = api::PersistentVolume;
using PVC = api::PersistentVolumeClaim;

// PreBindPreFlight, checking that VolumeBinding always lets its PreBind run in parallel (upstream's
// AllowParallel: true on every path).
Status preFlight(VolumeBinding& plugin, framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) {
  framework::PreBindPreFlightResult result;
  Status s = plugin.preBindPreFlight(state, pod, node, result);
  EXPECT_TRUE(result.allowParallel);
  return s;
}

const std::string kHostname(kLabelHostname);

api::StorageClass storageClass(const std::string& name, const std::string& mode,
                               const std::string& provisioner = "") {
  api::StorageClass sc;
  sc.metadata.name = name;
  sc.volumeBindingMode = mode;
  sc.provisioner = provisioner;
  return sc;
}

const api::StorageClass immediateSC = storageClass("immediate-sc", "Immediate");
const api::StorageClass waitSC = storageClass("wait-sc", "WaitForFirstConsumer");
const api::StorageClass waitHDDSC = storageClass("wait-hdd-sc", "WaitForFirstConsumer");
const api::StorageClass waitSCWithStorageCapacity =
    storageClass("wait-sc-with-storage-capacity", "WaitForFirstConsumer", "driver-with-storage-capacity");

api::CSIDriver driverWithStorageCapacity() {
  api::CSIDriver d;
  d.metadata.name = "driver-with-storage-capacity";
  d.spec.storageCapacity = true;
  return d;
}

const std::vector<config::UtilizationShapePoint> kDefaultShapePoint = {{0, 0}, {100, 10}};

config::VolumeBindingArgs args(std::vector<config::UtilizationShapePoint> shape) {
  config::VolumeBindingArgs a;
  a.bindTimeoutSeconds = 300;
  a.shape = std::move(shape);
  return a;
}

// Code and reasons equal (upstream compares whole statuses; ours also carry the wrapped error).
void expectStatus(const Status& got, const Status& want, const std::string& what) {
  EXPECT_EQ(got.code(), want.code()) << what << ": " << got.toString();
  EXPECT_EQ(got.reasons(), want.reasons()) << what;
}

Status unresolvable(std::vector<std::string> reasons) {
  return Status(Code::UnschedulableAndUnresolvable, std::move(reasons));
}

// What the API server assigns, cleared for comparisons.
template <class T>
T normalized(T obj) {
  obj.metadata.uid.clear();
  obj.metadata.resourceVersion.clear();
  obj.metadata.creationTimestamp.reset();
  obj.metadata.generation = 0;
  return obj;
}

// The claims PreFilter keeps (upstream's stateData.podVolumeClaims).
struct WantClaims {
  std::vector<PVC> boundClaims;
  std::vector<PVC> unboundClaimsDelayBinding;
  std::map<std::string, std::vector<PV>> unboundVolumesDelayBinding;
};

void expectClaims(const PodVolumeClaims& got, const WantClaims& want) {
  auto claims = [](const std::vector<PVCPtr>& v) {
    std::vector<PVC> out;
    for (const auto& c : v) out.push_back(normalized(*c));
    return out;
  };
  EXPECT_EQ(claims(got.boundClaims), want.boundClaims);
  EXPECT_EQ(claims(got.unboundClaimsDelayBinding), want.unboundClaimsDelayBinding);
  EXPECT_TRUE(got.unboundClaimsImmediate.empty());
  std::map<std::string, std::vector<PV>> volumes;
  for (const auto& [cls, pvs] : got.unboundVolumesDelayBinding) {
    auto& out = volumes[cls];
    for (const auto& pv : pvs) out.push_back(normalized(*pv));
    std::sort(out.begin(), out.end(),
              [](const PV& a, const PV& b) { return a.metadata.name < b.metadata.name; });
  }
  EXPECT_EQ(volumes, want.unboundVolumesDelayBinding);
}

// The API server, informers and handle a plugin runs with; plus a binder over the same informers that
// shows what PreFilter keeps.
class PluginEnv {
 public:
  PluginEnv() {
    handle_.setClient(&client_);
    handle_.setSharedInformerFactory(&factory_);
    pvCache_->watch(factory_.persistentVolumes());
    pvcCache_->watch(factory_.persistentVolumeClaims());
    auto* classes = &factory_.storageClasses();
    VolumeBinderListers listers;
    listers.storageClass = [classes](const std::string& name) { return classes->store().get(name); };
    claimsBinder_ = newVolumeBinder(client_, std::move(listers), pvCache_, pvcCache_,
                                    newInTreeToCSITranslator(), nullptr, {});
  }
  // The informers call into the plugin's caches: stop them first.
  ~PluginEnv() { factory_.stop(); }
  PluginEnv(const PluginEnv&) = delete;
  PluginEnv& operator=(const PluginEnv&) = delete;

  VolumeBinding& create(const config::VolumeBindingArgs& args, VolumeBinding::Features features) {
    auto plugin = VolumeBinding::create(&args, handle_, features);
    EXPECT_TRUE(plugin.ok()) << plugin.error().message();
    plugin_ = std::move(plugin).value();
    return dynamic_cast<VolumeBinding&>(*plugin_);
  }

  template <class T>
  void add(const T& obj) {
    auto r = client_.create(obj);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  void start() {
    factory_.start();
    ASSERT_TRUE(factory_.waitForCacheSync(std::chrono::seconds(30)));
  }

  client::MemoryClient& api() { return client_; }
  plugintesting::FakeHandle& handle() { return handle_; }
  SchedulerVolumeBinder& claimsBinder() { return *claimsBinder_; }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_{client_};
  plugintesting::FakeHandle handle_;
  std::unique_ptr<framework::Plugin> plugin_;
  std::shared_ptr<PVAssumeCache> pvCache_ = std::make_shared<PVAssumeCache>();
  std::shared_ptr<PVCAssumeCache> pvcCache_ = std::make_shared<PVCAssumeCache>();
  std::unique_ptr<SchedulerVolumeBinder> claimsBinder_;
};

struct VolumeBindingCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<PVC> pvcs;
  std::vector<PV> pvs;
  std::vector<api::CSIStorageCapacity> capacities;
  bool enableStorageCapacityScoring = false;
  std::optional<config::VolumeBindingArgs> args;
  Status wantPreFilterStatus;
  std::optional<WantClaims> wantStateAfterPreFilter;
  std::vector<Status> wantFilterStatus;
  std::vector<int64_t> wantScores;
  Status wantPreScoreStatus;
};

PV localPV(const std::string& name, const std::string& cls, const std::string& capacity,
           const std::string& node) {
  return makePV(name, cls)
      .withPhase("Available")
      .withCapacity(mustParse(capacity))
      .withNodeAffinity({{kHostname, {node}}})
      .pv;
}

PV zonalPV(const std::string& name, const std::string& capacity, const std::string& region,
           const std::string& zone) {
  return makePV(name, waitSC.metadata.name)
      .withPhase("Available")
      .withCapacity(mustParse(capacity))
      .withNodeAffinity(
          {{"topology.kubernetes.io/region", {region}}, {"topology.kubernetes.io/zone", {zone}}})
      .pv;
}

api::Node zonalNode(const std::string& name, const std::string& region, const std::string& zone) {
  return makeNode(name)
      .withLabel("topology.kubernetes.io/region", region)
      .withLabel("topology.kubernetes.io/zone", zone)
      .node;
}

api::Node labelledNode(const std::string& name) {
  return makeNode(name).withLabel(kNodeLabelKey, name).node;
}

std::vector<VolumeBindingCase> volumeBindingCases() {
  const std::string wait = waitSC.metadata.name;
  const std::string waitHDD = waitHDDSC.metadata.name;
  const std::string waitCap = waitSCWithStorageCapacity.metadata.name;
  const Status skip(Code::Skip);
  const Status noPVsToBind = unresolvable({"node(s) didn't find available persistent volumes to bind"});
  const std::vector<api::Node> zonalNodes = {
      zonalNode("zone-a-node-a", "region-a", "zone-a"), zonalNode("zone-a-node-b", "region-a", "zone-a"),
      zonalNode("zone-b-node-a", "region-b", "zone-b"), zonalNode("zone-b-node-b", "region-b", "zone-b"),
      zonalNode("zone-c-node-a", "region-c", "zone-c"), zonalNode("zone-c-node-b", "region-c", "zone-c"),
  };
  const std::vector<PV> zonalPVs = {
      zonalPV("pv-a-0", "200Gi", "region-a", "zone-a"),
      zonalPV("pv-a-1", "200Gi", "region-a", "zone-a"),
      zonalPV("pv-b-0", "100Gi", "region-b", "zone-b"),
      zonalPV("pv-b-1", "100Gi", "region-b", "zone-b"),
  };
  const std::vector<PV> localPVs = {
      localPV("pv-a-0", wait, "200Gi", "node-a"),
      localPV("pv-a-1", wait, "200Gi", "node-a"),
      localPV("pv-b-0", wait, "100Gi", "node-b"),
      localPV("pv-b-1", wait, "100Gi", "node-b"),
  };
  const std::vector<api::Node> abcNodes = {makeNode("node-a").node, makeNode("node-b").node,
                                           makeNode("node-c").node};
  const std::vector<api::Node> labelledNodes = {labelledNode("node-a"), labelledNode("node-b"),
                                                labelledNode("node-c")};
  const api::Node nodeA = labelledNode("node-a");
  const api::Node nodeB = labelledNode("node-b");
  const api::Node nodeC = labelledNode("node-c");

  return {
      {.name = "pod has not pvcs",
       .pod = makePod("pod-a").pod,
       .nodes = {makeNode("node-a").node},
       .wantPreFilterStatus = skip,
       .wantFilterStatus = {Status()},
       .wantPreScoreStatus = skip},
      {.name = "all bound",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = {makeNode("node-a").node},
       .pvcs = {makePVC("pvc-a", wait).withBoundPV("pv-a").pvc},
       .pvs = {makePV("pv-a", wait).withPhase("Available").pv},
       .wantStateAfterPreFilter = WantClaims{.boundClaims = {makePVC("pvc-a", wait).withBoundPV("pv-a").pvc}},
       .wantFilterStatus = {Status()},
       .wantPreScoreStatus = skip},
      {.name = "PVC does not exist",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = {makeNode("node-a").node},
       .wantPreFilterStatus = unresolvable({R"(persistentvolumeclaim "pvc-a" not found)"}),
       .wantFilterStatus = {Status()},
       .wantScores = {0}},
      {.name = "Part of PVCs do not exist",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").withPVCVolume("pvc-b", "").pod,
       .nodes = {makeNode("node-a").node},
       .pvcs = {makePVC("pvc-a", wait).withBoundPV("pv-a").pvc},
       .wantPreFilterStatus = unresolvable({R"(persistentvolumeclaim "pvc-b" not found)"}),
       .wantFilterStatus = {Status()},
       .wantScores = {0}},
      {.name = "immediate claims not bound",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = {makeNode("node-a").node},
       .pvcs = {makePVC("pvc-a", immediateSC.metadata.name).pvc},
       .wantPreFilterStatus = unresolvable({"pod has unbound immediate PersistentVolumeClaims"}),
       .wantFilterStatus = {Status()},
       .wantScores = {0}},
      {.name = "unbound claims no matches",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = {makeNode("node-a").node},
       .pvcs = {makePVC("pvc-a", wait).pvc},
       .wantStateAfterPreFilter = WantClaims{.unboundClaimsDelayBinding = {makePVC("pvc-a", wait).pvc},
                                             .unboundVolumesDelayBinding = {{wait, {}}}},
       .wantFilterStatus = {noPVsToBind},
       .wantPreScoreStatus = skip},
      {.name = "bound and unbound unsatisfied",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").withPVCVolume("pvc-b", "").pod,
       .nodes = {makeNode("node-a").withLabel("foo", "barbar").node},
       .pvcs = {makePVC("pvc-a", wait).withBoundPV("pv-a").pvc, makePVC("pvc-b", wait).pvc},
       .pvs = {makePV("pv-a", wait).withPhase("Available").withNodeAffinity({{"foo", {"bar"}}}).pv},
       .wantStateAfterPreFilter =
           WantClaims{
               .boundClaims = {makePVC("pvc-a", wait).withBoundPV("pv-a").pvc},
               .unboundClaimsDelayBinding = {makePVC("pvc-b", wait).pvc},
               .unboundVolumesDelayBinding =
                   {{wait,
                     {makePV("pv-a", wait).withPhase("Available").withNodeAffinity({{"foo", {"bar"}}}).pv}}}},
       .wantFilterStatus = {unresolvable({"node(s) didn't match PersistentVolume's node affinity",
                                          "node(s) didn't find available persistent volumes to bind"})},
       .wantPreScoreStatus = skip},
      {.name = "pv not found",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = {makeNode("node-a").node},
       .pvcs = {makePVC("pvc-a", wait).withBoundPV("pv-a").pvc},
       .wantStateAfterPreFilter = WantClaims{.boundClaims = {makePVC("pvc-a", wait).withBoundPV("pv-a").pvc}},
       .wantFilterStatus = {unresolvable(
           {"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"})},
       .wantPreScoreStatus = skip},
      {.name = "pv not found claim lost",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = {makeNode("node-a").node},
       .pvcs = {makePVC("pvc-a", wait).withBoundPV("pv-a").withPhase("Lost").pvc},
       .wantPreFilterStatus =
           unresolvable({R"(persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a")"}),
       .wantFilterStatus = {Status()},
       .wantScores = {0}},
      {.name = "local volumes with close capacity are preferred",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = abcNodes,
       .pvcs = {makePVC("pvc-a", wait).withRequestStorage(mustParse("50Gi")).pvc},
       .pvs = localPVs,
       .enableStorageCapacityScoring = true,
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-a", wait).withRequestStorage(mustParse("50Gi")).pvc},
                      .unboundVolumesDelayBinding = {{wait, localPVs}}},
       .wantFilterStatus = {Status(), Status(), noPVsToBind},
       .wantScores = {25, 50, 0}},
      {.name = "local volumes with close capacity are preferred (multiple pvcs)",
       .pod = makePod("pod-a").withPVCVolume("pvc-0", "").withPVCVolume("pvc-1", "").pod,
       .nodes = abcNodes,
       .pvcs = {makePVC("pvc-0", wait).withRequestStorage(mustParse("50Gi")).pvc,
                makePVC("pvc-1", waitHDD).withRequestStorage(mustParse("100Gi")).pvc},
       .pvs = {localPV("pv-a-0", wait, "200Gi", "node-a"), localPV("pv-a-1", wait, "200Gi", "node-a"),
               localPV("pv-a-2", waitHDD, "200Gi", "node-a"), localPV("pv-a-3", waitHDD, "200Gi", "node-a"),
               localPV("pv-b-0", wait, "100Gi", "node-b"), localPV("pv-b-1", wait, "100Gi", "node-b"),
               localPV("pv-b-2", waitHDD, "100Gi", "node-b"), localPV("pv-b-3", waitHDD, "100Gi", "node-b")},
       .enableStorageCapacityScoring = true,
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-0", wait).withRequestStorage(mustParse("50Gi")).pvc,
                           makePVC("pvc-1", waitHDD).withRequestStorage(mustParse("100Gi")).pvc},
                      .unboundVolumesDelayBinding = {{waitHDD,
                                                      {localPV("pv-a-2", waitHDD, "200Gi", "node-a"),
                                                       localPV("pv-a-3", waitHDD, "200Gi", "node-a"),
                                                       localPV("pv-b-2", waitHDD, "100Gi", "node-b"),
                                                       localPV("pv-b-3", waitHDD, "100Gi", "node-b")}},
                                                     {wait, localPVs}}},
       .wantFilterStatus = {Status(), Status(), noPVsToBind},
       .wantScores = {38, 75, 0}},
      {.name = "zonal volumes with close capacity are preferred",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = zonalNodes,
       .pvcs = {makePVC("pvc-a", wait).withRequestStorage(mustParse("50Gi")).pvc},
       .pvs = zonalPVs,
       .enableStorageCapacityScoring = true,
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-a", wait).withRequestStorage(mustParse("50Gi")).pvc},
                      .unboundVolumesDelayBinding = {{wait, zonalPVs}}},
       .wantFilterStatus = {Status(), Status(), Status(), Status(), noPVsToBind, noPVsToBind},
       .wantScores = {25, 25, 50, 50, 0, 0}},
      {.name = "zonal volumes with close capacity are preferred (custom shape)",
       .pod = makePod("pod-a").withPVCVolume("pvc-a", "").pod,
       .nodes = zonalNodes,
       .pvcs = {makePVC("pvc-a", wait).withRequestStorage(mustParse("50Gi")).pvc},
       .pvs = zonalPVs,
       .enableStorageCapacityScoring = true,
       .args = args({{0, 0}, {50, 3}, {100, 5}}),
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-a", wait).withRequestStorage(mustParse("50Gi")).pvc},
                      .unboundVolumesDelayBinding = {{wait, zonalPVs}}},
       .wantFilterStatus = {Status(), Status(), Status(), Status(), noPVsToBind, noPVsToBind},
       .wantScores = {15, 15, 30, 30, 0, 0}},
      {.name = "storage capacity score",
       .pod = makePod("pod-a").withPVCVolume("pvc-dynamic", "").pod,
       .nodes = labelledNodes,
       .pvcs = {makePVC("pvc-dynamic", waitCap).withRequestStorage(mustParse("10Gi")).pvc},
       .capacities = {makeCapacity("node-a", waitCap, &nodeA, "100Gi", ""),
                      makeCapacity("node-b", waitCap, &nodeB, "50Gi", ""),
                      makeCapacity("node-c", waitCap, &nodeC, "10Gi", "")},
       .enableStorageCapacityScoring = true,
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-dynamic", waitCap).withRequestStorage(mustParse("10Gi")).pvc},
                      .unboundVolumesDelayBinding = {{waitCap, {}}}},
       .wantFilterStatus = {Status(), Status(), Status()},
       .wantScores = {10, 20, 100}},
      {.name = "storage capacity score with static binds",
       .pod = makePod("pod-a").withPVCVolume("pvc-dynamic", "").withPVCVolume("pvc-static", "").pod,
       .nodes = labelledNodes,
       .pvcs = {makePVC("pvc-dynamic", waitCap).withRequestStorage(mustParse("10Gi")).pvc,
                makePVC("pvc-static", wait).withRequestStorage(mustParse("50Gi")).pvc},
       .pvs = {localPV("pv-static-a", wait, "100Gi", "node-a"),
               localPV("pv-static-b", wait, "100Gi", "node-b"),
               localPV("pv-static-c", wait, "100Gi", "node-c")},
       .capacities = {makeCapacity("node-a", waitCap, &nodeA, "100Gi", ""),
                      makeCapacity("node-b", waitCap, &nodeB, "50Gi", ""),
                      makeCapacity("node-c", waitCap, &nodeC, "10Gi", "")},
       .enableStorageCapacityScoring = true,
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-dynamic", waitCap).withRequestStorage(mustParse("10Gi")).pvc,
                           makePVC("pvc-static", wait).withRequestStorage(mustParse("50Gi")).pvc},
                      .unboundVolumesDelayBinding = {{wait,
                                                      {localPV("pv-static-a", wait, "100Gi", "node-a"),
                                                       localPV("pv-static-b", wait, "100Gi", "node-b"),
                                                       localPV("pv-static-c", wait, "100Gi", "node-c")}},
                                                     {waitCap, {}}}},
       .wantFilterStatus = {Status(), Status(), Status()},
       .wantScores = {50, 50, 50}},
      {.name = "dynamic provisioning with multiple PVCs of the same StorageClass",
       .pod = makePod("pod-a").withPVCVolume("pvc-dynamic-0", "").withPVCVolume("pvc-dynamic-1", "").pod,
       .nodes = {nodeA},
       .pvcs = {makePVC("pvc-dynamic-0", waitCap).withRequestStorage(mustParse("50Gi")).pvc,
                makePVC("pvc-dynamic-1", waitCap).withRequestStorage(mustParse("50Gi")).pvc},
       .capacities = {makeCapacity("node-a", waitCap, &nodeA, "100Gi", "")},
       .enableStorageCapacityScoring = true,
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-dynamic-0", waitCap).withRequestStorage(mustParse("50Gi")).pvc,
                           makePVC("pvc-dynamic-1", waitCap).withRequestStorage(mustParse("50Gi")).pvc},
                      .unboundVolumesDelayBinding = {{waitCap, {}}}},
       .wantFilterStatus = {Status()},
       .wantScores = {100}},
      {.name = "prefer node with least allocatable",
       .pod = makePod("pod-a").withPVCVolume("pvc-dynamic", "").pod,
       .nodes = labelledNodes,
       .pvcs = {makePVC("pvc-dynamic", waitCap).withRequestStorage(mustParse("10Gi")).pvc},
       .capacities = {makeCapacity("node-a", waitCap, &nodeA, "100Gi", ""),
                      makeCapacity("node-b", waitCap, &nodeB, "20Gi", ""),
                      makeCapacity("node-c", waitCap, &nodeC, "10Gi", "")},
       .enableStorageCapacityScoring = true,
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-dynamic", waitCap).withRequestStorage(mustParse("10Gi")).pvc},
                      .unboundVolumesDelayBinding = {{waitCap, {}}}},
       .wantFilterStatus = {Status(), Status(), Status()},
       .wantScores = {10, 50, 100}},
      {.name = "prefer node with maximum allocatable",
       .pod = makePod("pod-a").withPVCVolume("pvc-dynamic", "").pod,
       .nodes = labelledNodes,
       .pvcs = {makePVC("pvc-dynamic", waitCap).withRequestStorage(mustParse("10Gi")).pvc},
       .capacities = {makeCapacity("node-a", waitCap, &nodeA, "100Gi", ""),
                      makeCapacity("node-b", waitCap, &nodeB, "20Gi", ""),
                      makeCapacity("node-c", waitCap, &nodeC, "10Gi", "")},
       .enableStorageCapacityScoring = true,
       .args = args({{0, 10}, {100, 0}}),
       .wantStateAfterPreFilter =
           WantClaims{.unboundClaimsDelayBinding =
                          {makePVC("pvc-dynamic", waitCap).withRequestStorage(mustParse("10Gi")).pvc},
                      .unboundVolumesDelayBinding = {{waitCap, {}}}},
       .wantFilterStatus = {Status(), Status(), Status()},
       .wantScores = {90, 50, 0}},
  };
}

TEST(VolumeBindingPluginTest, VolumeBinding) {
  for (const VolumeBindingCase& item : volumeBindingCases()) {
    SCOPED_TRACE(item.name);
    PluginEnv env;
    // Default args when the case has none.
    const config::VolumeBindingArgs pluginArgs = item.args.value_or(
        args(item.enableStorageCapacityScoring ? kDefaultShapePoint
                                               : std::vector<config::UtilizationShapePoint>{}));
    VolumeBinding::Features features;
    features.enableStorageCapacityScoring = item.enableStorageCapacityScoring;
    VolumeBinding& p = env.create(pluginArgs, features);
    if (::testing::Test::HasFatalFailure()) return;

    // Feed the test data, then start the informers and wait for them to sync.
    for (const auto& sc : {immediateSC, waitSC, waitHDDSC, waitSCWithStorageCapacity}) env.add(sc);
    env.add(driverWithStorageCapacity());
    for (const auto& node : item.nodes) env.add(node);
    for (const auto& pvc : item.pvcs) env.add(pvc);
    for (const auto& pv : item.pvs) env.add(pv);
    for (const auto& capacity : item.capacities) env.add(capacity);
    env.start();

    std::vector<api::NodePtr> nodes;
    for (const auto& n : item.nodes) nodes.push_back(std::make_shared<const api::Node>(n));
    const auto nodeInfos = plugintesting::buildNodeInfos(nodes);
    const auto podInfo = framework::PodInfo::create(std::make_shared<const api::Pod>(item.pod));
    framework::CycleState state;

    framework::PreFilterResult result;
    const Status preFilter = p.preFilter(state, *podInfo, {}, result);
    expectStatus(preFilter, item.wantPreFilterStatus, "PreFilter");
    EXPECT_TRUE(result.allNodes());
    if (!preFilter.isSuccess()) continue;  // the framework skips Filter after a failed PreFilter

    if (item.wantStateAfterPreFilter) {
      auto claims = env.claimsBinder().getPodVolumeClaims(item.pod);
      ASSERT_TRUE(claims.ok()) << claims.error().message();
      expectClaims(*claims, *item.wantStateAfterPreFilter);
    }

    ASSERT_EQ(nodeInfos.size(), item.wantFilterStatus.size());
    for (size_t i = 0; i < nodeInfos.size(); ++i) {
      expectStatus(p.filter(state, *podInfo, *nodeInfos[i]), item.wantFilterStatus[i],
                   "Filter " + nodeInfos[i]->node()->metadata.name);
    }

    const Status preScore = p.preScore(state, *podInfo, nodeInfos);
    expectStatus(preScore, item.wantPreScoreStatus, "PreScore");
    if (!preScore.isSuccess()) continue;

    ASSERT_EQ(nodeInfos.size(), item.wantScores.size());
    for (size_t i = 0; i < nodeInfos.size(); ++i) {
      int64_t score = -1;
      const Status s = p.score(state, *podInfo, *nodeInfos[i], score);
      EXPECT_TRUE(s.isSuccess()) << s.toString();
      EXPECT_EQ(score, item.wantScores[i]) << "node " << nodeInfos[i]->node()->metadata.name;
    }
  }
}

// A pod with one WaitForFirstConsumer claim and, on node-a, an available PV for it (plus `moreClaims`).
struct PreBindFixture {
  explicit PreBindFixture(const std::vector<PVC>& moreClaims = {}, VolumeBinding::Features features = {}) {
    plugin = &env.create(args({}), features);
    env.add(waitSC);
    env.add(makeNode("node-a").node);
    env.add(makeNode("node-b").node);
    env.add(makePVC("pvc-a", waitSC.metadata.name).pvc);
    for (const PVC& pvc : moreClaims) env.add(pvc);
    env.add(localPV("pv-a", waitSC.metadata.name, "1Gi", "node-a"));
    env.start();
    nodeInfos = plugintesting::buildNodeInfos({makeNode("node-a").ptr(), makeNode("node-b").ptr()});
  }
  PluginEnv env;
  VolumeBinding* plugin = nullptr;
  std::vector<framework::NodeInfoPtr> nodeInfos;
  framework::PodInfoPtr pod = framework::PodInfo::create(makePod("pod-a").withPVCVolume("pvc-a", "").ptr());
};

TEST(VolumeBindingPluginTest, PreBindPreFlight) {
  {
    SCOPED_TRACE("all bound");
    PreBindFixture f;
    framework::CycleState state;
    framework::PreFilterResult result;
    const auto noClaims = framework::PodInfo::create(makePod("pod-b").ptr());
    ASSERT_TRUE(f.plugin->preFilter(state, *noClaims, {}, result).isSkip());
    ASSERT_TRUE(f.plugin->reserve(state, *noClaims, "node-a").isSuccess());
    expectStatus(preFlight(*f.plugin, state, *noClaims, "node-a"), Status(Code::Skip),
                 "PreBindPreFlight");
  }
  {
    SCOPED_TRACE("volume to be bound");
    PreBindFixture f;
    framework::CycleState state;
    framework::PreFilterResult result;
    ASSERT_TRUE(f.plugin->preFilter(state, *f.pod, {}, result).isSuccess());
    ASSERT_TRUE(f.plugin->filter(state, *f.pod, *f.nodeInfos[0]).isSuccess());
    expectStatus(preFlight(*f.plugin, state, *f.pod, "node-a"), Status(), "PreBindPreFlight");
  }
  {
    SCOPED_TRACE("error: state is nil");
    PreBindFixture f;
    framework::CycleState state;
    expectStatus(preFlight(*f.plugin, state, *f.pod, "node-a"), Status::error("not found"),
                 "PreBindPreFlight");
  }
  {
    SCOPED_TRACE("error: node is not found in podVolumesByNode");
    PreBindFixture f;
    framework::CycleState state;
    framework::PreFilterResult result;
    ASSERT_TRUE(f.plugin->preFilter(state, *f.pod, {}, result).isSuccess());
    // The PV is on node-a only: node-b gets no pod volumes.
    EXPECT_FALSE(f.plugin->filter(state, *f.pod, *f.nodeInfos[1]).isSuccess());
    ASSERT_TRUE(f.plugin->filter(state, *f.pod, *f.nodeInfos[0]).isSuccess());
    expectStatus(preFlight(*f.plugin, state, *f.pod, "node-b"),
                 Status::error(R"(no pod volume found for node "node-b")"), "PreBindPreFlight");
  }
}

// scorer_test.go TestScore, through Filter and Score (see the file comment).
struct ScoreCase {
  std::map<std::string, std::pair<int64_t, int64_t>> classResources;  // class -> {requested, capacity}
  int64_t score;
};

TEST(VolumeBindingPluginTest, Score) {
  struct Group {
    std::string name;
    std::vector<config::UtilizationShapePoint> shape;
    std::vector<ScoreCase> cases;
  };
  const std::vector<Group> groups = {
      {"default shape, single class",
       kDefaultShapePoint,
       {
           {{{"hdd", {0, 100}}}, 0},
           {{{"hdd", {30, 100}}}, 30},
           {{{"hdd", {50, 100}}}, 50},
           {{{"hdd", {100, 100}}}, 100},
       }},
      {"default shape, multiple classes",
       kDefaultShapePoint,
       {
           {{{"hdd", {0, 100}}, {"ssd", {0, 100}}}, 0},
           {{{"hdd", {0, 100}}, {"ssd", {30, 100}}}, 15},
           {{{"hdd", {30, 100}}, {"ssd", {30, 100}}}, 30},
           {{{"hdd", {30, 100}}, {"ssd", {60, 100}}}, 45},
           {{{"hdd", {50, 100}}, {"ssd", {50, 100}}}, 50},
           {{{"hdd", {50, 100}}, {"ssd", {100, 100}}}, 75},
           {{{"hdd", {100, 100}}, {"ssd", {100, 100}}}, 100},
       }},
      {"custom shape, multiple classes",
       {{50, 0}, {80, 3}, {100, 5}},
       {
           {{{"hdd", {0, 100}}, {"ssd", {0, 100}}}, 0},
           {{{"hdd", {0, 100}}, {"ssd", {30, 100}}}, 0},
           {{{"hdd", {30, 100}}, {"ssd", {30, 100}}}, 0},
           {{{"hdd", {30, 100}}, {"ssd", {60, 100}}}, 5},
           {{{"hdd", {50, 100}}, {"ssd", {100, 100}}}, 25},
           {{{"hdd", {90, 100}}, {"ssd", {90, 100}}}, 40},
           {{{"hdd", {100, 100}}, {"ssd", {100, 100}}}, 50},
       }},
  };
  for (const Group& g : groups) {
    for (size_t i = 0; i < g.cases.size(); ++i) {
      SCOPED_TRACE(g.name + " #" + std::to_string(i));
      const ScoreCase& c = g.cases[i];
      PluginEnv env;
      VolumeBinding::Features features;
      features.enableStorageCapacityScoring = true;
      VolumeBinding& p = env.create(args(g.shape), features);
      if (::testing::Test::HasFatalFailure()) return;
      env.add(makeNode("node-a").node);
      auto pod = makePod("pod-a");
      for (const auto& [cls, resource] : c.classResources) {
        env.add(storageClass(cls, "WaitForFirstConsumer"));
        env.add(makePVC("pvc-" + cls, cls).withRequestStorage(api::Quantity::fromInt(resource.first)).pvc);
        env.add(makePV("pv-" + cls, cls)
                    .withPhase("Available")
                    .withCapacity(api::Quantity::fromInt(resource.second))
                    .withNodeAffinity({{kHostname, {"node-a"}}})
                    .pv);
        pod.withPVCVolume("pvc-" + cls, "");
      }
      env.start();

      const auto nodeInfos = plugintesting::buildNodeInfos({makeNode("node-a").ptr()});
      const auto podInfo = framework::PodInfo::create(pod.ptr());
      framework::CycleState state;
      framework::PreFilterResult result;
      ASSERT_TRUE(p.preFilter(state, *podInfo, {}, result).isSuccess());
      expectStatus(p.filter(state, *podInfo, *nodeInfos[0]), Status(), "Filter");
      expectStatus(p.preScore(state, *podInfo, nodeInfos), Status(), "PreScore");
      int64_t score = -1;
      expectStatus(p.score(state, *podInfo, *nodeInfos[0], score), Status(), "Score");
      EXPECT_EQ(score, c.score);
    }
  }
}

// --- queueing hints ---

struct HintCase {
  std::string name;
  api::Pod pod;
  EventObject oldObj;
  EventObject newObj;
  bool wantErr = false;
  QueueingHint expect = QueueingHint::Queue;
};

using HintFn = Result<QueueingHint> (*)(const api::Pod&, const EventObject&, const EventObject&);

void runHints(HintFn fn, const std::vector<HintCase>& cases) {
  for (const HintCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto hint = fn(c.pod, c.oldObj, c.newObj);
    EXPECT_EQ(!hint.ok(), c.wantErr) << (hint.ok() ? std::string("no error") : hint.error().message());
    // An error means Queue, as upstream returns it with the error.
    EXPECT_EQ(hint.ok() ? *hint : QueueingHint::Queue, c.expect);
  }
}

// An object of another kind, for the type checks.
EventObject wrongType() {
  return makePod("not-a-storage-object").ptr();
}

EventObject csiNode(const std::optional<std::string>& migratedPlugins) {
  auto n = std::make_shared<api::CSINode>();
  n->metadata.name = "csinode-a";
  if (migratedPlugins)
    n->metadata.annotations[std::string(volume::kMigratedPluginsAnnotation)] = *migratedPlugins;
  return std::shared_ptr<const api::CSINode>(n);
}

TEST(VolumeBindingPluginTest, IsSchedulableAfterCSINodeChange) {
  const api::Pod pod = makePod("pod-a").pod;
  runHints(
      &VolumeBinding::isSchedulableAfterCSINodeChange,
      {
          {"unexpected objects are passed", pod, wrongType(), wrongType(), true, QueueingHint::Queue},
          {"CSINode is newly created", pod, EventObject{}, csiNode(std::nullopt), false, QueueingHint::Queue},
          {"CSINode's migrated-plugins annotations is added", pod, csiNode("test1"), csiNode("test1, test2"),
           false, QueueingHint::Queue},
          {"CSINode's migrated-plugins annotation is updated", pod, csiNode("test1"), csiNode("test2"), false,
           QueueingHint::Queue},
          {"CSINode is updated but migrated-plugins annotation gets unchanged", pod, csiNode("test1"),
           csiNode("test1"), false, QueueingHint::QueueSkip},
      });
}

EventObject pvcObj(const std::string& name, const std::string& cls) {
  return makePVC(name, cls).ptr();
}

TEST(VolumeBindingPluginTest, IsSchedulableAfterPersistentVolumeClaimChange) {
  runHints(
      &VolumeBinding::isSchedulableAfterPersistentVolumeClaimChange,
      {
          {"pod has no pvc or ephemeral volumes", makePod("pod-a").withEmptyDirVolume().pod,
           pvcObj("pvc-b", "sc-a"), pvcObj("pvc-b", "sc-a"), false, QueueingHint::QueueSkip},
          {"pvc with the same name as the one used by the pod in a different namespace is modified",
           makePod("pod-a").withNamespace("ns-a").withPVCVolume("pvc-a", "").withPVCVolume("pvc-b", "").pod,
           EventObject{}, pvcObj("pvc-b", ""), false, QueueingHint::QueueSkip},
          {"pod has no pvc that is being modified",
           makePod("pod-a").withPVCVolume("pvc-a", "").withPVCVolume("pvc-c", "").pod, pvcObj("pvc-b", ""),
           pvcObj("pvc-b", ""), false, QueueingHint::QueueSkip},
          {"pod has no generic ephemeral volume that is being modified",
           makePod("pod-a")
               .withGenericEphemeralVolume("ephemeral-a")
               .withGenericEphemeralVolume("ephemeral-c")
               .pod,
           pvcObj("pod-a-ephemeral-b", ""), pvcObj("pod-a-ephemeral-b", ""), false, QueueingHint::QueueSkip},
          {"pod has the pvc that is being modified",
           makePod("pod-a").withPVCVolume("pvc-a", "").withPVCVolume("pvc-b", "").pod, pvcObj("pvc-b", ""),
           pvcObj("pvc-b", ""), false, QueueingHint::Queue},
          {"pod has the generic ephemeral volume that is being modified",
           makePod("pod-a")
               .withGenericEphemeralVolume("ephemeral-a")
               .withGenericEphemeralVolume("ephemeral-b")
               .pod,
           pvcObj("pod-a-ephemeral-b", ""), pvcObj("pod-a-ephemeral-b", ""), false, QueueingHint::Queue},
          {"type conversion error", api::Pod{}, wrongType(), wrongType(), true, QueueingHint::Queue},
      });
}

EventObject scObj(std::vector<api::TopologySelectorTerm> allowedTopologies = {}) {
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = "sc-a";
  sc->allowedTopologies = std::move(allowedTopologies);
  return std::shared_ptr<const api::StorageClass>(sc);
}

TEST(VolumeBindingPluginTest, IsSchedulableAfterStorageClassChange) {
  const api::Pod pod = makePod("pod-a").pod;
  runHints(&VolumeBinding::isSchedulableAfterStorageClassChange,
           {
               {"When a new StorageClass is created, it returns Queue", pod, EventObject{}, scObj(), false,
                QueueingHint::Queue},
               {"When the AllowedTopologies are changed, it returns Queue", pod, scObj(),
                scObj({{{{"kubernetes.io/hostname", {"node-a"}}}}}), false, QueueingHint::Queue},
               {"When there are no changes to the StorageClass, it returns QueueSkip", pod, scObj(), scObj(),
                false, QueueingHint::QueueSkip},
               {"type conversion error", api::Pod{}, wrongType(), wrongType(), true, QueueingHint::Queue},
           });
}

EventObject capObj(std::optional<int64_t> capacity, std::optional<int64_t> maximumVolumeSize) {
  auto c = std::make_shared<api::CSIStorageCapacity>();
  c->metadata.name = "cap-a";
  if (capacity) c->capacity = api::Quantity::fromInt(*capacity);
  if (maximumVolumeSize) c->maximumVolumeSize = api::Quantity::fromInt(*maximumVolumeSize);
  return std::shared_ptr<const api::CSIStorageCapacity>(c);
}

TEST(VolumeBindingPluginTest, IsSchedulableAfterCSIStorageCapacityChange) {
  const api::Pod pod = makePod("pod-a").pod;
  const auto none = std::nullopt;
  runHints(&VolumeBinding::isSchedulableAfterCSIStorageCapacityChange,
           {
               {"When a new CSIStorageCapacity is created, it returns Queue", pod, EventObject{},
                capObj(none, none), false, QueueingHint::Queue},
               {"When the volume limit is increase(Capacity set), it returns Queue", pod, capObj(none, none),
                capObj(100, none), false, QueueingHint::Queue},
               {"When the volume limit is increase(MaximumVolumeSize set), it returns Queue", pod,
                capObj(none, none), capObj(none, 100), false, QueueingHint::Queue},
               {"When the volume limit is increase(Capacity increase), it returns Queue", pod,
                capObj(50, none), capObj(100, none), false, QueueingHint::Queue},
               {"When the volume limit is increase(MaximumVolumeSize unset), it returns Queue", pod,
                capObj(100, 50), capObj(100, none), false, QueueingHint::Queue},
               {"When the volume limit is increase(MaximumVolumeSize increase), it returns Queue", pod,
                capObj(100, 50), capObj(100, 60), false, QueueingHint::Queue},
               {"When there are no changes to the CSIStorageCapacity, it returns QueueSkip", pod,
                capObj(100, 50), capObj(100, 50), false, QueueingHint::QueueSkip},
               {"When the volume limit is equal(Capacity), it returns QueueSkip", pod, capObj(100, none),
                capObj(100, none), false, QueueingHint::QueueSkip},
               {"When the volume limit is equal(MaximumVolumeSize unset), it returns QueueSkip", pod,
                capObj(100, 50), capObj(50, none), false, QueueingHint::QueueSkip},
               {"When the volume limit is decrease(Capacity), it returns QueueSkip", pod, capObj(100, none),
                capObj(90, none), false, QueueingHint::QueueSkip},
               {"When the volume limit is decrease(MaximumVolumeSize), it returns QueueSkip", pod,
                capObj(none, 100), capObj(none, 90), false, QueueingHint::QueueSkip},
               {"type conversion error", api::Pod{}, wrongType(), wrongType(), true, QueueingHint::Queue},
           });
}

EventObject driverObj(const std::string& name, std::optional<bool> storageCapacity) {
  auto d = std::make_shared<api::CSIDriver>();
  d->metadata.name = name;
  d->spec.storageCapacity = storageCapacity;
  return std::shared_ptr<const api::CSIDriver>(d);
}

TEST(VolumeBindingPluginTest, IsSchedulableAfterCSIDriverChange) {
  const api::Pod withCSI = makePod("pod-a").withCSI("test1").pod;
  const auto none = std::nullopt;
  runHints(&VolumeBinding::isSchedulableAfterCSIDriverChange,
           {
               {"pod has no CSIDriver", makePod("pod-a").pod, driverObj("test1", none),
                driverObj("test1", true), false, QueueingHint::QueueSkip},
               {"unexpected objects are passed", makePod("pod-a").pod, wrongType(), wrongType(), true,
                QueueingHint::Queue},
               {"driver name in pod and csidriver name are different", withCSI, driverObj("test2", true),
                driverObj("test2", false), false, QueueingHint::QueueSkip},
               {"original StorageCapacity is nil", withCSI, driverObj("test1", none),
                driverObj("test1", none), false, QueueingHint::QueueSkip},
               {"original StorageCapacity is false", withCSI, driverObj("test1", false),
                driverObj("test1", false), false, QueueingHint::QueueSkip},
               {"modified StorageCapacity is nil", withCSI, driverObj("test1", true),
                driverObj("test1", none), false, QueueingHint::Queue},
               {"modified StorageCapacity is true", withCSI, driverObj("test1", true),
                driverObj("test1", true), false, QueueingHint::QueueSkip},
               {"modified StorageCapacity is false", withCSI, driverObj("test1", true),
                driverObj("test1", false), false, QueueingHint::Queue},
           });
}

// --- added ---

// Upstream EventsToRegister: the node's taint updates only without queueing hints.
TEST(VolumeBindingPluginTest, EventsToRegister) {
  using namespace framework::action;
  using framework::EventResource;
  for (bool queueingHints : {true, false}) {
    SCOPED_TRACE(queueingHints ? "queueing hints" : "no queueing hints");
    PluginEnv env;
    VolumeBinding::Features features;
    features.enableSchedulingQueueHint = queueingHints;
    VolumeBinding& p = env.create(args({}), features);
    auto events = p.eventsToRegister();
    ASSERT_TRUE(events.ok()) << events.error().message();
    struct Want {
      EventResource resource;
      framework::ActionType actions;
      bool hint;
    };
    const std::vector<Want> want = {
        {EventResource::StorageClass, Add | Update, true},
        {EventResource::PersistentVolumeClaim, Add | Update, true},
        {EventResource::PersistentVolume, Add | Update, false},
        {EventResource::Node,
         queueingHints ? (Add | UpdateNodeLabel) : (Add | UpdateNodeLabel | UpdateNodeTaint), false},
        {EventResource::CSINode, Add | Update, true},
        {EventResource::CSIDriver, Update, true},
        {EventResource::CSIStorageCapacity, Add | Update, true},
    };
    ASSERT_EQ(events->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ((*events)[i].event, (framework::ClusterEvent{want[i].resource, want[i].actions, {}})) << i;
      EXPECT_EQ(static_cast<bool>((*events)[i].queueingHintFn), want[i].hint) << i;
    }
  }
}

// Reserve assumes the PV for the pod's claim, so another pod's Filter no longer finds it; Unreserve
// gives it back.
TEST(VolumeBindingPluginTest, ReserveAndUnreserve) {
  PreBindFixture f({makePVC("pvc-b", waitSC.metadata.name).pvc});
  const auto podB = framework::PodInfo::create(makePod("pod-b").withPVCVolume("pvc-b", "").ptr());
  auto filterB = [&] {
    framework::CycleState state;
    framework::PreFilterResult result;
    EXPECT_TRUE(f.plugin->preFilter(state, *podB, {}, result).isSuccess());
    return f.plugin->filter(state, *podB, *f.nodeInfos[0]);
  };
  expectStatus(filterB(), Status(), "pod-b before pod-a's Reserve");

  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(f.plugin->preFilter(state, *f.pod, {}, result).isSuccess());
  ASSERT_TRUE(f.plugin->filter(state, *f.pod, *f.nodeInfos[0]).isSuccess());
  ASSERT_TRUE(f.plugin->reserve(state, *f.pod, "node-a").isSuccess());
  expectStatus(filterB(), unresolvable({"node(s) didn't find available persistent volumes to bind"}),
               "pod-b after pod-a's Reserve");

  f.plugin->unreserve(state, *f.pod, "node-a");
  expectStatus(filterB(), Status(), "pod-b after pod-a's Unreserve");
}

// PreBind writes the PV's claimRef to the API (taken as complete, as simulate does); without a PV
// controller it waits until shutdown.
TEST(VolumeBindingPluginTest, PreBind) {
  {
    SCOPED_TRACE("binding taken as complete");
    VolumeBinding::Features features;
    features.assumeBindingCompletes = true;
    PreBindFixture f({}, features);
    framework::CycleState state;
    framework::PreFilterResult result;
    ASSERT_TRUE(f.plugin->preFilter(state, *f.pod, {}, result).isSuccess());
    ASSERT_TRUE(f.plugin->filter(state, *f.pod, *f.nodeInfos[0]).isSuccess());
    ASSERT_TRUE(f.plugin->reserve(state, *f.pod, "node-a").isSuccess());
    expectStatus(preFlight(*f.plugin, state, *f.pod, "node-a"), Status(), "PreBindPreFlight");
    expectStatus(f.plugin->preBind(state, *f.pod, "node-a", {}), Status(), "PreBind");
    auto pv = f.env.api().get<PV>("", "pv-a");
    ASSERT_TRUE(pv.ok()) << pv.error().message();
    ASSERT_TRUE(pv->spec.claimRef.has_value());
    EXPECT_EQ(pv->spec.claimRef->namespace_, "default");
    EXPECT_EQ(pv->spec.claimRef->name, "pvc-a");
    EXPECT_EQ(pv->metadata.annotations.at(std::string(volume::kAnnBoundByController)), "yes");
  }
  {
    SCOPED_TRACE("cancelled while waiting (preemption, a failed parallel PreBind, shutdown)");
    PreBindFixture f;
    framework::CycleState state;
    framework::PreFilterResult result;
    ASSERT_TRUE(f.plugin->preFilter(state, *f.pod, {}, result).isSuccess());
    ASSERT_TRUE(f.plugin->filter(state, *f.pod, *f.nodeInfos[0]).isSuccess());
    ASSERT_TRUE(f.plugin->reserve(state, *f.pod, "node-a").isSuccess());
    std::stop_source cancel;
    cancel.request_stop();
    expectStatus(f.plugin->preBind(state, *f.pod, "node-a", cancel.get_token()),
                 Status::error("binding volumes: context canceled"), "PreBind");
  }
  {
    SCOPED_TRACE("no PreFilter state");
    PreBindFixture f;
    framework::CycleState state;
    expectStatus(f.plugin->reserve(state, *f.pod, "node-a"), Status::error("not found"), "Reserve");
    expectStatus(f.plugin->preBind(state, *f.pod, "node-a", {}), Status::error("not found"), "PreBind");
  }
}

// Upstream New: the args' type and validity, and the informer factory it needs.
TEST(VolumeBindingPluginTest, Create) {
  PluginEnv env;
  config::NodeAffinityArgs wrong;
  auto wrongType = VolumeBinding::create(&wrong, env.handle());
  ASSERT_FALSE(wrongType.ok());
  EXPECT_EQ(wrongType.error().message(), "want args to be of type VolumeBindingArgs");

  config::VolumeBindingArgs negative = args({});
  negative.bindTimeoutSeconds = -1;
  EXPECT_FALSE(VolumeBinding::create(&negative, env.handle()).ok());

  // A shape needs the StorageCapacityScoring gate.
  const config::VolumeBindingArgs withShape = args(kDefaultShapePoint);
  EXPECT_FALSE(VolumeBinding::create(&withShape, env.handle()).ok());
  VolumeBinding::Features scoring;
  scoring.enableStorageCapacityScoring = true;
  EXPECT_TRUE(VolumeBinding::create(&withShape, env.handle(), scoring).ok());

  plugintesting::FakeHandle noFactory;
  const config::VolumeBindingArgs defaults = args({});
  auto missing = VolumeBinding::create(&defaults, noFactory);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "SharedInformerFactory is nil");
}

}  // namespace
}  // namespace ks::plugins::volumebinding
