#include "pkg/scheduler/framework/plugins/noderesources/resource_allocation.h"

#include <array>
#include <cmath>

#include "pkg/api/resources.h"
#include "pkg/scheduler/framework/interface.h"

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

// ---- ResourceAllocationScorer ----

void ResourceAllocationScorer::enableDRAExtendedResource(framework::SharedDRAManager* draManager,
                                                         const framework::DeviceClassResolver* deviceClasses) {
  enableDRAExtendedResource_ = true;
  draManager_ = draManager;
  deviceClasses_ = deviceClasses;
  resourceNames_.clear();
  for (const auto& r : resources_) resourceNames_.push_back(r.name);
  celCache_ = std::make_shared<cel::Cache>(10);
  matchCache_ = std::make_shared<DeviceClassMatchCache>();
}

Result<std::shared_ptr<const DRAPreScoreState>> ResourceAllocationScorer::draPreScoreState() const {
  if (!enableDRAExtendedResource_) return std::shared_ptr<const DRAPreScoreState>();
  return DRAPreScoreState::gather(draManager_, deviceClasses_, resourceNames_, *celCache_, matchCache_);
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
