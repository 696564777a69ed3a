#include "pkg/scheduler/framework/plugins/imagelocality/image_locality.h"

#include <set>

#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::imagelocality {

namespace {

// Looks the image up without building a string when the name already carries a tag or digest.
const framework::ImageStateSummary* findImage(const framework::NodeInfo& nodeInfo, const std::string& image) {
  const auto& states = nodeInfo.imageStates();
  if (states.empty()) return nullptr;
  const auto colon = image.rfind(':');
  const auto slash = image.rfind('/');
  const bool hasTag = colon != std::string::npos && (slash == std::string::npos || colon > slash);
  auto it = hasTag ? states.find(image) : states.find(normalizedImageName(image));
  return it == states.end() ? nullptr : &it->second;
}

}  // namespace

std::string normalizedImageName(std::string_view name) {
  const auto colon = name.rfind(':');
  const auto slash = name.rfind('/');
  // Go's LastIndex returns -1 when absent: "<=" holds when there is no ':' at all.
  const bool hasTagOrDigest =
      colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
  std::string out(name);
  if (!hasTagOrDigest) out += ":latest";
  return out;
}

int64_t calculatePriority(int64_t sumScores, int64_t imageCount) {
  const int64_t maxThreshold = kMaxContainerThreshold * imageCount;
  if (sumScores < kMinThreshold) {
    sumScores = kMinThreshold;
  } else if (sumScores > maxThreshold) {
    sumScores = maxThreshold;
  }
  return framework::kMaxNodeScore * (sumScores - kMinThreshold) / (maxThreshold - kMinThreshold);
}

int64_t scaledImageScore(const framework::ImageStateSummary& state, int64_t totalNumNodes) {
  const double spread = static_cast<double>(state.numNodes) / static_cast<double>(totalNumNodes);
  return static_cast<int64_t>(static_cast<double>(state.size) * spread);
}

Result<std::unique_ptr<framework::Plugin>> ImageLocality::create(const config::PluginArgs* /*args*/,
                                                                 framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<ImageLocality>(handle));
}

framework::Status ImageLocality::score(framework::CycleState& /*state*/, const framework::PodInfo& pod,
                                       const framework::NodeInfo& nodeInfo, int64_t& score) {
  score = 0;
  const framework::SharedLister* lister = handle_.snapshotSharedLister();
  if (lister == nullptr) return framework::Status::error("no snapshot lister");
  const auto totalNumNodes = static_cast<int64_t>(lister->nodeInfos().list().size());
  const api::PodSpec& spec = pod.pod().spec;
  int64_t sum = 0;
  for (const auto& c : spec.initContainers) {
    if (const auto* s = findImage(nodeInfo, c.image); s != nullptr)
      sum += scaledImageScore(*s, totalNumNodes);
  }
  for (const auto& c : spec.containers) {
    if (const auto* s = findImage(nodeInfo, c.image); s != nullptr)
      sum += scaledImageScore(*s, totalNumNodes);
  }
  auto imageCount = static_cast<int64_t>(spec.initContainers.size() + spec.containers.size());
  // Image volumes are images the node has to pull too (v1.37): they count like containers.
  for (const auto& v : spec.volumes) {
    if (!v.image) continue;
    if (const auto* s = findImage(nodeInfo, v.image->reference); s != nullptr)
      sum += scaledImageScore(*s, totalNumNodes);
    ++imageCount;
  }
  score = calculatePriority(sum, imageCount);
  return framework::Status();
}

framework::Status ImageLocality::signPod(const api::Pod& pod,
                                         std::vector<framework::SignFragment>& fragments) {
  std::set<std::string> names;
  for (const auto* list : {&pod.spec.containers, &pod.spec.initContainers}) {
    for (const auto& c : *list) names.insert(normalizedImageName(c.image));
  }
  fragments.push_back({std::string(framework::kImageNamesSignerName),
                       framework::goJsonStringList(std::vector<std::string>(names.begin(), names.end()))});
  return {};
}

}  // namespace ks::plugins::imagelocality
