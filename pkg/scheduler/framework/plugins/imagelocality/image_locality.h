#pragma once
// ImageLocality (upstream plugins/imagelocality, v1.34): favours nodes that already have the pod's
// container images. Each present image counts with its size scaled by the fraction of nodes that have it
// (so images on every node don't dominate); the sum is clamped to [23MB, 1000MB * number of containers]
// and mapped linearly onto [0, MaxNodeScore]. Score-only, so no events to register.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::imagelocality {

inline constexpr int64_t kMB = 1024 * 1024;
// Below this sum (a small image on a node) the score is 0.
inline constexpr int64_t kMinThreshold = 23 * kMB;
// Per container: at or above this sum the score is MaxNodeScore.
inline constexpr int64_t kMaxContainerThreshold = 1000 * kMB;

// The image name as node status reports it: ":latest" appended when the name has neither tag nor digest
// (the last ':' is not after the last '/').
std::string normalizedImageName(std::string_view name);

// MaxNodeScore * (clamp(sumScores) - min) / (max - min), max = kMaxContainerThreshold * numContainers.
int64_t calculatePriority(int64_t sumScores, int64_t numContainers);

// The size of the image scaled by the share of nodes that have it.
int64_t scaledImageScore(const framework::ImageStateSummary& state, int64_t totalNumNodes);

class ImageLocality final : public framework::ScorePlugin, public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "ImageLocality";

  explicit ImageLocality(framework::Handle& handle) : handle_(handle) {}
  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the normalized names of the container and init container
  // images, sorted.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Error when the handle has no snapshot lister.
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return nullptr; }

 private:
  framework::Handle& handle_;
};

}  // namespace ks::plugins::imagelocality
