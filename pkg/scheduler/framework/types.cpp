#include "pkg/scheduler/framework/types.h"

#include <algorithm>
#include <atomic>

#include "pkg/api/field.h"
#include "pkg/api/nodedeclaredfeatures/framework.h"
#include "pkg/api/resources.h"
#include "pkg/util/intern.h"

namespace ks::framework {

// ---- Resource ----

bool isScalarResourceName(std::string_view name) {
  if (name.starts_with(api::kResourceHugePagesPrefix)) return true;
  if (name.starts_with("attachable-volumes-")) return true;
  // Extended ("example.com/gpu") and prefixed native ("kubernetes.io/...") resources both contain a
  // slash; "requests.*" names are quota names, never resources.
  return name.find('/') != std::string_view::npos && !name.starts_with("requests.");
}

Resource Resource::fromResourceList(const api::ResourceList& rl) {
  Resource r;
  r.add(rl);
  return r;
}

void Resource::add(const api::ResourceList& rl) {
  for (const auto& [name, q] : rl) {
    if (name == api::kResourceCPU) {
      milliCPU += q.milliValue();
    } else if (name == api::kResourceMemory) {
      memory += q.value();
    } else if (name == api::kResourcePods) {
      allowedPodNumber += q.value();
    } else if (name == api::kResourceEphemeralStorage) {
      ephemeralStorage += q.value();
    } else if (isScalarResourceName(name)) {
      addScalar(name, q.value());
    }
  }
}

void Resource::setMaxResource(const api::ResourceList& rl) {
  for (const auto& [name, q] : rl) {
    if (name == api::kResourceCPU) {
      milliCPU = std::max(milliCPU, q.milliValue());
    } else if (name == api::kResourceMemory) {
      memory = std::max(memory, q.value());
    } else if (name == api::kResourceEphemeralStorage) {
      ephemeralStorage = std::max(ephemeralStorage, q.value());
    } else if (isScalarResourceName(name)) {
      int64_t& v = scalarResources[name];
      v = std::max(v, q.value());
    }
  }
}

namespace {
std::atomic<bool> podLevelResizeAccounting{true};
}  // namespace

void setPodLevelResizeAccounting(bool enabled) { podLevelResizeAccounting.store(enabled); }

api::PodRequestsOptions accountingRequestOptions() {
  api::PodRequestsOptions opts;
  opts.inPlacePodLevelResourcesVerticalScalingEnabled = podLevelResizeAccounting.load(std::memory_order_relaxed);
  return opts;
}

PodResource calculatePodResource(const api::Pod& pod) {
  const api::ResourceList requests = api::podRequests(pod, accountingRequestOptions());
  // Containers (or, with pod-level resources, the pod) that request no cpu/memory count as requesting
  // the scheduler's defaults in the non-zero view.
  api::ResourceList nonMissing;
  const bool podLevel = api::isPodLevelRequestsSet(pod);
  if (!podLevel || !requests.contains(std::string(api::kResourceCPU))) {
    nonMissing.emplace(std::string(api::kResourceCPU),
                       api::Quantity::fromMilli(api::kDefaultMilliCPURequest));
  }
  if (!podLevel || !requests.contains(std::string(api::kResourceMemory))) {
    nonMissing.emplace(std::string(api::kResourceMemory), api::Quantity::fromInt(api::kDefaultMemoryRequest));
  }
  PodResource out;
  out.resource.add(requests);
  if (nonMissing.empty()) {
    out.non0CPU = out.resource.milliCPU;
    out.non0Mem = out.resource.memory;
  } else {
    api::PodRequestsOptions opts = accountingRequestOptions();
    opts.nonMissingContainerRequests = &nonMissing;
    const api::ResourceList non0 = api::podRequests(pod, opts);
    if (auto it = non0.find(std::string(api::kResourceCPU)); it != non0.end())
      out.non0CPU = it->second.milliValue();
    if (auto it = non0.find(std::string(api::kResourceMemory)); it != non0.end())
      out.non0Mem = it->second.value();
  }
  return out;
}

// ---- PodInfo ----

bool AffinityTerm::matches(const std::string& ns, const api::Labels& labels, const api::Labels& nsLabels) const {
  if (!namespaces.contains(ns) && !namespaceSelector.matches(nsLabels)) return false;
  return selector.matches(labels);
}

namespace {

std::set<std::string> namespacesOf(const api::Pod& pod, const api::PodAffinityTerm& term) {
  std::set<std::string> out;
  if (term.namespaces.empty() && !term.namespaceSelector) {
    out.insert(pod.metadata.namespace_);
  } else {
    out.insert(term.namespaces.begin(), term.namespaces.end());
  }
  return out;
}

Result<AffinityTerm> newAffinityTerm(const api::Pod& pod, const api::PodAffinityTerm& term) {
  auto selector = api::Selector::fromLabelSelector(term.labelSelector);
  if (!selector) return selector.error();
  auto nsSelector = api::Selector::fromLabelSelector(term.namespaceSelector);
  if (!nsSelector) return nsSelector.error();
  AffinityTerm out;
  out.namespaces = namespacesOf(pod, term);
  out.selector = std::move(selector).value();
  out.topologyKey = term.topologyKey;
  out.namespaceSelector = std::move(nsSelector).value();
  return out;
}

// Upstream GetAffinityTerms / getWeightedAffinityTerms: the first term that fails to parse fails the
// whole list (nothing of it is kept) and its error is returned.
std::vector<AffinityTerm> parseTerms(const api::Pod& pod, const std::vector<api::PodAffinityTerm>& terms,
                                     std::optional<Error>& err) {
  auto parsed = getAffinityTerms(pod, terms);
  if (!parsed) {
    err = parsed.error();
    return {};
  }
  return std::move(parsed).value();
}

std::vector<WeightedAffinityTerm> parseWeightedTerms(const api::Pod& pod,
                                                     const std::vector<api::WeightedPodAffinityTerm>& terms,
                                                     std::optional<Error>& err) {
  std::vector<WeightedAffinityTerm> out;
  out.reserve(terms.size());
  for (const auto& t : terms) {
    auto parsed = newAffinityTerm(pod, t.podAffinityTerm);
    if (!parsed) {
      err = parsed.error();
      return {};
    }
    out.push_back(WeightedAffinityTerm{std::move(parsed).value(), t.weight});
  }
  return out;
}

const std::vector<api::PodAffinityTerm> kNoTerms;

std::size_t hashLabels(std::size_t seed, const api::Labels& labels) {
  for (const auto& [k, v] : labels) {
    util::hashCombine(seed, std::hash<std::string>{}(k));
    util::hashCombine(seed, std::hash<std::string>{}(v));
  }
  return seed;
}

struct PodMatchIdentityHash {
  std::size_t operator()(const PodMatchIdentity& id) const {
    std::size_t seed = hashLabels(std::hash<std::string>{}(id.namespace_), id.labels);
    util::hashCombine(seed, id.terminating ? 1 : 0);
    for (const void* list : {static_cast<const void*>(id.requiredAffinityTerms.get()),
                             static_cast<const void*>(id.requiredAntiAffinityTerms.get()),
                             static_cast<const void*>(id.preferredAffinityTerms.get()),
                             static_cast<const void*>(id.preferredAntiAffinityTerms.get())}) {
      util::hashCombine(seed, std::hash<const void*>{}(list));
    }
    return seed;
  }
};

// Terms are hashed on their topology key, namespaces and selector keys: cheap, and equal terms hash
// equally (equality decides).
std::size_t hashTerm(std::size_t seed, const AffinityTerm& t) {
  util::hashCombine(seed, std::hash<std::string>{}(t.topologyKey));
  for (const auto& ns : t.namespaces) util::hashCombine(seed, std::hash<std::string>{}(ns));
  for (const auto& r : t.selector.requirements()) util::hashCombine(seed, std::hash<std::string>{}(r.key()));
  return seed;
}

struct TermsHash {
  std::size_t operator()(const std::vector<AffinityTerm>& terms) const {
    std::size_t seed = terms.size();
    for (const auto& t : terms) seed = hashTerm(seed, t);
    return seed;
  }
  std::size_t operator()(const std::vector<WeightedAffinityTerm>& terms) const {
    std::size_t seed = terms.size();
    for (const auto& t : terms) {
      seed = hashTerm(seed, t.term);
      util::hashCombine(seed, static_cast<std::size_t>(t.weight));
    }
    return seed;
  }
};

// The shared instance of `terms` (one static empty list for none: most pods have no terms).
template <class Term>
std::shared_ptr<const std::vector<Term>> internTerms(std::vector<Term> terms) {
  static const auto empty = std::make_shared<const std::vector<Term>>();
  if (terms.empty()) return empty;
  return util::InternPool<std::vector<Term>, TermsHash>::leakedInstance().intern(std::move(terms));
}

}  // namespace

Result<std::vector<AffinityTerm>> getAffinityTerms(const api::Pod& pod,
                                                   const std::vector<api::PodAffinityTerm>& terms) {
  std::vector<AffinityTerm> out;
  out.reserve(terms.size());
  for (const auto& t : terms) {
    auto parsed = newAffinityTerm(pod, t);
    if (!parsed) return parsed.error();
    out.push_back(std::move(parsed).value());
  }
  return out;
}

const std::vector<api::PodAffinityTerm>& getPodAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->podAffinity) return kNoTerms;
  return a->podAffinity->requiredDuringSchedulingIgnoredDuringExecution;
}

const std::vector<api::PodAffinityTerm>& getPodAntiAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->podAntiAffinity) return kNoTerms;
  return a->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution;
}

std::shared_ptr<PodInfo> PodInfo::create(api::PodPtr pod) {
  auto pi = std::make_shared<PodInfo>();
  pi->pod_ = std::move(pod);
  const api::Pod& p = *pi->pod_;
  pi->resource_ = calculatePodResource(p);
  std::vector<AffinityTerm> requiredAffinity, requiredAntiAffinity;
  std::vector<WeightedAffinityTerm> preferredAffinity, preferredAntiAffinity;
  if (p.spec.affinity) {
    const api::Affinity& a = *p.spec.affinity;
    // As upstream PodInfo.Update: each list that fails to parse is empty and contributes
    // "<list>: <error>" to the aggregated parse error.
    std::vector<std::string> errs;
    auto parse = [&](std::string_view list, auto&& fn) {
      std::optional<Error> err;
      auto terms = fn(err);
      if (err) errs.push_back(std::string(list) + ": " + err->message());
      return terms;
    };
    if (a.podAffinity) {
      requiredAffinity = parse("requiredAffinityTerms", [&](std::optional<Error>& e) {
        return parseTerms(p, a.podAffinity->requiredDuringSchedulingIgnoredDuringExecution, e);
      });
    }
    if (a.podAntiAffinity) {
      requiredAntiAffinity = parse("requiredAntiAffinityTerms", [&](std::optional<Error>& e) {
        return parseTerms(p, a.podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution, e);
      });
    }
    if (a.podAffinity) {
      preferredAffinity = parse("preferredAffinityTerms", [&](std::optional<Error>& e) {
        return parseWeightedTerms(p, a.podAffinity->preferredDuringSchedulingIgnoredDuringExecution, e);
      });
    }
    if (a.podAntiAffinity) {
      preferredAntiAffinity = parse("preferredAntiAffinityTerms", [&](std::optional<Error>& e) {
        return parseWeightedTerms(p, a.podAntiAffinity->preferredDuringSchedulingIgnoredDuringExecution, e);
      });
    }
    if (!errs.empty()) pi->parseError_ = Error(api::aggregateMessages(errs));
  }
  pi->matchIdentity_ = util::InternPool<PodMatchIdentity, PodMatchIdentityHash>::leakedInstance().intern(
      PodMatchIdentity{.namespace_ = p.metadata.namespace_,
                       .labels = p.metadata.labels,
                       .terminating = p.metadata.deletionTimestamp.has_value(),
                       .requiredAffinityTerms = internTerms(std::move(requiredAffinity)),
                       .requiredAntiAffinityTerms = internTerms(std::move(requiredAntiAffinity)),
                       .preferredAffinityTerms = internTerms(std::move(preferredAffinity)),
                       .preferredAntiAffinityTerms = internTerms(std::move(preferredAntiAffinity))});
  return pi;
}

// ---- Ports and PVCs ----

namespace {
std::string_view sanitizeIP(std::string_view ip) {
  return ip.empty() ? kDefaultBindAllHostIP : ip;
}
std::string sanitizeProtocol(std::string_view protocol) {
  return protocol.empty() ? std::string("TCP") : std::string(protocol);
}
}  // namespace

void HostPortInfo::add(std::string_view ip, std::string_view protocol, int32_t port) {
  if (port <= 0) return;
  ports_[std::string(sanitizeIP(ip))].insert(ProtocolPort{sanitizeProtocol(protocol), port});
}

void HostPortInfo::remove(std::string_view ip, std::string_view protocol, int32_t port) {
  if (port <= 0) return;
  auto it = ports_.find(std::string(sanitizeIP(ip)));
  if (it == ports_.end()) return;
  it->second.erase(ProtocolPort{sanitizeProtocol(protocol), port});
  if (it->second.empty()) ports_.erase(it);
}

bool HostPortInfo::checkConflict(std::string_view ip, std::string_view protocol, int32_t port) const {
  if (port <= 0) return false;
  const std::string_view sip = sanitizeIP(ip);
  const ProtocolPort pp{sanitizeProtocol(protocol), port};
  if (sip == kDefaultBindAllHostIP) {
    for (const auto& [_, set] : ports_) {
      if (set.contains(pp)) return true;
    }
    return false;
  }
  for (std::string_view key : {kDefaultBindAllHostIP, sip}) {
    auto it = ports_.find(std::string(key));
    if (it != ports_.end() && it->second.contains(pp)) return true;
  }
  return false;
}

std::size_t HostPortInfo::size() const {
  std::size_t n = 0;
  for (const auto& [_, set] : ports_) n += set.size();
  return n;
}

std::vector<api::ContainerPort> getHostPorts(const api::Pod& pod) {
  std::vector<api::ContainerPort> out;
  for (const auto& c : pod.spec.initContainers) {
    if (!c.restartPolicy || *c.restartPolicy != "Always") continue;
    for (const auto& p : c.ports) {
      if (p.hostPort > 0) out.push_back(p);
    }
  }
  for (const auto& c : pod.spec.containers) {
    for (const auto& p : c.ports) {
      if (p.hostPort > 0) out.push_back(p);
    }
  }
  return out;
}

std::vector<std::string> podPVCKeys(const api::Pod& pod) {
  std::vector<std::string> out;
  for (const auto& v : pod.spec.volumes) {
    // Only persistentVolumeClaim volumes, as upstream updatePVCRefCounts (not generic ephemeral ones).
    if (v.persistentVolumeClaim)
      out.push_back(pod.metadata.namespace_ + "/" + v.persistentVolumeClaim->claimName);
  }
  return out;
}

// ---- NodeInfo ----

namespace {
std::atomic<int64_t> gGeneration{0};
const std::string kEmpty;
}  // namespace

int64_t nextGeneration() {
  return gGeneration.fetch_add(1, std::memory_order_relaxed) + 1;
}

bool podWithAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && (a->podAffinity || a->podAntiAffinity);
}

bool podWithRequiredAntiAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->podAntiAffinity &&
         !a->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution.empty();
}

NodeInfo::NodeInfo() : generation_(nextGeneration()) {}

NodeInfo::NodeInfo(const std::vector<api::PodPtr>& pods) : generation_(nextGeneration()) {
  for (const auto& p : pods) addPod(p);
}

const std::string& NodeInfo::nodeName() const {
  return node_ ? node_->metadata.name : kEmpty;
}

void NodeInfo::addPodInfo(PodInfoPtr podInfo) {
  const api::Pod& pod = podInfo->pod();
  if (podWithAffinity(pod)) podsWithAffinity_.push_back(podInfo);
  if (podWithRequiredAntiAffinity(pod)) podsWithRequiredAntiAffinity_.push_back(podInfo);
  update(*podInfo, 1);
  pods_.push_back(std::move(podInfo));
}

void NodeInfo::addPod(api::PodPtr pod) {
  addPodInfo(PodInfo::create(std::move(pod)));
}

namespace {
// Removes the entry with `uid` by swapping in the last element (upstream removeFromSlice); returns it.
// Searched from the back: the pod removed is most often one added recently (an assumed pod confirmed
// or forgotten), and UIDs are unique, so the entry found is upstream's.
PodInfoPtr removeFromSlice(std::vector<PodInfoPtr>& v, const std::string& uid) {
  for (std::size_t i = v.size(); i-- > 0;) {
    if (v[i]->pod().metadata.uid == uid) {
      PodInfoPtr removed = std::move(v[i]);
      if (i != v.size() - 1) v[i] = std::move(v.back());
      v.pop_back();
      return removed;
    }
  }
  return nullptr;
}
}  // namespace

Result<void> NodeInfo::removePod(const api::Pod& pod) {
  const std::string& uid = pod.metadata.uid;
  if (uid.empty()) return Error("cannot get cache key for pod with empty UID");
  if (podWithAffinity(pod)) removeFromSlice(podsWithAffinity_, uid);
  if (podWithRequiredAntiAffinity(pod)) removeFromSlice(podsWithRequiredAntiAffinity_, uid);
  if (PodInfoPtr removed = removeFromSlice(pods_, uid)) {
    update(*removed, -1);
    return {};
  }
  return Error("no corresponding pod " + pod.metadata.name + " in pods of node " + nodeName());
}

void NodeInfo::update(const PodInfo& podInfo, int64_t sign) {
  const PodResource& r = podInfo.resource();
  requested_.milliCPU += sign * r.resource.milliCPU;
  requested_.memory += sign * r.resource.memory;
  requested_.ephemeralStorage += sign * r.resource.ephemeralStorage;
  for (const auto& [name, q] : r.resource.scalarResources) requested_.scalarResources[name] += sign * q;
  nonZeroRequested_.milliCPU += sign * r.non0CPU;
  nonZeroRequested_.memory += sign * r.non0Mem;

  // Few groups per node (pods of one workload share an identity): a linear search.
  auto group = std::find_if(podMatchGroups_.begin(), podMatchGroups_.end(),
                            [&](const PodMatchGroup& g) { return g.identity == podInfo.matchIdentityPtr(); });
  if (group == podMatchGroups_.end()) {
    if (sign > 0) podMatchGroups_.push_back(PodMatchGroup{podInfo.matchIdentityPtr(), 1});
  } else if ((group->count += sign) <= 0) {
    *group = std::move(podMatchGroups_.back());
    podMatchGroups_.pop_back();
  }

  const api::Pod& pod = podInfo.pod();
  for (const auto& p : getHostPorts(pod)) {
    if (sign > 0) {
      usedPorts_.add(p.hostIP, p.protocol, p.hostPort);
    } else {
      usedPorts_.remove(p.hostIP, p.protocol, p.hostPort);
    }
  }
  for (const auto& key : podPVCKeys(pod)) {
    if (sign > 0) {
      pvcRefCounts_[key] += 1;
    } else if (auto it = pvcRefCounts_.find(key); it != pvcRefCounts_.end()) {
      if (--it->second <= 0) pvcRefCounts_.erase(it);
    }
  }
  generation_ = nextGeneration();
}

void NodeInfo::setNode(api::NodePtr node) {
  node_ = std::move(node);
  allocatable_ = Resource::fromResourceList(node_->status.allocatable);
  // Mapped once here so that Filter is a subset test. Upstream maps only with the NodeDeclaredFeatures gate
  // on; it is GA and locked on in v1.37.
  declaredFeatures_ = api::nodedeclaredfeatures::defaultFramework().tryMap(node_->status.declaredFeatures);
  generation_ = nextGeneration();
}

void NodeInfo::removeNode() {
  node_.reset();
  generation_ = nextGeneration();
}

std::unique_ptr<NodeInfo> NodeInfo::snapshot() const {
  auto c = std::make_unique<NodeInfo>(*this);
  for (auto& [_, s] : c->imageStates_) s.nodes.clear();
  return c;
}

std::string NodeInfo::toString() const {
  std::string out = "&NodeInfo{Node:" + nodeName() + ", Pods:[";
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    if (i) out += " ";
    out += pods_[i]->pod().metadata.name;
  }
  out += "], Requested:{cpu:" + std::to_string(requested_.milliCPU) +
         "m mem:" + std::to_string(requested_.memory) +
         "}, NonZeroRequested:{cpu:" + std::to_string(nonZeroRequested_.milliCPU) +
         "m mem:" + std::to_string(nonZeroRequested_.memory) +
         "}, Allocatable:{cpu:" + std::to_string(allocatable_.milliCPU) +
         "m mem:" + std::to_string(allocatable_.memory) +
         "}, UsedPorts:" + std::to_string(usedPorts_.size()) + ", Generation:" + std::to_string(generation_) +
         "}";
  return out;
}

std::optional<api::PodCondition> updatePodCondition(const api::PodStatus& status, api::PodCondition cond) {
  for (const auto& c : status.conditions) {
    if (c.type != cond.type) continue;
    if (c.status == cond.status) cond.lastTransitionTime = c.lastTransitionTime;
    const bool unchanged = c.status == cond.status && c.reason == cond.reason && c.message == cond.message &&
                           c.lastProbeTime == cond.lastProbeTime;
    if (unchanged) return std::nullopt;
    break;
  }
  return cond;
}

}  // namespace ks::framework
