#include "test/integration/differential/cluster_generator.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>
#include <utility>

namespace ks::differential {

using json = nlohmann::json;

namespace {

const std::vector<std::string> kZones = {"zone-a", "zone-b", "zone-c"};
const std::vector<std::string> kTeams = {"red", "blue", "green"};
const std::vector<std::string> kDedicated = {"gpu", "infra", "db"};
const std::vector<std::string> kEffects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
const std::vector<std::string> kApps = {"web", "api", "cache", "batch"};
const std::vector<std::string> kTiers = {"frontend", "backend"};
const std::vector<std::string> kTopologyKeys = {"kubernetes.io/hostname", "topology.kubernetes.io/zone",
                                                "topology.kubernetes.io/region", "team"};
constexpr const char* kGpu = "example.com/gpu";
constexpr const char* kDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

// Images as nodes report them (status.images[].names) with their size. ImageLocality scores by size
// between 23 MB and 1000 MB and normalizes pod image names ("x" -> "x:latest"), nothing else.
struct Image {
  std::vector<std::string> names;
  int64_t megabytes;
};
const std::vector<Image> kNodeImages = {
    {{"registry.example.com/shop/web:1.0", std::string("registry.example.com/shop/web@") + kDigest}, 310},
    {{"registry.example.com/shop/api:2.1"}, 120},
    {{"docker.io/library/nginx:1.27"}, 70},
    {{"registry.example.com/base:latest"}, 45},
    {{"registry.example.com/ml/trainer:3"}, 900},
    {{"registry.example.com/ml/dataset:2024"}, 2500},
    {{"registry.example.com/tools/tiny:1"}, 5},
    {{"quay.io/example/cache:7"}, 600},
};
// What pods ask for: the names above, names that only match after normalization, names that never match.
const std::vector<std::string> kPodImages = {
    "registry.example.com/shop/web:1.0",
    "registry.example.com/shop/api:2.1",
    "docker.io/library/nginx:1.27",
    "nginx:1.27",
    "registry.example.com/base",
    "registry.example.com/ml/trainer:3",
    "registry.example.com/ml/dataset:2024",
    "registry.example.com/tools/tiny:1",
    "quay.io/example/cache:7",
    std::string("registry.example.com/shop/web@") + kDigest,
    "registry.example.com/unknown:0",
    "registry.k8s.io/pause:3.10",
};

struct HostPort {
  int port;
  const char* protocol;
  const char* hostIP;  // "" = all addresses
};
const std::vector<HostPort> kHostPorts = {
    {8080, "TCP", ""}, {9090, "TCP", ""}, {53, "UDP", ""}, {8443, "TCP", "127.0.0.1"}, {8443, "TCP", ""},
};

// DRA devices carry their attributes and capacity under this domain, not their driver's, so that both
// sides' claims can name them with the same CEL.
constexpr const char* kDraDomain = "dra.example.com";
constexpr const char* kDeviceTaintKey = "example.com/unhealthy";
struct GpuModel {
  const char* model;
  int memoryGi;
};
const std::vector<GpuModel> kGpuModels = {{"t4", 16}, {"a100", 40}, {"a100", 80}, {"h100", 80}};

json stringAttribute(const std::string& v) { return {{"string", v}}; }
json intAttribute(int v) { return {{"int", v}}; }

std::string driverOf(const std::string& side) { return side + ".example.com"; }

std::string className(uint32_t seed, const std::string& side, const std::string& kind) {
  return "s" + std::to_string(seed) + "-" + side + "-" + kind;
}

}  // namespace

ProfileVariant profileVariant(uint32_t seed) {
  switch ((seed + 3) % 4) {
    case 0:
      return {"defaults", "", ""};
    case 1:
      return {"MostAllocated, extended resource weighted", "",
              "    pluginConfig:\n"
              "      - name: NodeResourcesFit\n"
              "        args:\n"
              "          scoringStrategy:\n"
              "            type: MostAllocated\n"
              "            resources:\n"
              "              - {name: cpu, weight: 1}\n"
              "              - {name: memory, weight: 1}\n"
              "              - {name: example.com/gpu, weight: 3}\n"
              "      - name: NodeResourcesBalancedAllocation\n"
              "        args:\n"
              "          resources:\n"
              "            - {name: cpu, weight: 1}\n"
              "            - {name: memory, weight: 1}\n"
              "            - {name: example.com/gpu, weight: 1}\n"};
    case 2:
      return {"RequestedToCapacityRatio, score weights",
              "      score:\n"
              "        enabled:\n"
              "          - {name: TaintToleration, weight: 5}\n"
              "          - {name: ImageLocality, weight: 3}\n",
              "    pluginConfig:\n"
              "      - name: NodeResourcesFit\n"
              "        args:\n"
              "          scoringStrategy:\n"
              "            type: RequestedToCapacityRatio\n"
              "            resources:\n"
              "              - {name: cpu, weight: 2}\n"
              "              - {name: memory, weight: 1}\n"
              "            requestedToCapacityRatio:\n"
              "              shape:\n"
              "                - {utilization: 0, score: 0}\n"
              "                - {utilization: 50, score: 10}\n"
              "                - {utilization: 100, score: 3}\n"};
    default:
      return {"NodeAffinity addedAffinity, ignored extended resource",
              "      score:\n"
              "        enabled:\n"
              "          - {name: NodeAffinity, weight: 4}\n",
              "    pluginConfig:\n"
              "      - name: NodeAffinity\n"
              "        args:\n"
              "          addedAffinity:\n"
              "            requiredDuringSchedulingIgnoredDuringExecution:\n"
              "              nodeSelectorTerms:\n"
              "                - matchExpressions:\n"
              "                    - {key: topology.kubernetes.io/zone, operator: NotIn, values: [zone-c]}\n"
              "            preferredDuringSchedulingIgnoredDuringExecution:\n"
              "              - weight: 50\n"
              "                preference:\n"
              "                  matchExpressions:\n"
              "                    - {key: disk, operator: In, values: [ssd]}\n"
              "      - name: NodeResourcesFit\n"
              "        args:\n"
              "          ignoredResources: [example.com/gpu]\n"};
  }
}

ClusterGenerator::ClusterGenerator(uint32_t seed, std::string ns, bool draHeavy)
    : seed_(seed),
      ns_(std::move(ns)),
      rng_(seed),
      draRng_(seed ^ 0x5eedd2a0U),
      draNodeChance_(draHeavy ? 0.7 : 0.35),
      draPodChance_(draHeavy ? 0.6 : 0.12) {}

int ClusterGenerator::uniform(int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng_);
}

bool ClusterGenerator::chance(double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng_) < p;
}

int ClusterGenerator::draUniform(int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(draRng_);
}

bool ClusterGenerator::draChance(double p) {
  return std::uniform_real_distribution<double>(0, 1)(draRng_) < p;
}

GeneratedCluster ClusterGenerator::cluster() {
  GeneratedCluster out;
  const std::string prefix = "s" + std::to_string(seed_) + "-";
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, int>>{{"low", 100}, {"mid", 1000}, {"high", 1000000}}) {
    priorityClassNames_.push_back(prefix + name);
    out.priorityClasses.push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                                   {"kind", "PriorityClass"},
                                   {"metadata", {{"name", prefix + name}}},
                                   {"value", value}});
  }
  // RuntimeClasses: the RuntimeClass admission plugin copies their overhead into pods (spec.overhead, which
  // counts towards the pod's requests) and merges their scheduling constraints into the pod.
  runtimeClassNames_ = {prefix + "kata", prefix + "gvisor"};
  out.runtimeClasses.push_back({{"apiVersion", "node.k8s.io/v1"},
                                {"kind", "RuntimeClass"},
                                {"metadata", {{"name", prefix + "kata"}}},
                                {"handler", "kata"},
                                {"overhead", {{"podFixed", {{"cpu", "250m"}, {"memory", "160Mi"}}}}}});
  const json gvisorToleration = {{"key", "dedicated"}, {"operator", "Equal"}, {"value", "infra"}};
  out.runtimeClasses.push_back(
      {{"apiVersion", "node.k8s.io/v1"},
       {"kind", "RuntimeClass"},
       {"metadata", {{"name", prefix + "gvisor"}}},
       {"handler", "runsc"},
       {"overhead", {{"podFixed", {{"cpu", "100m"}}}}},
       {"scheduling",
        {{"nodeSelector", {{"disk", "ssd"}}}, {"tolerations", json::array({gvisorToleration})}}}});
  const int nodeCount = uniform(10, 30);
  for (int i = 0; i < nodeCount; ++i) out.nodes.push_back(node(i));
  for (const NodeFacts& n : nodes_) {
    const int bound = uniform(0, 3);
    for (int j = 0; j < bound; ++j) {
      json pod = boundPod(n, j);
      const std::string name = pod["metadata"]["name"];
      if (chance(0.08)) {
        out.terminalPhases[name] = chance(0.5) ? "Succeeded" : "Failed";  // schedulers ignore these
      } else if (chance(0.08)) {
        out.terminating.push_back(name);  // still counted on its node
      }
      out.boundPods.push_back(std::move(pod));
    }
  }
  // Start times a minute apart, in an order of their own stream (the draws above stay as they were).
  std::vector<int> minutes(out.boundPods.size());
  std::iota(minutes.begin(), minutes.end(), 0);
  std::shuffle(minutes.begin(), minutes.end(), std::mt19937(seed_ ^ 0x57a27d00U));
  for (size_t k = 0; k < out.boundPods.size(); ++k) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "2026-01-01T%02d:%02d:00Z", minutes[k] / 60, minutes[k] % 60);
    out.startTimes[out.boundPods[k]["metadata"]["name"].get<std::string>()] = stamp;
  }
  // DRA: classes per side and kind, and the devices of some nodes.
  for (const std::string& side : kDraSides) {
    for (const std::string kind : {"gpu", "nic"}) {
      const std::string expression = "device.driver == \"" + driverOf(side) + "\" && device.attributes[\"" +
                                     kDraDomain + "\"].kind == \"" + kind + "\"";
      json selector = {{"cel", {{"expression", expression}}}};
      out.deviceClasses.push_back({{"apiVersion", "resource.k8s.io/v1"},
                                   {"kind", "DeviceClass"},
                                   {"metadata", {{"name", className(seed_, side, kind)}}},
                                   {"spec", {{"selectors", json::array({selector})}}}});
    }
  }
  for (const NodeFacts& n : nodes_) {
    for (json& slice : resourceSlices(n)) out.resourceSlices.push_back(std::move(slice));
  }
  // Services select web and api pods: system default spreading (PodTopologySpread) applies to them.
  for (const std::string& app : {std::string("web"), std::string("api")}) {
    out.services.push_back({{"apiVersion", "v1"},
                            {"kind", "Service"},
                            {"metadata", {{"name", app}, {"namespace", ns_}}},
                            {"spec", {{"selector", {{"app", app}}}, {"ports", {{{"port", 80}}}}}}});
  }
  return out;
}

json ClusterGenerator::node(int index) {
  NodeFacts facts;
  facts.name = "s" + std::to_string(seed_) + "-n" + (index < 10 ? "0" : "") + std::to_string(index);
  // The hostname label is usually the node name, not always (nodeSelector uses the label, matchFields the
  // name).
  json labels = {{"kubernetes.io/hostname", chance(0.9) ? facts.name : facts.name + ".internal"},
                 {"kubernetes.io/os", "linux"}};
  if (chance(0.9)) {
    labels["topology.kubernetes.io/zone"] = pick(kZones);
    labels["topology.kubernetes.io/region"] = "region-1";
  }
  if (chance(0.6)) labels["disk"] = chance(0.5) ? "ssd" : "hdd";
  if (chance(0.7)) labels["tier"] = chance(0.9) ? std::to_string(uniform(1, 5)) : "high";  // Gt/Lt: no match
  if (chance(0.5)) labels["team"] = pick(kTeams);
  if (chance(0.2)) labels["spot"] = "true";

  // allocatable = capacity minus what the "kubelet" reserves (sometimes nothing).
  const std::vector<std::pair<std::string, std::string>> cpus = {
      {"2", "1800m"}, {"4", "3800m"}, {"8", "8"}, {"16", "15500m"}, {"32", "32"}, {"4", "3.5"}};
  const std::vector<std::pair<std::string, std::string>> mems = {{"4Gi", "3584Mi"}, {"8Gi", "7680Mi"},
                                                                 {"16Gi", "16Gi"},  {"32Gi", "31Gi"},
                                                                 {"64Gi", "64Gi"},  {"16G", "15.5G"}};
  const auto& cpu = pick(cpus);
  const auto& mem = pick(mems);
  const std::string storage = pick(std::vector<std::string>{"20Gi", "50Gi", "100Gi"});
  const std::string pods = pick(std::vector<std::string>{"110", "110", "110", "20", "8", "3"});
  json capacity = {{"cpu", cpu.first}, {"memory", mem.first}, {"pods", pods}, {"ephemeral-storage", storage}};
  json allocatable = {
      {"cpu", cpu.second}, {"memory", mem.second}, {"pods", pods}, {"ephemeral-storage", storage}};
  if (chance(0.08)) {  // a node that reports no ephemeral storage: any request for it is too much
    capacity.erase("ephemeral-storage");
    allocatable.erase("ephemeral-storage");
  }
  if (chance(0.25)) {
    facts.hasGpu = true;
    const std::string gpus = pick(std::vector<std::string>{"1", "2", "4"});
    capacity[kGpu] = gpus;
    allocatable[kGpu] = gpus;
  }

  json spec = json::object();
  if (chance(0.35)) {
    json taints = json::array();
    std::set<std::pair<std::string, std::string>> used;  // key + effect must be unique
    const int n = uniform(1, 2);
    for (int t = 0; t < n; ++t) {
      json taint;
      switch (uniform(0, 3)) {
        case 0:
          taint = {{"key", "dedicated"}, {"value", pick(kDedicated)}};
          break;
        case 1:
          taint = {{"key", "spot"}, {"value", "true"}};
          break;
        case 2:
          taint = {{"key", "maintenance"}};
          break;
        default:
          taint = {{"key", "example.com/special"}, {"value", "x"}};
          break;
      }
      taint["effect"] = pick(kEffects);
      if (used.insert({taint["key"].get<std::string>(), taint["effect"].get<std::string>()}).second) {
        taints.push_back(taint);
      }
    }
    spec["taints"] = taints;
  }
  if (chance(0.1)) {
    spec["unschedulable"] = true;
    if (chance(0.5)) {  // as the node lifecycle controller marks a cordoned node
      if (!spec.contains("taints")) spec["taints"] = json::array();
      spec["taints"].push_back({{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}});
    }
  }

  json images = json::array();
  for (const Image& image : kNodeImages) {
    if (!chance(0.3)) continue;
    images.push_back({{"names", image.names}, {"sizeBytes", image.megabytes * 1024 * 1024}});
  }

  nodes_.push_back(facts);
  json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata", {{"name", facts.name}, {"labels", labels}}},
               {"status",
                {{"capacity", capacity},
                 {"allocatable", allocatable},
                 {"conditions", {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}}}}}};
  if (!spec.empty()) node["spec"] = spec;
  if (!images.empty()) node["status"]["images"] = images;
  return node;
}

std::vector<json> ClusterGenerator::resourceSlices(const NodeFacts& node) {
  std::vector<json> slices;
  if (!draChance(draNodeChance_)) return slices;
  // The same devices for both sides: every attribute on every device (a CEL selector that reads a missing
  // attribute is an error, not a mismatch).
  const std::string d = std::string(kDraDomain) + "/";
  auto device = [&](const std::string& kind, int index, const std::string& model, int memoryGi) {
    json dev = {{"name", kind + "-" + std::to_string(index)},
                {"attributes",
                 {{d + "kind", stringAttribute(kind)},
                  {d + "model", stringAttribute(model)},
                  {d + "memory", intAttribute(memoryGi)},
                  {d + "index", intAttribute(index)}}},
                {"capacity", {{d + "memory", {{"value", std::to_string(memoryGi) + "Gi"}}}}}};
    if (draChance(0.12)) {
      dev["taints"] = {{{"key", kDeviceTaintKey}, {"value", "true"}, {"effect", "NoSchedule"}}};
    }
    return dev;
  };
  json gpus = json::array();
  const GpuModel& model = kGpuModels[static_cast<size_t>(draUniform(0, static_cast<int>(kGpuModels.size()) - 1))];
  const int gpuCount = draUniform(1, 8);
  for (int i = 0; i < gpuCount; ++i) {
    // Mostly one model per node, sometimes a second one.
    const GpuModel& m = draChance(0.15) ? kGpuModels[static_cast<size_t>(draUniform(0, 3))] : model;
    gpus.push_back(device("gpu", i, m.model, m.memoryGi));
  }
  // Partitionable: one 80 GiB board as a whole gpu or as two halves, sharing the counters of a slice of
  // their own.
  json counters = nullptr;
  if (draChance(0.3)) {
    counters = {{{"name", "board"}, {"counters", {{"memory", {{"value", "80Gi"}}}}}}};
    int index = 100;
    for (const auto& [name, memoryGi] : std::vector<std::pair<std::string, int>>{{"full", 80}, {"half-0", 40}, {"half-1", 40}}) {
      json dev = device("gpu", index++, "h100", memoryGi);
      dev["name"] = "board-" + name;
      dev["consumesCounters"] = {
          {{"counterSet", "board"}, {"counters", {{"memory", {{"value", std::to_string(memoryGi) + "Gi"}}}}}}};
      gpus.push_back(dev);
    }
  }
  json nics = json::array();
  if (draChance(0.5)) {
    for (int i = draUniform(1, 4); i > 0; --i) nics.push_back(device("nic", static_cast<int>(nics.size()), "cx7", 0));
  }
  // Consumable capacity: a nic any number of claims share, up to its bandwidth.
  if (draChance(0.3)) {
    json dev = device("nic", 10, "cx7", 0);
    dev["name"] = "shared-nic";
    dev["allowMultipleAllocations"] = true;
    dev["capacity"][std::string(kDraDomain) + "/bandwidth"] = {
        {"value", "10G"}, {"requestPolicy", {{"default", "1G"}, {"validRange", {{"min", "1G"}, {"step", "1G"}}}}}};
    nics.push_back(dev);
  }
  // One slice, or the pool split in two (gpus, nics); the counters in one more.
  std::vector<std::pair<std::string, json>> parts;
  if (!nics.empty() && draChance(0.4)) {
    parts = {{"gpus", gpus}, {"nics", nics}};
  } else {
    for (const auto& nic : nics) gpus.push_back(nic);
    parts = {{"devices", gpus}};
  }
  if (!counters.is_null()) parts.push_back({"counters", nullptr});
  for (const std::string& side : kDraSides) {
    for (const auto& [suffix, devices] : parts) {
      json spec = {{"driver", driverOf(side)},
                   {"nodeName", node.name},
                   {"pool",
                    {{"name", node.name}, {"generation", 1}, {"resourceSliceCount", static_cast<int>(parts.size())}}}};
      if (devices.is_null()) {
        spec["sharedCounters"] = counters;
      } else {
        spec["devices"] = devices;
      }
      slices.push_back({{"apiVersion", "resource.k8s.io/v1"},
                        {"kind", "ResourceSlice"},
                        {"metadata", {{"name", node.name + "-" + side + "-" + suffix}}},
                        {"spec", spec}});
    }
  }
  return slices;
}

// One request of a claim: `exactly` (a count, or All, maybe with a selector) or `firstAvailable`.
json ClusterGenerator::deviceRequest(const std::string& name) {
  const std::string dom = std::string("device.attributes[\"") + kDraDomain + "\"]";
  auto toleration = [&](json& r) {
    if (!draChance(0.3)) return;
    json t = {{"key", kDeviceTaintKey}, {"operator", "Exists"}};
    if (draChance(0.5)) t["effect"] = "NoSchedule";
    r["tolerations"] = {t};
  };
  auto cel = [](const std::string& e) { return json::array({{{"cel", {{"expression", e}}}}}); };
  json exactly = {{"deviceClassName", "gpu"}};
  switch (draUniform(0, 11)) {
    case 0:
    case 1:
    case 2:
      if (draChance(0.4)) exactly["count"] = draUniform(2, 4);
      break;
    case 3:
      exactly["selectors"] = cel(dom + ".model == \"" + kGpuModels[static_cast<size_t>(draUniform(0, 3))].model + "\"");
      break;
    case 4:
      exactly["selectors"] = cel(std::string("device.capacity[\"") + kDraDomain +
                                 "\"].memory.compareTo(quantity(\"40Gi\")) >= 0");
      if (draChance(0.3)) exactly["count"] = 2;
      break;
    case 5:
      exactly["selectors"] = cel(dom + ".memory >= 80");
      break;
    case 6:
      exactly["deviceClassName"] = "nic";
      exactly["allocationMode"] = "All";
      break;
    case 7:
      exactly["deviceClassName"] = "nic";
      if (draChance(0.4)) exactly["count"] = 2;
      break;
    case 8:
      exactly["allocationMode"] = "All";
      if (draChance(0.5)) exactly["selectors"] = cel(dom + ".index < 2");
      break;
    case 9:
      // Bandwidth of the shared nic (no other device has that capacity).
      exactly["deviceClassName"] = "nic";
      exactly["capacity"] = {
          {"requests", {{std::string(kDraDomain) + "/bandwidth", draChance(0.5) ? "3G" : "2500M"}}}};
      break;
    case 10:
      exactly["selectors"] = cel(dom + ".memory == 40");
      break;
    default: {
      // Two h100s, else one gpu of 40 GiB or more, else any gpu.
      json subs = json::array();
      subs.push_back({{"name", "large"},
                      {"deviceClassName", "gpu"},
                      {"count", 2},
                      {"selectors", cel(dom + ".model == \"h100\"")}});
      subs.push_back({{"name", "medium"}, {"deviceClassName", "gpu"}, {"selectors", cel(dom + ".memory >= 40")}});
      if (draChance(0.5)) subs.push_back({{"name", "any"}, {"deviceClassName", "gpu"}});
      for (json& sub : subs) toleration(sub);
      return {{"name", name}, {"firstAvailable", subs}};
    }
  }
  toleration(exactly);
  return {{"name", name}, {"exactly", exactly}};
}

json ClusterGenerator::resourceClaim(const std::string& name) {
  json requests = json::array();
  requests.push_back(deviceRequest("r0"));
  json spec = json::object();
  if (draChance(0.25)) {
    requests.push_back(deviceRequest("r1"));
    // Both requests' devices of one model.
    if (draChance(0.5)) {
      spec["constraints"] = {
          {{"requests", {"r0", "r1"}}, {"matchAttribute", std::string(kDraDomain) + "/model"}}};
    }
  }
  spec["requests"] = requests;
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaim"},
          {"metadata", {{"name", name}, {"namespace", ns_}}},
          {"spec", {{"devices", spec}}}};
}

PendingPod forScheduler(const PendingPod& pending, uint32_t seed, const std::string& side) {
  PendingPod out = pending;
  if (out.pod["spec"].contains("resourceClaims")) {
    for (json& ref : out.pod["spec"]["resourceClaims"]) {
      ref["resourceClaimName"] = ref["resourceClaimName"].get<std::string>() + "-" + side;
    }
  }
  auto renameClass = [&](json& request) {
    request["deviceClassName"] = className(seed, side, request["deviceClassName"].get<std::string>());
  };
  for (json& claim : out.claims) {
    claim["metadata"]["name"] = claim["metadata"]["name"].get<std::string>() + "-" + side;
    for (json& request : claim["spec"]["devices"]["requests"]) {
      if (request.contains("exactly")) renameClass(request["exactly"]);
      if (request.contains("firstAvailable")) {
        for (json& sub : request["firstAvailable"]) renameClass(sub);
      }
    }
  }
  return out;
}

json ClusterGenerator::boundPod(const NodeFacts& node, int index) {
  json container = {{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}};
  if (chance(0.8)) {
    json req = {{"cpu", pick(std::vector<std::string>{"100m", "250m", "500m", "1", "2"})},
                {"memory", pick(std::vector<std::string>{"128Mi", "512Mi", "1Gi", "2Gi"})}};
    json resources = {{"requests", req}};
    if (node.hasGpu && chance(0.3)) {
      resources["requests"][kGpu] = "1";
      resources["limits"] = {{kGpu, "1"}};
    }
    container["resources"] = resources;
  }
  if (chance(0.2)) container["ports"] = containerPorts();
  json spec = {{"nodeName", node.name}, {"terminationGracePeriodSeconds", 0}, {"containers", {container}}};
  // Existing pods' terms count too: their required anti-affinity filters incoming pods, their preferred
  // terms (and required affinity, with hardPodAffinityWeight) score them.
  if (json affinity = podAffinity(0.06, 0.08); !affinity.is_null()) spec["affinity"] = affinity;
  json metadata = {{"name", "b-" + node.name + "-" + std::to_string(index)}, {"namespace", ns_}};
  if (json labels = podLabels(); !labels.empty()) metadata["labels"] = labels;
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
}

json ClusterGenerator::podLabels() {
  json labels = json::object();
  if (chance(0.8)) labels["app"] = pick(kApps);
  if (chance(0.4)) labels["tier"] = pick(kTiers);
  return labels;
}

json ClusterGenerator::podLabelSelector() {
  if (chance(0.7)) return {{"matchLabels", {{"app", pick(kApps)}}}};
  json exprs = json::array();
  switch (uniform(0, 3)) {
    case 0:
      exprs.push_back({{"key", "app"}, {"operator", "In"}, {"values", {pick(kApps), pick(kApps)}}});
      break;
    case 1:
      exprs.push_back({{"key", "tier"}, {"operator", "Exists"}});
      break;
    case 2:
      exprs.push_back({{"key", "app"}, {"operator", "NotIn"}, {"values", {pick(kApps)}}});
      break;
    default:
      exprs.push_back({{"key", "tier"}, {"operator", "In"}, {"values", {pick(kTiers)}}});
      exprs.push_back({{"key", "app"}, {"operator", "Exists"}});
      break;
  }
  // The API server rejects duplicate values in In / NotIn.
  for (auto& e : exprs) {
    if (e.contains("values") && e["values"].size() == 2 && e["values"][0] == e["values"][1]) {
      e["values"].erase(1);
    }
  }
  return {{"matchExpressions", exprs}};
}

json ClusterGenerator::podAffinityTerm() {
  json term = {{"labelSelector", podLabelSelector()}, {"topologyKey", pick(kTopologyKeys)}};
  // Namespaces: the pod's own (default), listed, or every namespace (empty namespaceSelector).
  const int ns = uniform(0, 9);
  if (ns == 0) term["namespaces"] = {ns_};
  if (ns == 1) term["namespaceSelector"] = json::object();
  return term;
}

json ClusterGenerator::podAffinity(double requiredChance, double preferredChance) {
  json out = json::object();
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    json a = json::object();
    if (chance(requiredChance)) {
      json terms = json::array();
      for (int i = chance(0.2) ? 2 : 1; i > 0; --i) terms.push_back(podAffinityTerm());
      a["requiredDuringSchedulingIgnoredDuringExecution"] = terms;
    }
    if (chance(preferredChance)) {
      json terms = json::array();
      for (int i = uniform(1, 2); i > 0; --i) {
        terms.push_back({{"weight", uniform(1, 100)}, {"podAffinityTerm", podAffinityTerm()}});
      }
      a["preferredDuringSchedulingIgnoredDuringExecution"] = terms;
    }
    if (!a.empty()) out[kind] = a;
  }
  return out.empty() ? json(nullptr) : out;
}

json ClusterGenerator::topologySpreadConstraint() {
  json c = {{"maxSkew", uniform(1, 3)},
            {"topologyKey", pick(kTopologyKeys)},
            {"whenUnsatisfiable", chance(0.5) ? "DoNotSchedule" : "ScheduleAnyway"},
            {"labelSelector", podLabelSelector()}};
  if (c["whenUnsatisfiable"] == "DoNotSchedule" && chance(0.2)) c["minDomains"] = uniform(1, 5);
  if (chance(0.15)) c["nodeAffinityPolicy"] = chance(0.5) ? "Honor" : "Ignore";
  if (chance(0.15)) c["nodeTaintsPolicy"] = chance(0.5) ? "Honor" : "Ignore";
  if (chance(0.1)) c["matchLabelKeys"] = {"tier"};
  return c;
}

// A container's `resources`, or null for none.
json ClusterGenerator::requests() {
  const int kind = uniform(0, 99);
  if (kind < 20) return nullptr;
  json req = json::object();
  if (kind < 80) {  // ordinary
    if (chance(0.85)) {
      req["cpu"] = pick(std::vector<std::string>{"50m", "100m", "250m", "500m", "0.5", "1", "1500m", "1.25",
                                                 "2", "3", "0"});
    }
    if (chance(0.85)) {
      req["memory"] = pick(std::vector<std::string>{"64Mi", "256Mi", "1Gi", "1.5Gi", "2Gi", "4Gi", "6Gi",
                                                    "1000M", "536870912", "129e6"});
    }
  } else if (kind < 90) {  // large: fits a few nodes
    req["cpu"] = pick(std::vector<std::string>{"6", "12", "20"});
    req["memory"] = pick(std::vector<std::string>{"12Gi", "24Gi", "48Gi"});
  } else {  // fits nowhere (in one or more dimensions)
    req["cpu"] = pick(std::vector<std::string>{"1", "64"});
    req["memory"] = pick(std::vector<std::string>{"1Gi", "256Gi"});
    if (req["cpu"] == "1" && req["memory"] == "1Gi") req["ephemeral-storage"] = "500Gi";
  }
  if (chance(0.15)) req["ephemeral-storage"] = pick(std::vector<std::string>{"1Gi", "10Gi", "60Gi", "200Gi"});
  json resources = json::object();
  if (chance(0.15)) {
    const std::string gpus = pick(std::vector<std::string>{"1", "2", "3", "8"});
    req[kGpu] = gpus;
    resources["limits"] = {{kGpu, gpus}};  // extended resources: limits must equal requests
  }
  if (req.empty()) return nullptr;
  if (chance(0.1)) {
    // Limits only: the API server defaults the requests to them.
    for (auto& [name, value] : req.items()) resources["limits"][name] = value;
  } else {
    resources["requests"] = req;
  }
  return resources;
}

json ClusterGenerator::nodeSelectorRequirement() {
  switch (uniform(0, 10)) {
    case 0: {
      json values = {pick(kZones)};
      if (chance(0.5)) values.push_back(pick(kZones));
      if (values.size() == 2 && values[0] == values[1]) values.erase(1);
      return {{"key", "topology.kubernetes.io/zone"}, {"operator", "In"}, {"values", values}};
    }
    case 1:
      return {{"key", "topology.kubernetes.io/zone"}, {"operator", "NotIn"}, {"values", {pick(kZones)}}};
    case 2:
      return {{"key", "disk"}, {"operator", "Exists"}};
    case 3:
      return {{"key", "disk"}, {"operator", "DoesNotExist"}};
    case 4:
      return {{"key", "tier"}, {"operator", "Gt"}, {"values", {std::to_string(uniform(0, 5))}}};
    case 5:
      return {{"key", "tier"}, {"operator", "Lt"}, {"values", {std::to_string(uniform(1, 6))}}};
    case 6:
      return {{"key", "team"}, {"operator", "In"}, {"values", {pick(kTeams), pick(kTeams) + "-x"}}};
    case 7:
      return {{"key", "spot"}, {"operator", "DoesNotExist"}};
    case 8: {
      json values = json::array();
      std::set<std::string> seen;
      for (int i = uniform(1, 3); i > 0; --i) {
        const std::string& n = pick(nodes_).name;
        if (seen.insert(n).second) values.push_back(n);
      }
      return {{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", values}};
    }
    case 9:
      return {{"key", "disk"}, {"operator", "In"}, {"values", {"ssd"}}};
    default:
      return {
          {"key", "example.com/nonexistent"}, {"operator", chance(0.5) ? "In" : "NotIn"}, {"values", {"x"}}};
  }
}

json ClusterGenerator::nodeSelectorTerm(bool required) {
  json term = json::object();
  const bool fields = chance(required ? 0.2 : 0.15);
  const bool onlyFields = fields && chance(0.4);
  if (!onlyFields) {
    json exprs = json::array();
    for (int i = uniform(1, 2); i > 0; --i) exprs.push_back(nodeSelectorRequirement());
    term["matchExpressions"] = exprs;
  }
  if (fields) {
    // metadata.name is the only field; In / NotIn with exactly one value. Sometimes two requirements (two In
    // with different names conflict: NodeAffinity's PreFilter rejects the pod), sometimes a missing node.
    json reqs = json::array();
    for (int i = chance(0.25) ? 2 : 1; i > 0; --i) {
      reqs.push_back({{"key", "metadata.name"},
                      {"operator", chance(0.6) ? "In" : "NotIn"},
                      {"values", {chance(0.1) ? "no-such-node" : pick(nodes_).name}}});
    }
    term["matchFields"] = reqs;
  }
  return term;
}

json ClusterGenerator::toleration() {
  const std::vector<std::string> effects = {"", "NoSchedule", "PreferNoSchedule", "NoExecute"};
  json t;
  switch (uniform(0, 9)) {
    case 0:
    case 1:
    case 2:
      t = {{"key", "dedicated"}, {"operator", "Equal"}, {"value", pick(kDedicated)}};
      if (const std::string& e = pick(effects); !e.empty()) t["effect"] = e;
      break;
    case 3:
      t = {{"key", "dedicated"}, {"operator", "Exists"}};
      break;
    case 4:
    case 5:
      t = {{"key", "spot"}, {"operator", "Exists"}};
      if (const std::string& e = pick(effects); !e.empty()) t["effect"] = e;
      break;
    case 6:
      t = {
          {"key", "maintenance"}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 60}};
      break;
    case 7:
      t = {{"key", "example.com/special"},  // no operator: Equal
           {"value", "x"},
           {"effect", "PreferNoSchedule"}};
      break;
    case 8:
      t = {{"key", "node.kubernetes.io/unschedulable"}, {"operator", "Exists"}, {"effect", "NoSchedule"}};
      break;
    default:
      t = {{"operator", "Exists"}};  // tolerates everything
      break;
  }
  return t;
}

json ClusterGenerator::containerPorts() {
  json ports = json::array();
  std::set<std::pair<int, std::string>> used;  // protocol + port unique within a pod
  for (int i = uniform(1, 2); i > 0; --i) {
    const HostPort& hp = pick(kHostPorts);
    if (!used.insert({hp.port, hp.protocol}).second) continue;
    json p = {{"containerPort", hp.port}, {"hostPort", hp.port}, {"protocol", hp.protocol}};
    if (*hp.hostIP != '\0') p["hostIP"] = hp.hostIP;
    ports.push_back(p);
  }
  return ports;
}

PendingPod ClusterGenerator::pendingPod() {
  const int index = nextPod_++;
  json spec = {{"terminationGracePeriodSeconds", 0}};

  json containers = json::array();
  const int containerCount = chance(0.2) ? 2 : 1;
  bool portsUsed = false;
  for (int c = 0; c < containerCount; ++c) {
    json container = {{"name", "c" + std::to_string(c)}, {"image", pick(kPodImages)}};
    if (json r = requests(); !r.is_null()) container["resources"] = r;
    if (!portsUsed && chance(0.12)) {
      container["ports"] = containerPorts();
      portsUsed = true;
    } else if (!portsUsed && chance(0.03)) {
      // Host network: the API server defaults each hostPort to its containerPort.
      spec["hostNetwork"] = true;
      container["ports"] = {{{"containerPort", 8080}, {"protocol", "TCP"}}};
      portsUsed = true;
    }
    containers.push_back(container);
  }
  spec["containers"] = containers;

  if (chance(0.12)) {
    json init = json::array();
    json ic = {{"name", "init"}, {"image", pick(kPodImages)}};
    if (json r = requests(); !r.is_null()) ic["resources"] = r;
    if (chance(0.4)) ic["restartPolicy"] = "Always";  // a sidecar: its requests add up with the containers
    init.push_back(ic);
    spec["initContainers"] = init;
  }
  if (chance(0.05)) {
    // Pod-level resources (beta, on in v1.34): cpu and memory only; the containers then request nothing.
    const std::string cpu = pick(std::vector<std::string>{"500m", "2", "40"});
    const std::string mem = pick(std::vector<std::string>{"512Mi", "3Gi"});
    spec["resources"] = {{"requests", {{"cpu", cpu}, {"memory", mem}}},
                         {"limits", {{"cpu", cpu}, {"memory", mem}}}};
    for (auto& c : spec["containers"]) c.erase("resources");
    if (spec.contains("initContainers")) spec["initContainers"][0].erase("resources");
  }

  if (chance(0.15)) {
    json sel = json::object();
    for (int i = uniform(1, 2); i > 0; --i) {
      switch (uniform(0, 4)) {
        case 0:
          sel["topology.kubernetes.io/zone"] = pick(kZones);
          break;
        case 1:
          sel["disk"] = "ssd";
          break;
        case 2:
          sel["team"] = pick(kTeams);
          break;
        case 3:
          sel["kubernetes.io/hostname"] = pick(nodes_).name;
          break;
        default:
          sel["spot"] = "true";
          break;
      }
    }
    spec["nodeSelector"] = sel;
  }

  json nodeAffinity = json::object();
  if (chance(0.2)) {
    json terms = json::array();
    for (int i = uniform(1, 2); i > 0; --i) terms.push_back(nodeSelectorTerm(true));
    nodeAffinity["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", terms}};
  }
  if (chance(0.25)) {
    json preferred = json::array();
    for (int i = uniform(1, 3); i > 0; --i) {
      preferred.push_back({{"weight", uniform(1, 100)}, {"preference", nodeSelectorTerm(false)}});
    }
    nodeAffinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred;
  }
  json affinity = podAffinity(0.12, 0.12);
  if (affinity.is_null()) affinity = json::object();
  if (!nodeAffinity.empty()) affinity["nodeAffinity"] = nodeAffinity;
  if (!affinity.empty()) spec["affinity"] = affinity;
  if (chance(0.15)) {
    json constraints = json::array();
    std::set<std::pair<std::string, std::string>> used;  // topologyKey + whenUnsatisfiable unique
    for (int i = chance(0.25) ? 2 : 1; i > 0; --i) {
      json c = topologySpreadConstraint();
      const std::string key = c["topologyKey"];
      const std::string when = c["whenUnsatisfiable"];
      if (used.insert({key, when}).second) constraints.push_back(c);
    }
    spec["topologySpreadConstraints"] = constraints;
  }

  if (chance(0.35)) {
    json tolerations = json::array();
    for (int i = uniform(1, 3); i > 0; --i) tolerations.push_back(toleration());
    spec["tolerations"] = tolerations;
  }
  if (chance(0.3)) spec["priorityClassName"] = pick(priorityClassNames_);
  if (chance(0.08) && !spec.contains("resources")) spec["runtimeClassName"] = pick(runtimeClassNames_);
  json metadata = {{"name", "p-" + std::to_string(index)}, {"namespace", ns_}};
  if (json labels = podLabels(); !labels.empty()) metadata["labels"] = labels;

  PendingPod out;
  if (draChance(draPodChance_)) {
    json refs = json::array();
    for (int c = 0, n = draChance(0.25) ? 2 : 1; c < n; ++c) {
      const std::string entry = "c" + std::to_string(c);
      const std::string claim = "p-" + std::to_string(index) + "-" + entry;
      out.claims.push_back(resourceClaim(claim));
      refs.push_back({{"name", entry}, {"resourceClaimName", claim}});
      spec["containers"][0]["resources"]["claims"].push_back({{"name", entry}});
    }
    spec["resourceClaims"] = refs;
  }
  out.pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
  return out;
}

}  // namespace ks::differential
