#pragma once
// Test builders for API objects, after upstream's pkg/scheduler/testing/wrappers.go:
//   auto pod = MakePod().name("p").namespace_("ns").req({{"cpu", "1"}, {"memory", "1Gi"}}).obj();
//   auto node = MakeNode().name("n1").capacity({{"cpu", "4"}}).taints({...}).obj();
// Quantity literals are parsed with Quantity::parse; a bad literal aborts with a clear message
// (test-only code).

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/quantity.h"

namespace ks::testing {

using ResourceMap = std::vector<std::pair<std::string, std::string>>;

// Parses a quantity literal or aborts ("MustParse").
api::Quantity mustParse(std::string_view s);
// Builds a ResourceList from literals.
api::ResourceList resourceList(const ResourceMap& resources);

// The pause image upstream's wrappers put in containers.
inline constexpr std::string_view kPauseImage = "registry.k8s.io/pause:3.10";

enum class AffinityKind : uint8_t { Required, Preferred };

class PodWrapper {
 public:
  api::Pod obj() const { return pod_; }
  api::PodPtr ptr() const { return std::make_shared<const api::Pod>(pod_); }

  PodWrapper& name(std::string s);
  PodWrapper& namespace_(std::string s);
  PodWrapper& uid(std::string s);
  PodWrapper& resourceVersion(std::string s);
  PodWrapper& label(std::string k, std::string v);
  PodWrapper& labels(const api::Labels& labels);
  PodWrapper& annotation(std::string k, std::string v);
  PodWrapper& ownerReference(std::string name, std::string kind, std::string apiVersion = "v1");
  PodWrapper& terminating();  // sets deletionTimestamp
  PodWrapper& creationTimestamp(api::Time t);

  PodWrapper& schedulerName(std::string s);
  PodWrapper& node(std::string s);  // spec.nodeName
  PodWrapper& priority(int32_t p);
  PodWrapper& priorityClassName(std::string s);
  PodWrapper& preemptionPolicy(std::string s);
  PodWrapper& nodeSelector(const std::map<std::string, std::string>& m);
  // Appends key In/NotIn vals to the first required node affinity term (matchExpressions, or matchFields).
  PodWrapper& nodeAffinityIn(std::string key, std::vector<std::string> vals, bool matchFields = false);
  PodWrapper& nodeAffinityNotIn(std::string key, std::vector<std::string> vals, bool matchFields = false);
  PodWrapper& preferredNodeAffinity(int32_t weight, api::NodeSelectorTerm preference);
  // Toleration(key): key Exists NoSchedule, as upstream.
  PodWrapper& toleration(std::string key);
  PodWrapper& toleration(api::Toleration t);
  PodWrapper& tolerations(std::vector<api::Toleration> t);

  // Pod (anti-)affinity terms. podAffinity/podAntiAffinity take a full term; the *Exists / *In forms
  // build the label selector as upstream (key Exists / key In vals). Preferred terms get weight 1
  // unless given.
  PodWrapper& podAffinity(std::string topologyKey, std::optional<api::LabelSelector> selector,
                          AffinityKind kind = AffinityKind::Required, int32_t weight = 1);
  PodWrapper& podAntiAffinity(std::string topologyKey, std::optional<api::LabelSelector> selector,
                              AffinityKind kind = AffinityKind::Required, int32_t weight = 1);
  PodWrapper& podAffinityTerm(api::PodAffinityTerm term, AffinityKind kind = AffinityKind::Required,
                              int32_t weight = 1);
  PodWrapper& podAntiAffinityTerm(api::PodAffinityTerm term, AffinityKind kind = AffinityKind::Required,
                                  int32_t weight = 1);
  PodWrapper& podAffinityExists(std::string labelKey, std::string topologyKey,
                                AffinityKind kind = AffinityKind::Required);
  PodWrapper& podAntiAffinityExists(std::string labelKey, std::string topologyKey,
                                    AffinityKind kind = AffinityKind::Required);
  PodWrapper& podAffinityIn(std::string labelKey, std::string topologyKey, std::vector<std::string> vals,
                            AffinityKind kind = AffinityKind::Required);
  PodWrapper& podAntiAffinityIn(std::string labelKey, std::string topologyKey, std::vector<std::string> vals,
                                AffinityKind kind = AffinityKind::Required);

  PodWrapper& spreadConstraint(int32_t maxSkew, std::string topologyKey, std::string whenUnsatisfiable,
                               std::optional<api::LabelSelector> selector,
                               std::optional<int32_t> minDomains = std::nullopt,
                               std::optional<std::string> nodeAffinityPolicy = std::nullopt,
                               std::optional<std::string> nodeTaintsPolicy = std::nullopt,
                               std::vector<std::string> matchLabelKeys = {});
  PodWrapper& schedulingGates(const std::vector<std::string>& gates);

  // Volumes.
  PodWrapper& pvc(std::string claimName);  // volume named after the claim
  PodWrapper& volume(api::Volume v);

  // Containers: each req/lim/initReq/sidecarReq call appends one container, as upstream.
  PodWrapper& container(std::string image);
  PodWrapper& req(const ResourceMap& requests);
  PodWrapper& lim(const ResourceMap& limits);
  PodWrapper& initReq(const ResourceMap& requests);
  PodWrapper& sidecarReq(const ResourceMap& requests);
  PodWrapper& hostPort(int32_t port, std::string protocol = "TCP", std::string hostIP = "");
  PodWrapper& containerPort(std::vector<api::ContainerPort> ports);
  PodWrapper& overhead(const ResourceMap& overhead);
  PodWrapper& res(const ResourceMap& podLevelRequests);  // spec.resources.requests
  PodWrapper& podLevelLimits(const ResourceMap& limits);

  // Status.
  PodWrapper& nominatedNodeName(std::string s);
  PodWrapper& phase(std::string s);
  PodWrapper& condition(std::string type, std::string status, std::string reason = "");
  PodWrapper& conditions(std::vector<api::PodCondition> conditions);  // replaces status.conditions
  PodWrapper& startTime(api::Time t);

 private:
  api::PodAffinity& affinityBlock(bool anti);
  api::NodeSelectorTerm& firstRequiredTerm();

  api::Pod pod_;
};

class NodeWrapper {
 public:
  NodeWrapper();

  api::Node obj() const { return node_; }
  api::NodePtr ptr() const { return std::make_shared<const api::Node>(node_); }

  NodeWrapper& name(std::string s);
  NodeWrapper& uid(std::string s);
  NodeWrapper& label(std::string k, std::string v);
  NodeWrapper& annotation(std::string k, std::string v);
  // Sets capacity and allocatable; "pods" defaults to 32 unless given.
  NodeWrapper& capacity(const ResourceMap& resources);
  NodeWrapper& allocatable(const ResourceMap& resources);  // allocatable only
  NodeWrapper& taints(std::vector<api::Taint> taints);
  NodeWrapper& unschedulable(bool u = true);
  // Images: name -> size, each one ContainerImage with that single name.
  NodeWrapper& images(const std::map<std::string, int64_t>& images);
  NodeWrapper& condition(std::string type, std::string status);
  NodeWrapper& declaredFeatures(std::vector<std::string> features);  // status.declaredFeatures

 private:
  api::Node node_;
};

PodWrapper MakePod();
NodeWrapper MakeNode();

}  // namespace ks::testing
