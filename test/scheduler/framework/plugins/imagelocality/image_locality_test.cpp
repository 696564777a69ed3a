// Port of upstream imagelocality/image_locality_test.go (TestImageLocalityPriority, TestNormalizedImageName).

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/plugins/imagelocality/image_locality.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"

namespace ks::plugins::imagelocality {
namespace {

constexpr int64_t mb = kMB;

api::NodePtr imageNode(const std::string& name, std::vector<api::ContainerImage> images) {
  api::Node n;
  n.metadata.name = name;
  n.status.images = std::move(images);
  return std::make_shared<const api::Node>(std::move(n));
}

// NodeInfos with image states as the cache's snapshot computes them: for every image name on a node,
// its size and the number of nodes that have an image with that name.
std::vector<framework::NodeInfoPtr> snapshotNodeInfos(const std::vector<api::NodePtr>& nodes) {
  std::map<std::string, std::set<std::string>> existence;
  for (const auto& n : nodes) {
    for (const auto& img : n->status.images) {
      for (const auto& name : img.names) existence[name].insert(n->metadata.name);
    }
  }
  std::vector<framework::NodeInfoPtr> out;
  for (const auto& n : nodes) {
    auto ni = std::make_shared<framework::NodeInfo>();
    ni->setNode(n);
    std::map<std::string, framework::ImageStateSummary> states;
    for (const auto& img : n->status.images) {
      for (const auto& name : img.names) {
        framework::ImageStateSummary s;
        s.size = img.sizeBytes;
        s.numNodes = static_cast<int>(existence[name].size());
        states[name] = s;
      }
    }
    ni->setImageStates(std::move(states));
    out.push_back(std::move(ni));
  }
  return out;
}

api::Pod podWithImages(std::vector<std::string> images, std::vector<std::string> initImages = {}) {
  api::Pod p;
  for (auto& i : images) {
    api::Container c;
    c.image = std::move(i);
    p.spec.containers.push_back(std::move(c));
  }
  for (auto& i : initImages) {
    api::Container c;
    c.image = std::move(i);
    p.spec.initContainers.push_back(std::move(c));
  }
  return p;
}

TEST(ImageLocalityTest, Priority) {
  const auto test40250 = podWithImages({"gcr.io/40", "gcr.io/250"});
  const auto test40300 = podWithImages({"gcr.io/40", "gcr.io/300"});
  const auto testMinMax = podWithImages({"gcr.io/10", "gcr.io/4000"});
  const auto test300600900 = podWithImages({"gcr.io/300", "gcr.io/600", "gcr.io/900"});
  const auto test3040 = podWithImages({"gcr.io/30", "gcr.io/40"});
  const auto test30Init300 = podWithImages({"gcr.io/30"}, {"gcr.io/300"});
  auto testImageVolume = podWithImages({"gcr.io/30"});
  {
    api::Volume v;
    v.name = "imageVolume";
    v.image = api::ImageVolumeSource{"gcr.io/300", ""};
    testImageVolume.spec.volumes.push_back(std::move(v));
  }
  const auto test30300AsContainers = podWithImages({"gcr.io/30", "gcr.io/300"});

  const std::vector<api::ContainerImage> node403002000 = {
      {{"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40 * mb},
      {{"gcr.io/300:latest", "gcr.io/300:v1"}, 300 * mb},
      {{"gcr.io/2000:latest"}, 2000 * mb}};
  const std::vector<api::ContainerImage> node25010 = {{{"gcr.io/250:latest"}, 250 * mb},
                                                      {{"gcr.io/10:latest", "gcr.io/10:v1"}, 10 * mb}};
  const std::vector<api::ContainerImage> node60040900 = {
      {{"gcr.io/600:latest"}, 600 * mb}, {{"gcr.io/40:latest"}, 40 * mb}, {{"gcr.io/900:latest"}, 900 * mb}};
  const std::vector<api::ContainerImage> node300600900 = {{{"gcr.io/300:latest"}, 300 * mb},
                                                          {{"gcr.io/600:latest"}, 600 * mb},
                                                          {{"gcr.io/900:latest"}, 900 * mb}};
  const std::vector<api::ContainerImage> node400030 = {{{"gcr.io/4000:latest"}, 4000 * mb},
                                                       {{"gcr.io/30:latest"}, 30 * mb}};
  const std::vector<api::ContainerImage> node203040 = {
      {{"gcr.io/20:latest"}, 20 * mb}, {{"gcr.io/30:latest"}, 30 * mb}, {{"gcr.io/40:latest"}, 40 * mb}};
  const std::vector<api::ContainerImage> none;

  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::NodePtr> nodes;
    std::vector<int64_t> want;
  };
  std::vector<Case> cases = {
      {"two images spread on two nodes, prefer the larger image one",
       test40250,
       {imageNode("node1", node403002000), imageNode("node2", node25010)},
       {0, 5}},
      {"two images on one node, prefer this node",
       test40300,
       {imageNode("node1", node403002000), imageNode("node2", node25010)},
       {7, 0}},
      {"if exceed limit, use limit",
       testMinMax,
       {imageNode("node1", node400030), imageNode("node2", node25010)},
       {100, 0}},
      {"if exceed limit, use limit (with node which has no images present)",
       testMinMax,
       {imageNode("node1", node400030), imageNode("node2", node25010), imageNode("node3", none)},
       {66, 0, 0}},
      {"pod with multiple large images, node2 is preferred",
       test300600900,
       {imageNode("node1", node60040900), imageNode("node2", node300600900), imageNode("node3", none)},
       {32, 36, 0}},
      {"pod with multiple small images",
       test3040,
       {imageNode("node1", node203040), imageNode("node2", node400030)},
       {1, 0}},
      {"pod with ImageVolume",
       testImageVolume,
       {imageNode("node1", node300600900), imageNode("node2", node400030)},
       {6, 0}},
      {"same images as ImageVolume pod but as regular container images",
       test30300AsContainers,
       {imageNode("node1", node300600900), imageNode("node2", node400030)},
       {6, 0}},
      {"include InitContainers: two images spread on two nodes, prefer the larger image one",
       test30Init300,
       {imageNode("node1", node403002000), imageNode("node2", node203040)},
       {6, 0}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto infos = snapshotNodeInfos(tc.nodes);
    auto lister = plugintesting::FakeSharedLister::fromNodeInfos(infos);
    plugintesting::FakeHandle h;
    h.setSnapshotSharedLister(lister.get());
    auto p = ImageLocality::create(nullptr, h);
    ASSERT_TRUE(p.ok());
    auto* plugin = dynamic_cast<framework::ScorePlugin*>(p->get());
    ASSERT_NE(plugin, nullptr);
    framework::CycleState state;
    auto pi = plugintesting::podInfo(tc.pod);
    std::vector<int64_t> got;
    for (const auto& ni : infos) {
      int64_t score = -1;
      EXPECT_TRUE(plugin->score(state, *pi, *ni, score).isSuccess());
      got.push_back(score);
    }
    EXPECT_EQ(got, tc.want);
  }
}

TEST(ImageLocalityTest, NormalizedImageName) {
  const std::string digest = "sha256:4a6d4a7f0e2a9c0e5c6f1f6f0d6a1e3c5b7d9f1a3c5e7a9b1d3f5a7c9e1b3d5f";
  EXPECT_EQ(normalizedImageName("root"), "root:latest");
  EXPECT_EQ(normalizedImageName("gcr.io:5000/root"), "gcr.io:5000/root:latest");
  EXPECT_EQ(normalizedImageName("root:tag"), "root:tag");
  EXPECT_EQ(normalizedImageName("root@" + digest), "root@" + digest);
}

TEST(ImageLocalityTest, CalculatePriority) {
  EXPECT_EQ(calculatePriority(0, 1), 0);
  EXPECT_EQ(calculatePriority(2000 * mb, 1), 100);
  EXPECT_EQ(calculatePriority(0, 0), 0);
}

}  // namespace
}  // namespace ks::plugins::imagelocality
