#pragma once
// Seeded random clusters and pending pods for the differential test: the same seed gives the same objects
// (std::mt19937 and nothing else random), so any disagreement is reproducible from its seed and pod index.
//
// The cluster: nodes with cpu / memory / pods / ephemeral-storage (and an extended resource on some),
// zone and custom labels, taints of all three effects, some cordoned (spec.unschedulable), container images
// with sizes; pods already bound to them (spec.nodeName) with requests, host ports and distinct start times,
// some of them terminal or terminating; PriorityClasses and RuntimeClasses (pod overhead, scheduling
// constraints).
// The pending pods: random requests (none, small, large, too large; limits only; init and sidecar
// containers; pod-level resources; quantities in odd notations), nodeSelector, required and preferred node
// affinity (every operator, matchFields on metadata.name), tolerations, host ports, priorityClassName,
// runtimeClassName, images some nodes have.
//
// Dynamic resource allocation (from a random stream of its own, so the draws above stay as they were): some
// nodes publish devices (gpus with model / memory attributes and capacity, nics, some devices tainted
// NoSchedule) in one or two ResourceSlices; some pending pods use one or two ResourceClaims (exactly N of a
// class, allocationMode All, CEL selectors on attributes and capacity, firstAvailable subrequests, a
// matchAttribute constraint, tolerations of the device taint). Each scheduler gets a device world of its
// own (devices of driver up.example.com / ours.example.com, classes "s<seed>-up-gpu" / "s<seed>-ours-gpu",
// claims "<pod>-<claim>-up" / "-ours"): identical but disjoint, so the claims the two schedulers allocate
// accumulate identically and never need deleting. forScheduler() makes one side's copy.
//
// Extend it as plugins are implemented (inter-pod affinity, topology spreading, volumes): add the feature
// to pendingPod() / cluster() with a probability, keeping the existing draws in their order where possible
// so that the old seeds keep producing mostly the same pods.

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ks::differential {

struct GeneratedCluster {
  std::vector<nlohmann::json> priorityClasses;  // scheduling.k8s.io/v1
  std::vector<nlohmann::json> runtimeClasses;   // node.k8s.io/v1, with overhead
  std::vector<nlohmann::json> nodes;
  std::vector<nlohmann::json> boundPods;  // spec.nodeName set; no schedulerName
  // core/v1 Services selecting some app labels: the pods they select get system default spreading.
  std::vector<nlohmann::json> services;
  // After creating the bound pods: these get status.phase (Succeeded / Failed: schedulers ignore them) ...
  std::map<std::string, std::string> terminalPhases;
  // ... and these are deleted gracefully, so they stay Terminating (no kubelet confirms) and keep counting.
  std::vector<std::string> terminating;
  // status.startTime of every bound pod (RFC 3339), all distinct: preemption ranks victims of one priority by
  // start time, and a pod without one starts "now" in upstream, i.e. when it reads the pod from its cache's
  // list of the node's pods, whose order depends on the order its informer happened to deliver the pods.
  std::map<std::string, std::string> startTimes;
  // resource.k8s.io/v1, both schedulers' worlds (see forScheduler()).
  std::vector<nlohmann::json> deviceClasses;
  std::vector<nlohmann::json> resourceSlices;
};

// A pending pod and the ResourceClaims it uses, before forScheduler(): the pod's spec.resourceClaims name
// claims "<pod>-<claim>" and the claims' requests name classes "gpu" / "nic".
struct PendingPod {
  nlohmann::json pod;
  std::vector<nlohmann::json> claims;
};

// The scheduler sides of the device world: their driver and what their class and claim names carry.
inline const std::vector<std::string> kDraSides = {"up", "ours"};

// `pending` for one side: claims and the pod's references to them get the suffix "-<side>", the claims'
// classes the prefix "s<seed>-<side>-".
PendingPod forScheduler(const PendingPod& pending, uint32_t seed, const std::string& side);

// Scheduler profile settings both schedulers get for a seed, on top of the common ones: plugin weights and
// plugin args (scoring strategies, extended-resource weights, NodeAffinity's addedAffinity, ...).
struct ProfileVariant {
  std::string name;
  std::string plugins;       // extension-point sections under a profile's `plugins:` (6-space indent)
  std::string pluginConfig;  // a profile's `pluginConfig:` block (4-space indent), or ""
};

// The variant of `seed`: (seed - 1) % 4, so seeds 1, 2 run the defaults and MostAllocated.
ProfileVariant profileVariant(uint32_t seed);

class ClusterGenerator {
 public:
  // Objects are named after the seed (nodes "s<seed>-n<i>", PriorityClasses "s<seed>-<name>") so that
  // clusters of different seeds can follow one another on one API server; pods live in `ns`.
  // `draHeavy`: devices on most nodes and claims on most pending pods (the default: a third, an eighth).
  ClusterGenerator(uint32_t seed, std::string ns, bool draHeavy = false);

  // The cluster; call once, before pendingPod().
  GeneratedCluster cluster();

  // The next pending pod "p-<index>" (index counts from 0), without spec.schedulerName, with its claims.
  PendingPod pendingPod();

  uint32_t seed() const { return seed_; }

 private:
  struct NodeFacts {
    std::string name;
    bool hasGpu = false;
  };

  int uniform(int lo, int hi);  // inclusive
  bool chance(double p);
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(uniform(0, static_cast<int>(v.size()) - 1))];
  }

  nlohmann::json node(int index);
  nlohmann::json boundPod(const NodeFacts& node, int index);
  nlohmann::json requests();
  nlohmann::json nodeSelectorRequirement();
  nlohmann::json nodeSelectorTerm(bool required);
  nlohmann::json toleration();
  nlohmann::json containerPorts();
  // A label selector over the app/tier labels pods carry (matchLabels or matchExpressions).
  nlohmann::json podLabelSelector();
  // Pod labels: app (usually) and tier (sometimes).
  nlohmann::json podLabels();
  nlohmann::json podAffinityTerm();
  // podAffinity / podAntiAffinity with required and/or preferred terms, or null.
  nlohmann::json podAffinity(double requiredChance, double preferredChance);
  nlohmann::json topologySpreadConstraint();
  // DRA, drawing from draRng_ only.
  int draUniform(int lo, int hi);
  bool draChance(double p);
  // The devices of one node (gpus, nics), and its slices for both sides; empty for most nodes.
  std::vector<nlohmann::json> resourceSlices(const NodeFacts& node);
  nlohmann::json deviceRequest(const std::string& name);
  nlohmann::json resourceClaim(const std::string& name);

  uint32_t seed_;
  std::string ns_;
  std::mt19937 rng_;
  std::mt19937 draRng_;
  double draNodeChance_;
  double draPodChance_;
  std::vector<NodeFacts> nodes_;
  std::vector<std::string> priorityClassNames_;
  std::vector<std::string> runtimeClassNames_;
  int nextPod_ = 0;
};

}  // namespace ks::differential
