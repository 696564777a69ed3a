// Ports upstream plugins/nodevolumelimits/csi_test.go (v1.37.2): TestCSILimits, TestCSILimitsQHint,
// TestCSILimitsAddedPVCQHint, TestCSILimitsDeletedVolumeAttachmentQHint,
// TestCSILimitsAfterCSINodeUpdatedQHint, TestVolumeLimitScalingGate and
// TestCSILimits_DeferredResizeSkipped, every case, with upstream's names. As upstream's fake listers,
// the objects go straight into the informers' stores (the informers are never started).
//
// Differences from upstream:
//   - "ephemeral volume missing" and "don't skip Filter when the pod has ephemeral volumes" expect
//     `persistentvolumeclaim "abc-xyz" not found`: upstream's test lister says "persistentvolumeclaims",
//     but the informer lister the scheduler runs with says "persistentvolumeclaim".
//   - The deleted VolumeAttachments of TestCSILimitsDeletedVolumeAttachmentQHint that name an inline
//     volume spec keep only their attacher (inlineVolumeSpec is not modelled; the hint reads the
//     attacher only).
//   - The hostpath PVs of getFakeCSIPVLister have no source (hostPath is not modelled on PVs; either
//     way the PV is neither CSI nor migratable).
//   - Upstream's migrationEnabled/ephemeralEnabled table fields are not read by its test body; they are
//     dropped.
//   - TestCSILimits runs with VolumeLimitScaling at its default (on) where upstream's plugin literal leaves
//     it off; there are no CSIDriver objects in that table, so the driver check passes either way.
// Added here (upstream has no such tests): EventsToRegister, create() without an informer factory, two
// instances sharing the VolumeAttachment index, hints given objects of the wrong kind, isCSIMigrationOn
// (utils.go), Portworx volumes with and without the node's migrated-plugins annotation, a migrated GCE PD
// PV, in-tree attachments, and preventPodSchedulingIfMissing without CSINode, with an explicit false,
// with several drivers, and ahead of the limits.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/nodevolumelimits/csi.h"
#include "pkg/scheduler/framework/plugins/nodevolumelimits/utils.h"
#include "pkg/volume/csitranslation/csi_translation.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::framework {
// Readable statuses in failure messages (found by gtest through ADL).
[[maybe_unused]] static void PrintTo(const Status& s, std::ostream* os) {
  *os << s.toString();
}
}  // namespace ks::framework

namespace ks::plugins::nodevolumelimits {
namespace {

namespace ct = volume::csitranslation;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;
using ks::testing::MakePod;

const std::string kEBSCSIDriverName(ct::kAWSEBSDriverName);
const std::string kGCECSIDriverName(ct::kGCEPDDriverName);
const std::string kAWSEBSInTreePluginName(ct::kAWSEBSInTreePluginName);
const std::string kHostpathInTreePluginName = "kubernetes.io/hostpath";
const std::string kNodeName = "node-for-max-pd-test-1";
const std::string kSCName = "csi-sc";

const Status kMaxVolumeCountExceeded(Code::Unschedulable, std::string(kErrReasonMaxVolumeCountExceeded));

api::Volume sourceVolume(std::string otherSource) {
  api::Volume v;
  v.otherSource = std::move(otherSource);
  return v;
}
api::Volume ebsVolume(std::string volumeID) {
  api::Volume v;
  v.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{std::move(volumeID), "", 0, false};
  return v;
}
api::Volume gceVolume(std::string pdName) {
  api::Volume v;
  v.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{std::move(pdName), "", 0, false};
  return v;
}
api::Volume ephemeralVolume(std::string name) {
  api::Volume v;
  v.name = std::move(name);
  v.ephemeral = api::EphemeralVolumeSource{};
  return v;
}
api::Volume pvcVolume(std::string claimName, std::string name = "") {
  api::Volume v;
  v.name = std::move(name);
  v.persistentVolumeClaim = api::PersistentVolumeClaimVolumeSource{std::move(claimName), false};
  return v;
}

api::PersistentVolumeClaim claim(std::string ns, std::string name) {
  api::PersistentVolumeClaim c;
  c.metadata.namespace_ = std::move(ns);
  c.metadata.name = std::move(name);
  return c;
}

// A claim of `pod`'s ephemeral volume `volumeName`, controlled by the pod.
api::PersistentVolumeClaim ephemeralClaim(const api::Pod& pod, const std::string& volumeName) {
  auto c = claim(pod.metadata.namespace_, pod.metadata.name + "-" + volumeName);
  c.metadata.ownerReferences.push_back(
      api::OwnerReference{"v1", "Pod", pod.metadata.name, pod.metadata.uid, true, {}});
  c.spec.storageClassName = kSCName;
  return c;
}

// getFakeCSIPVLister: four PVs per driver, "<volumeName>-<driver>-<j>", CSI unless the driver is the
// in-tree EBS plugin (an EBS source) or hostpath (no source modelled).
std::vector<api::PersistentVolume> fakeCSIPVs(const std::string& volumeName,
                                              const std::vector<std::string>& drivers) {
  std::vector<api::PersistentVolume> pvs;
  for (const auto& driver : drivers) {
    for (int j = 0; j < 4; ++j) {
      const std::string handle = volumeName + "-" + driver + "-" + std::to_string(j);
      api::PersistentVolume pv;
      pv.metadata.name = handle;
      if (driver == kAWSEBSInTreePluginName) {
        pv.spec.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{handle, "", 0, false};
      } else if (driver != kHostpathInTreePluginName) {
        pv.spec.csi = api::CSIPersistentVolumeSource{driver, handle, false};
      }
      pvs.push_back(std::move(pv));
    }
  }
  return pvs;
}

// getFakeCSIPVCLister: a bound claim per fake PV, "<volumeName>-4" unbound with the class,
// "<volumeName>-5" unbound without class, "<volumeName>-6" bound to a missing PV with the class.
std::vector<api::PersistentVolumeClaim> fakeCSIPVCs(const std::string& volumeName,
                                                    const std::vector<std::string>& drivers) {
  std::vector<api::PersistentVolumeClaim> pvcs;
  for (const auto& driver : drivers) {
    for (int j = 0; j < 4; ++j) {
      auto c = claim("", volumeName + "-" + driver + "-" + std::to_string(j));
      c.spec.volumeName = c.metadata.name;
      pvcs.push_back(std::move(c));
    }
  }
  auto pending = claim("", volumeName + "-4");
  pending.spec.storageClassName = kSCName;
  pvcs.push_back(std::move(pending));
  pvcs.push_back(claim("", volumeName + "-5"));
  auto missingPV = claim("", volumeName + "-6");
  missingPV.spec.storageClassName = kSCName;
  missingPV.spec.volumeName = "missing-in-action";
  pvcs.push_back(std::move(missingPV));
  return pvcs;
}

// getFakeVolumeAttachmentLister: `count` attachments per driver of PV "csi-<driver>-<j>" to the node.
std::vector<api::VolumeAttachment> fakeVolumeAttachments(int count, const std::vector<std::string>& drivers) {
  std::vector<api::VolumeAttachment> vas;
  for (const auto& driver : drivers) {
    for (int j = 0; j < count; ++j) {
      api::VolumeAttachment va;
      va.metadata.name = "va-" + driver + "-" + std::to_string(j);
      va.nodeName = kNodeName;
      va.attacher = driver;
      va.persistentVolumeName = "csi-" + driver + "-" + std::to_string(j);
      vas.push_back(std::move(va));
    }
  }
  return vas;
}

// getNodeWithPodAndVolumeLimits' CSINode: "csinode" has the drivers with `limit`, "csinode-with-no-limit"
// the drivers without limit, "no-csi-driver" no driver; anything else no CSINode. As upstream's test
// body, an existing CSINode lists the in-tree EBS plugin as migrated.
std::optional<api::CSINode> makeCSINode(const std::string& limitSource, int32_t limit,
                                        const std::vector<std::string>& drivers) {
  if (limitSource != "csinode" && limitSource != "csinode-with-no-limit" && limitSource != "no-csi-driver") {
    return std::nullopt;
  }
  api::CSINode csiNode;
  csiNode.metadata.name = kNodeName;
  if (limitSource != "no-csi-driver") {
    for (const auto& d : drivers) {
      api::CSINodeDriver driver{d, kNodeName, {}, std::nullopt};
      if (limitSource == "csinode") driver.allocatable = api::VolumeNodeResources{limit};
      csiNode.drivers.push_back(std::move(driver));
    }
  }
  csiNode.metadata.annotations["storage.alpha.kubernetes.io/migrated-plugins"] = kAWSEBSInTreePluginName;
  return csiNode;
}

api::Node testNode() {
  api::Node n;
  n.metadata.name = kNodeName;
  return n;
}

// The plugin over informer stores filled with the given objects.
class Env {
 public:
  struct Objects {
    std::optional<api::CSINode> csiNode;
    std::vector<api::PersistentVolume> pvs;
    std::vector<api::PersistentVolumeClaim> pvcs;
    std::vector<api::StorageClass> classes;
    std::vector<api::VolumeAttachment> vas;
    std::vector<api::CSIDriver> csiDrivers;
  };
  explicit Env(const Objects& objects, CSILimits::Features features = {}) : factory_(client_) {
    if (objects.csiNode)
      factory_.csiNodes().store().upsert(std::make_shared<const api::CSINode>(*objects.csiNode));
    for (const auto& v : objects.pvs) {
      factory_.persistentVolumes().store().upsert(std::make_shared<const api::PersistentVolume>(v));
    }
    for (const auto& c : objects.pvcs) {
      factory_.persistentVolumeClaims().store().upsert(std::make_shared<const api::PersistentVolumeClaim>(c));
    }
    for (const auto& sc : objects.classes) {
      factory_.storageClasses().store().upsert(std::make_shared<const api::StorageClass>(sc));
    }
    for (const auto& va : objects.vas) {
      factory_.volumeAttachments().store().upsert(std::make_shared<const api::VolumeAttachment>(va));
    }
    for (const auto& d : objects.csiDrivers) {
      factory_.csiDrivers().store().upsert(std::make_shared<const api::CSIDriver>(d));
    }
    handle_.setSharedInformerFactory(&factory_);
    auto p = CSILimits::create(nullptr, handle_, features);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    if (p.ok()) plugin_ = std::move(p).value();
  }
  CSILimits& plugin() { return *plugin_; }
  plugintesting::FakeHandle& handle() { return handle_; }

  // PreFilter, then Filter unless PreFilter skipped; both statuses.
  std::pair<Status, Status> run(const api::Pod& pod, const std::vector<api::Pod>& existing) {
    std::vector<api::PodPtr> pods;
    for (const auto& p : existing) pods.push_back(std::make_shared<const api::Pod>(p));
    auto nodeInfo = plugintesting::nodeInfoWith(testNode(), pods);
    auto podInfo = plugintesting::podInfo(pod);
    framework::CycleState state;
    framework::PreFilterResult result;
    Status pre = plugin_->preFilter(state, *podInfo, {}, result);
    if (pre.isSkip()) return {std::move(pre), Status()};
    return {std::move(pre), plugin_->filter(state, *podInfo, *nodeInfo)};
  }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_;
  plugintesting::FakeHandle handle_;
  std::unique_ptr<CSILimits> plugin_;
};

void expectStatus(const Status& got, const Status& want) {
  EXPECT_EQ(got.code(), want.code()) << got.toString();
  EXPECT_EQ(got.message(), want.message());
}

TEST(CSILimitsTest, TestCSILimits) {
  const api::Pod runningPod = MakePod().pvc("csi-ebs.csi.aws.com-3").obj();
  const api::Pod pendingVolumePod = MakePod().pvc("csi-4").obj();
  // Different pod than pendingVolumePod, but using the same unbound PVC.
  const api::Pod unboundPVCPod2 = MakePod().pvc("csi-4").obj();
  const api::Pod missingPVPod = MakePod().pvc("csi-6").obj();
  const api::Pod noSCPVCPod = MakePod().pvc("csi-5").obj();
  const api::Pod gceTwoVolPod =
      MakePod().pvc("csi-pd.csi.storage.gke.io-1").pvc("csi-pd.csi.storage.gke.io-2").obj();
  // In-tree volumes.
  const api::Pod inTreeOneVolPod = MakePod().pvc("csi-kubernetes.io/aws-ebs-0").obj();
  const api::Pod inTreeTwoVolPod =
      MakePod().pvc("csi-kubernetes.io/aws-ebs-1").pvc("csi-kubernetes.io/aws-ebs-2").obj();
  // Pods with matching CSI driver names.
  const api::Pod csiEBSOneVolPod = MakePod().pvc("csi-ebs.csi.aws.com-0").obj();
  const api::Pod csiEBSTwoVolPod = MakePod().pvc("csi-ebs.csi.aws.com-1").pvc("csi-ebs.csi.aws.com-2").obj();
  const api::Pod inTreeNonMigratableOneVolPod = MakePod().pvc("csi-kubernetes.io/hostpath-0").obj();

  const api::Pod ephemeralVolumePod =
      MakePod().name("abc").namespace_("test").uid("12345").volume(ephemeralVolume("xyz")).obj();
  const api::PersistentVolumeClaim ephemeralClaimXYZ = ephemeralClaim(ephemeralVolumePod, "xyz");
  api::PersistentVolumeClaim conflictingClaim = ephemeralClaimXYZ;
  conflictingClaim.metadata.ownerReferences.clear();
  const api::Pod ephemeralTwoVolumePod = MakePod()
                                             .name("abc")
                                             .namespace_("test")
                                             .uid("12345II")
                                             .volume(ephemeralVolume("x"))
                                             .volume(ephemeralVolume("y"))
                                             .obj();
  const api::PersistentVolumeClaim ephemeralClaimX = ephemeralClaim(ephemeralTwoVolumePod, "x");
  const api::PersistentVolumeClaim ephemeralClaimY = ephemeralClaim(ephemeralTwoVolumePod, "y");

  const api::Pod inTreeInlineVolPod = MakePod().volume(ebsVolume("aws-inline1")).obj();
  const api::Pod inTreeInlineVolPodWithSameCSIVolumeID =
      MakePod().volume(ebsVolume("csi-ebs.csi.aws.com-1")).obj();
  const api::Pod onlyConfigmapAndSecretVolPod =
      MakePod().volume(sourceVolume("configMap")).volume(sourceVolume("secret")).obj();
  const api::Pod pvcPodWithConfigmapAndSecret = MakePod()
                                                    .volume(sourceVolume("configMap"))
                                                    .volume(sourceVolume("secret"))
                                                    .volume(pvcVolume("csi-ebs.csi.aws.com-0"))
                                                    .obj();
  const api::Pod ephemeralPodWithConfigmapAndSecret = MakePod()
                                                          .name("abc")
                                                          .namespace_("test")
                                                          .volume(sourceVolume("configMap"))
                                                          .volume(sourceVolume("secret"))
                                                          .volume(ephemeralVolume("xyz"))
                                                          .obj();
  const api::Pod inlineMigratablePodWithConfigmapAndSecret = MakePod()
                                                                 .volume(sourceVolume("configMap"))
                                                                 .volume(sourceVolume("secret"))
                                                                 .volume(ebsVolume("aws-inline1"))
                                                                 .obj();

  const Status ephemeralMissing(Code::UnschedulableAndUnresolvable,
                                "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not found");

  struct Case {
    std::string test;
    api::Pod newPod;
    std::vector<api::Pod> existingPods;
    std::vector<api::PersistentVolumeClaim> extraClaims;
    int32_t maxVols = 0;
    int vaCount = 0;
    std::vector<std::string> driverNames;
    std::string limitSource;
    Status wantStatus;
    Status wantPreFilterStatus;
  };
  const std::vector<std::string> ebs{kEBSCSIDriverName};
  const std::vector<std::string> ebsGCE{kEBSCSIDriverName, kGCECSIDriverName};
  const std::vector<std::string> inTreeEBS{kAWSEBSInTreePluginName, kEBSCSIDriverName};
  const std::vector<Case> cases = {
      {"should count VolumeAttachments towards volume limit when no pods exist",
       csiEBSOneVolPod,
       {},
       {},
       2,
       2,
       ebs,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"should schedule pod when VolumeAttachments count does not exceed limit",
       csiEBSOneVolPod,
       {},
       {},
       2,
       1,
       ebs,
       "csinode",
       {},
       {}},
      {"fits when node volume limit >= new pods CSI volume",
       csiEBSOneVolPod,
       {runningPod, csiEBSTwoVolPod},
       {},
       4,
       0,
       ebs,
       "csinode",
       {},
       {}},
      {"doesn't when node volume limit <= pods CSI volume",
       csiEBSOneVolPod,
       {runningPod, csiEBSTwoVolPod},
       {},
       2,
       0,
       ebs,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"should when driver does not support volume limits",
       csiEBSOneVolPod,
       {runningPod, csiEBSTwoVolPod},
       {},
       2,
       0,
       ebs,
       "csinode-with-no-limit",
       {},
       {}},
      // Should count pending PVCs.
      {"count pending PVCs towards volume limit <= pods CSI volume",
       csiEBSOneVolPod,
       {pendingVolumePod, csiEBSTwoVolPod},
       {},
       2,
       0,
       ebs,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      // Two same pending PVCs should be counted as 1.
      {"count multiple pending pvcs towards volume limit >= pods CSI volume",
       csiEBSOneVolPod,
       {pendingVolumePod, unboundPVCPod2, csiEBSTwoVolPod},
       {},
       4,
       0,
       ebs,
       "csinode",
       {},
       {}},
      // Should count PVCs with invalid PV name but valid SC.
      {"should count PVCs with invalid PV name but valid SC",
       csiEBSOneVolPod,
       {missingPVPod, csiEBSTwoVolPod},
       {},
       2,
       0,
       ebs,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      // Don't count a volume which has storageclass missing.
      {"don't count pvcs with missing SC towards volume limit",
       csiEBSOneVolPod,
       {runningPod, noSCPVCPod},
       {},
       2,
       0,
       ebs,
       "csinode",
       {},
       {}},
      // Don't count multiple volume types.
      {"count pvcs with the same type towards volume limit",
       csiEBSOneVolPod,
       {gceTwoVolPod, csiEBSTwoVolPod},
       {},
       2,
       0,
       ebsGCE,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"don't count pvcs with different type towards volume limit",
       gceTwoVolPod,
       {csiEBSTwoVolPod, runningPod},
       {},
       2,
       0,
       ebsGCE,
       "csinode",
       {},
       {}},
      // Tests for in-tree volume migration.
      {"should count in-tree volumes if migration is enabled",
       inTreeOneVolPod,
       {inTreeTwoVolPod},
       {},
       2,
       0,
       inTreeEBS,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"nil csi node", inTreeInlineVolPod, {inTreeTwoVolPod}, {}, 0, 0, inTreeEBS, "", {}, {}},
      {"should count unbound in-tree volumes if migration is enabled",
       pendingVolumePod,
       {inTreeTwoVolPod},
       {},
       2,
       0,
       inTreeEBS,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"should not limit pod if volume used does not report limits",
       inTreeOneVolPod,
       {inTreeTwoVolPod},
       {},
       2,
       0,
       inTreeEBS,
       "csinode-with-no-limit",
       {},
       {}},
      {"should not count non-migratable in-tree volumes",
       inTreeNonMigratableOneVolPod,
       {csiEBSTwoVolPod},
       {},
       2,
       0,
       {kHostpathInTreePluginName, kEBSCSIDriverName},
       "csinode",
       {},
       {}},
      {"should count in-tree inline volumes if migration is enabled",
       inTreeInlineVolPod,
       {inTreeTwoVolPod},
       {},
       2,
       0,
       inTreeEBS,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      // Mixed volumes.
      {"should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)",
       inTreeOneVolPod,
       {csiEBSTwoVolPod},
       {},
       2,
       0,
       inTreeEBS,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree "
       "volumes)",
       inTreeInlineVolPod,
       {csiEBSTwoVolPod, inTreeOneVolPod},
       {},
       3,
       0,
       inTreeEBS,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"should not count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree "
       "volumes)",
       inTreeInlineVolPodWithSameCSIVolumeID,
       {csiEBSTwoVolPod, inTreeOneVolPod},
       {},
       3,
       0,
       inTreeEBS,
       "csinode",
       {},
       {}},
      {"should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)",
       csiEBSOneVolPod,
       {inTreeTwoVolPod},
       {},
       2,
       0,
       inTreeEBS,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      // Ephemeral volumes.
      {"ephemeral volume missing",
       ephemeralVolumePod,
       {},
       {},
       0,
       0,
       ebs,
       "csinode-with-no-limit",
       ephemeralMissing,
       {}},
      {"ephemeral volume not owned",
       ephemeralVolumePod,
       {},
       {conflictingClaim},
       0,
       0,
       ebs,
       "csinode-with-no-limit",
       Status::error("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"),
       {}},
      {"ephemeral volume unbound",
       ephemeralVolumePod,
       {},
       {ephemeralClaimXYZ},
       0,
       0,
       ebs,
       "csinode-with-no-limit",
       {},
       {}},
      {"ephemeral doesn't when node volume limit <= pods CSI volume",
       ephemeralVolumePod,
       {runningPod, csiEBSTwoVolPod},
       {ephemeralClaimXYZ},
       2,
       0,
       ebs,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
       csiEBSOneVolPod,
       {runningPod, ephemeralTwoVolumePod},
       {ephemeralClaimX, ephemeralClaimY},
       2,
       0,
       ebs,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume, "
       "ephemeral "
       "disabled",
       csiEBSOneVolPod,
       {runningPod, ephemeralVolumePod, csiEBSTwoVolPod},
       {ephemeralClaimXYZ},
       3,
       0,
       ebs,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume",
       csiEBSOneVolPod,
       {runningPod, ephemeralVolumePod, csiEBSTwoVolPod},
       {ephemeralClaimXYZ},
       3,
       0,
       ebs,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
      {"persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
       csiEBSOneVolPod,
       {runningPod, ephemeralVolumePod, csiEBSTwoVolPod},
       {ephemeralClaimXYZ},
       5,
       0,
       ebs,
       "csinode",
       {},
       {}},
      {"skip Filter when the pod only uses secrets and configmaps",
       onlyConfigmapAndSecretVolPod,
       {},
       {},
       2,
       0,
       ebs,
       "csinode",
       {},
       Status(Code::Skip)},
      {"don't skip Filter when the pod has pvcs",
       pvcPodWithConfigmapAndSecret,
       {},
       {},
       2,
       0,
       ebs,
       "csinode",
       {},
       {}},
      {"don't skip Filter when the pod has ephemeral volumes",
       ephemeralPodWithConfigmapAndSecret,
       {},
       {},
       0,
       0,
       ebs,
       "csinode-with-no-limit",
       ephemeralMissing,
       {}},
      {"don't skip Filter when the pod has inline migratable volumes",
       inlineMigratablePodWithConfigmapAndSecret,
       {inTreeTwoVolPod},
       {},
       2,
       0,
       inTreeEBS,
       "csinode",
       kMaxVolumeCountExceeded,
       {}},
  };

  for (const auto& c : cases) {
    SCOPED_TRACE(c.test);
    Env::Objects objects;
    objects.csiNode = makeCSINode(c.limitSource, c.maxVols, c.driverNames);
    objects.pvs = fakeCSIPVs("csi", c.driverNames);
    objects.pvcs = fakeCSIPVCs("csi", c.driverNames);
    objects.pvcs.insert(objects.pvcs.end(), c.extraClaims.begin(), c.extraClaims.end());
    api::StorageClass sc;
    sc.metadata.name = kSCName;
    sc.provisioner = c.driverNames[0];
    objects.classes = {sc};
    objects.vas = fakeVolumeAttachments(c.vaCount, c.driverNames);
    Env env(objects);
    auto [pre, filter] = env.run(c.newPod, c.existingPods);
    expectStatus(pre, c.wantPreFilterStatus);
    expectStatus(filter, c.wantStatus);
  }
}

EventObject podObj(const api::Pod& p) {
  return EventObject{std::make_shared<const api::Pod>(p)};
}

TEST(CSILimitsTest, TestCSILimitsQHint) {
  const api::Pod podEbs = MakePod().pvc("csi-ebs.csi.aws.com-2").obj();
  struct Case {
    std::string test;
    api::Pod deletedPod;
    bool deletedPodNotScheduled = false;
    QueueingHint wantQHint;
  };
  api::Volume emptyEBS;
  emptyEBS.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{};
  const std::vector<Case> cases = {
      {"return a Queue when a deleted pod has a PVC", MakePod().pvc("placeholder").obj(), false,
       QueueingHint::Queue},
      {"return a Queue when a deleted pod has a inline migratable volume", MakePod().volume(emptyEBS).obj(),
       false, QueueingHint::Queue},
      {"return a QueueSkip when a deleted pod doesn't have any volume", MakePod().obj(), false,
       QueueingHint::QueueSkip},
      {"return a QueueSkip when a deleted pod is not scheduled.",
       MakePod().pvc("csi-ebs.csi.aws.com-0").obj(), true, QueueingHint::QueueSkip},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.test);
    api::Pod deleted = c.deletedPod;
    deleted.spec.nodeName = c.deletedPodNotScheduled ? "" : kNodeName;
    auto hint = CSILimits::isSchedulableAfterAssignedPodDeleted(podEbs, podObj(deleted), {});
    ASSERT_TRUE(hint.ok()) << hint.error().message();
    EXPECT_EQ(*hint, c.wantQHint);
  }
  // Not upstream's: a pod only nominated to a node may also have held volumes there.
  api::Pod nominated = MakePod().pvc("csi-ebs.csi.aws.com-0").nominatedNodeName(kNodeName).obj();
  EXPECT_EQ(*CSILimits::isSchedulableAfterAssignedPodDeleted(podEbs, podObj(nominated), {}),
            QueueingHint::Queue);
  api::Pod onlyConfigMap = MakePod().node(kNodeName).volume(sourceVolume("configMap")).obj();
  EXPECT_EQ(*CSILimits::isSchedulableAfterAssignedPodDeleted(podEbs, podObj(onlyConfigMap), {}),
            QueueingHint::QueueSkip);
}

EventObject pvcObj(const api::PersistentVolumeClaim& c) {
  return EventObject{std::make_shared<const api::PersistentVolumeClaim>(c)};
}

TEST(CSILimitsTest, TestCSILimitsAddedPVCQHint) {
  struct Case {
    std::string test;
    api::Pod newPod;
    api::PersistentVolumeClaim addedPvc;
    QueueingHint wantQHint;
  };
  const std::vector<Case> cases = {
      {"a pod isn't in the same namespace as an added PVC", MakePod().namespace_("ns1").obj(),
       claim("ns2", ""), QueueingHint::QueueSkip},
      {"a pod is in the same namespace as an added PVC",
       MakePod().namespace_("ns1").volume(pvcVolume("pvc1")).obj(), claim("ns1", "pvc1"),
       QueueingHint::Queue},
      {"a pod has an ephemeral volume related to an added PVC",
       MakePod().name("pod1").namespace_("ns1").volume(ephemeralVolume("ephemeral")).obj(),
       claim("ns1", "pod1-ephemeral"), QueueingHint::Queue},
      {"a pod doesn't have the same PVC as an added PVC",
       MakePod().namespace_("ns1").volume(pvcVolume("pvc1")).obj(), claim("ns1", "pvc2"),
       QueueingHint::QueueSkip},
      {"a pod doesn't have any PVC attached", MakePod().namespace_("ns1").obj(), claim("ns1", "pvc2"),
       QueueingHint::QueueSkip},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.test);
    auto hint = CSILimits::isSchedulableAfterPVCAdded(c.newPod, {}, pvcObj(c.addedPvc));
    ASSERT_TRUE(hint.ok()) << hint.error().message();
    EXPECT_EQ(*hint, c.wantQHint);
  }
}

api::VolumeAttachment volumeAttachment(std::string attacher, std::optional<std::string> pvName) {
  api::VolumeAttachment va;
  va.metadata.name = "volumeattachment1";
  va.nodeName = "fake-node";
  va.attacher = std::move(attacher);
  va.persistentVolumeName = std::move(pvName);
  return va;
}

EventObject vaObj(const api::VolumeAttachment& va) {
  return EventObject{std::make_shared<const api::VolumeAttachment>(va)};
}

TEST(CSILimitsTest, TestCSILimitsDeletedVolumeAttachmentQHint) {
  struct Case {
    std::string test;
    api::Pod newPod;
    api::VolumeAttachment deletedVA;
    QueueingHint wantQHint;
  };
  const std::vector<Case> cases = {
      {"a pod has PVC when VolumeAttachment is deleting",
       MakePod().namespace_("ns1").volume(pvcVolume("pvc1")).obj(),
       volumeAttachment("test.storage.gke.io", "pv1"), QueueingHint::Queue},
      {"a pod has an Inline Migratable volume (AWSEBSDriver) when VolumeAttachment (AWSEBSDriver) is "
       "deleting (match)",
       MakePod().namespace_("ns1").volume(ebsVolume("test")).obj(),
       volumeAttachment("ebs.csi.aws.com", std::nullopt), QueueingHint::Queue},
      {"a pod has an Inline Migratable volume (GCEPDDriver) when VolumeAttachment (AWSEBSDriver) is deleting "
       "(no "
       "match)",
       MakePod().namespace_("ns1").volume(gceVolume("test")).obj(),
       volumeAttachment("ebs.csi.aws.com", std::nullopt), QueueingHint::QueueSkip},
      {"a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment (AWSEBSDriver) is "
       "deleting",
       MakePod().namespace_("ns1").volume(ebsVolume("test")).volume(pvcVolume("pvc1")).obj(),
       volumeAttachment("ebs.csi.aws.com", std::nullopt), QueueingHint::Queue},
      {"a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment (AWSEBSDriver)  "
       "is "
       "deleting",
       MakePod().namespace_("ns1").volume(ebsVolume("test")).volume(pvcVolume("pvc1")).obj(),
       volumeAttachment("test.storage.gke.io", "pv1"), QueueingHint::Queue},
      {"a pod has no PVC when VolumeAttachment is deleting", MakePod().namespace_("ns1").obj(),
       volumeAttachment("test.storage.gke.io", "pv1"), QueueingHint::QueueSkip},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.test);
    auto hint = CSILimits::isSchedulableAfterVolumeAttachmentDeleted(c.newPod, vaObj(c.deletedVA), {});
    ASSERT_TRUE(hint.ok()) << hint.error().message();
    EXPECT_EQ(*hint, c.wantQHint);
  }
  // Not upstream's: an inline volume that fails to translate is an error (which queues the pod).
  auto bad = CSILimits::isSchedulableAfterVolumeAttachmentDeleted(
      MakePod().volume(ebsVolume("aws://zone/bad")).obj(),
      vaObj(volumeAttachment("ebs.csi.aws.com", std::nullopt)), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "converting volume() from inline to csi: failed to translate Kubernetes ID to EBS Volume ID "
            "Invalid format "
            "for AWS volume (aws://zone/bad)");
}

api::CSINodeDriver ebsDriver(std::optional<int32_t> count) {
  api::CSINodeDriver d{"ebs.csi.aws.com", "test-node", {}, std::nullopt};
  if (count) d.allocatable = api::VolumeNodeResources{*count};
  return d;
}

EventObject csiNodeObj(std::vector<api::CSINodeDriver> drivers) {
  auto n = std::make_shared<api::CSINode>();
  n->metadata.name = "test-node";
  n->drivers = std::move(drivers);
  return EventObject{std::shared_ptr<const api::CSINode>(std::move(n))};
}

TEST(CSILimitsTest, TestCSILimitsAfterCSINodeUpdatedQHint) {
  const api::Pod testPod = MakePod().name("test-pod").namespace_("ns1").pvc("csi-ebs.csi.aws.com-0").obj();
  struct Case {
    std::string name;
    std::vector<api::CSINodeDriver> oldDrivers, newDrivers;
    QueueingHint wantQHint;
  };
  const std::vector<Case> cases = {
      {"limit raised, queue", {ebsDriver(1)}, {ebsDriver(2)}, QueueingHint::Queue},
      {"limit decreased, skip queueing", {ebsDriver(2)}, {ebsDriver(1)}, QueueingHint::QueueSkip},
      {"limit unchanged, skip queueing", {ebsDriver(1)}, {ebsDriver(1)}, QueueingHint::QueueSkip},
      // Not upstream's: a new driver with a limit, a limit set where there was none, a driver removed.
      {"driver added with a limit", {}, {ebsDriver(1)}, QueueingHint::Queue},
      {"limit set on a driver without one", {ebsDriver(std::nullopt)}, {ebsDriver(3)}, QueueingHint::Queue},
      {"driver removed", {ebsDriver(1)}, {}, QueueingHint::QueueSkip},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto hint = CSILimits::isSchedulableAfterCSINodeUpdated(testPod, csiNodeObj(c.oldDrivers),
                                                            csiNodeObj(c.newDrivers));
    ASSERT_TRUE(hint.ok()) << hint.error().message();
    EXPECT_EQ(*hint, c.wantQHint);
  }
}

TEST(CSILimitsTest, HintsRejectObjectsOfAnotherKind) {
  const api::Pod pod = MakePod().pvc("c").obj();
  const EventObject node{std::make_shared<const api::Node>(testNode())};
  auto deleted = CSILimits::isSchedulableAfterAssignedPodDeleted(pod, node, {});
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.error().message(),
            "unexpected objects in isSchedulableAfterAssignedPodDeleted: expected *v1.Pod, but got *v1.Node");
  EXPECT_FALSE(CSILimits::isSchedulableAfterPVCAdded(pod, {}, node).ok());
  EXPECT_FALSE(CSILimits::isSchedulableAfterVolumeAttachmentDeleted(pod, node, {}).ok());
  EXPECT_FALSE(CSILimits::isSchedulableAfterCSINodeUpdated(pod, node, node).ok());
}

TEST(CSILimitsTest, EventsToRegister) {
  Env env(Env::Objects{});
  auto events = env.plugin().eventsToRegister();
  ASSERT_TRUE(events.ok());
  using framework::EventResource;
  namespace action = framework::action;
  const std::vector<std::pair<framework::ClusterEvent, bool>> want = {
      {{EventResource::CSINode, action::Add, {}}, false},
      {{EventResource::CSINode, action::Update, {}}, true},
      {{EventResource::AssignedPod, action::Delete, {}}, true},
      {{EventResource::PersistentVolumeClaim, action::Add, {}}, true},
      {{EventResource::VolumeAttachment, action::Delete, {}}, true},
  };
  ASSERT_EQ(events->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ((*events)[i].event, want[i].first) << i;
    EXPECT_EQ(static_cast<bool>((*events)[i].queueingHintFn), want[i].second) << i;
  }
}

TEST(CSILimitsTest, CreateNeedsInformerFactory) {
  plugintesting::FakeHandle handle;
  auto p = CSILimits::create(nullptr, handle, {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), "SharedInformerFactory is nil");
}

TEST(CSILimitsTest, IsCSIMigrationOn) {
  api::CSINode bare;
  api::CSINode portworxMigrated;
  portworxMigrated.metadata.annotations["storage.alpha.kubernetes.io/migrated-plugins"] =
      "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume";
  EXPECT_FALSE(isCSIMigrationOn(nullptr, "kubernetes.io/aws-ebs"));
  EXPECT_FALSE(isCSIMigrationOn(&bare, ""));
  // GA migrations: any CSINode, annotation or not (v1.37: Portworx too).
  for (std::string_view plugin :
       {ct::kAWSEBSInTreePluginName, ct::kGCEPDInTreePluginName, ct::kAzureDiskInTreePluginName,
        ct::kCinderInTreePluginName, ct::kPortworxVolumePluginName}) {
    EXPECT_TRUE(isCSIMigrationOn(&bare, plugin)) << plugin;
    EXPECT_TRUE(isCSIMigrationOn(&portworxMigrated, plugin)) << plugin;
    EXPECT_FALSE(isCSIMigrationOn(nullptr, plugin)) << plugin;
  }
  // Not counted by this plugin at all.
  EXPECT_FALSE(isCSIMigrationOn(&portworxMigrated, ct::kAzureFileInTreePluginName));
  EXPECT_FALSE(isCSIMigrationOn(&portworxMigrated, ct::kVSphereInTreePluginName));
  EXPECT_FALSE(isCSIMigrationOn(&portworxMigrated, kHostpathInTreePluginName));
}

// Portworx PVs and inline volumes count against pxd.portworx.com on any node with a CSINode (v1.37 no
// longer reads the node's migrated-plugins annotation); without a CSINode they are not counted.
TEST(CSILimitsTest, PortworxVolumesCountOnAnyCSINode) {
  const std::string pxd(ct::kPortworxDriverName);
  auto portworxPV = [](std::string name) {
    api::PersistentVolume pv;
    pv.metadata.name = name;
    pv.spec.portworxVolume = api::PortworxVolumeSource{name, false};
    return pv;
  };
  auto boundClaim = [](std::string name) {
    auto c = claim("", name);
    c.spec.volumeName = name;
    return c;
  };
  api::Volume inlinePX;
  inlinePX.portworxVolume = api::PortworxVolumeSource{"px-inline", false};
  const api::Pod existing = MakePod().pvc("px-0").obj();
  const api::Pod incomingPVC = MakePod().pvc("px-1").obj();
  const api::Pod incomingInline = MakePod().volume(inlinePX).obj();

  auto objects = [&](bool withCSINode, bool annotated) {
    Env::Objects o;
    if (withCSINode) {
      api::CSINode csiNode;
      csiNode.metadata.name = kNodeName;
      csiNode.drivers.push_back(api::CSINodeDriver{pxd, kNodeName, {}, api::VolumeNodeResources{1}});
      if (annotated)
        csiNode.metadata.annotations["storage.alpha.kubernetes.io/migrated-plugins"] =
            "kubernetes.io/portworx-volume";
      o.csiNode = csiNode;
    }
    o.pvs = {portworxPV("px-0"), portworxPV("px-1")};
    o.pvcs = {boundClaim("px-0"), boundClaim("px-1")};
    return o;
  };
  for (const api::Pod* incoming : {&incomingPVC, &incomingInline}) {
    {
      Env env(objects(true, true));
      expectStatus(env.run(*incoming, {existing}).second, kMaxVolumeCountExceeded);
    }
    {
      Env env(objects(true, false));
      expectStatus(env.run(*incoming, {existing}).second, kMaxVolumeCountExceeded);
    }
    {
      Env env(objects(false, false));
      expectStatus(env.run(*incoming, {existing}).second, Status());
    }
  }
}

api::CSIDriver csiDriver(std::string name, std::optional<bool> preventPodSchedulingIfMissing) {
  api::CSIDriver d;
  d.metadata.name = std::move(name);
  d.spec.preventPodSchedulingIfMissing = preventPodSchedulingIfMissing;
  return d;
}

// The objects of upstream's TestVolumeLimitScalingGate: the EBS PVs, claims and class, the node's CSINode
// per `limitSource`, no VolumeAttachments.
Env::Objects volumeLimitScalingObjects(const std::string& limitSource, int32_t limit) {
  Env::Objects o;
  o.csiNode = makeCSINode(limitSource, limit, {kEBSCSIDriverName});
  o.pvs = fakeCSIPVs("csi", {kEBSCSIDriverName});
  o.pvcs = fakeCSIPVCs("csi", {kEBSCSIDriverName});
  api::StorageClass sc;
  sc.metadata.name = kSCName;
  sc.provisioner = kEBSCSIDriverName;
  o.classes = {sc};
  return o;
}

TEST(CSILimitsTest, TestVolumeLimitScalingGate) {
  // The pod's claim resolves to the EBS CSI driver through its PV.
  const api::Pod newPod = MakePod().pvc("csi-ebs.csi.aws.com-0").obj();
  struct Case {
    std::string name;
    bool enableVolumeLimitScaling;
    std::string limitSource;
    int32_t limit;
    bool csiDriverPresent;
    bool preventPodSchedulingIfMissing;
    Status wantStatus;
  };
  const std::vector<Case> cases = {
      {"gate enabled - allow scheduling when CSIDriver exists but PreventPodSchedulingIfMissing is not set",
       true,
       "no-csi-driver",
       0,
       true,
       false,
       {}},
      {"gate enabled - fail when driver not installed and PreventPodSchedulingIfMissing is true", true,
       "no-csi-driver", 0, true, true,
       Status(Code::Unschedulable, kEBSCSIDriverName + " CSI driver is not installed on the node")},
      {"gate disabled - skip driver presence check (regardless of CSIDriver presence)",
       false,
       "no-csi-driver",
       0,
       true,
       true,
       {}},
      {"gate enabled - driver installed within limit", true, "csinode", 2, true, true, {}},
      {"gate enabled - allow scheduling when CSIDriver object missing",
       true,
       "no-csi-driver",
       0,
       false,
       false,
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Env::Objects o = volumeLimitScalingObjects(c.limitSource, c.limit);
    if (c.csiDriverPresent) {
      // Upstream's lister leaves the field unset (not false) when the driver doesn't opt in.
      o.csiDrivers = {csiDriver(kEBSCSIDriverName,
                                c.preventPodSchedulingIfMissing ? std::optional<bool>(true) : std::nullopt)};
    }
    CSILimits::Features features;
    features.enableVolumeLimitScaling = c.enableVolumeLimitScaling;
    Env env(o, features);
    auto [pre, filter] = env.run(newPod, {});
    EXPECT_FALSE(pre.isSkip()) << "unexpected PreFilter Skip";
    expectStatus(filter, c.wantStatus);
  }
}

// Not upstream's: the driver check around TestVolumeLimitScalingGate's cases.
TEST(CSILimitsTest, PreventPodSchedulingIfMissingEdges) {
  const api::Pod ebsPod = MakePod().pvc("csi-ebs.csi.aws.com-0").obj();
  const Status ebsMissing(Code::Unschedulable,
                          kEBSCSIDriverName + " CSI driver is not installed on the node");
  {
    // No CSINode at all: no driver is installed.
    Env::Objects o = volumeLimitScalingObjects("", 0);
    o.csiDrivers = {csiDriver(kEBSCSIDriverName, true)};
    Env env(o);
    expectStatus(env.run(ebsPod, {}).second, ebsMissing);
  }
  {
    // An explicit false does not opt in.
    Env::Objects o = volumeLimitScalingObjects("no-csi-driver", 0);
    o.csiDrivers = {csiDriver(kEBSCSIDriverName, false)};
    Env env(o);
    expectStatus(env.run(ebsPod, {}).second, Status());
  }
  {
    // Listed without a limit: installed, and unlimited.
    Env::Objects o = volumeLimitScalingObjects("csinode-with-no-limit", 0);
    o.csiDrivers = {csiDriver(kEBSCSIDriverName, true)};
    Env env(o);
    expectStatus(env.run(ebsPod, {}).second, Status());
  }
  {
    // Checked ahead of the limits: the node is full for EBS, but GCE PD is what is missing.
    Env::Objects o;
    o.csiNode = makeCSINode("csinode", 1, {kEBSCSIDriverName});
    o.pvs = fakeCSIPVs("csi", {kEBSCSIDriverName, kGCECSIDriverName});
    o.pvcs = fakeCSIPVCs("csi", {kEBSCSIDriverName, kGCECSIDriverName});
    o.csiDrivers = {csiDriver(kEBSCSIDriverName, true), csiDriver(kGCECSIDriverName, true)};
    Env env(o);
    const api::Pod twoDrivers =
        MakePod().pvc("csi-ebs.csi.aws.com-1").pvc("csi-pd.csi.storage.gke.io-1").obj();
    const api::Pod existing = MakePod().pvc("csi-ebs.csi.aws.com-0").obj();
    expectStatus(env.run(twoDrivers, {existing}).second,
                 Status(Code::Unschedulable, kGCECSIDriverName + " CSI driver is not installed on the node"));
    // Only the pod's new volumes are checked: a pod without GCE PD volumes meets the EBS limit instead.
    expectStatus(env.run(MakePod().pvc("csi-ebs.csi.aws.com-1").obj(), {existing}).second,
                 kMaxVolumeCountExceeded);
  }
  {
    // A pod whose volumes count against no driver is not checked.
    Env::Objects o = volumeLimitScalingObjects("no-csi-driver", 0);
    o.csiDrivers = {csiDriver(kEBSCSIDriverName, true)};
    Env env(o);
    expectStatus(env.run(MakePod().pvc("csi-5").obj(), {}).second, Status());
  }
}

TEST(CSILimitsTest, TestCSILimits_DeferredResizeSkipped) {
  const api::Pod pod = MakePod().name("p").uid("p").condition("PodResizePending", "True", "Deferred").obj();
  CSILimits::Features features;
  features.enableInPlacePodVerticalScalingSchedulerPreemption = true;
  Env env(Env::Objects{}, features);
  auto nodeInfo = plugintesting::nodeInfoWith(testNode(), {});
  auto podInfo = plugintesting::podInfo(pod);
  framework::CycleState state;
  framework::PreFilterResult result;
  expectStatus(env.plugin().preFilter(state, *podInfo, {}, result), Status(Code::Skip));
  expectStatus(env.plugin().filter(state, *podInfo, *nodeInfo), Status());
}

// Not upstream's: with the gate off (its v1.37 default) a deferred resize is checked like any pod.
TEST(CSILimitsTest, DeferredResizeCheckedWithGateOff) {
  Env::Objects o = volumeLimitScalingObjects("csinode", 0);
  Env env(o);
  const api::Pod pod =
      MakePod().pvc("csi-ebs.csi.aws.com-0").condition("PodResizePending", "True", "Deferred").obj();
  auto [pre, filter] = env.run(pod, {});
  expectStatus(pre, Status());
  expectStatus(filter, kMaxVolumeCountExceeded);
}

// Every profile builds its own instance over the one informer factory: the VolumeAttachment index is
// added once and serves both.
TEST(CSILimitsTest, InstancesShareTheVolumeAttachmentIndex) {
  Env::Objects o = volumeLimitScalingObjects("csinode", 1);
  o.vas = fakeVolumeAttachments(1, {kEBSCSIDriverName});
  Env env(o);
  auto second = CSILimits::create(nullptr, env.handle(), {});
  ASSERT_TRUE(second.ok()) << second.error().message();
  auto nodeInfo = plugintesting::nodeInfoWith(testNode(), {});
  auto podInfo = plugintesting::podInfo(MakePod().pvc("csi-ebs.csi.aws.com-1").obj());
  framework::CycleState state;
  expectStatus((*second)->filter(state, *podInfo, *nodeInfo), kMaxVolumeCountExceeded);
  expectStatus(env.plugin().filter(state, *podInfo, *nodeInfo), kMaxVolumeCountExceeded);
}

// A bound GCE PD PV counts against pd.csi.storage.gke.io under its translated handle; an attachment of
// the same CSI volume is not counted twice, while one of another volume is.
TEST(CSILimitsTest, MigratedGCEPDAndVolumeAttachments) {
  const std::string pd(ct::kGCEPDDriverName);
  Env::Objects o;
  api::CSINode csiNode;
  csiNode.metadata.name = kNodeName;
  csiNode.drivers.push_back(api::CSINodeDriver{pd, kNodeName, {}, api::VolumeNodeResources{2}});
  o.csiNode = csiNode;
  api::PersistentVolume inTree;
  inTree.metadata.name = "gce-0";
  inTree.metadata.labels["topology.kubernetes.io/zone"] = "us-east1-a";
  inTree.spec.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{"disk-0", "", 0, false};
  api::PersistentVolume sameAsCSI;
  sameAsCSI.metadata.name = "gce-0-csi";
  sameAsCSI.spec.csi =
      api::CSIPersistentVolumeSource{pd, "projects/UNSPECIFIED/zones/us-east1-a/disks/disk-0", false};
  api::PersistentVolume other;
  other.metadata.name = "gce-other";
  other.spec.csi = api::CSIPersistentVolumeSource{pd, "projects/p/zones/z/disks/other", false};
  o.pvs = {inTree, sameAsCSI, other};
  auto bound = claim("", "gce-0");
  bound.spec.volumeName = "gce-0";
  o.pvcs = {bound};
  auto va = [](std::string name, std::string pv) {
    api::VolumeAttachment a;
    a.metadata.name = std::move(name);
    a.nodeName = kNodeName;
    a.attacher = std::string(ct::kGCEPDDriverName);
    a.persistentVolumeName = std::move(pv);
    return a;
  };
  const api::Pod existing = MakePod().pvc("gce-0").obj();
  const api::Pod incoming = MakePod().volume(gceVolume("disk-new")).obj();
  {
    o.vas = {va("va-same", "gce-0-csi")};
    Env env(o);
    expectStatus(env.run(incoming, {existing}).second, Status());
  }
  {
    o.vas = {va("va-same", "gce-0-csi"), va("va-other", "gce-other")};
    Env env(o);
    expectStatus(env.run(incoming, {existing}).second, kMaxVolumeCountExceeded);
  }
  {
    // An attachment of an in-tree PV (no CSI source) or on another node is not counted.
    auto elsewhere = va("va-elsewhere", "gce-other");
    elsewhere.nodeName = "other-node";
    o.vas = {va("va-same", "gce-0-csi"), va("va-intree", "gce-0"), elsewhere};
    Env env(o);
    expectStatus(env.run(incoming, {existing}).second, Status());
  }
}

}  // namespace
}  // namespace ks::plugins::nodevolumelimits
