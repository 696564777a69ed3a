// Randomized model test: after any sequence of node / pod / assume / binding / forget / expiry
// operations (fixed seeds), the incrementally updated snapshot equals one rebuilt from scratch, follows
// the node tree, and the cache's aggregates equal a recomputation from the pods a simple model says
// are on each node.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "pkg/scheduler/backend/cache/cache.h"
#include "test/scheduler/backend/cache/test_util.h"
#include "test/scheduler/framework/fake_clock.h"
#include "test/support/wrappers.h"

namespace ks::cache {
namespace {

using framework::testing::FakeClock;
using ks::testing::AffinityKind;
using ks::testing::MakeNode;
using ks::testing::MakePod;

constexpr int kNodeNames = 12;
constexpr auto kTTL = std::chrono::seconds(10);
const std::vector<std::string> kImages = {"img:a", "img:b", "img:c", "img:d", "img:e"};

enum class PodState { None, Assumed, Added, Expired };

struct ModelPod {
  std::string uid;
  int32_t hostPort = 0;  // unique per pod: HostPortInfo is a set, shared ports wouldn't recompute
  api::PodPtr pod;
  PodState state = PodState::None;
  bool bindingFinished = false;
  Clock::TimePoint deadline{};
};

struct ModelNode {
  bool present = false;
  int zone = 0;
  api::NodePtr node;
};

class RandomCacheTest {
 public:
  explicit RandomCacheTest(uint32_t seed) : rng_(seed) {
    CacheOptions o;
    o.ttl = kTTL;
    o.clock = &clock_;
    o.logError = [this](std::string_view m) { logs_.emplace_back(m); };
    cache_ = std::make_unique<CacheImpl>(o);
    for (int i = 0; i < kNodeNames; ++i) nodes_["node-" + std::to_string(i)] = ModelNode{};
  }

  void run(int steps) {
    for (int i = 0; i < steps && !::testing::Test::HasFatalFailure(); ++i) {
      step();
      if (::testing::Test::HasFailure()) {
        ADD_FAILURE() << "at step " << i;
        return;
      }
    }
    checkSnapshot();
    EXPECT_TRUE(logs_.empty()) << logs_.front();
  }

  int snapshotsChecked() const { return snapshotsChecked_; }
  // How often the interesting paths were taken.
  struct Coverage {
    int expired = 0;         // assumed pods expired by cleanup
    int readdedExpired = 0;  // expired pods added back
    int boundElsewhere = 0;  // assumed on one node, added on another
    int zoneMoves = 0;       // updateNode changing the zone
    int ghostChecks = 0;     // checks that saw a removed node kept for its pods
  };
  const Coverage& coverage() const { return coverage_; }

 private:
  int rand(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool chance(int percent) { return rand(100) < percent; }

  std::string randomNodeName() { return "node-" + std::to_string(rand(kNodeNames)); }

  std::vector<std::string> presentNodes() const {
    std::vector<std::string> out;
    for (const auto& [n, m] : nodes_) {
      if (m.present) out.push_back(n);
    }
    return out;
  }

  bool cacheKnowsNode(const std::string& name) const {
    if (nodes_.at(name).present) return true;
    for (const auto& p : pods_) {
      if ((p.state == PodState::Assumed || p.state == PodState::Added) && p.pod->spec.nodeName == name)
        return true;
    }
    return false;
  }

  api::NodePtr makeNode(const std::string& name, int zone) {
    auto w = MakeNode().name(name).capacity(
        {{"cpu", std::to_string(1 + rand(8))}, {"memory", std::to_string(1000 + rand(1000))}});
    if (zone < 3) {
      w.label(std::string(kLabelTopologyRegion), "r")
          .label(std::string(kLabelTopologyZone), "z" + std::to_string(zone));
    }
    std::map<std::string, int64_t> images;
    for (const auto& img : kImages) {
      if (chance(40)) images[img] = 100 + static_cast<int64_t>(img.back());
    }
    w.images(images);
    return w.ptr();
  }

  api::PodPtr makePod(const ModelPod& m, const std::string& nodeName) {
    auto w = MakePod().name("pod-" + m.uid).namespace_("ns").uid(m.uid).node(nodeName);
    w.req({{"cpu", std::to_string(rand(500)) + "m"}, {"memory", std::to_string(rand(1000))}});
    if (chance(20)) w.req({{"example.com/gpu", std::to_string(1 + rand(2))}});
    if (chance(30)) w.hostPort(m.hostPort, chance(50) ? "TCP" : "UDP", chance(50) ? "" : "127.0.0.1");
    if (chance(15)) w.podAffinityExists("foo", std::string(kLabelTopologyZone));
    if (chance(15)) w.podAntiAffinityExists("bar", "kubernetes.io/hostname");
    if (chance(10)) w.podAntiAffinityExists("baz", "kubernetes.io/hostname", AffinityKind::Preferred);
    if (chance(25)) w.pvc("claim-" + std::to_string(rand(5)));
    if (chance(10)) {
      api::Volume v;
      v.name = "scratch";
      v.ephemeral = api::EphemeralVolumeSource{};
      w.volume(v);
    }
    if (chance(30)) w.label("app", "a" + std::to_string(rand(3)));
    return w.ptr();
  }

  ModelPod* pickPod(PodState state) {
    std::vector<ModelPod*> c;
    for (auto& p : pods_) {
      if (p.state == state) c.push_back(&p);
    }
    return c.empty() ? nullptr : c[static_cast<std::size_t>(rand(static_cast<int>(c.size())))];
  }

  ModelPod& newPod() {
    ModelPod m;
    m.uid = "u" + std::to_string(pods_.size());
    m.hostPort = 10000 + static_cast<int32_t>(pods_.size());
    pods_.push_back(std::move(m));
    return pods_.back();
  }

  std::string nodeForNewPod() {
    auto present = presentNodes();
    if (!present.empty() && chance(85))
      return present[static_cast<std::size_t>(rand(static_cast<int>(present.size())))];
    return randomNodeName();
  }

  void step() {
    switch (rand(16)) {
      case 0: {  // addNode: new, re-added ghost, or re-add of a present node in the same zone
        const std::string name = randomNodeName();
        ModelNode& m = nodes_.at(name);
        if (!m.present) m.zone = rand(4);
        m.node = makeNode(name, m.zone);
        m.present = true;
        auto info = cache_->addNode(m.node);
        EXPECT_EQ(info->nodeName(), name);
        break;
      }
      case 1: {  // updateNode: present node (zone may change), or a node the cache doesn't know
        const std::string name = randomNodeName();
        ModelNode& m = nodes_.at(name);
        if (m.present) {
          api::NodePtr old = m.node;
          const int oldZone = m.zone;
          m.zone = rand(4);
          if (getZoneKey(*makeNode(name, oldZone)) != getZoneKey(*makeNode(name, m.zone)))
            ++coverage_.zoneMoves;
          m.node = makeNode(name, m.zone);
          cache_->updateNode(*old, m.node);
        } else if (!cacheKnowsNode(name)) {
          api::NodePtr old = makeNode(name, rand(4));
          m.zone = rand(4);
          m.node = makeNode(name, m.zone);
          m.present = true;
          cache_->updateNode(*old, m.node);
        }
        break;
      }
      case 2: {  // removeNode
        const std::string name = randomNodeName();
        ModelNode& m = nodes_.at(name);
        if (m.present) {
          EXPECT_TRUE(cache_->removeNode(*m.node).ok());
          m.present = false;
        } else if (!cacheKnowsNode(name)) {
          EXPECT_FALSE(cache_->removeNode(*makeNode(name, 0)).ok());
        }
        break;
      }
      case 3:
      case 4: {  // assumePod
        ModelPod& m = newPod();
        m.pod = makePod(m, nodeForNewPod());
        EXPECT_TRUE(cache_->assumePod(m.pod).ok());
        m.state = PodState::Assumed;
        EXPECT_FALSE(cache_->assumePod(m.pod).ok());
        break;
      }
      case 5: {  // finishBinding
        if (ModelPod* m = pickPod(PodState::Assumed)) {
          EXPECT_TRUE(cache_->finishBinding(*m->pod).ok());
          m->bindingFinished = true;
          m->deadline = clock_.now() + kTTL;
        }
        break;
      }
      case 6: {  // forgetPod
        if (ModelPod* m = pickPod(PodState::Assumed)) {
          EXPECT_TRUE(cache_->forgetPod(*m->pod).ok());
          m->state = PodState::None;
          EXPECT_TRUE(cache_->forgetPod(*m->pod).ok()) << "forgetting a pod no longer cached is no error";
        }
        break;
      }
      case 7:
      case 8: {  // addPod confirming an assumed pod (sometimes bound elsewhere), or re-adding an expired one
        ModelPod* m = pickPod(chance(70) ? PodState::Assumed : PodState::Expired);
        if (!m) break;
        const std::string node = chance(80) ? m->pod->spec.nodeName : nodeForNewPod();
        if (m->state == PodState::Expired) ++coverage_.readdedExpired;
        if (m->state == PodState::Assumed && node != m->pod->spec.nodeName) ++coverage_.boundElsewhere;
        m->pod = makePod(*m, node);
        EXPECT_TRUE(cache_->addPod(m->pod).ok());
        m->state = PodState::Added;
        m->bindingFinished = false;
        break;
      }
      case 9: {  // addPod of a pod the scheduler never saw
        ModelPod& m = newPod();
        m.pod = makePod(m, nodeForNewPod());
        EXPECT_TRUE(cache_->addPod(m.pod).ok());
        m.state = PodState::Added;
        EXPECT_FALSE(cache_->addPod(m.pod).ok());
        break;
      }
      case 10:
      case 11: {  // updatePod (same node)
        if (ModelPod* m = pickPod(PodState::Added)) {
          api::PodPtr next = makePod(*m, m->pod->spec.nodeName);
          EXPECT_TRUE(cache_->updatePod(*m->pod, next).ok());
          m->pod = next;
        }
        if (ModelPod* a = pickPod(PodState::Assumed)) {
          EXPECT_FALSE(cache_->updatePod(*a->pod, a->pod).ok());
        }
        break;
      }
      case 12: {  // removePod (usually bound; upstream also accepts assumed ones)
        if (ModelPod* m = pickPod(chance(85) ? PodState::Added : PodState::Assumed)) {
          EXPECT_TRUE(cache_->removePod(*m->pod).ok());
          m->state = PodState::None;
          EXPECT_FALSE(cache_->removePod(*m->pod).ok());
        }
        break;
      }
      case 13: {  // time passes; expired assumed pods go
        clock_.step(std::chrono::seconds(rand(8)));
        const auto now = clock_.now();
        cache_->cleanupAssumedPods(now);
        for (auto& p : pods_) {
          if (p.state == PodState::Assumed && p.bindingFinished && now > p.deadline) {
            p.state = PodState::Expired;
            ++coverage_.expired;
          }
        }
        break;
      }
      default:
        checkSnapshot();
        break;
    }
  }

  // ---- checks ----

  void checkSnapshot() {
    ASSERT_TRUE(cache_->updateSnapshot(incremental_).ok());
    EXPECT_GE(incremental_.generation(), lastGeneration_);
    lastGeneration_ = incremental_.generation();
    EXPECT_EQ(testing::compareCacheWithSnapshot(*cache_, incremental_, /*exactImageCounts=*/false,
                                                testing::ListOrder::Any),
              "");

    Snapshot fresh;
    ASSERT_TRUE(cache_->updateSnapshot(fresh).ok());
    EXPECT_EQ(testing::compareCacheWithSnapshot(*cache_, fresh), "");
    // The same nodes; the order may differ, as upstream's: a node removed and re-added (or moved to
    // another zone) keeps its old place until a node is added or removed for good.
    auto sorted = [](std::vector<std::string> v) {
      std::sort(v.begin(), v.end());
      return v;
    };
    EXPECT_EQ(sorted(testing::names(incremental_.list())), sorted(testing::names(fresh.list())));
    EXPECT_EQ(sorted(testing::names(incremental_.havePodsWithAffinityList())),
              sorted(testing::names(fresh.havePodsWithAffinityList())));
    EXPECT_EQ(sorted(testing::names(incremental_.havePodsWithRequiredAntiAffinityList())),
              sorted(testing::names(fresh.havePodsWithRequiredAntiAffinityList())));
    EXPECT_EQ(incremental_.usedPVCSetForTest(), fresh.usedPVCSetForTest());
    EXPECT_EQ(incremental_.generation(), fresh.generation());
    for (const auto& info : fresh.list()) {
      auto got = incremental_.get(info->nodeName());
      ASSERT_TRUE(got.ok());
      // Image numNodes may be stale in the incremental snapshot for nodes that didn't change (as
      // upstream); compare image names and sizes only.
      auto strip = [](const framework::NodeInfo& n) {
        auto s = n.imageStates();
        for (auto& [_, v] : s) v.numNodes = 0;
        return s;
      };
      EXPECT_EQ(strip(*info), strip(**got)) << info->nodeName();
      framework::NodeInfo a = *info, b = **got;
      a.setImageStates({});
      b.setImageStates({});
      EXPECT_EQ(testing::diffNodeInfo(a, b, true), "") << info->nodeName();
    }
    checkAggregates();
    ++snapshotsChecked_;
  }

  void checkAggregates() {
    // Which pods the model says each node has.
    std::map<std::string, std::vector<api::PodPtr>> podsByNode;
    int assumed = 0, cached = 0;
    for (const auto& p : pods_) {
      if (p.state != PodState::Assumed && p.state != PodState::Added) continue;
      podsByNode[p.pod->spec.nodeName].push_back(p.pod);
      ++cached;
      if (p.state == PodState::Assumed) ++assumed;
    }
    EXPECT_EQ(cache_->podCount(), cached);
    EXPECT_EQ(static_cast<int>(cache_->podStateCountForTest()), cached);
    EXPECT_EQ(static_cast<int>(cache_->assumedPodCount()), assumed);

    std::set<std::string> wantNodes;
    for (const auto& [n, m] : nodes_) {
      if (m.present) wantNodes.insert(n);
    }
    for (const auto& [n, _] : podsByNode) wantNodes.insert(n);
    const auto order = cache_->nodeListOrderForTest();
    EXPECT_EQ(std::set<std::string>(order.begin(), order.end()), wantNodes);
    EXPECT_EQ(cache_->nodeCount(), static_cast<int>(wantNodes.size()));

    int64_t prevGen = INT64_MAX;
    for (const auto& name : order) {
      auto info = cache_->nodeInfoForTest(name);
      ASSERT_NE(info, nullptr);
      // Most recently updated first.
      EXPECT_LT(info->generation(), prevGen) << name;
      prevGen = info->generation();
      const auto it = nodes_.find(name);
      const bool present = it != nodes_.end() && it->second.present;
      EXPECT_EQ(info->node() != nullptr, present) << name;
      if (!present) ++coverage_.ghostChecks;
      if (present) {
        EXPECT_EQ(info->nodePtr(), it->second.node) << name;
      }
      // Recompute from the model's pods.
      framework::NodeInfo want(podsByNode[name]);
      if (present) want.setNode(it->second.node);
      auto sortedUIDs = [](const std::vector<framework::PodInfoPtr>& v) {
        std::vector<std::string> out;
        for (const auto& p : v) out.push_back(p->pod().metadata.uid);
        std::sort(out.begin(), out.end());
        return out;
      };
      EXPECT_EQ(sortedUIDs(info->pods()), sortedUIDs(want.pods())) << name;
      EXPECT_EQ(sortedUIDs(info->podsWithAffinity()), sortedUIDs(want.podsWithAffinity())) << name;
      EXPECT_EQ(sortedUIDs(info->podsWithRequiredAntiAffinity()),
                sortedUIDs(want.podsWithRequiredAntiAffinity()))
          << name;
      info->setImageStates({});
      info->setGenerationForTest(0);
      framework::NodeInfo w = want;
      w.setGenerationForTest(0);
      // Pod order may differ (removal swaps); compare everything but the pod lists.
      std::string d = testing::diffNodeInfo(w, *info, false);
      // A removed node's info keeps its last allocatable (as upstream).
      std::vector<const char*> skips = {"pods: ", "podsWithAffinity differ\n",
                                        "podsWithRequiredAntiAffinity differ\n"};
      if (!present) skips.push_back("allocatable: ");
      for (const char* skip : skips) {
        if (auto pos = d.find(skip); pos != std::string::npos) d.erase(pos, d.find('\n', pos) - pos + 1);
      }
      EXPECT_EQ(d, "") << name;
    }

    // Image index = recomputation from the present nodes.
    std::map<std::string, std::set<std::string>> wantImages;
    for (const auto& [n, m] : nodes_) {
      if (!m.present) continue;
      for (const auto& img : m.node->status.images) wantImages[img.names[0]].insert(n);
    }
    std::map<std::string, std::set<std::string>> gotImages;
    for (const auto& [img, s] : cache_->imageStatesForTest()) gotImages[img] = s.nodes;
    EXPECT_EQ(gotImages, wantImages);

    // Node tree = present nodes, each in its current zone.
    const NodeTree tree = cache_->nodeTreeForTest();
    EXPECT_EQ(tree.numNodes(), static_cast<int>(presentNodes().size()));
    for (const auto& [zone, names] : tree.tree()) {
      for (const auto& n : names) {
        ASSERT_TRUE(nodes_.at(n).present) << n;
        EXPECT_EQ(getZoneKey(*nodes_.at(n).node), zone) << n;
      }
    }
  }

  std::mt19937 rng_;
  FakeClock clock_;
  std::vector<std::string> logs_;
  std::unique_ptr<CacheImpl> cache_;
  std::map<std::string, ModelNode> nodes_;
  std::vector<ModelPod> pods_;  // by creation; never shrinks
  Snapshot incremental_;
  int64_t lastGeneration_ = 0;
  int snapshotsChecked_ = 0;
  Coverage coverage_;
};

class CacheRandomTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(CacheRandomTest, IncrementalSnapshotEqualsRebuildAndAggregatesEqualRecomputation) {
  RandomCacheTest t(GetParam());
  t.run(4000);
  EXPECT_GT(t.snapshotsChecked(), 100);
  EXPECT_GT(t.coverage().expired, 0);
  EXPECT_GT(t.coverage().readdedExpired, 0);
  EXPECT_GT(t.coverage().boundElsewhere, 0);
  EXPECT_GT(t.coverage().zoneMoves, 0);
  EXPECT_GT(t.coverage().ghostChecks, 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, CacheRandomTest, ::testing::Values(1u, 2u, 3u, 42u, 2024u));

}  // namespace
}  // namespace ks::cache
