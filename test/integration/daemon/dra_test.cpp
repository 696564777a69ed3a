// DynamicResources end to end (issue 17): a real etcd + kube-apiserver with kube-controller-manager's
// resourceclaim-controller, which creates a pod's ResourceClaim from its ResourceClaimTemplate and names it
// in the pod's status. The scheduler under test then allocates a device from the ResourceSlice whose device
// satisfies the class and claim selectors, writes the allocation and reservation into the claim's status and
// binds the pod. Each case runs once with kube-scheduler-cpp and once with upstream kube-scheduler v1.37.2,
// each on a fresh control plane, against the same expectations. No kubelet or DRA driver is needed: the
// slices stand for what a driver publishes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/daemon/daemon_fixture.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;

json deviceClass() {
  return json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
    "metadata": {"name": "gpu.example.com"},
    "spec": {"selectors": [{"cel": {"expression": "device.driver == \"gpu.example.com\""}}]}})");
}

// One GPU on `node`, of `model`.
json resourceSlice(const std::string& node, const std::string& model) {
  json slice = json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "spec": {"driver": "gpu.example.com", "pool": {"generation": 1, "resourceSliceCount": 1},
             "devices": [{"name": "gpu-0", "attributes": {"model": {}}}]}})");
  slice["metadata"]["name"] = node + "-gpus";
  slice["spec"]["nodeName"] = node;
  slice["spec"]["pool"]["name"] = node;
  slice["spec"]["devices"][0]["attributes"]["model"]["string"] = model;
  return slice;
}

// One device of the class whose model is a100.
json claimTemplate(const std::string& ns) {
  json t = json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "a100"},
    "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
      "deviceClassName": "gpu.example.com",
      "selectors": [{"cel": {"expression": "device.attributes[\"gpu.example.com\"].model == \"a100\""}}]}}]}}}})");
  t["metadata"]["namespace"] = ns;
  return t;
}

json podWithTemplateClaim(const std::string& ns, const std::string& name) {
  json pod = podJson(ns, name);
  pod["spec"]["resourceClaims"] = {{{"name", "gpu"}, {"resourceClaimTemplateName", "a100"}}};
  pod["spec"]["containers"][0]["resources"]["claims"] = {{{"name", "gpu"}}};
  return pod;
}

enum class Scheduler { Ours, Upstream };

class DraTest : public DaemonTest, public ::testing::WithParamInterface<Scheduler> {
 protected:
  ControlPlaneOptions controlPlaneOptions() const override {
    ControlPlaneOptions o;
    o.controllers = {"resourceclaim-controller"};
    return o;
  }

  // The scheduler of this case, with the same configuration either way (profile kSchedulerName, the
  // default plugins, DynamicResources among them, plus `profileExtra`).
  void startScheduler(const std::string& profileExtra = "") {
    if (GetParam() == Scheduler::Ours) {
      uint16_t port = 0;
      Process& d = startDaemon({}, &port, "", profileExtra);
      ASSERT_TRUE(waitFor(
          [&] {
            return httpsGet(port, "/readyz").value_or(std::pair{0, ""}).first == 200;
          },
          60s))
          << tail(d.log());
      return;
    }
    auto bin = ControlPlane::binDir();
    ASSERT_TRUE(bin.ok()) << bin.error().message();
    const std::string cfg = dir_ + "/upstream-config.yaml";
    std::ofstream(cfg) << schedulerConfig(cp_->kubeconfigPath(), "", profileExtra);
    const uint16_t port = freePort();
    upstream_ = std::make_unique<Process>(
        std::vector<std::string>{*bin + "/kube-scheduler", "--config=" + cfg, "--bind-address=127.0.0.1",
                                 "--secure-port=" + std::to_string(port), "-v=2"},
        dir_ + "/upstream-kube-scheduler.log");
    ASSERT_TRUE(waitFor(
        [&] {
          return ks::integration::httpsGet(port, "/healthz", {}).value_or(std::pair{0, ""}).first == 200;
        },
        60s))
        << tail(upstream_->log());
  }
  std::string schedulerLog() const { return upstream_ ? tail(upstream_->log()) : ""; }

  json getJson(const std::vector<std::string>& args) {
    auto r = cp_->kubectl(args);
    return r.ok() ? json::parse(*r) : json();
  }
  // The name of the claim the controller generated for the pod's "gpu" entry ("" until it did).
  std::string generatedClaim(const std::string& ns, const std::string& pod) {
    const json p = getJson({"get", "pod", "-n", ns, pod, "-o", "json"});
    if (!p.is_object()) return "";
    for (const auto& s : p["status"].value("resourceClaimStatuses", json::array())) {
      if (s.value("name", "") == "gpu") return s.value("resourceClaimName", "");
    }
    return "";
  }
  json podScheduledCondition(const std::string& ns, const std::string& pod) {
    const json p = getJson({"get", "pod", "-n", ns, pod, "-o", "json"});
    if (!p.is_object()) return json();
    for (const auto& c : p["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "PodScheduled") return c;
    }
    return json();
  }

  std::unique_ptr<Process> upstream_;
};

// The first pod gets the a100 on n1 (n2's t4 fails the claim's selector; n3 publishes nothing): the claim's
// status holds the allocation (device, pool, driver, request, node selector) and the pod's reservation,
// the claim carries the scheduler's delete-protection finalizer, and the pod is bound to n1. The second pod
// finds the only a100 taken and is reported unschedulable with upstream's message.
TEST_P(DraTest, ClaimFromTemplateGetsTheMatchingDeviceAndTheNextPodIsUnschedulable) {
  kubectlOk({"create", "namespace", "t"});
  kubectlOk({"create", "-f", "-"},
            listOf({nodeJson("n1"), nodeJson("n2"), nodeJson("n3"), deviceClass(),
                    resourceSlice("n1", "a100"), resourceSlice("n2", "t4"), claimTemplate("t")})
                .dump());
  startScheduler();
  if (HasFatalFailure()) return;

  kubectlOk({"create", "-f", "-"}, podWithTemplateClaim("t", "first").dump());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "first") == "n1"; }, 60s))
      << "first on '" << nodeNameOf("t", "first") << "'\n"
      << schedulerLog();
  const std::string claimName = generatedClaim("t", "first");
  ASSERT_FALSE(claimName.empty());
  const json claim = getJson({"get", "resourceclaim", "-n", "t", claimName, "-o", "json"});
  ASSERT_TRUE(claim.is_object());
  const json& allocation = claim["status"]["allocation"];
  ASSERT_TRUE(allocation.is_object()) << claim.dump(2);
  EXPECT_EQ(allocation["devices"]["results"],
            json::parse(R"([{"request":"gpu","driver":"gpu.example.com","pool":"n1","device":"gpu-0"}])"))
      << claim.dump(2);
  EXPECT_EQ(allocation["nodeSelector"],
            json::parse(R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In",)"
                        R"("values":["n1"]}]}]})"))
      << claim.dump(2);
  const json pod = getJson({"get", "pod", "-n", "t", "first", "-o", "json"});
  EXPECT_EQ(claim["status"]["reservedFor"],
            json::array({{{"resource", "pods"}, {"name", "first"}, {"uid", pod["metadata"]["uid"]}}}))
      << claim.dump(2);
  EXPECT_THAT(claim["metadata"].value("finalizers", std::vector<std::string>{}),
              ::testing::Contains("resource.kubernetes.io/delete-protection"));

  kubectlOk({"create", "-f", "-"}, podWithTemplateClaim("t", "second").dump());
  json condition;
  ASSERT_TRUE(waitFor(
      [&] {
        condition = podScheduledCondition("t", "second");
        return condition.is_object() && condition.value("reason", "") == "Unschedulable";
      },
      60s))
      << condition.dump() << "\n"
      << schedulerLog();
  EXPECT_EQ(
      condition.value("message", ""),
      "0/3 nodes are available: 3 cannot allocate all claims. preemption: 0/3 nodes "
      "are available: 3 Preemption is not helpful for scheduling.");
  EXPECT_EQ(nodeNameOf("t", "second"), "");
}

// Upstream's quirk, kept: when an earlier PreFilter (VolumeBinding's, for an unbound Immediate claim) rejects
// the pod, DynamicResources' PreFilter never writes its state, and its PostFilter, which runs ahead of
// DefaultPreemption, fails reading it with the cycle state's "not found": that ends PostFilter (no
// preemption) and becomes the tail of the message.
TEST_P(DraTest, EarlierPreFilterRejectionEndsPostFilterWithNotFound) {
  kubectlOk({"create", "namespace", "t"});
  kubectlOk({"create", "-f", "-"},
            listOf({nodeJson("n1"), json::parse(R"({"apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass", "metadata": {"name": "manual"}, "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "Immediate"})"),
                    json::parse(R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
    "metadata": {"name": "data", "namespace": "t"}, "spec": {"storageClassName": "manual",
    "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})")})
                .dump());
  startScheduler();
  if (HasFatalFailure()) return;
  json pod = podJson("t", "web");
  pod["spec"]["volumes"] = {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}};
  kubectlOk({"create", "-f", "-"}, pod.dump());
  json condition;
  ASSERT_TRUE(waitFor(
      [&] {
        condition = podScheduledCondition("t", "web");
        return condition.is_object() && condition.value("reason", "") == "Unschedulable";
      },
      60s))
      << condition.dump() << "\n"
      << schedulerLog();
  EXPECT_EQ(condition.value("message", ""),
            "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found");
}

// DeviceTaintRules (DRADeviceTaintRules, on in v1.37.2): a rule taints n1's GPU NoSchedule. A pod whose claim
// does not tolerate the taint gets n2's GPU; the next pod's claim tolerates it and gets n1's, the only one
// left.
TEST_P(DraTest, DeviceTaintRuleKeepsIntolerantClaimsOffTheTaintedDevice) {
  kubectlOk({"create", "namespace", "t"});
  json rule = json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
    "metadata": {"name": "n1-maintenance"},
    "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"},
             "taint": {"key": "example.com/maintenance", "value": "firmware", "effect": "NoSchedule"}}})");
  json tolerating = claimTemplate("t");
  tolerating["metadata"]["name"] = "a100-tolerating";
  tolerating["spec"]["spec"]["devices"]["requests"][0]["exactly"]["tolerations"] =
      json::parse(R"([{"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}])");
  kubectlOk({"create", "-f", "-"},
            listOf({nodeJson("n1"), nodeJson("n2"), deviceClass(), resourceSlice("n1", "a100"),
                    resourceSlice("n2", "a100"), claimTemplate("t"), tolerating, rule})
                .dump());
  startScheduler();
  if (HasFatalFailure()) return;

  kubectlOk({"create", "-f", "-"}, podWithTemplateClaim("t", "intolerant").dump());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "intolerant") == "n2"; }, 60s))
      << "intolerant on '" << nodeNameOf("t", "intolerant") << "'\n"
      << schedulerLog();

  json pod = podWithTemplateClaim("t", "tolerant");
  pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] = "a100-tolerating";
  kubectlOk({"create", "-f", "-"}, pod.dump());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "tolerant") == "n1"; }, 60s))
      << "tolerant on '" << nodeNameOf("t", "tolerant") << "'\n"
      << schedulerLog();
  const json claim =
      getJson({"get", "resourceclaim", "-n", "t", generatedClaim("t", "tolerant"), "-o", "json"});
  ASSERT_TRUE(claim.is_object());
  const json& results = claim["status"]["allocation"]["devices"]["results"];
  ASSERT_EQ(results.size(), 1u) << claim.dump(2);
  EXPECT_EQ(results[0].value("pool", ""), "n1") << claim.dump(2);
  EXPECT_EQ(results[0].value("device", ""), "gpu-0") << claim.dump(2);
}

// DRAExtendedResource (GA in v1.37): a pod asking for example.com/gpu, which no node advertises in its
// allocatable but a DeviceClass maps (spec.extendedResourceName), gets a device through a ResourceClaim the
// scheduler creates: NodeResourcesFit leaves the resource to DynamicResources, which allocates from the only
// slice (on n2), creates the claim (generateName "<pod>-extended-resources-", the pod as controller, the
// extended-resource annotation), writes allocation and reservation, records the claim and the container ->
// request mapping in the pod's status.extendedResourceClaimStatus, and binds the pod to n2. The request is
// "container-0-request-1": example.com/gpu is the second of the container's sorted request names (cpu,
// example.com/gpu, memory).
TEST_P(DraTest, ExtendedResourceBackedByDeviceClassGetsAClaimTheSchedulerCreates) {
  kubectlOk({"create", "namespace", "t"});
  json cls = deviceClass();
  cls["spec"]["extendedResourceName"] = "example.com/gpu";
  kubectlOk({"create", "-f", "-"},
            listOf({nodeJson("n1"), nodeJson("n2"), cls, resourceSlice("n2", "a100")}).dump());
  startScheduler();
  if (HasFatalFailure()) return;

  json pod = podJson("t", "gpu-user");
  pod["spec"]["containers"][0]["resources"]["requests"]["example.com/gpu"] = "1";
  pod["spec"]["containers"][0]["resources"]["limits"] = {{"example.com/gpu", "1"}};
  kubectlOk({"create", "-f", "-"}, pod.dump());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "gpu-user") == "n2"; }, 60s))
      << "gpu-user on '" << nodeNameOf("t", "gpu-user") << "'\n"
      << schedulerLog();

  json status;
  ASSERT_TRUE(waitFor(
      [&] {
        const json p = getJson({"get", "pod", "-n", "t", "gpu-user", "-o", "json"});
        status = p.is_object() ? p["status"].value("extendedResourceClaimStatus", json()) : json();
        return status.is_object();
      },
      30s))
      << schedulerLog();
  EXPECT_EQ(status["requestMappings"],
            json::parse(R"([{"containerName":"c","resourceName":"example.com/gpu",)"
                        R"("requestName":"container-0-request-1"}])"))
      << status.dump(2);
  const std::string claimName = status.value("resourceClaimName", "");
  ASSERT_TRUE(claimName.starts_with("gpu-user-extended-resources-")) << status.dump(2);

  const json claim = getJson({"get", "resourceclaim", "-n", "t", claimName, "-o", "json"});
  ASSERT_TRUE(claim.is_object()) << claimName;
  const json p = getJson({"get", "pod", "-n", "t", "gpu-user", "-o", "json"});
  EXPECT_EQ(claim["metadata"]["annotations"],
            json::parse(R"({"resource.kubernetes.io/extended-resource-claim":"true"})"))
      << claim.dump(2);
  ASSERT_EQ(claim["metadata"]["ownerReferences"].size(), 1u) << claim.dump(2);
  const json& owner = claim["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner.value("kind", ""), "Pod");
  EXPECT_EQ(owner.value("name", ""), "gpu-user");
  EXPECT_EQ(owner["uid"], p["metadata"]["uid"]);
  EXPECT_TRUE(owner.value("controller", false));
  EXPECT_EQ(claim["spec"]["devices"]["requests"],
            json::parse(R"([{"name":"container-0-request-1","exactly":{"deviceClassName":"gpu.example.com",)"
                        R"("allocationMode":"ExactCount","count":1}}])"))
      << claim.dump(2);
  const json& allocation = claim["status"]["allocation"];
  ASSERT_TRUE(allocation.is_object()) << claim.dump(2);
  EXPECT_EQ(allocation["devices"]["results"],
            json::parse(R"([{"request":"container-0-request-1","driver":"gpu.example.com","pool":"n2",)"
                        R"("device":"gpu-0"}])"))
      << claim.dump(2);
  EXPECT_EQ(claim["status"]["reservedFor"],
            json::array({{{"resource", "pods"}, {"name", "gpu-user"}, {"uid", p["metadata"]["uid"]}}}))
      << claim.dump(2);
  EXPECT_THAT(claim["metadata"].value("finalizers", std::vector<std::string>{}),
              ::testing::Contains("resource.kubernetes.io/delete-protection"));
}

// Scoring a DRA-backed extended resource: with NodeResourcesFit's MostAllocated over example.com/gpu only,
// n1, n2 and n3 (four, two and three GPUs) differ in nothing else, and the pods request nothing else
// (BalancedAllocation skips them). The first pod scores 25, 50 and 33, the second (n2's first GPU taken)
// 25, 100 and 33: both go to n2. Without DRA capacity in the score every node would tie at 0.
TEST_P(DraTest, ExtendedResourceBackedByDeviceClassIsScoredFromTheNodesDevices) {
  kubectlOk({"create", "namespace", "t"});
  json cls = deviceClass();
  cls["spec"]["extendedResourceName"] = "example.com/gpu";
  std::vector<json> objects = {cls};
  for (const auto& [node, gpus] : std::vector<std::pair<std::string, int>>{{"n1", 4}, {"n2", 2}, {"n3", 3}}) {
    json slice = resourceSlice(node, "a100");
    for (int i = 1; i < gpus; i++) {
      json device = slice["spec"]["devices"][0];
      device["name"] = "gpu-" + std::to_string(i);
      slice["spec"]["devices"].push_back(device);
    }
    objects.push_back(nodeJson(node));
    objects.push_back(slice);
  }
  kubectlOk({"create", "-f", "-"}, listOf(objects).dump());
  startScheduler(
      "    pluginConfig:\n"
      "      - name: NodeResourcesFit\n"
      "        args:\n"
      "          scoringStrategy:\n"
      "            type: MostAllocated\n"
      "            resources:\n"
      "              - name: example.com/gpu\n"
      "                weight: 1\n");
  if (HasFatalFailure()) return;

  for (const std::string name : {"gpu-user-1", "gpu-user-2"}) {
    json pod = podJson("t", name);
    pod["spec"]["containers"][0]["resources"] = {{"requests", {{"example.com/gpu", "1"}}},
                                                 {"limits", {{"example.com/gpu", "1"}}}};
    kubectlOk({"create", "-f", "-"}, pod.dump());
    ASSERT_TRUE(waitFor([&] { return !nodeNameOf("t", name).empty(); }, 60s)) << schedulerLog();
    EXPECT_EQ(nodeNameOf("t", name), "n2") << schedulerLog();
  }
}

INSTANTIATE_TEST_SUITE_P(Schedulers, DraTest, ::testing::Values(Scheduler::Ours, Scheduler::Upstream),
                         [](const ::testing::TestParamInfo<Scheduler>& i) {
                           return i.param == Scheduler::Ours ? "KubeSchedulerCpp" : "UpstreamKubeScheduler";
                         });

}  // namespace
}  // namespace ks::integration
