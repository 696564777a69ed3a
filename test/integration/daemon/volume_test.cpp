// The volume plugins end to end: the real daemon on a real etcd + kube-apiserver, with
// kube-controller-manager's PV controller (persistentvolume-binder-controller) binding claims for real.
// The scheduler writes (a PV's claimRef, a claim's selected-node annotation), the PV controller binds.
// Only the external CSI provisioner is played by a test helper (TestProvisioner): it creates the PV for a
// claim the PV controller handed to it, on the node the scheduler selected.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/daemon/daemon_fixture.h"
#include "test/integration/harness/api_client.h"
#include "test/integration/harness/list_poller.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr const char* kProvisioner = "test.csi.example.com";

// Provisions the claims handed to kProvisioner: for each claim the PV controller annotated with
// volume.kubernetes.io/storage-provisioner = kProvisioner and the scheduler with the selected node, it
// creates a PV of the requested size with node affinity to that node and a claimRef to the claim (as
// external-provisioner does); the PV controller then binds the two.
class TestProvisioner {
 public:
  explicit TestProvisioner(const std::string& kubeconfig)
      : poller_(kubeconfig, "/api/v1/persistentvolumeclaims",
                [this](ApiClient& api, const json& claim) { visit(api, claim); }) {}

  // The nodes it provisioned on, by claim ("namespace/name").
  std::map<std::string, std::string> provisioned() const {
    std::lock_guard lock(mu_);
    return provisioned_;
  }

  static json hostnameAffinity(const std::string& node) {
    return {{"required",
             {{"nodeSelectorTerms",
               {{{"matchExpressions",
                  {{{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", {node}}}}}}}}}}};
  }

 private:
  void visit(ApiClient& api, const json& claim) {
    const json annotations = claim["metadata"].value("annotations", json::object());
    if (annotations.value("volume.kubernetes.io/storage-provisioner", "") != kProvisioner) return;
    const std::string node = annotations.value("volume.kubernetes.io/selected-node", "");
    if (node.empty() || !claim["spec"].value("volumeName", "").empty()) return;
    const std::string ns = claim["metadata"]["namespace"], name = claim["metadata"]["name"];
    const std::string uid = claim["metadata"]["uid"];
    json pv = {{"apiVersion", "v1"},
               {"kind", "PersistentVolume"},
               {"metadata",
                {{"name", "pvc-" + uid}, {"annotations", {{"pv.kubernetes.io/provisioned-by", kProvisioner}}}}},
               {"spec",
                {{"capacity", {{"storage", claim["spec"]["resources"]["requests"]["storage"]}}},
                 {"accessModes", claim["spec"]["accessModes"]},
                 {"storageClassName", claim["spec"]["storageClassName"]},
                 {"persistentVolumeReclaimPolicy", "Delete"},
                 {"claimRef",
                  {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"namespace", ns}, {"name", name},
                   {"uid", uid}}},
                 {"csi", {{"driver", kProvisioner}, {"volumeHandle", uid}}},
                 {"nodeAffinity", hostnameAffinity(node)}}}};
    auto r = api.post("/api/v1/persistentvolumes", pv);
    if (r.ok() && (r->status == 201 || r->status == 409)) {
      std::lock_guard lock(mu_);
      provisioned_[ns + "/" + name] = node;
    }
  }

  mutable std::mutex mu_;
  std::map<std::string, std::string> provisioned_;
  ListPoller poller_;  // last: stopped before the members it uses go
};

class VolumeTest : public PvBinderDaemonTest {
 protected:
  static json storageClass(const std::string& name, const std::string& provisioner, const std::string& mode) {
    return {{"apiVersion", "storage.k8s.io/v1"},
            {"kind", "StorageClass"},
            {"metadata", {{"name", name}}},
            {"provisioner", provisioner},
            {"volumeBindingMode", mode}};
  }

  // A local PV of class `cls` on `node` (no node: no affinity, a hostPath volume).
  static json localPV(const std::string& name, const std::string& cls, const std::string& size,
                      const std::string& node, const std::vector<std::string>& accessModes = {"ReadWriteOnce"}) {
    json pv = {{"apiVersion", "v1"},
               {"kind", "PersistentVolume"},
               {"metadata", {{"name", name}}},
               {"spec",
                {{"capacity", {{"storage", size}}},
                 {"accessModes", accessModes},
                 {"storageClassName", cls},
                 {"persistentVolumeReclaimPolicy", "Retain"}}}};
    if (node.empty()) {
      pv["spec"]["hostPath"] = {{"path", "/tmp/" + name}};
    } else {
      pv["spec"]["local"] = {{"path", "/mnt/" + name}};
      pv["spec"]["nodeAffinity"] = TestProvisioner::hostnameAffinity(node);
    }
    return pv;
  }

  static json claim(const std::string& name, const std::string& cls, const std::string& size,
                    const std::vector<std::string>& accessModes = {"ReadWriteOnce"}) {
    return {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata", {{"name", name}, {"namespace", "t"}}},
            {"spec",
             {{"accessModes", accessModes}, {"storageClassName", cls}, {"resources", {{"requests", {{"storage", size}}}}}}}};
  }

  static json podWithClaims(const std::string& name, const std::vector<std::string>& claims) {
    json p = podJson("t", name);
    p["spec"]["volumes"] = json::array();
    for (const auto& c : claims) {
      p["spec"]["volumes"].push_back({{"name", c}, {"persistentVolumeClaim", {{"claimName", c}}}});
    }
    return p;
  }

  void create(const std::vector<json>& objects) { kubectlOk({"create", "-f", "-"}, listOf(objects).dump()); }

  Process& startReadyDaemon(const std::string& profileExtra = "") {
    uint16_t port = 0;
    Process& d = startDaemon({}, &port, "", profileExtra);
    EXPECT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());
    port_ = port;
    return d;
  }

  json getClaim(const std::string& name) {
    auto r = cp_->kubectl({"get", "pvc", "-n", "t", name, "-o", "json"});
    return r.ok() ? json::parse(*r) : json();
  }
  std::string claimVolume(const std::string& name) { return getClaim(name)["spec"].value("volumeName", ""); }
  std::string claimPhase(const std::string& name) { return getClaim(name)["status"].value("phase", ""); }

  // The message of the pod's PodScheduled=False condition ("" while there is none).
  std::string unschedulableMessage(const std::string& pod) {
    auto r = cp_->kubectl({"get", "pod", "-n", "t", pod, "-o",
                           "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}"});
    return r.ok() ? *r : "";
  }

  std::string debugState() {
    std::string out;
    for (const char* kind : {"pods", "pvc", "pv"}) {
      auto r = cp_->kubectl({"get", kind, "-A", "-o", "wide"});
      out += r.ok() ? *r : r.error().message();
    }
    return out;
  }

  uint16_t port_ = 0;
};

// WaitForFirstConsumer: of three static PVs, the pod's claim fits only the one on node-1 (the others are
// too small or on a node whose PV is taken), so the pod lands on node-1 and the PV controller binds the
// claim to that PV.
TEST_F(VolumeTest, WaitForFirstConsumerClaimBindsTheStaticPVWhoseNodeAffinityMatches) {
  createNodes(3);
  create({storageClass("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"),
          localPV("pv-small", "local", "512Mi", "node-0"), localPV("pv-fit", "local", "2Gi", "node-1"),
          localPV("pv-other-class", "other", "2Gi", "node-2"), claim("data", "local", "1Gi"),
          podWithClaims("web", {"data"})});
  Process& d = startReadyDaemon();

  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "web") == "node-1"; }, 60s)) << tail(d.log()) << debugState();
  // The pod was bound only after its claim: it is bound now.
  EXPECT_EQ(claimVolume("data"), "pv-fit");
  EXPECT_EQ(claimPhase("data"), "Bound");
}

// Dynamic provisioning: no static PV; the scheduler picks a node and annotates the claim, the PV
// controller hands it to the provisioner, which creates the PV there; the pod binds after the claim.
TEST_F(VolumeTest, DynamicProvisioningOnTheSelectedNode) {
  createNodes(2);
  TestProvisioner provisioner(cp_->kubeconfigPath());
  create({storageClass("fast", kProvisioner, "WaitForFirstConsumer"), claim("data", "fast", "1Gi"),
          podWithClaims("web", {"data"})});
  Process& d = startReadyDaemon();

  ASSERT_TRUE(waitFor([&] { return !nodeNameOf("t", "web").empty(); }, 60s)) << tail(d.log()) << debugState();
  const std::string node = nodeNameOf("t", "web");
  EXPECT_EQ(getClaim("data")["metadata"]["annotations"].value("volume.kubernetes.io/selected-node", ""), node);
  EXPECT_EQ(claimPhase("data"), "Bound");
  EXPECT_EQ(provisioner.provisioned(), (std::map<std::string, std::string>{{"t/data", node}}));
}

// CSIStorageCapacity: the driver tracks capacity and no node has room for 5Gi, so the pod is
// unschedulable with upstream's message; once node-1 reports enough, the pod is provisioned there.
TEST_F(VolumeTest, NotEnoughStorageCapacityThenMoreCapacity) {
  createNodes(2);
  TestProvisioner provisioner(cp_->kubeconfigPath());
  const json driver = {{"apiVersion", "storage.k8s.io/v1"},
                       {"kind", "CSIDriver"},
                       {"metadata", {{"name", kProvisioner}}},
                       {"spec", {{"attachRequired", false}, {"storageCapacity", true}}}};
  auto capacity = [](const std::string& node, const std::string& size) {
    return json{{"apiVersion", "storage.k8s.io/v1"},
                {"kind", "CSIStorageCapacity"},
                {"metadata", {{"name", "cap-" + node}, {"namespace", "t"}}},
                {"storageClassName", "fast"},
                {"nodeTopology", {{"matchLabels", {{"kubernetes.io/hostname", node}}}}},
                {"capacity", size}};
  };
  create({driver, storageClass("fast", kProvisioner, "WaitForFirstConsumer"), capacity("node-0", "1Gi"),
          capacity("node-1", "2Gi"), claim("data", "fast", "5Gi"), podWithClaims("web", {"data"})});
  Process& d = startReadyDaemon();

  ASSERT_TRUE(waitFor([&] { return !unschedulableMessage("web").empty(); }, 30s)) << tail(d.log());
  EXPECT_EQ(unschedulableMessage("web"),
            "0/2 nodes are available: 2 node(s) did not have enough free storage. "
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  EXPECT_EQ(nodeNameOf("t", "web"), "");

  kubectlOk({"patch", "csistoragecapacity", "-n", "t", "cap-node-1", "--type=merge", "-p", R"({"capacity":"10Gi"})"});
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "web") == "node-1"; }, 60s)) << tail(d.log()) << debugState();
  EXPECT_EQ(claimPhase("data"), "Bound");
}

// VolumeZone: the claim is bound to a PV labelled with zone-b, so only the node in zone-b fits.
TEST_F(VolumeTest, ZonalPersistentVolumeRestrictsTheNode) {
  create({nodeJson("node-a", {{"topology.kubernetes.io/zone", "zone-a"}}),
          nodeJson("node-b", {{"topology.kubernetes.io/zone", "zone-b"}})});
  json pv = localPV("pv-zonal", "", "1Gi", "");
  pv["metadata"]["labels"] = {{"topology.kubernetes.io/zone", "zone-b"}};
  json pvc = claim("data", "", "1Gi");
  pvc["spec"]["volumeName"] = "pv-zonal";
  create({pv, pvc});
  ASSERT_TRUE(waitFor([&] { return claimPhase("data") == "Bound"; }, 30s)) << debugState();
  Process& d = startReadyDaemon();

  create({podWithClaims("web", {"data"})});
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "web") == "node-b"; }, 60s)) << tail(d.log()) << debugState();
}

// VolumeRestrictions: a ReadWriteOncePod claim in use keeps a second pod out until the first is gone.
TEST_F(VolumeTest, ReadWriteOncePodClaimInUseBlocksASecondPodUntilTheFirstIsDeleted) {
  createNodes(2);
  json pvc = claim("exclusive", "", "1Gi", {"ReadWriteOncePod"});
  pvc["spec"]["volumeName"] = "pv-rwop";
  create({localPV("pv-rwop", "", "1Gi", "", {"ReadWriteOncePod"}), pvc});
  ASSERT_TRUE(waitFor([&] { return claimPhase("exclusive") == "Bound"; }, 30s)) << debugState();
  Process& d = startReadyDaemon();

  create({podWithClaims("first", {"exclusive"})});
  ASSERT_TRUE(waitFor([&] { return !nodeNameOf("t", "first").empty(); }, 60s)) << tail(d.log());
  create({podWithClaims("second", {"exclusive"})});
  ASSERT_TRUE(waitFor([&] { return !unschedulableMessage("second").empty(); }, 30s)) << tail(d.log());
  EXPECT_THAT(unschedulableMessage("second"),
              HasSubstr("node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
                        "in-use by another pod"));
  EXPECT_EQ(nodeNameOf("t", "second"), "");

  kubectlOk({"delete", "pod", "-n", "t", "first", "--grace-period=0", "--force"});
  ASSERT_TRUE(waitFor([&] { return !nodeNameOf("t", "second").empty(); }, 60s)) << tail(d.log());
}

// NodeVolumeLimits with VolumeLimitScaling (v1.37): the claim's CSI driver asks, through its CSIDriver's
// preventPodSchedulingIfMissing, for nodes where it is installed. No CSINode lists it, so the pod is
// unschedulable with upstream's message (upstream kube-scheduler v1.37.2 on the same objects writes the
// same condition); once node-1's CSINode appears (a CSINode Add requeues the pod) the pod lands there.
TEST_F(VolumeTest, CSIDriverPreventPodSchedulingIfMissingWaitsForTheDriverOnANode) {
  createNodes(2);
  const json driver = {{"apiVersion", "storage.k8s.io/v1"},
                       {"kind", "CSIDriver"},
                       {"metadata", {{"name", kProvisioner}}},
                       {"spec", {{"attachRequired", false}, {"preventPodSchedulingIfMissing", true}}}};
  json pv = localPV("pv-csi", "", "1Gi", "");
  pv["spec"].erase("hostPath");
  pv["spec"]["csi"] = {{"driver", kProvisioner}, {"volumeHandle", "vol-1"}};
  json pvc = claim("data", "", "1Gi");
  pvc["spec"]["volumeName"] = "pv-csi";
  create({driver, pv, pvc});
  ASSERT_TRUE(waitFor([&] { return claimPhase("data") == "Bound"; }, 30s)) << debugState();
  Process& d = startReadyDaemon();

  create({podWithClaims("web", {"data"})});
  ASSERT_TRUE(waitFor([&] { return !unschedulableMessage("web").empty(); }, 30s)) << tail(d.log());
  EXPECT_EQ(unschedulableMessage("web"),
            std::string("0/2 nodes are available: 2 ") + kProvisioner +
                " CSI driver is not installed on the node. preemption: 0/2 nodes are available: 2 No preemption "
                "victims found for incoming pod.");
  EXPECT_EQ(nodeNameOf("t", "web"), "");

  const json csiNode = {{"apiVersion", "storage.k8s.io/v1"},
                        {"kind", "CSINode"},
                        {"metadata", {{"name", "node-1"}}},
                        {"spec", {{"drivers", {{{"name", kProvisioner}, {"nodeID", "node-1"}}}}}}};
  create({csiNode});
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "web") == "node-1"; }, 60s)) << tail(d.log()) << debugState();
}

// An unbound Immediate claim is the PV controller's to bind: the pod waits with upstream's message and
// schedules once a PV appears and the controller binds the claim.
TEST_F(VolumeTest, UnboundImmediateClaimWaitsForThePVController) {
  createNodes(2);
  create({storageClass("manual", "kubernetes.io/no-provisioner", "Immediate"), claim("data", "manual", "1Gi"),
          podWithClaims("web", {"data"})});
  Process& d = startReadyDaemon();

  ASSERT_TRUE(waitFor([&] { return !unschedulableMessage("web").empty(); }, 30s)) << tail(d.log());
  // As upstream v1.34.4: VolumeBinding's PreFilter rejects before DynamicResources' PreFilter writes its
  // state, so DynamicResources' PostFilter (ahead of DefaultPreemption) fails reading it with the cycle
  // state's "not found", which ends PostFilter and becomes the message's tail.
  EXPECT_EQ(unschedulableMessage("web"),
            "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found");

  create({localPV("pv-manual", "manual", "1Gi", "node-1")});
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "web") == "node-1"; }, 60s)) << tail(d.log()) << debugState();
  EXPECT_EQ(claimVolume("data"), "pv-manual");
}

// Without the PV controller the claim never completes binding: the pod waits in PreBind and fails at
// bindTimeoutSeconds with a clear event, is not bound, and succeeds once the controller is back.
TEST_F(VolumeTest, PVControllerDownFailsAtTheBindTimeoutThenSucceedsWhenItReturns) {
  createNodes(2);
  create({storageClass("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"),
          localPV("pv-0", "local", "1Gi", "node-0"), claim("data", "local", "1Gi")});
  stopControllerOnceAvailable("pv-0");
  create({podWithClaims("web", {"data"})});
  Process& d = startReadyDaemon(
      "    pluginConfig:\n"
      "      - name: VolumeBinding\n"
      "        args:\n"
      "          bindTimeoutSeconds: 3\n");

  auto failedEvents = [&] { return events("t", "reason=FailedScheduling,involvedObject.name=web"); };
  ASSERT_TRUE(waitFor([&] { return !failedEvents().empty(); }, 30s)) << tail(d.log()) << debugState();
  EXPECT_EQ(failedEvents()[0].value("message", ""),
            "running PreBind plugin \"VolumeBinding\": binding volumes: context deadline exceeded");
  EXPECT_EQ(nodeNameOf("t", "web"), "");
  // The scheduler's write stays: the PV is reserved for the claim.
  auto pvClaim = cp_->kubectl({"get", "pv", "pv-0", "-o", "jsonpath={.spec.claimRef.name}"});
  ASSERT_TRUE(pvClaim.ok());
  EXPECT_EQ(*pvClaim, "data");

  ASSERT_TRUE(cp_->startControllerManager({"persistentvolume-binder-controller"}).ok());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "web") == "node-0"; }, 90s)) << tail(d.log()) << debugState();
  EXPECT_EQ(claimPhase("data"), "Bound");
}

}  // namespace
}  // namespace ks::integration
