#include "pkg/scheduler/framework/plugins/noderesources/resource_allocation.h"

#include <array>
#include <cmath>
#include <optional>

#include "pkg/api/resources.h"
#include "pkg/dra/structured/allocator.h"
#include "pkg/dra/structured/pools.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/plugins/noderesources/fit.h"

namespace ks::plugins::noderesources {

using framework::kMaxNodeScore;

int64_t leastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) return 0;
  return ((capacity - requested) * kMaxNodeScore) / capacity;
}

int64_t mostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  // requested may exceed capacity because pods without requests count with the non-zero defaults.
  if (requested > capacity) requested = capacity;
  return (requested * kMaxNodeScore) / capacity;
}

int64_t balancedResourceScore(std::span<const int64_t> used, std::span<const int64_t> allocatable) {
  // Two passes over the resources instead of a fractions vector: the same arithmetic in the same order.
  std::size_t n = 0;
  double total = 0;
  double first = 0;
  double second = 0;
  for (std::size_t i = 0; i < used.size(); i++) {
    if (allocatable[i] == 0) continue;
    double fraction = static_cast<double>(used[i]) / static_cast<double>(allocatable[i]);
    if (fraction > 1) fraction = 1;
    total += fraction;
    if (n == 0) first = fraction;
    if (n == 1) second = fraction;
    n++;
  }
  double stddev = 0.0;
  if (n == 2) {
    stddev = std::fabs((first - second) / 2);
  } else if (n > 2) {
    const double mean = total / static_cast<double>(n);
    double sum = 0;
    for (std::size_t i = 0; i < used.size(); i++) {
      if (allocatable[i] == 0) continue;
      double fraction = static_cast<double>(used[i]) / static_cast<double>(allocatable[i]);
      if (fraction > 1) fraction = 1;
      sum = sum + (fraction - mean) * (fraction - mean);
    }
    stddev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<int64_t>((1 - stddev) * static_cast<double>(kMaxNodeScore));
}

int64_t balancedResourceScorer(std::span<const int64_t> requested, std::span<const int64_t> allocated,
                               std::span<const int64_t> allocatable) {
  const int64_t withPod = balancedResourceScore(requested, allocatable);
  const int64_t withoutPod = balancedResourceScore(allocated, allocatable);
  // Both scores are in [50, 100], their difference in [-50, 50]; halving it around 75 keeps the result in
  // [50, 100], the range of the pre-v1.35 score that looked at the node with the pod only.
  return kMaxNodeScore / 2 + (kMaxNodeScore / 2 + withPod - withoutPod) / 2;
}

namespace {

ScoredResource classify(const config::ResourceSpec& spec) {
  ScoredResource r;
  r.name = spec.name;
  r.weight = spec.weight;
  if (spec.name == api::kResourceCPU) {
    r.kind = ScoredResource::Kind::CPU;
  } else if (spec.name == api::kResourceMemory) {
    r.kind = ScoredResource::Kind::Memory;
  } else if (spec.name == api::kResourceEphemeralStorage) {
    r.kind = ScoredResource::Kind::EphemeralStorage;
  }
  r.scalar = framework::isScalarResourceName(spec.name);
  return r;
}

}  // namespace

ResourceAllocationScorer::ResourceAllocationScorer(std::string name, ScoringStrategyType type,
                                                   const std::vector<config::ResourceSpec>& resources,
                                                   Options options, helper::FunctionShape shape)
    : name_(std::move(name)), type_(type), options_(options), shape_(std::move(shape)) {
  resources_.reserve(resources.size());
  for (const auto& r : resources) resources_.push_back(classify(r));
}

std::vector<int64_t> ResourceAllocationScorer::podRequests(const api::Pod& pod) const {
  api::PodRequestsOptions opts;
  opts.useStatusResources = options_.useStatusResources;
  opts.inPlacePodLevelResourcesVerticalScalingEnabled = options_.inPlacePodLevelResourcesVerticalScaling;
  opts.skipPodLevelResources = options_.skipPodLevelResources;
  api::ResourceList nonMissing;
  if (!options_.useRequested) {
    nonMissing.emplace(std::string(api::kResourceCPU),
                       api::Quantity::fromMilli(api::kDefaultMilliCPURequest));
    nonMissing.emplace(std::string(api::kResourceMemory), api::Quantity::fromInt(api::kDefaultMemoryRequest));
    opts.nonMissingContainerRequests = &nonMissing;
  }
  const api::ResourceList requests = api::podRequests(pod, opts);
  std::vector<int64_t> out(resources_.size(), 0);
  for (std::size_t i = 0; i < resources_.size(); i++) {
    auto it = requests.find(resources_[i].name);
    if (it == requests.end()) continue;
    out[i] = resources_[i].kind == ScoredResource::Kind::CPU ? it->second.milliValue() : it->second.value();
  }
  return out;
}

bool ResourceAllocationScorer::isBestEffortPod(std::span<const int64_t> podRequests) {
  for (int64_t r : podRequests) {
    if (r != 0) return false;
  }
  return true;
}

// ---- DRAPreScoreState ----

Result<std::shared_ptr<const DRAPreScoreState>> DRAPreScoreState::gather(
    framework::SharedDRAManager* draManager, const framework::DeviceClassResolver* classes,
    std::span<const ScoredResource> resources, cel::Cache& celCache) {
  if (draManager == nullptr || classes == nullptr) return std::shared_ptr<const DRAPreScoreState>();
  bool anyBackedByDRA = false;
  for (const auto& r : resources) {
    const bool draName = isExtendedResourceName(r.name) ||
                         std::string_view(r.name).starts_with(framework::kResourceDeviceClassPrefix);
    if (draName && classes->getDeviceClass(r.name) != nullptr) {
      anyBackedByDRA = true;
      break;
    }
  }
  if (!anyBackedByDRA) return std::shared_ptr<const DRAPreScoreState>();

  auto allocatedState = draManager->resourceClaims().gatherAllocatedState();
  if (!allocatedState.ok()) return allocatedState.error();
  auto slices = draManager->resourceSlices().listWithDeviceTaintRules();
  if (!slices.ok()) return slices.error();

  std::shared_ptr<DRAPreScoreState> state(new DRAPreScoreState());
  state->allocatedState_ = std::move(*allocatedState);
  const auto& as = state->allocatedState_;
  for (const auto& id : as.allocatedDevices) state->inUse_.emplace(id.driver, id.pool, id.device);
  for (const auto& id : as.allocatedSharedDeviceIDs) state->inUse_.emplace(id.driver, id.pool, id.device);
  for (const auto& [id, capacity] : as.aggregatedCapacity) state->inUse_.emplace(id.driver, id.pool, id.device);

  state->slices_ = std::move(*slices);
  for (const auto& slice : state->slices_) {
    const auto& spec = slice->spec;
    if (!spec.perDeviceNodeSelection.value_or(false) && !spec.allNodes.value_or(false) && spec.nodeName &&
        !spec.nodeName->empty()) {
      state->slicesByNodeName_[*spec.nodeName].push_back(slice.get());
    } else {
      state->otherSlices_.push_back(slice.get());
    }
  }

  // The class of each configured resource, resolved once per cycle (upstream resolves it per node).
  state->backing_.resize(resources.size());
  for (std::size_t i = 0; i < resources.size(); i++) {
    if (resources[i].kind != ScoredResource::Kind::Other) continue;
    BackingClass& b = state->backing_[i];
    b.deviceClass = classes->getDeviceClass(resources[i].name);
    if (b.deviceClass == nullptr) continue;
    for (const auto& selector : b.deviceClass->spec.selectors) {
      b.selectors.push_back(selector.cel ? celCache.getOrCompile(selector.cel->expression) : nullptr);
    }
  }
  return std::shared_ptr<const DRAPreScoreState>(std::move(state));
}

Result<bool> DRAPreScoreState::deviceMatchesClass(const BackingClass& backing, const api::Device& device,
                                                  const std::string& driver) const {
  std::optional<cel::Device> input;  // built for the first selector that needs it
  for (const auto& expr : backing.selectors) {
    if (expr == nullptr) continue;
    if (expr->error()) return Error(*expr->error());
    if (!input) {
      input = dra::structured::celDevice(device, driver);
      // Upstream's scorer leaves it out of the CEL device, so selectors see false.
      input->allowMultipleAllocations.reset();
    }
    auto matches = expr->deviceMatches(*input);
    if (!matches.ok() || !*matches) return matches;
  }
  return true;
}

Result<void> DRAPreScoreState::countSlice(const api::Node& node, const BackingClass& backing,
                                          const api::ResourceSlice& slice, int64_t& capacity,
                                          int64_t& allocated) const {
  const auto& spec = slice.spec;
  const std::string_view nodeName = node.metadata.name;
  const bool perDevice = spec.perDeviceNodeSelection.value_or(false);
  if (!perDevice) {
    const bool allNodes = spec.allNodes.value_or(false);
    const std::string_view sliceNodeName = dra::structured::orEmpty(spec.nodeName);
    if (!allNodes && sliceNodeName != nodeName && spec.nodeSelector) {
      auto matches = dra::structured::nodeMatches(&node, sliceNodeName, false, &*spec.nodeSelector);
      if (!matches.ok()) return matches.error();
      if (!*matches) return {};
    } else if (!allNodes && !sliceNodeName.empty() && sliceNodeName != nodeName) {
      return {};
    }
    // As upstream, a slice that names no node, no selector and not all nodes counts everywhere.
  }
  for (const auto& device : spec.devices) {
    if (perDevice) {
      const std::string_view deviceNodeName = dra::structured::orEmpty(device.nodeName);
      const bool deviceAllNodes = device.allNodes.value_or(false);
      if (!deviceAllNodes && (deviceNodeName.empty() || deviceNodeName != nodeName)) {
        if (!device.nodeSelector) continue;
        auto matches = dra::structured::nodeMatches(&node, deviceNodeName, deviceAllNodes, &*device.nodeSelector);
        if (!matches.ok()) return matches.error();
        if (!*matches) continue;
      }
    }
    if (!backing.selectors.empty()) {
      auto matches = deviceMatchesClass(backing, device, spec.driver);
      if (!matches.ok()) return matches.error();
      if (!*matches) continue;
    }
    capacity++;
    if (inUse_.contains(DeviceKey(spec.driver, spec.pool.name, device.name))) allocated++;
  }
  return {};
}

std::pair<int64_t, int64_t> DRAPreScoreState::allocatableRequest(const api::Node& node, std::size_t i) const {
  if (i >= backing_.size() || backing_[i].deviceClass == nullptr) return {0, 0};
  const BackingClass& backing = backing_[i];
  int64_t capacity = 0;
  int64_t allocated = 0;
  auto count = [&](const std::vector<const api::ResourceSlice*>& slices) {
    for (const api::ResourceSlice* slice : slices) {
      if (!countSlice(node, backing, *slice, capacity, allocated).ok()) return false;
    }
    return true;
  };
  if (auto it = slicesByNodeName_.find(node.metadata.name); it != slicesByNodeName_.end()) {
    if (!count(it->second)) return {0, 0};
  }
  if (!count(otherSlices_)) return {0, 0};
  return {capacity, allocated};
}

// ---- ResourceAllocationScorer ----

void ResourceAllocationScorer::enableDRAExtendedResource(framework::SharedDRAManager* draManager,
                                                         const framework::DeviceClassResolver* deviceClasses) {
  enableDRAExtendedResource_ = true;
  draManager_ = draManager;
  deviceClasses_ = deviceClasses;
  celCache_ = std::make_shared<cel::Cache>(10);
}

Result<std::shared_ptr<const DRAPreScoreState>> ResourceAllocationScorer::draPreScoreState() const {
  if (!enableDRAExtendedResource_) return std::shared_ptr<const DRAPreScoreState>();
  return DRAPreScoreState::gather(draManager_, deviceClasses_, resources_, *celCache_);
}

std::pair<int64_t, int64_t> ResourceAllocationScorer::allocatableRequest(const framework::NodeInfo& nodeInfo,
                                                                         std::size_t i,
                                                                         const DRAPreScoreState* dra) const {
  const ScoredResource& r = resources_[i];
  const framework::Resource& requested =
      options_.useRequested ? nodeInfo.requested() : nodeInfo.nonZeroRequested();
  switch (r.kind) {
    case ScoredResource::Kind::CPU:
      return {nodeInfo.allocatable().milliCPU, requested.milliCPU};
    case ScoredResource::Kind::Memory:
      return {nodeInfo.allocatable().memory, requested.memory};
    case ScoredResource::Kind::EphemeralStorage:
      return {nodeInfo.allocatable().ephemeralStorage, nodeInfo.requested().ephemeralStorage};
    case ScoredResource::Kind::Other: {
      const auto& alloc = nodeInfo.allocatable().scalarResources;
      auto it = alloc.find(r.name);
      // No device plugin provides it on this node: DRA may.
      if ((it == alloc.end() || it->second == 0) && dra != nullptr && nodeInfo.node() != nullptr) {
        auto fromDRA = dra->allocatableRequest(*nodeInfo.node(), i);
        if (fromDRA.first > 0) return fromDRA;
      }
      if (it == alloc.end()) return {0, 0};
      const auto& req = nodeInfo.requested().scalarResources;
      auto rit = req.find(r.name);
      return {it->second, rit == req.end() ? 0 : rit->second};
    }
  }
  return {0, 0};
}

void ResourceAllocationScorer::nodeAllocatableRequest(const framework::NodeInfo& nodeInfo,
                                                      std::span<const int64_t> podRequests,
                                                      const DRAPreScoreState* dra,
                                                      std::span<int64_t> requested,
                                                      std::span<int64_t> allocated,
                                                      std::span<int64_t> allocatable) const {
  for (std::size_t i = 0; i < resources_.size(); i++) {
    const int64_t podRequest = i < podRequests.size() ? podRequests[i] : 0;
    // A scalar resource the pod doesn't request is left out of the score.
    if (podRequest == 0 && resources_[i].scalar) continue;
    auto [nodeAllocatable, nodeAllocated] = allocatableRequest(nodeInfo, i, dra);
    // Only resources the node has take part.
    if (nodeAllocatable == 0) continue;
    allocatable[i] = nodeAllocatable;
    allocated[i] = nodeAllocated;
    requested[i] = nodeAllocated + podRequest;
  }
}

int64_t ResourceAllocationScorer::combine(std::span<const int64_t> requested,
                                          std::span<const int64_t> allocated,
                                          std::span<const int64_t> allocatable) const {
  if (type_ == ScoringStrategyType::Balanced)
    return balancedResourceScorer(requested, allocated, allocatable);
  int64_t nodeScore = 0;
  int64_t weightSum = 0;
  for (std::size_t i = 0; i < requested.size(); i++) {
    if (allocatable[i] == 0) continue;
    const int64_t weight = resources_[i].weight;
    switch (type_) {
      case ScoringStrategyType::LeastAllocated:
        nodeScore += leastRequestedScore(requested[i], allocatable[i]) * weight;
        weightSum += weight;
        break;
      case ScoringStrategyType::MostAllocated:
        nodeScore += mostRequestedScore(requested[i], allocatable[i]) * weight;
        weightSum += weight;
        break;
      case ScoringStrategyType::RequestedToCapacityRatio: {
        const int64_t resourceScore = requested[i] > allocatable[i]
                                          ? shape_(kMaxUtilization)
                                          : shape_(requested[i] * kMaxUtilization / allocatable[i]);
        // Only resources with a positive score count towards the weight (as upstream).
        if (resourceScore > 0) {
          nodeScore += resourceScore * weight;
          weightSum += weight;
        }
        break;
      }
      case ScoringStrategyType::Balanced:
        break;
    }
  }
  if (weightSum == 0) return 0;
  if (type_ == ScoringStrategyType::RequestedToCapacityRatio) {
    return static_cast<int64_t>(std::round(static_cast<double>(nodeScore) / static_cast<double>(weightSum)));
  }
  return nodeScore / weightSum;
}

framework::Status ResourceAllocationScorer::score(const framework::NodeInfo& nodeInfo,
                                                  std::span<const int64_t> podRequests,
                                                  const DRAPreScoreState* dra, int64_t& out) const {
  out = 0;
  if (resources_.empty()) return framework::Status(framework::Code::Error, "resources not found");
  const std::size_t n = resources_.size();
  constexpr std::size_t kInline = 16;
  std::array<int64_t, 3 * kInline> inlineBuf{};
  std::vector<int64_t> heapBuf;
  std::span<int64_t> buf(inlineBuf.data(), 3 * std::min(n, kInline));
  if (n > kInline) {
    heapBuf.assign(3 * n, 0);
    buf = heapBuf;
  }
  const std::span<int64_t> requested = buf.subspan(0, n);
  const std::span<int64_t> allocated = buf.subspan(n, n);
  const std::span<int64_t> allocatable = buf.subspan(2 * n, n);
  nodeAllocatableRequest(nodeInfo, podRequests, dra, requested, allocated, allocatable);
  out = combine(requested, allocated, allocatable);
  return framework::Status();
}

}  // namespace ks::plugins::noderesources
