// Ports upstream (v1.34.4) volumebinding/binder_test.go: TestFindPodVolumesWithoutProvisioning,
// TestFindPodVolumesWithProvisioning (each with no CSIDriver / a CSIDriver with and without capacity
// tracking), TestFindPodVolumesWithCSIMigration, TestAssumePodVolumes, TestRevertAssumedPodVolumes,
// TestBindAPIUpdate, TestCheckBindings, TestCheckBindingsWithCSIMigration, TestBindPodVolumes,
// TestFindAssumeVolumes and TestCapacity (with CSIDriver.StorageCapacity on and off).
//
// How upstream's fixtures map onto ours:
//   - The informers' indexers upstream fills directly (storage classes, nodes, CSINodes, pods,
//     CSIDrivers, CSIStorageCapacities) are FakeListers below; PVs and PVCs go straight into the assume
//     caches, as upstream's AddTestObject.
//   - Upstream's fake API server (pvtesting.VolumeReactor) is the in-memory API server. Upstream's test
//     objects carry small resourceVersions ("1", "2") its fake keeps; ours numbers every write globally,
//     so TestEnv maps each object's test versions onto the versions the API server gave it
//     (apiCreate/apiUpdate record them, apiVersion translates) before handing objects to the binder.
//     Objects read back from the API server also carry a generated uid and creationTimestamp, which
//     the API comparisons ignore together with resourceVersion (upstream ignores resourceVersion).
//   - bindAPIUpdate and checkBindings are private steps of bindPodVolumes here. TestBindAPIUpdate runs
//     bindPodVolumes with assumeBindingCompletes (it returns right after the API writes).
//     TestCheckBindings runs it with a writer that writes nothing and returns each object as sent, so
//     the wait loop sees exactly the checkBindings upstream calls: success means bound, a timeout means
//     "not bound yet", any other error is checkBindings' error. Its "API updates before checking" are
//     delivered to the caches as the informer would (the version bumped, nothing for a no-op update).
//   - TestBindPodVolumes runs against the in-memory API server with the caches fed by real informers;
//     its delayFuncs run once the binder's own API writes are done (upstream: after 5 s), and the wait
//     polls every 10 ms for at most 2 s (upstream: every second for 10 s).
//
// Not ported, and why:
//   - TestBindAPIUpdate and TestCheckBindings "nothing-to-bind-nil", "nothing-to-bind-bindings-nil",
//     "nothing-to-bind-provisionings-nil" and TestBindPodVolumes "nothing-to-bind-nil": they pass nil
//     slices, which Go tells apart from empty ones; ours are always vectors. validatePodCache's
//     nil-vs-empty checks likewise.
//   - makeTestPVForCSIMigration's non-migrated PV uses an RBD source, which our PersistentVolumeSpec
//     does not model; a PV without any in-tree source is just as non-migratable.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/volumebinding/binder.h"
#include "pkg/volume/volume_helpers.h"
#include "test/scheduler/framework/plugins/volumebinding/test_utils.h"
#include "test/support/wrappers.h"

namespace ks::volumebinding {
namespace {

using ks::testing::mustParse;
using testutil::kNodeLabelKey;
using testutil::makeCapacity;
using testutil::makeNode;
using testutil::makePod;

using PVC = api::PersistentVolumeClaim;
using PV = api::PersistentVolume;
using Reasons = std::vector<std::string>;

const std::string kProvisioner = "test-provisioner";
const std::string kWaitClass = "waitClass";
const std::string kImmediateClass = "immediateClass";
const std::string kWaitClassWithProvisioner = "waitClassWithProvisioner";
const std::string kTopoMismatchClass = "topoMismatchClass";
const std::string kNodeLabelValue = "node1";

enum class PVCState { Unbound, Prebound, Bound, SelectedNode };

PVC makeTestPVC(const std::string& name, const std::string& size, const std::string& node, PVCState state,
                const std::string& pvName, const std::string& resourceVersion, const std::string& className) {
  PVC pvc;
  pvc.metadata.name = name;
  pvc.metadata.namespace_ = "testns";
  pvc.metadata.uid = "pvc-uid";
  pvc.metadata.resourceVersion = resourceVersion;
  pvc.spec.resources.requests["storage"] = mustParse(size);
  pvc.spec.storageClassName = className;
  pvc.spec.volumeMode = "Filesystem";
  switch (state) {
    case PVCState::SelectedNode:
      pvc.metadata.annotations[std::string(volume::kAnnSelectedNode)] = node;
      break;
    case PVCState::Bound:
      pvc.metadata.annotations[std::string(volume::kAnnBindCompleted)] = "yes";
      pvc.spec.volumeName = pvName;
      break;
    case PVCState::Prebound:
      pvc.spec.volumeName = pvName;
      break;
    case PVCState::Unbound:
      break;
  }
  return pvc;
}

PV makeTestPV(const std::string& name, const std::string& node, const std::string& capacity,
              const std::string& version, const PVC* boundToPVC, const std::string& className) {
  PV pv;
  pv.metadata.name = name;
  pv.metadata.resourceVersion = version;
  pv.spec.capacity["storage"] = mustParse(capacity);
  pv.spec.storageClassName = className;
  pv.spec.volumeMode = "Filesystem";
  pv.phase = "Available";
  if (!node.empty()) {
    api::NodeSelector required;
    required.nodeSelectorTerms.push_back(api::NodeSelectorTerm{{{kNodeLabelKey, "In", {node}}}, {}});
    pv.spec.nodeAffinity = api::VolumeNodeAffinity{std::move(required)};
  }
  if (boundToPVC != nullptr) {
    api::ObjectReference ref;
    ref.kind = "PersistentVolumeClaim";
    ref.apiVersion = "v1";
    ref.resourceVersion = boundToPVC->metadata.resourceVersion;
    ref.name = boundToPVC->metadata.name;
    ref.namespace_ = boundToPVC->metadata.namespace_;
    ref.uid = boundToPVC->metadata.uid;
    pv.spec.claimRef = std::move(ref);
    pv.metadata.annotations[std::string(volume::kAnnBoundByController)] = "yes";
  }
  return pv;
}

PVC makeGenericEphemeralPVC(const std::string& volumeName, bool owned) {
  const api::Pod pod =
      makePod("test-pod").withNamespace("testns").withNodeName("node1").withGenericEphemeralVolume("").pod;
  PVC pvc = makeTestPVC(pod.metadata.name + "-" + volumeName, "1G", "", PVCState::Bound, "pv-bound", "1",
                        kImmediateClass);
  if (owned) {
    api::OwnerReference ref;
    ref.name = pod.metadata.name;
    ref.uid = pod.metadata.uid;
    ref.controller = true;
    pvc.metadata.ownerReferences = {ref};
  }
  return pvc;
}

const std::map<std::string, std::string> kZone1Labels = {
    {"failure-domain.beta.kubernetes.io/zone", "us-east-1"},
    {"failure-domain.beta.kubernetes.io/region", "us-east-1a"}};

PV makeTestPVForCSIMigration(const std::map<std::string, std::string>& labels, const PVC& pvc,
                             bool migrationEnabled) {
  PV pv = makeTestPV("pv-migration-bound", "node1", "1G", "1", &pvc, kWaitClass);
  pv.spec.nodeAffinity.reset();  // written by the CSI translation
  pv.metadata.labels = labels;
  if (migrationEnabled)
    pv.spec.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{"test-disk", "ext4", 0, false};
  return pv;
}

PVC pvcSetSelectedNode(const PVC& pvc, const std::string& node) {
  PVC out = pvc;
  out.metadata.annotations[std::string(volume::kAnnSelectedNode)] = node;
  return out;
}

PVC pvcSetEmptyAnnotations(const PVC& pvc) {
  PVC out = pvc;
  out.metadata.annotations.clear();
  return out;
}

PV pvRemoveClaimUID(const PV& pv) {
  PV out = pv;
  out.spec.claimRef->uid.clear();
  return out;
}

api::CSINode makeCSINode(const std::string& name, const std::string& migratedPlugin) {
  api::CSINode n;
  n.metadata.name = name;
  n.metadata.annotations[std::string(volume::kMigratedPluginsAnnotation)] = migratedPlugin;
  return n;
}

api::CSIDriver makeCSIDriver(const std::string& name, bool storageCapacity) {
  api::CSIDriver d;
  d.metadata.name = name;
  d.spec.storageCapacity = storageCapacity;
  return d;
}

BindingInfo makeBinding(const PVC& pvc, const PV& pv) {
  return BindingInfo{std::make_shared<const PVC>(pvc), std::make_shared<const PV>(pv)};
}

DynamicProvision makeProvision(const PVC& pvc,
                               std::optional<api::CSIStorageCapacity> capacity = std::nullopt) {
  return DynamicProvision{std::make_shared<const PVC>(pvc),
                          capacity ? std::make_shared<const api::CSIStorageCapacity>(*capacity) : nullptr};
}

PVC addProvisionAnn(const PVC& pvc) {
  return pvcSetSelectedNode(pvc, kNodeLabelValue);
}

// --- upstream's package-level fixtures ---

// PVCs for manual binding
const PVC unboundPVC = makeTestPVC("unbound-pvc", "1G", "", PVCState::Unbound, "", "1", kWaitClass);
const PVC unboundPVC2 = makeTestPVC("unbound-pvc2", "5G", "", PVCState::Unbound, "", "1", kWaitClass);
const PVC preboundPVC =
    makeTestPVC("prebound-pvc", "1G", "", PVCState::Prebound, "pv-node1a", "1", kWaitClass);
const PVC preboundPVCNode1a =
    makeTestPVC("unbound-pvc", "1G", "", PVCState::Prebound, "pv-node1a", "1", kWaitClass);
const PVC boundPVC = makeTestPVC("bound-pvc", "1G", "", PVCState::Bound, "pv-bound", "1", kWaitClass);
const PVC boundPVCNode1a =
    makeTestPVC("unbound-pvc", "1G", "", PVCState::Bound, "pv-node1a", "1", kWaitClass);
const PVC immediateUnboundPVC =
    makeTestPVC("immediate-unbound-pvc", "1G", "", PVCState::Unbound, "", "1", kImmediateClass);
const PVC immediateBoundPVC =
    makeTestPVC("immediate-bound-pvc", "1G", "", PVCState::Bound, "pv-bound-immediate", "1", kImmediateClass);

// PVCs for dynamic provisioning
const PVC provisionedPVC =
    makeTestPVC("provisioned-pvc", "1Gi", "", PVCState::Unbound, "", "1", kWaitClassWithProvisioner);
const PVC provisionedPVC2 =
    makeTestPVC("provisioned-pvc2", "1Gi", "", PVCState::Unbound, "", "1", kWaitClassWithProvisioner);
const PVC provisionedPVCHigherVersion =
    makeTestPVC("provisioned-pvc2", "1Gi", "", PVCState::Unbound, "", "2", kWaitClassWithProvisioner);
const PVC provisionedPVCBound =
    makeTestPVC("provisioned-pvc", "1Gi", "", PVCState::Bound, "pv-bound", "1", kWaitClassWithProvisioner);
const PVC noProvisionerPVC =
    makeTestPVC("no-provisioner-pvc", "1Gi", "", PVCState::Unbound, "", "1", kWaitClass);
const PVC topoMismatchPVC =
    makeTestPVC("topo-mismatch-pvc", "1Gi", "", PVCState::Unbound, "", "1", kTopoMismatchClass);

const PVC selectedNodePVC = makeTestPVC("provisioned-pvc", "1Gi", kNodeLabelValue, PVCState::SelectedNode, "",
                                        "1", kWaitClassWithProvisioner);

// PVCs for CSI migration
const PVC boundMigrationPVC =
    makeTestPVC("pvc-migration-bound", "1G", "", PVCState::Bound, "pv-migration-bound", "1", kWaitClass);
const PVC provMigrationPVCBound = makeTestPVC("pvc-migration-provisioned", "1Gi", "", PVCState::Bound,
                                              "pv-migration-bound", "1", kWaitClassWithProvisioner);

// PVCs and PV for GenericEphemeralVolume
const PVC conflictingGenericPVC = makeGenericEphemeralPVC("test-volume", false);
const PVC correctGenericPVC = makeGenericEphemeralPVC("test-volume", true);
const PV pvBoundGeneric = makeTestPV("pv-bound", "node1", "1G", "1", &correctGenericPVC, kWaitClass);

// PVs for manual binding
const PV pvNode1a = makeTestPV("pv-node1a", "node1", "5G", "1", nullptr, kWaitClass);
const PV pvNode1b = makeTestPV("pv-node1b", "node1", "10G", "1", nullptr, kWaitClass);
const PV pvNode1c = makeTestPV("pv-node1b", "node1", "5G", "1", nullptr, kWaitClass);
const PV pvNode2 = makeTestPV("pv-node2", "node2", "1G", "1", nullptr, kWaitClass);
const PV pvBound = makeTestPV("pv-bound", "node1", "1G", "1", &boundPVC, kWaitClass);
const PV pvNode1aBound = makeTestPV("pv-node1a", "node1", "5G", "1", &unboundPVC, kWaitClass);
const PV pvNode1bBound = makeTestPV("pv-node1b", "node1", "10G", "1", &unboundPVC2, kWaitClass);
const PV pvNode1bBoundHigherVersion = makeTestPV("pv-node1b", "node1", "10G", "2", &unboundPVC2, kWaitClass);
const PV pvBoundImmediate =
    makeTestPV("pv-bound-immediate", "node1", "1G", "1", &immediateBoundPVC, kImmediateClass);
const PV pvBoundImmediateNode2 =
    makeTestPV("pv-bound-immediate", "node2", "1G", "1", &immediateBoundPVC, kImmediateClass);

// PVs for CSI migration
const PV migrationPVBound = makeTestPVForCSIMigration(kZone1Labels, boundMigrationPVC, true);
const PV migrationPVBoundToUnbound = makeTestPVForCSIMigration(kZone1Labels, unboundPVC, true);
const PV nonmigrationPVBoundToUnbound = makeTestPVForCSIMigration(kZone1Labels, unboundPVC, false);

// nodes
const api::Node node1 = makeNode("node1").withLabel(kNodeLabelKey, "node1").node;
const api::Node node2 = makeNode("node2").withLabel(kNodeLabelKey, "node2").node;
const api::Node node1NoLabels = makeNode("node1").node;
const api::Node node1Zone1 = makeNode("node1").withLabel("topology.gke.io/zone", "us-east-1").node;
const api::Node node1Zone2 = makeNode("node1").withLabel("topology.gke.io/zone", "us-east-2").node;

// CSINodes
const api::CSINode csiNode1Migrated = makeCSINode("node1", "kubernetes.io/gce-pd");
const api::CSINode csiNode1NotMigrated = makeCSINode("node1", "");

// CSIStorageCapacities
const api::CSIStorageCapacity networkAttachedCapacity =
    makeCapacity("net", kWaitClassWithProvisioner, nullptr, "1Gi", "");
const api::CSIStorageCapacity node1Capacity =
    makeCapacity("net", kWaitClassWithProvisioner, &node1, "1Gi", "");
const api::CSIStorageCapacity node2Capacity =
    makeCapacity("net", kWaitClassWithProvisioner, &node2, "1Gi", "");

// The node the Find* tests filter for.
api::Node testNode() {
  api::Node n;
  n.metadata.name = "node1";
  n.metadata.labels[kNodeLabelKey] = "node1";
  return n;
}

api::Pod testPod(const std::vector<PVC>& pvcs = {}) {
  return makePod("test-pod").withNamespace("testns").withNodeName("node1").withPVCSVolume(pvcs).pod;
}

// --- the environment ---

// The listers the binder reads, filled by the tests (upstream adds to the informers' indexers).
// Objects are keyed as an informer keys them, so a second object with the same key replaces the first.
class FakeListers {
 public:
  VolumeBinderListers listers() {
    return VolumeBinderListers{
        .storageClass = [this](const std::string& name) { return find(classes_, name); },
        .node = [this](const std::string& name) { return find(nodes_, name); },
        .csiNode = [this](const std::string& name) { return find(csiNodes_, name); },
        .pod = [this](const std::string& ns,
                      const std::string& name) { return find(pods_, ns + "/" + name); },
        .csiDriver = [this](const std::string& name) { return find(csiDrivers_, name); },
        .csiStorageCapacities =
            [this] {
              std::lock_guard lock(mu_);
              std::vector<std::shared_ptr<const api::CSIStorageCapacity>> out;
              for (const auto& [key, c] : capacities_) out.push_back(c);
              return out;
            },
    };
  }

  void addClass(const api::StorageClass& c) { put(classes_, c.metadata.name, c); }
  void addNode(const api::Node& n) { put(nodes_, n.metadata.name, n); }
  void addCSINode(const api::CSINode& n) { put(csiNodes_, n.metadata.name, n); }
  void addPod(const api::Pod& p) { put(pods_, p.metadata.namespace_ + "/" + p.metadata.name, p); }
  void deletePod(const api::Pod& p) {
    std::lock_guard lock(mu_);
    pods_.erase(p.metadata.namespace_ + "/" + p.metadata.name);
  }
  void addCSIDriver(const api::CSIDriver& d) { put(csiDrivers_, d.metadata.name, d); }
  void addCapacity(const api::CSIStorageCapacity& c) {
    put(capacities_, c.metadata.namespace_ + "/" + c.metadata.name, c);
  }

 private:
  template <class T>
  using Map = std::map<std::string, std::shared_ptr<const T>>;

  template <class T>
  void put(Map<T>& m, const std::string& key, const T& obj) {
    std::lock_guard lock(mu_);
    m[key] = std::make_shared<const T>(obj);
  }
  template <class T>
  std::shared_ptr<const T> find(const Map<T>& m, const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = m.find(key);
    return it == m.end() ? nullptr : it->second;
  }

  mutable std::mutex mu_;
  Map<api::StorageClass> classes_;
  Map<api::Node> nodes_;
  Map<api::CSINode> csiNodes_;
  Map<api::Pod> pods_;
  Map<api::CSIDriver> csiDrivers_;
  Map<api::CSIStorageCapacity> capacities_;
};

// The binder's API writes: forwarded to the in-memory API server, or (api == nullptr) not written at
// all, each object returned as sent. Counts the writes so that a test can act once they are done.
class TestWriter final : public client::VolumeWriter {
 public:
  explicit TestWriter(client::MemoryClient* api) : api_(api) {}

  client::ApiResult<PV> updatePersistentVolumeBinding(const PV& pv) override {
    auto r = api_ != nullptr ? api_->updatePersistentVolumeBinding(pv) : client::ApiResult<PV>(pv);
    count();
    return r;
  }
  client::ApiResult<PVC> updatePersistentVolumeClaimAnnotations(const PVC& claim) override {
    auto r =
        api_ != nullptr ? api_->updatePersistentVolumeClaimAnnotations(claim) : client::ApiResult<PVC>(claim);
    count();
    return r;
  }

  // Waits until `n` writes were made; false when `stop` is requested first.
  bool waitForWrites(size_t n, std::stop_token stop) {
    std::unique_lock lock(mu_);
    return cv_.wait(lock, stop, [&] { return writes_ >= n; });
  }

 private:
  void count() {
    {
      std::lock_guard lock(mu_);
      ++writes_;
    }
    cv_.notify_all();
  }

  client::MemoryClient* const api_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  size_t writes_ = 0;  // guarded by mu_
};

struct EnvOptions {
  // The binder writes to the in-memory API server (else: TestWriter's pass-through).
  bool apiWrites = false;
  // The caches are fed by informers on the in-memory API server (call startInformers()).
  bool informers = false;
  bool assumeBindingCompletes = false;
  std::chrono::milliseconds bindTimeout{std::chrono::seconds(10)};
};

template <class T>
std::string versionKey(const T& obj) {
  return std::string(T::kKind) + "/" + informer::objectKey(obj);
}

int64_t versionOf(const api::ObjectMeta& m) {
  return std::stoll(m.resourceVersion);
}

// Upstream's newTestBinder and testEnv.
class TestEnv {
 public:
  explicit TestEnv(EnvOptions options = {})
      : writer_(options.apiWrites ? &client_ : nullptr),
        pvCache_(std::make_shared<PVAssumeCache>()),
        pvcCache_(std::make_shared<PVCAssumeCache>()) {
    if (options.informers) {
      pvCache_->watch(factory_.persistentVolumes());
      pvcCache_->watch(factory_.persistentVolumeClaims());
    }
    VolumeBinderOptions binderOptions;
    binderOptions.bindTimeout = options.bindTimeout;
    binderOptions.pollInterval = std::chrono::milliseconds(10);
    binderOptions.assumeBindingCompletes = options.assumeBindingCompletes;
    binder_ = newVolumeBinder(writer_, listers_.listers(), pvCache_, pvcCache_, newInTreeToCSITranslator(),
                              nullptr, binderOptions);

    const auto wait = std::string(volume::kVolumeBindingWaitForFirstConsumer);
    api::StorageClass withProvisioner;
    withProvisioner.metadata.name = kWaitClassWithProvisioner;
    withProvisioner.volumeBindingMode = wait;
    withProvisioner.provisioner = kProvisioner;
    withProvisioner.allowedTopologies = {{{{kNodeLabelKey, {kNodeLabelValue, "reference-value"}}}}};
    api::StorageClass immediate;
    immediate.metadata.name = kImmediateClass;
    immediate.volumeBindingMode = "Immediate";
    api::StorageClass waitClass;
    waitClass.metadata.name = kWaitClass;
    waitClass.volumeBindingMode = wait;
    waitClass.provisioner = "kubernetes.io/no-provisioner";
    api::StorageClass topoMismatch;
    topoMismatch.metadata.name = kTopoMismatchClass;
    topoMismatch.volumeBindingMode = wait;
    topoMismatch.provisioner = kProvisioner;
    topoMismatch.allowedTopologies = {{{{kNodeLabelKey, {"reference-value"}}}}};
    for (const auto& c : {withProvisioner, immediate, waitClass, topoMismatch}) listers_.addClass(c);
  }
  // The informers call into the caches: stop them first.
  ~TestEnv() { factory_.stop(); }
  TestEnv(const TestEnv&) = delete;
  TestEnv& operator=(const TestEnv&) = delete;

  SchedulerVolumeBinder& binder() { return *binder_; }
  FakeListers& listers() { return listers_; }
  client::MemoryClient& api() { return client_; }
  TestWriter& writer() { return writer_; }
  PVAssumeCache& pvCache() { return *pvCache_; }
  PVCAssumeCache& pvcCache() { return *pvcCache_; }

  void startInformers() {
    factory_.start();
    ASSERT_TRUE(factory_.waitForCacheSync(std::chrono::seconds(30)));
  }

  // `cached` into the PVC cache; `apiObjs` created in the API server first.
  void initClaims(const std::vector<PVC>& cached, const std::vector<PVC>& apiObjs = {}) {
    for (const PVC& pvc : apiObjs) apiCreate(pvc);
    for (const PVC& pvc : cached) pvcCache_->add(std::make_shared<const PVC>(apiVersion(pvc)));
  }
  void initVolumes(const std::vector<PV>& cached, const std::vector<PV>& apiObjs = {}) {
    for (const PV& pv : apiObjs) apiCreate(pv);
    for (const PV& pv : cached) pvCache_->add(std::make_shared<const PV>(apiVersion(pv)));
  }
  void deleteVolumes(const std::vector<PV>& pvs) {
    for (const PV& pv : pvs) pvCache_->remove(informer::objectKey(pv));
  }
  void deleteClaims(const std::vector<PVC>& pvcs) {
    for (const PVC& pvc : pvcs) pvcCache_->remove(informer::objectKey(pvc));
  }

  void assumeVolumes(const std::vector<BindingInfo>& bindings, const std::vector<PVC>& provisionings) {
    for (const BindingInfo& b : bindings) {
      auto r = pvCache_->assume(b.pv);
      ASSERT_TRUE(r.ok()) << r.error().message();
    }
    for (const PVC& pvc : provisionings) {
      auto r = pvcCache_->assume(std::make_shared<const PVC>(pvc));
      ASSERT_TRUE(r.ok()) << r.error().message();
    }
  }

  // An API update of upstream's fake as the informer delivers it to the caches: nothing for an update
  // that changes nothing, else the object with the next version.
  template <class T, class Cache>
  void informerUpdate(Cache& cache, const std::vector<T>& objs) {
    for (const T& obj : objs) {
      auto stored = cache.getAPIObj(informer::objectKey(obj));
      ASSERT_TRUE(stored.ok()) << stored.error().message();
      ASSERT_EQ((*stored)->metadata.resourceVersion, obj.metadata.resourceVersion) << "version conflict";
      if (**stored == obj) continue;
      auto next = std::make_shared<T>(obj);
      next->metadata.resourceVersion = std::to_string(versionOf(obj.metadata) + 1);
      cache.add(next);
    }
  }
  void updateVolumes(const std::vector<PV>& pvs) { informerUpdate(*pvCache_, pvs); }
  void updateClaims(const std::vector<PVC>& pvcs) { informerUpdate(*pvcCache_, pvcs); }

  // Creates `obj` in the API server and remembers the version it got for obj's test version.
  template <class T>
  T apiCreate(const T& obj) {
    auto stored = client_.create(obj);
    EXPECT_TRUE(stored.ok()) << stored.error().message();
    if (!stored.ok()) return obj;
    record(obj, versionOf(obj.metadata), *stored);
    return *stored;
  }
  // Updates (PUT) `obj`, whose test version must be the stored one; the new version stands for the next
  // test version, as upstream's fake bumps it (an update that changes nothing keeps it).
  template <class T>
  T apiUpdate(const T& obj) {
    const T sent = apiVersion(obj);
    auto stored = client_.update(sent);
    EXPECT_TRUE(stored.ok()) << stored.error().message();
    if (!stored.ok()) return obj;
    if (stored->metadata.resourceVersion != sent.metadata.resourceVersion) {
      record(obj, versionOf(obj.metadata) + 1, *stored);
    }
    return *stored;
  }

  // `obj` with its test version replaced by the API server's (see the file comment). A version the API
  // server never gave keeps its distance to the nearest one it gave; an object it never saw keeps its own.
  template <class T>
  T apiVersion(T obj) const {
    auto it = versions_.find(versionKey(obj));
    if (it == versions_.end() || obj.metadata.resourceVersion.empty()) return obj;
    const int64_t v = versionOf(obj.metadata);
    const auto& known = it->second;
    int64_t out = 0;
    if (auto exact = known.find(v); exact != known.end()) {
      out = exact->second;
    } else if (auto above = known.upper_bound(v); above != known.end()) {
      out = above->second - (above->first - v);
    } else {
      auto below = std::prev(known.end());
      out = below->second + (v - below->first);
    }
    obj.metadata.resourceVersion = std::to_string(out);
    return obj;
  }
  BindingInfo apiVersion(const BindingInfo& b) const {
    return BindingInfo{std::make_shared<const PVC>(apiVersion(*b.pvc)),
                       std::make_shared<const PV>(apiVersion(*b.pv))};
  }

 private:
  template <class T>
  void record(const T& obj, int64_t testVersion, const T& stored) {
    versions_[versionKey(obj)][testVersion] = versionOf(stored.metadata);
  }

  client::MemoryClient client_;
  informer::SharedInformerFactory factory_{client_};
  FakeListers listers_;
  TestWriter writer_;
  std::shared_ptr<PVAssumeCache> pvCache_;
  std::shared_ptr<PVCAssumeCache> pvcCache_;
  std::unique_ptr<SchedulerVolumeBinder> binder_;
  // Per object, test version -> API server version.
  std::map<std::string, std::map<int64_t, int64_t>> versions_;
};

// Upstream's findPodVolumes helper: claims, then the node's volumes.
struct FindResult {
  std::optional<PodVolumes> podVolumes;
  Reasons reasons;
  std::optional<std::string> error;
};
FindResult findPodVolumes(SchedulerVolumeBinder& binder, const api::Pod& pod, const api::Node& node) {
  FindResult out;
  auto claims = binder.getPodVolumeClaims(pod);
  if (!claims.ok()) {
    out.error = claims.error().message();
    return out;
  }
  if (!claims->unboundClaimsImmediate.empty()) {
    out.error = "pod has unbound immediate PersistentVolumeClaims";
    return out;
  }
  auto podVolumes = binder.findPodVolumes(pod, *claims, node, out.reasons);
  if (!podVolumes.ok()) {
    out.error = podVolumes.error().message();
    return out;
  }
  out.podVolumes = std::move(podVolumes).value();
  return out;
}

void checkReasons(Reasons actual, Reasons expected) {
  std::sort(actual.begin(), actual.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(actual, expected);
}

void expectFailure(const std::optional<std::string>& error, bool shouldFail) {
  if (shouldFail) {
    EXPECT_TRUE(error.has_value()) << "returned success but expected error";
  } else {
    EXPECT_FALSE(error.has_value()) << "returned error: " << *error;
  }
}

// Upstream's validatePodCache: the podVolumes' bindings and provisionings are the expected ones.
void validatePodCache(const std::optional<PodVolumes>& podVolumes,
                      const std::vector<BindingInfo>& expectedBindings,
                      const std::vector<DynamicProvision>& expectedProvisions) {
  const PodVolumes empty;
  const PodVolumes& got = podVolumes ? *podVolumes : empty;
  ASSERT_EQ(got.staticBindings.size(), expectedBindings.size());
  for (size_t i = 0; i < expectedBindings.size(); ++i) {
    EXPECT_EQ(*got.staticBindings[i].pv, *expectedBindings[i].pv) << "binding.pv " << i;
    EXPECT_EQ(*got.staticBindings[i].pvc, *expectedBindings[i].pvc) << "binding.pvc " << i;
  }
  ASSERT_EQ(got.dynamicProvisions.size(), expectedProvisions.size());
  for (size_t i = 0; i < expectedProvisions.size(); ++i) {
    EXPECT_EQ(*got.dynamicProvisions[i].pvc, *expectedProvisions[i].pvc) << "provision.pvc " << i;
    const auto& gotCapacity = got.dynamicProvisions[i].nodeCapacity;
    const auto& wantCapacity = expectedProvisions[i].nodeCapacity;
    ASSERT_EQ(gotCapacity == nullptr, wantCapacity == nullptr) << "provision.nodeCapacity " << i;
    if (gotCapacity) {
      EXPECT_EQ(*gotCapacity, *wantCapacity) << "provision.nodeCapacity " << i;
    }
  }
}

// Upstream's validateAssume: the caches hold the assumed claimRefs and selected nodes.
void validateAssume(TestEnv& env, const std::vector<BindingInfo>& bindings,
                    const std::vector<PVC>& provisionings) {
  for (const BindingInfo& b : bindings) {
    auto pv = env.pvCache().get(b.pv->metadata.name);
    if (!pv.ok()) {
      ADD_FAILURE() << "get " << b.pv->metadata.name << ": " << pv.error().message();
      continue;
    }
    if (!(*pv)->spec.claimRef) {
      ADD_FAILURE() << "PV " << b.pv->metadata.name << " claimRef is nil";
      continue;
    }
    EXPECT_EQ((*pv)->spec.claimRef->name, b.pvc->metadata.name);
    EXPECT_EQ((*pv)->spec.claimRef->namespace_, b.pvc->metadata.namespace_);
  }
  for (const PVC& p : provisionings) {
    const std::string key = volume::claimKey(p);
    auto pvc = env.pvcCache().get(key);
    if (!pvc.ok()) {
      ADD_FAILURE() << "get " << key << ": " << pvc.error().message();
      continue;
    }
    auto it = (*pvc)->metadata.annotations.find(std::string(volume::kAnnSelectedNode));
    EXPECT_EQ(it == (*pvc)->metadata.annotations.end() ? "" : it->second, kNodeLabelValue) << key;
  }
}

// Upstream's validateCacheRestored: no assumption left in the caches.
void validateCacheRestored(TestEnv& env, const std::vector<BindingInfo>& bindings,
                           const std::vector<PVC>& provisionings) {
  for (const BindingInfo& b : bindings) {
    auto pv = env.pvCache().get(b.pv->metadata.name);
    auto apiPV = env.pvCache().getAPIObj(b.pv->metadata.name);
    if (pv.ok()) {
      EXPECT_EQ(pv->get(), apiPV->get()) << "PV " << b.pv->metadata.name << " was modified in cache";
    }
  }
  for (const PVC& p : provisionings) {
    const std::string key = volume::claimKey(p);
    auto pvc = env.pvcCache().get(key);
    if (!pvc.ok()) {
      ADD_FAILURE() << "get " << key << ": " << pvc.error().message();
      continue;
    }
    EXPECT_FALSE((*pvc)->metadata.annotations.contains(std::string(volume::kAnnSelectedNode))) << key;
  }
}

std::vector<PVC> provisionedClaims(const std::vector<DynamicProvision>& provisions) {
  std::vector<PVC> out;
  for (const DynamicProvision& p : provisions) out.push_back(*p.pvc);
  return out;
}

// =====================================================================================================

struct FindScenario {
  std::string name;
  std::vector<PV> pvs;
  std::vector<PVC> podPVCs;
  std::optional<std::vector<PVC>> cachePVCs;  // podPVCs when unset
  std::optional<api::Pod> pod;                // a pod with podPVCs when unset
  std::vector<BindingInfo> expectedBindings;
  std::vector<DynamicProvision> expectedProvisions;
  Reasons reasons;
  bool shouldFail = false;
  bool needsCapacity = false;
};

const std::string kBindConflict(kErrReasonBindConflict);
const std::string kNodeConflict(kErrReasonNodeConflict);
const std::string kNotEnoughSpace(kErrReasonNotEnoughSpace);
const std::string kPVNotExist(kErrReasonPVNotExist);

// The CSIDriver variants both Find* tests run with.
const std::vector<std::pair<std::string, std::optional<api::CSIDriver>>> kCSIDriverVariants = {
    {"no CSIDriver", std::nullopt},
    {"CSIDriver with capacity tracking", makeCSIDriver(kProvisioner, true)},
    {"CSIDriver without capacity tracking", makeCSIDriver(kProvisioner, false)},
};

TEST(VolumeBinderTest, FindPodVolumesWithoutProvisioning) {
  const api::Pod ephemeralPod = [] {
    return makePod("test-pod")
        .withNamespace("testns")
        .withNodeName("node1")
        .withGenericEphemeralVolume("test-volume")
        .pod;
  }();
  const std::vector<FindScenario> scenarios = {
      {.name = "no-volumes", .pod = makePod("test-pod").withNamespace("testns").withNodeName("node1").pod},
      {.name = "no-pvcs",
       .pod = makePod("test-pod").withNamespace("testns").withNodeName("node1").withEmptyDirVolume().pod},
      {.name = "pvc-not-found", .podPVCs = {boundPVC}, .cachePVCs = std::vector<PVC>{}, .shouldFail = true},
      {.name = "bound-pvc", .pvs = {pvBound}, .podPVCs = {boundPVC}},
      {.name = "bound-pvc,pv-not-exists", .podPVCs = {boundPVC}, .reasons = {kPVNotExist}},
      {.name = "prebound-pvc", .pvs = {pvNode1aBound}, .podPVCs = {preboundPVC}, .shouldFail = true},
      {.name = "unbound-pvc,pv-same-node",
       .pvs = {pvNode2, pvNode1a, pvNode1b},
       .podPVCs = {unboundPVC},
       .expectedBindings = {makeBinding(unboundPVC, pvNode1a)}},
      {.name = "unbound-pvc,pv-different-node",
       .pvs = {pvNode2},
       .podPVCs = {unboundPVC},
       .reasons = {kBindConflict}},
      {.name = "two-unbound-pvcs",
       .pvs = {pvNode1a, pvNode1b},
       .podPVCs = {unboundPVC, unboundPVC2},
       .expectedBindings = {makeBinding(unboundPVC, pvNode1a), makeBinding(unboundPVC2, pvNode1b)}},
      {.name = "two-unbound-pvcs,order-by-size",
       .pvs = {pvNode1a, pvNode1b},
       .podPVCs = {unboundPVC2, unboundPVC},
       .expectedBindings = {makeBinding(unboundPVC, pvNode1a), makeBinding(unboundPVC2, pvNode1b)}},
      {.name = "two-unbound-pvcs,partial-match",
       .pvs = {pvNode1a},
       .podPVCs = {unboundPVC, unboundPVC2},
       .expectedBindings = {makeBinding(unboundPVC, pvNode1a)},
       .reasons = {kBindConflict}},
      {.name = "one-bound,one-unbound",
       .pvs = {pvBound, pvNode1a},
       .podPVCs = {unboundPVC, boundPVC},
       .expectedBindings = {makeBinding(unboundPVC, pvNode1a)}},
      {.name = "one-bound,one-unbound,no-match",
       .pvs = {pvBound, pvNode2},
       .podPVCs = {unboundPVC, boundPVC},
       .reasons = {kBindConflict}},
      {.name = "one-prebound,one-unbound",
       .pvs = {pvNode1a, pvNode1b},
       .podPVCs = {unboundPVC, preboundPVC},
       .shouldFail = true},
      {.name = "immediate-bound-pvc", .pvs = {pvBoundImmediate}, .podPVCs = {immediateBoundPVC}},
      {.name = "immediate-bound-pvc-wrong-node",
       .pvs = {pvBoundImmediateNode2},
       .podPVCs = {immediateBoundPVC},
       .reasons = {kNodeConflict}},
      {.name = "immediate-unbound-pvc", .podPVCs = {immediateUnboundPVC}, .shouldFail = true},
      {.name = "immediate-unbound-pvc,delayed-mode-bound",
       .pvs = {pvBound},
       .podPVCs = {immediateUnboundPVC, boundPVC},
       .shouldFail = true},
      {.name = "immediate-unbound-pvc,delayed-mode-unbound",
       .podPVCs = {immediateUnboundPVC, unboundPVC},
       .shouldFail = true},
      {.name = "generic-ephemeral,no-pvc",
       .pod = makePod("test-pod")
                  .withNamespace("testns")
                  .withNodeName("node1")
                  .withGenericEphemeralVolume("no-such-pvc")
                  .pod,
       .shouldFail = true},
      {.name = "generic-ephemeral,with-pvc",
       .pvs = {pvBoundGeneric},
       .cachePVCs = std::vector<PVC>{correctGenericPVC},
       .pod = ephemeralPod},
      {.name = "generic-ephemeral,wrong-pvc",
       .pvs = {pvBoundGeneric},
       .cachePVCs = std::vector<PVC>{conflictingGenericPVC},
       .pod = ephemeralPod,
       .shouldFail = true},
  };

  for (const auto& [description, csiDriver] : kCSIDriverVariants) {
    for (const FindScenario& s : scenarios) {
      SCOPED_TRACE(description + "/" + s.name);
      TestEnv env;
      env.initVolumes(s.pvs);
      if (csiDriver) env.listers().addCSIDriver(*csiDriver);
      env.initClaims(s.cachePVCs.value_or(s.podPVCs));
      const api::Pod pod = s.pod.value_or(testPod(s.podPVCs));

      FindResult r = findPodVolumes(env.binder(), pod, testNode());

      expectFailure(r.error, s.shouldFail);
      checkReasons(r.reasons, s.reasons);
      validatePodCache(r.podVolumes, s.expectedBindings, {});
    }
  }
}

TEST(VolumeBinderTest, FindPodVolumesWithProvisioning) {
  const std::vector<FindScenario> scenarios = {
      {.name = "one-provisioned",
       .podPVCs = {provisionedPVC},
       .expectedProvisions = {makeProvision(provisionedPVC)},
       .needsCapacity = true},
      {.name = "two-unbound-pvcs,one-matched,one-provisioned",
       .pvs = {pvNode1a},
       .podPVCs = {unboundPVC, provisionedPVC},
       .expectedBindings = {makeBinding(unboundPVC, pvNode1a)},
       .expectedProvisions = {makeProvision(provisionedPVC)},
       .needsCapacity = true},
      {.name = "one-bound,one-provisioned",
       .pvs = {pvBound},
       .podPVCs = {boundPVC, provisionedPVC},
       .expectedProvisions = {makeProvision(provisionedPVC)},
       .needsCapacity = true},
      {.name = "one-binding,one-selected-node",
       .pvs = {pvBound},
       .podPVCs = {boundPVC, selectedNodePVC},
       .expectedProvisions = {makeProvision(selectedNodePVC)},
       .needsCapacity = true},
      {.name = "immediate-unbound-pvc", .podPVCs = {immediateUnboundPVC}, .shouldFail = true},
      {.name = "one-immediate-bound,one-provisioned",
       .pvs = {pvBoundImmediate},
       .podPVCs = {immediateBoundPVC, provisionedPVC},
       .expectedProvisions = {makeProvision(provisionedPVC)},
       .needsCapacity = true},
      {.name = "invalid-provisioner", .podPVCs = {noProvisionerPVC}, .reasons = {kBindConflict}},
      {.name = "volume-topology-unsatisfied", .podPVCs = {topoMismatchPVC}, .reasons = {kBindConflict}},
  };

  for (const auto& [description, csiDriver] : kCSIDriverVariants) {
    for (const FindScenario& s : scenarios) {
      SCOPED_TRACE(description + "/" + s.name);
      TestEnv env;
      env.initVolumes(s.pvs);
      if (csiDriver) env.listers().addCSIDriver(*csiDriver);
      env.initClaims(s.cachePVCs.value_or(s.podPVCs));
      const api::Pod pod = s.pod.value_or(testPod(s.podPVCs));

      FindResult r = findPodVolumes(env.binder(), pod, testNode());

      expectFailure(r.error, s.shouldFail);
      Reasons expectedReasons = s.reasons;
      std::vector<DynamicProvision> expectedProvisions = s.expectedProvisions;
      if (s.needsCapacity && csiDriver && csiDriver->spec.storageCapacity.value_or(false)) {
        // Without CSIStorageCapacity objects, provisioning is blocked.
        expectedReasons.push_back(kNotEnoughSpace);
        expectedProvisions.clear();
      }
      checkReasons(r.reasons, expectedReasons);
      validatePodCache(r.podVolumes, s.expectedBindings, expectedProvisions);
    }
  }
}

struct MigrationFindScenario {
  std::string name;
  std::vector<PV> pvs;
  std::vector<PVC> podPVCs;
  std::vector<api::Node> initNodes;
  std::vector<api::CSINode> initCSINodes;
  Reasons reasons;
  bool shouldFail = false;
};

TEST(VolumeBinderTest, FindPodVolumesWithCSIMigration) {
  const std::vector<MigrationFindScenario> scenarios = {
      {.name = "pvc-bound",
       .pvs = {migrationPVBound},
       .podPVCs = {boundMigrationPVC},
       .initNodes = {node1Zone1},
       .initCSINodes = {csiNode1Migrated}},
      {.name = "pvc-bound,csinode-not-migrated",
       .pvs = {migrationPVBound},
       .podPVCs = {boundMigrationPVC},
       .initNodes = {node1Zone1},
       .initCSINodes = {csiNode1NotMigrated}},
      {.name = "pvc-bound,missing-csinode",
       .pvs = {migrationPVBound},
       .podPVCs = {boundMigrationPVC},
       .initNodes = {node1Zone1}},
      {.name = "pvc-bound,node-different-zone",
       .pvs = {migrationPVBound},
       .podPVCs = {boundMigrationPVC},
       .initNodes = {node1Zone2},
       .initCSINodes = {csiNode1Migrated},
       .reasons = {kNodeConflict}},
  };
  for (const MigrationFindScenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    TestEnv env;
    env.initVolumes(s.pvs);
    for (const api::Node& n : s.initNodes) env.listers().addNode(n);
    const api::Node node = s.initNodes.empty() ? node1 : s.initNodes.front();
    for (const api::CSINode& n : s.initCSINodes) env.listers().addCSINode(n);
    env.initClaims(s.podPVCs);

    FindResult r = findPodVolumes(env.binder(), testPod(s.podPVCs), node);

    expectFailure(r.error, s.shouldFail);
    checkReasons(r.reasons, s.reasons);
  }
}

struct AssumeScenario {
  std::string name;
  std::vector<PVC> podPVCs;
  std::vector<PV> pvs;
  std::vector<BindingInfo> bindings;
  std::vector<DynamicProvision> dynamicProvisions;
  bool shouldFail = false;
  bool expectedAllBound = false;
  // The bindings and provisionings when unset.
  std::optional<std::vector<BindingInfo>> expectedBindings;
  std::optional<std::vector<DynamicProvision>> expectedProvisionings;
};

TEST(VolumeBinderTest, AssumePodVolumes) {
  const std::vector<AssumeScenario> scenarios = {
      {.name = "all-bound", .podPVCs = {boundPVC}, .pvs = {pvBound}, .expectedAllBound = true},
      {.name = "one-binding",
       .podPVCs = {unboundPVC},
       .pvs = {pvNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1a)},
       .expectedBindings = std::vector<BindingInfo>{makeBinding(unboundPVC, pvNode1aBound)},
       .expectedProvisionings = std::vector<DynamicProvision>{}},
      {.name = "two-bindings",
       .podPVCs = {unboundPVC, unboundPVC2},
       .pvs = {pvNode1a, pvNode1b},
       .bindings = {makeBinding(unboundPVC, pvNode1a), makeBinding(unboundPVC2, pvNode1b)},
       .expectedBindings = std::vector<BindingInfo>{makeBinding(unboundPVC, pvNode1aBound),
                                                    makeBinding(unboundPVC2, pvNode1bBound)},
       .expectedProvisionings = std::vector<DynamicProvision>{}},
      {.name = "pv-already-bound",
       .podPVCs = {unboundPVC},
       .pvs = {pvNode1aBound},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .expectedBindings = std::vector<BindingInfo>{makeBinding(unboundPVC, pvNode1aBound)},
       .expectedProvisionings = std::vector<DynamicProvision>{}},
      {.name = "tmpupdate-failed",
       .podPVCs = {unboundPVC},
       .pvs = {pvNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1a), makeBinding(unboundPVC2, pvNode1b)},
       .shouldFail = true},
      {.name = "one-binding, one-pvc-provisioned",
       .podPVCs = {unboundPVC, provisionedPVC},
       .pvs = {pvNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1a)},
       .dynamicProvisions = {makeProvision(provisionedPVC)},
       .expectedBindings = std::vector<BindingInfo>{makeBinding(unboundPVC, pvNode1aBound)},
       .expectedProvisionings = std::vector<DynamicProvision>{makeProvision(selectedNodePVC)}},
      {.name = "one-binding, one-provision-tmpupdate-failed",
       .podPVCs = {unboundPVC, provisionedPVCHigherVersion},
       .pvs = {pvNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1a)},
       .dynamicProvisions = {makeProvision(provisionedPVC2)},
       .shouldFail = true},
  };
  for (const AssumeScenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    TestEnv env;
    env.initClaims(s.podPVCs);
    const api::Pod pod = testPod(s.podPVCs);
    PodVolumes podVolumes{s.bindings, s.dynamicProvisions};
    env.initVolumes(s.pvs);

    auto allBound = env.binder().assumePodVolumes(pod, "node1", podVolumes);

    expectFailure(allBound.ok() ? std::nullopt : std::optional(allBound.error().message()), s.shouldFail);
    EXPECT_EQ(allBound.ok() && *allBound, s.expectedAllBound);
    const auto expectedBindings = s.expectedBindings.value_or(s.bindings);
    const auto expectedProvisionings = s.expectedProvisionings.value_or(s.dynamicProvisions);
    if (s.shouldFail) {
      validateCacheRestored(env, s.bindings, provisionedClaims(s.dynamicProvisions));
    } else {
      validateAssume(env, expectedBindings, provisionedClaims(expectedProvisionings));
    }
    validatePodCache(podVolumes, expectedBindings, expectedProvisionings);
  }
}

TEST(VolumeBinderTest, RevertAssumedPodVolumes) {
  const std::vector<PVC> podPVCs = {unboundPVC, provisionedPVC};
  const std::vector<BindingInfo> bindings = {makeBinding(unboundPVC, pvNode1a)};
  const std::vector<PV> pvs = {pvNode1a};
  const std::vector<DynamicProvision> dynamicProvisions = {makeProvision(provisionedPVC)};
  const std::vector<BindingInfo> expectedBindings = {makeBinding(unboundPVC, pvNode1aBound)};
  const std::vector<PVC> expectedProvisionings = {selectedNodePVC};

  TestEnv env;
  env.initClaims(podPVCs);
  const api::Pod pod = testPod(podPVCs);
  PodVolumes podVolumes{bindings, dynamicProvisions};
  env.initVolumes(pvs);

  auto allBound = env.binder().assumePodVolumes(pod, "node1", podVolumes);
  ASSERT_TRUE(allBound.ok()) << allBound.error().message();
  EXPECT_FALSE(*allBound) << "No volumes are assumed";
  validateAssume(env, expectedBindings, expectedProvisionings);

  env.binder().revertAssumedPodVolumes(podVolumes);
  validateCacheRestored(env, bindings, provisionedClaims(dynamicProvisions));
}

// Equal but for what the API server assigns (resourceVersion, uid, creationTimestamp, generation) and
// the claimRef's resourceVersion, as upstream's reactor comparisons.
template <class T>
T normalized(T obj) {
  obj.metadata.resourceVersion.clear();
  obj.metadata.uid.clear();
  obj.metadata.creationTimestamp.reset();
  obj.metadata.generation = 0;
  if constexpr (std::is_same_v<T, PV>) {
    if (obj.spec.claimRef) obj.spec.claimRef->resourceVersion.clear();
  }
  return obj;
}

// The API server holds exactly `expected` of kind T.
template <class T>
void checkAPIObjects(client::MemoryClient& api, const std::vector<T>& expected) {
  std::map<std::string, T> want;
  for (const T& obj : expected) want[obj.metadata.name] = normalized(obj);
  std::map<std::string, T> got;
  for (const auto& obj : api.objects<T>()) got[obj->metadata.name] = normalized(*obj);
  EXPECT_EQ(got.size(), want.size());
  for (const auto& [name, obj] : want) {
    auto it = got.find(name);
    if (it == got.end()) {
      ADD_FAILURE() << "API server lacks " << T::kKind << " " << name;
      continue;
    }
    EXPECT_EQ(it->second, obj) << "API " << T::kKind << " " << name;
  }
}

// The cache's latest versions are `expected`, resourceVersion aside (an informer may have updated it).
template <class T, class Cache>
void checkCached(Cache& cache, const std::vector<T>& expected) {
  for (const T& obj : expected) {
    auto cached = cache.get(informer::objectKey(obj));
    if (!cached.ok()) {
      ADD_FAILURE() << cached.error().message();
      continue;
    }
    T got = **cached;
    got.metadata.resourceVersion = obj.metadata.resourceVersion;
    EXPECT_EQ(got, obj) << "cached " << T::kKind << " " << informer::objectKey(obj);
  }
}

struct BindAPIUpdateScenario {
  std::string name;
  std::vector<BindingInfo> bindings;
  std::vector<PV> cachedPVs;
  std::optional<std::vector<PV>> apiPVs;  // cachedPVs when unset
  std::vector<PVC> provisionedPVCs;
  std::vector<PVC> cachedPVCs;
  std::optional<std::vector<PVC>> apiPVCs;  // cachedPVCs when unset
  bool shouldFail = false;
  std::vector<PV> expectedPVs;
  std::optional<std::vector<PV>> expectedAPIPVs;  // expectedPVs when unset
  std::vector<PVC> expectedPVCs;
  std::optional<std::vector<PVC>> expectedAPIPVCs;  // expectedPVCs when unset
};

TEST(VolumeBinderTest, BindAPIUpdate) {
  const std::vector<BindAPIUpdateScenario> scenarios = {
      {.name = "nothing-to-bind-empty"},
      {.name = "one-binding",
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .cachedPVs = {pvNode1a},
       .expectedPVs = {pvNode1aBound}},
      {.name = "two-bindings",
       .bindings = {makeBinding(unboundPVC, pvNode1aBound), makeBinding(unboundPVC2, pvNode1bBound)},
       .cachedPVs = {pvNode1a, pvNode1b},
       .expectedPVs = {pvNode1aBound, pvNode1bBound}},
      {.name = "api-already-updated",
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .cachedPVs = {pvNode1aBound},
       .expectedPVs = {pvNode1aBound}},
      {.name = "api-update-failed",
       .bindings = {makeBinding(unboundPVC, pvNode1aBound), makeBinding(unboundPVC2, pvNode1bBound)},
       .cachedPVs = {pvNode1a, pvNode1b},
       .apiPVs = std::vector<PV>{pvNode1a, pvNode1bBoundHigherVersion},
       .shouldFail = true,
       .expectedPVs = {pvNode1aBound, pvNode1b},
       .expectedAPIPVs = std::vector<PV>{pvNode1aBound, pvNode1bBoundHigherVersion}},
      {.name = "one-provisioned-pvc",
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)},
       .cachedPVCs = {provisionedPVC},
       .expectedPVCs = {addProvisionAnn(provisionedPVC)}},
      {.name = "provision-api-update-failed",
       .provisionedPVCs = {addProvisionAnn(provisionedPVC), addProvisionAnn(provisionedPVC2)},
       .cachedPVCs = {provisionedPVC, provisionedPVC2},
       .apiPVCs = std::vector<PVC>{provisionedPVC, provisionedPVCHigherVersion},
       .shouldFail = true,
       .expectedPVCs = {addProvisionAnn(provisionedPVC), provisionedPVC2},
       .expectedAPIPVCs = std::vector<PVC>{addProvisionAnn(provisionedPVC), provisionedPVCHigherVersion}},
      {.name = "binding-succeed, provision-api-update-failed",
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .cachedPVs = {pvNode1a},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC), addProvisionAnn(provisionedPVC2)},
       .cachedPVCs = {provisionedPVC, provisionedPVC2},
       .apiPVCs = std::vector<PVC>{provisionedPVC, provisionedPVCHigherVersion},
       .shouldFail = true,
       .expectedPVs = {pvNode1aBound},
       .expectedPVCs = {addProvisionAnn(provisionedPVC), provisionedPVC2},
       .expectedAPIPVCs = std::vector<PVC>{addProvisionAnn(provisionedPVC), provisionedPVCHigherVersion}},
  };
  for (const BindAPIUpdateScenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    TestEnv env({.apiWrites = true, .assumeBindingCompletes = true});
    const api::Pod pod = testPod();
    env.initVolumes(s.cachedPVs, s.apiPVs.value_or(s.cachedPVs));
    env.initClaims(s.cachedPVCs, s.apiPVCs.value_or(s.cachedPVCs));
    std::vector<BindingInfo> bindings;
    for (const BindingInfo& b : s.bindings) bindings.push_back(env.apiVersion(b));
    std::vector<PVC> provisioned;
    for (const PVC& pvc : s.provisionedPVCs) provisioned.push_back(env.apiVersion(pvc));
    env.assumeVolumes(bindings, provisioned);

    PodVolumes podVolumes{bindings, {}};
    for (const PVC& pvc : provisioned) podVolumes.dynamicProvisions.push_back(makeProvision(pvc));
    auto r = env.binder().bindPodVolumes(pod, "node1", podVolumes, {});

    expectFailure(r.ok() ? std::nullopt : std::optional(r.error().message()), s.shouldFail);
    checkCached(env.pvCache(), s.expectedPVs);
    checkAPIObjects(env.api(), s.expectedAPIPVs.value_or(s.expectedPVs));
    checkCached(env.pvcCache(), s.expectedPVCs);
    checkAPIObjects(env.api(), s.expectedAPIPVCs.value_or(s.expectedPVCs));
  }
}

// What checkBindings answered, seen through bindPodVolumes over TestWriter's pass-through (see the
// file comment): bound, not bound until the bind timeout, or checkBindings' error.
struct CheckResult {
  bool bound = false;
  std::optional<std::string> error;
};

CheckResult checkBindings(TestEnv& env, const api::Pod& pod, const std::vector<BindingInfo>& bindings,
                          const std::vector<PVC>& provisionedPVCs) {
  PodVolumes podVolumes{bindings, {}};
  for (const PVC& pvc : provisionedPVCs) podVolumes.dynamicProvisions.push_back(makeProvision(pvc));
  auto r = env.binder().bindPodVolumes(pod, "node1", podVolumes, {});
  if (r.ok()) return {true, std::nullopt};
  if (r.error().message() == "binding volumes: context deadline exceeded") return {false, std::nullopt};
  return {false, r.error().message()};
}

struct CheckBindingsScenario {
  std::string name;
  std::vector<PV> initPVs;
  std::vector<PVC> initPVCs;
  std::vector<api::Node> initNodes;  // CSI migration test only
  std::vector<api::CSINode> initCSINodes;
  std::vector<BindingInfo> bindings;
  std::vector<PVC> provisionedPVCs;
  std::vector<PV> apiPVs;
  std::vector<PVC> apiPVCs;
  bool deletePVs = false;
  bool deletePVCs = false;
  bool shouldFail = false;
  bool expectedBound = false;
};

void runCheckBindings(const CheckBindingsScenario& s, const std::vector<api::Node>& nodes) {
  const api::Pod pod = testPod();
  // The first check decides (nothing changes meanwhile): only "not bound yet" waits for the timeout, so
  // that one is short and the others generous.
  const bool notBound = !s.expectedBound && !s.shouldFail;
  TestEnv env({.bindTimeout = notBound ? std::chrono::milliseconds(300) : std::chrono::seconds(10)});
  env.listers().addPod(pod);
  for (const api::Node& n : nodes) env.listers().addNode(n);
  for (const api::CSINode& n : s.initCSINodes) env.listers().addCSINode(n);
  env.initVolumes(s.initPVs);
  env.initClaims(s.initPVCs);
  env.assumeVolumes(s.bindings, s.provisionedPVCs);

  if (s.deletePVs) {
    env.deleteVolumes(s.initPVs);
  } else {
    env.updateVolumes(s.apiPVs);
  }
  if (s.deletePVCs) {
    env.deleteClaims(s.initPVCs);
  } else {
    env.updateClaims(s.apiPVCs);
  }

  CheckResult r = checkBindings(env, pod, s.bindings, s.provisionedPVCs);

  expectFailure(r.error, s.shouldFail);
  EXPECT_EQ(r.bound, s.expectedBound);
}

TEST(VolumeBinderTest, CheckBindings) {
  const std::vector<CheckBindingsScenario> scenarios = {
      {.name = "nothing-to-bind", .expectedBound = true},
      {.name = "binding-bound",
       .initPVs = {pvNode1aBound},
       .initPVCs = {boundPVCNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .expectedBound = true},
      {.name = "binding-prebound",
       .initPVs = {pvNode1aBound},
       .initPVCs = {preboundPVCNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)}},
      {.name = "binding-unbound",
       .initPVs = {pvNode1aBound},
       .initPVCs = {unboundPVC},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)}},
      {.name = "binding-pvc-not-exists",
       .initPVs = {pvNode1aBound},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .shouldFail = true},
      {.name = "binding-pv-not-exists",
       .initPVs = {pvNode1aBound},
       .initPVCs = {boundPVCNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .deletePVs = true,
       .shouldFail = true},
      {.name = "binding-claimref-nil",
       .initPVs = {pvNode1a},
       .initPVCs = {boundPVCNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .apiPVs = {pvNode1a},
       .apiPVCs = {boundPVCNode1a},
       .shouldFail = true},
      {.name = "binding-claimref-uid-empty",
       .initPVs = {pvNode1aBound},
       .initPVCs = {boundPVCNode1a},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .apiPVs = {pvRemoveClaimUID(pvNode1aBound)},
       .apiPVCs = {boundPVCNode1a},
       .shouldFail = true},
      {.name = "binding-one-bound,one-unbound",
       .initPVs = {pvNode1aBound, pvNode1bBound},
       .initPVCs = {boundPVCNode1a, unboundPVC2},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound), makeBinding(unboundPVC2, pvNode1bBound)}},
      {.name = "provisioning-pvc-bound",
       .initPVs = {pvBound},
       .initPVCs = {provisionedPVCBound},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)},
       .apiPVCs = {addProvisionAnn(provisionedPVCBound)},
       .expectedBound = true},
      {.name = "provisioning-pvc-unbound",
       .initPVCs = {addProvisionAnn(provisionedPVC)},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)}},
      {.name = "provisioning-pvc-not-exists",
       .initPVCs = {provisionedPVC},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)},
       .deletePVCs = true,
       .shouldFail = true},
      {.name = "provisioning-pvc-annotations-nil",
       .initPVCs = {provisionedPVC},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)},
       .apiPVCs = {provisionedPVC},
       .shouldFail = true},
      {.name = "provisioning-pvc-selected-node-dropped",
       .initPVCs = {provisionedPVC},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)},
       .apiPVCs = {pvcSetEmptyAnnotations(provisionedPVC)},
       .shouldFail = true},
      {.name = "provisioning-pvc-selected-node-wrong-node",
       .initPVCs = {provisionedPVC},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)},
       .apiPVCs = {pvcSetSelectedNode(provisionedPVC, "wrong-node")},
       .shouldFail = true},
      {.name = "binding-bound-provisioning-unbound",
       .initPVs = {pvNode1aBound},
       .initPVCs = {boundPVCNode1a, addProvisionAnn(provisionedPVC)},
       .bindings = {makeBinding(unboundPVC, pvNode1aBound)},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)}},
      {.name = "tolerate-provisioning-pvc-bound-pv-not-found",
       .initPVs = {pvNode1a},
       .initPVCs = {provisionedPVC},
       .provisionedPVCs = {addProvisionAnn(provisionedPVC)},
       .apiPVCs = {addProvisionAnn(provisionedPVCBound)},
       .deletePVs = true},
  };
  for (const CheckBindingsScenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    runCheckBindings(s, {node1});
  }
}

TEST(VolumeBinderTest, CheckBindingsWithCSIMigration) {
  const std::vector<CheckBindingsScenario> scenarios = {
      {.name = "provisioning-pvc-bound",
       .initPVs = {migrationPVBound},
       .initPVCs = {provMigrationPVCBound},
       .initNodes = {node1Zone1},
       .initCSINodes = {csiNode1Migrated},
       .provisionedPVCs = {addProvisionAnn(provMigrationPVCBound)},
       .apiPVCs = {addProvisionAnn(provMigrationPVCBound)},
       .expectedBound = true},
      {.name = "binding-node-pv-same-zone",
       .initPVs = {migrationPVBoundToUnbound},
       .initPVCs = {unboundPVC},
       .initNodes = {node1Zone1},
       .initCSINodes = {csiNode1Migrated},
       .bindings = {makeBinding(unboundPVC, migrationPVBoundToUnbound)}},
      {.name = "binding-without-csinode",
       .initPVs = {migrationPVBoundToUnbound},
       .initPVCs = {unboundPVC},
       .initNodes = {node1Zone1},
       .bindings = {makeBinding(unboundPVC, migrationPVBoundToUnbound)}},
      {.name = "binding-non-migrated-plugin",
       .initPVs = {migrationPVBoundToUnbound},
       .initPVCs = {unboundPVC},
       .initNodes = {node1Zone1},
       .initCSINodes = {csiNode1NotMigrated},
       .bindings = {makeBinding(unboundPVC, migrationPVBoundToUnbound)}},
      {.name = "binding-node-pv-in-different-zones",
       .initPVs = {migrationPVBoundToUnbound},
       .initPVCs = {unboundPVC},
       .initNodes = {node1Zone2},
       .initCSINodes = {csiNode1Migrated},
       .bindings = {makeBinding(unboundPVC, migrationPVBoundToUnbound)},
       .shouldFail = true},
      {.name = "binding-node-pv-different-zones-migration-off",
       .initPVs = {nonmigrationPVBoundToUnbound},
       .initPVCs = {unboundPVC},
       .initNodes = {node1Zone2},
       .initCSINodes = {csiNode1Migrated},
       .bindings = {makeBinding(unboundPVC, nonmigrationPVBoundToUnbound)}},
  };
  for (const CheckBindingsScenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    runCheckBindings(s, s.initNodes);
  }
}

using DelayFunc = std::function<void(TestEnv& env, const api::Pod& pod, const std::vector<PV>& pvs,
                                     const std::vector<PVC>& pvcs)>;

struct BindPodVolumesScenario {
  std::string name;
  std::vector<api::Node> nodes;  // node1 when empty
  std::vector<PV> initPVs;
  std::vector<PVC> initPVCs;
  std::optional<BindingInfo> binding;
  std::optional<PVC> claimToProvision;
  std::optional<PV> apiPV;
  std::optional<PVC> apiPVC;
  DelayFunc delayFunc;
  bool shouldFail = false;
};

TEST(VolumeBinderTest, BindPodVolumes) {
  const std::vector<BindPodVolumesScenario> scenarios = {
      {.name = "nothing-to-bind-empty"},
      {.name = "already-bound",
       .initPVs = {pvNode1aBound},
       .initPVCs = {boundPVCNode1a},
       .binding = makeBinding(unboundPVC, pvNode1aBound)},
      {.name = "binding-static-pv-succeeds-after-time",
       .initPVs = {pvNode1a},
       .initPVCs = {unboundPVC},
       .binding = makeBinding(unboundPVC, pvNode1aBound),
       // Succeeds once the PV controller binds the PVC to this PV.
       .delayFunc =
           [](TestEnv& env, const api::Pod&, const std::vector<PV>& pvs, const std::vector<PVC>& pvcs) {
             PVC newPVC = pvcs[0];
             newPVC.spec.volumeName = pvs[0].metadata.name;
             newPVC.metadata.annotations[std::string(volume::kAnnBindCompleted)] = "yes";
             env.apiUpdate(newPVC);
           }},
      {.name = "binding-dynamic-pv-succeeds-after-time",
       .initPVCs = {provisionedPVC},
       .claimToProvision = pvcSetSelectedNode(provisionedPVC, "node1"),
       .delayFunc =
           [](TestEnv& env, const api::Pod&, const std::vector<PV>&, const std::vector<PVC>& pvcs) {
             auto newPVC = env.api().get<PVC>(pvcs[0].metadata.namespace_, pvcs[0].metadata.name);
             ASSERT_TRUE(newPVC.ok()) << newPVC.error().message();
             auto dynamicPV =
                 env.api().create(makeTestPV("dynamic-pv", "node1", "1G", "1", &newPVC.value(), kWaitClass));
             ASSERT_TRUE(dynamicPV.ok()) << dynamicPV.error().message();
             newPVC->spec.volumeName = dynamicPV->metadata.name;
             newPVC->metadata.annotations[std::string(volume::kAnnBindCompleted)] = "yes";
             auto updated = env.api().update(*newPVC);
             EXPECT_TRUE(updated.ok()) << updated.error().message();
           }},
      {.name = "bound-by-pv-controller-before-bind",
       .initPVs = {pvNode1a},
       .initPVCs = {unboundPVC},
       .binding = makeBinding(unboundPVC, pvNode1aBound),
       .apiPV = pvNode1aBound,
       .apiPVC = boundPVCNode1a,
       .shouldFail = true},  // the binder's update conflicts
      {.name = "pod-deleted-after-time",
       .initPVs = {pvNode1a},
       .initPVCs = {unboundPVC},
       .binding = makeBinding(unboundPVC, pvNode1aBound),
       .delayFunc = [](TestEnv& env, const api::Pod& pod, const std::vector<PV>&,
                       const std::vector<PVC>&) { env.listers().deletePod(pod); },
       .shouldFail = true},
      {.name = "binding-times-out",
       .initPVs = {pvNode1a},
       .initPVCs = {unboundPVC},
       .binding = makeBinding(unboundPVC, pvNode1aBound),
       .shouldFail = true},
      {.name = "binding-fails",
       .initPVs = {pvNode1b},
       .initPVCs = {unboundPVC2},
       .binding = makeBinding(unboundPVC2, pvNode1bBound),
       .shouldFail = true},
      {.name = "check-fails",
       .initPVs = {pvNode1a},
       .initPVCs = {unboundPVC},
       .binding = makeBinding(unboundPVC, pvNode1aBound),
       // Deleting the PVC fails the check.
       .delayFunc =
           [](TestEnv& env, const api::Pod&, const std::vector<PV>&, const std::vector<PVC>& pvcs) {
             auto r = env.api().remove<PVC>(pvcs[0].metadata.namespace_, pvcs[0].metadata.name);
             EXPECT_TRUE(r.ok()) << r.error().message();
           },
       .shouldFail = true},
      {.name = "node-affinity-fails",
       .nodes = {node1NoLabels},
       .initPVs = {pvNode1aBound},
       .initPVCs = {boundPVCNode1a},
       .binding = makeBinding(unboundPVC, pvNode1aBound),
       .shouldFail = true},
      {.name = "node-affinity-fails-dynamic-provisioning",
       .nodes = {node1, node2},
       .initPVs = {pvNode1a, pvNode2},
       .initPVCs = {selectedNodePVC},
       .claimToProvision = selectedNodePVC,
       // The PVC gets fully bound to a PV of another node.
       .delayFunc =
           [](TestEnv& env, const api::Pod&, const std::vector<PV>&, const std::vector<PVC>& pvcs) {
             PVC newPVC = pvcs[0];
             newPVC.spec.volumeName = pvNode2.metadata.name;
             newPVC.metadata.annotations[std::string(volume::kAnnBindCompleted)] = "yes";
             env.apiUpdate(newPVC);
           },
       .shouldFail = true},
  };
  for (const BindPodVolumesScenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    const api::Pod pod = testPod();
    TestEnv env({.apiWrites = true, .informers = true, .bindTimeout = std::chrono::seconds(2)});
    env.listers().addPod(pod);
    for (const api::Node& n : s.nodes.empty() ? std::vector<api::Node>{node1} : s.nodes)
      env.listers().addNode(n);
    env.initVolumes(s.initPVs, s.initPVs);
    env.initClaims(s.initPVCs, s.initPVCs);
    env.startInformers();
    std::vector<BindingInfo> bindings;
    if (s.binding) bindings.push_back(env.apiVersion(*s.binding));
    std::vector<PVC> claimsToProvision;
    if (s.claimToProvision) claimsToProvision.push_back(env.apiVersion(*s.claimToProvision));
    env.assumeVolumes(bindings, claimsToProvision);

    if (s.apiPV) env.apiUpdate(*s.apiPV);
    if (s.apiPVC) env.apiUpdate(*s.apiPVC);

    // Runs the delay function once the binder's API writes are done (joined before env goes away).
    std::jthread delay;
    if (s.delayFunc) {
      const size_t writes = bindings.size() + claimsToProvision.size();
      delay = std::jthread([&env, &s, &pod, writes](std::stop_token stop) {
        if (env.writer().waitForWrites(writes, stop)) s.delayFunc(env, pod, s.initPVs, s.initPVCs);
      });
    }

    PodVolumes podVolumes{bindings, {}};
    for (const PVC& pvc : claimsToProvision) podVolumes.dynamicProvisions.push_back(makeProvision(pvc));
    auto r = env.binder().bindPodVolumes(pod, "node1", podVolumes, {});

    expectFailure(r.ok() ? std::nullopt : std::optional(r.error().message()), s.shouldFail);
  }
}

TEST(VolumeBinderTest, FindAssumeVolumes) {
  const std::vector<PVC> podPVCs = {unboundPVC};
  const std::vector<PV> pvs = {pvNode2, pvNode1a, pvNode1c};

  TestEnv env;
  env.initVolumes(pvs);
  env.initClaims(podPVCs);
  const api::Pod pod = testPod(podPVCs);
  const api::Node node = testNode();

  // 1. Find matching PVs
  FindResult found = findPodVolumes(env.binder(), pod, node);
  ASSERT_FALSE(found.error) << *found.error;
  ASSERT_TRUE(found.reasons.empty()) << "couldn't find PVs for all PVCs";
  PodVolumes podVolumes = *found.podVolumes;
  const std::vector<BindingInfo> chosen = podVolumes.staticBindings;

  // 2. Assume matches
  auto allBound = env.binder().assumePodVolumes(pod, node.metadata.name, podVolumes);
  ASSERT_TRUE(allBound.ok()) << allBound.error().message();
  EXPECT_FALSE(*allBound) << "detected unbound volumes as bound";
  validateAssume(env, chosen, {});

  // After assume, the claimRef is set on the PV.
  const std::vector<BindingInfo> expectedBindings = podVolumes.staticBindings;

  // 3. Find matching PVs again: always the PV chosen first (many times, in case the order of the two
  // equal PVs varies).
  for (int i = 0; i < 50; ++i) {
    FindResult again = findPodVolumes(env.binder(), pod, node);
    ASSERT_FALSE(again.error) << *again.error;
    EXPECT_TRUE(again.reasons.empty()) << "couldn't find PVs for all PVCs";
    validatePodCache(again.podVolumes, expectedBindings, {});
  }
}

struct CapacityScenario {
  std::string name;
  std::vector<PVC> pvcs;
  std::vector<api::CSIStorageCapacity> capacities;
  std::vector<DynamicProvision> expectedProvisions;
  Reasons reasons;
  bool shouldFail = false;
};

TEST(VolumeBinderTest, Capacity) {
  const std::vector<CapacityScenario> scenarios = {
      {.name = "network-attached",
       .pvcs = {provisionedPVC},
       .capacities = {networkAttachedCapacity},
       .expectedProvisions = {makeProvision(provisionedPVC, networkAttachedCapacity)}},
      {.name = "local-storage",
       .pvcs = {provisionedPVC},
       .capacities = {node1Capacity},
       .expectedProvisions = {makeProvision(provisionedPVC, node1Capacity)}},
      {.name = "multiple",
       .pvcs = {provisionedPVC},
       .capacities = {networkAttachedCapacity, node2Capacity, node1Capacity},
       .expectedProvisions = {makeProvision(provisionedPVC, node1Capacity)}},
      {.name = "no-storage", .pvcs = {provisionedPVC}, .reasons = {kNotEnoughSpace}},
      {.name = "wrong-node",
       .pvcs = {provisionedPVC},
       .capacities = {makeCapacity("net", kWaitClassWithProvisioner, &node2, "1Gi", "")},
       .reasons = {kNotEnoughSpace}},
      {.name = "wrong-storage-class",
       .pvcs = {provisionedPVC},
       .capacities = {makeCapacity("net", kWaitClass, &node1, "1Gi", "")},
       .reasons = {kNotEnoughSpace}},
      {.name = "insufficient-storage",
       .pvcs = {provisionedPVC},
       .capacities = {makeCapacity("net", kWaitClassWithProvisioner, &node1, "1Mi", "")},
       .reasons = {kNotEnoughSpace}},
      {.name = "insufficient-volume-size",
       .pvcs = {provisionedPVC},
       .capacities = {makeCapacity("net", kWaitClassWithProvisioner, &node1, "1Gi", "1Mi")},
       .reasons = {kNotEnoughSpace}},
      {.name = "zero-storage",
       .pvcs = {provisionedPVC},
       .capacities = {makeCapacity("net", kWaitClassWithProvisioner, &node1, "0Mi", "")},
       .reasons = {kNotEnoughSpace}},
      {.name = "zero-volume-size",
       .pvcs = {provisionedPVC},
       .capacities = {makeCapacity("net", kWaitClassWithProvisioner, &node1, "", "0Mi")},
       .reasons = {kNotEnoughSpace}},
      {.name = "nil-storage",
       .pvcs = {provisionedPVC},
       .capacities = {makeCapacity("net", kWaitClassWithProvisioner, &node1, "", "")},
       .reasons = {kNotEnoughSpace}},
  };
  for (bool optIn : {true, false}) {
    for (const CapacityScenario& s : scenarios) {
      SCOPED_TRACE(std::string("CSIDriver.StorageCapacity=") + (optIn ? "true" : "false") + "/" + s.name);
      // The driver has the feature enabled, but the scheduler might not.
      TestEnv env;
      env.listers().addCSIDriver(makeCSIDriver(kProvisioner, optIn));
      for (const auto& c : s.capacities) env.listers().addCapacity(c);
      env.initClaims(s.pvcs);
      const api::Pod pod = testPod(s.pvcs);

      FindResult r = findPodVolumes(env.binder(), pod, testNode());

      const bool shouldFail = optIn && s.shouldFail;
      const Reasons expectedReasons = optIn ? s.reasons : Reasons{};
      expectFailure(r.error, shouldFail);
      checkReasons(r.reasons, expectedReasons);
      std::vector<DynamicProvision> expectedProvisions = s.expectedProvisions;
      if (!optIn) {
        for (auto& p : expectedProvisions) p.nodeCapacity = nullptr;
      }
      if (!s.reasons.empty()) {
        expectedProvisions = r.podVolumes ? r.podVolumes->dynamicProvisions : std::vector<DynamicProvision>{};
      }
      validatePodCache(r.podVolumes, {}, expectedProvisions);
    }
  }
}

}  // namespace
}  // namespace ks::volumebinding
