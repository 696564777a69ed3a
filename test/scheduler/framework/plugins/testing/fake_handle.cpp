#include "test/scheduler/framework/plugins/testing/fake_handle.h"

#include <map>

namespace ks::plugintesting {

std::vector<framework::NodeInfoPtr> buildNodeInfos(const std::vector<api::NodePtr>& nodes) {
  std::vector<framework::NodeInfoPtr> out;
  out.reserve(nodes.size());
  for (const auto& n : nodes) {
    auto ni = std::make_shared<framework::NodeInfo>();
    ni->setNode(n);
    out.push_back(std::move(ni));
  }
  return out;
}

std::unique_ptr<FakeSharedLister> FakeSharedLister::create(const std::vector<api::PodPtr>& pods,
                                                           const std::vector<api::NodePtr>& nodes) {
  std::map<std::string, framework::NodeInfoPtr> byName;
  std::vector<framework::NodeInfoPtr> ordered;
  for (const auto& n : nodes) {
    auto ni = std::make_shared<framework::NodeInfo>();
    ni->setNode(n);
    byName[n->metadata.name] = ni;
    ordered.push_back(ni);
  }
  auto lister = std::unique_ptr<FakeSharedLister>(new FakeSharedLister());
  for (const auto& p : pods) {
    auto& ni = byName[p->spec.nodeName];
    if (!ni) {
      ni = std::make_shared<framework::NodeInfo>();
      lister->all_.push_back(ni);
    }
    ni->addPod(p);
  }
  for (const auto& ni : ordered) {
    lister->all_.push_back(ni);
    lister->list_.push_back(ni);
    if (!ni->podsWithAffinity().empty()) lister->withAffinity_.push_back(ni);
    if (!ni->podsWithRequiredAntiAffinity().empty()) lister->withRequiredAntiAffinity_.push_back(ni);
  }
  return lister;
}

std::unique_ptr<FakeSharedLister> FakeSharedLister::fromNodeInfos(
    std::vector<framework::NodeInfoPtr> nodeInfos) {
  auto lister = std::unique_ptr<FakeSharedLister>(new FakeSharedLister());
  for (auto& ni : nodeInfos) {
    lister->all_.push_back(ni);
    if (ni->node() == nullptr) continue;
    lister->list_.push_back(ni);
    if (!ni->podsWithAffinity().empty()) lister->withAffinity_.push_back(ni);
    if (!ni->podsWithRequiredAntiAffinity().empty()) lister->withRequiredAntiAffinity_.push_back(ni);
  }
  return lister;
}

Result<framework::NodeInfoPtr> FakeSharedLister::get(std::string_view nodeName) const {
  for (const auto& ni : list_) {
    if (ni->nodeName() == nodeName) return ni;
  }
  return Error("nodeinfo not found for node name \"" + std::string(nodeName) + "\"");
}

bool FakeSharedLister::isPVCUsedByPods(std::string_view key) const {
  for (const auto& ni : all_) {
    if (ni->pvcRefCounts().contains(std::string(key))) return true;
  }
  return false;
}

void FakeHandle::iterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>& /*fn*/) {}

void FakeHandle::addWaitingPod(std::shared_ptr<framework::WaitingPod> wp) {
  const std::string uid = wp->pod().metadata.uid;
  waitingPods_[uid] = std::move(wp);
}

std::shared_ptr<framework::WaitingPod> FakeHandle::getWaitingPod(const std::string& uid) {
  auto it = waitingPods_.find(uid);
  return it == waitingPods_.end() ? nullptr : it->second;
}

bool FakeHandle::rejectWaitingPod(const std::string& /*uid*/) {
  return false;
}

void FakeHandle::activate(const std::vector<api::PodPtr>& pods) {
  std::lock_guard lock(activatedMu_);
  activated_.insert(activated_.end(), pods.begin(), pods.end());
}

std::vector<api::PodPtr> FakeHandle::activatedPods() const {
  std::lock_guard lock(activatedMu_);
  return activated_;
}

namespace {
framework::Status unsupported(std::string_view what) {
  return framework::Status::error("FakeHandle: " + std::string(what) + " is not supported");
}
}  // namespace

framework::Status FakeHandle::runFilterPluginsWithNominatedPods(framework::CycleState&,
                                                                const framework::PodInfo&,
                                                                const framework::NodeInfo&) {
  return unsupported("runFilterPluginsWithNominatedPods");
}
framework::Status FakeHandle::runReservePluginsReserve(framework::CycleState&, const framework::PodInfo&,
                                                       const std::string&) {
  return unsupported("runReservePluginsReserve");
}
void FakeHandle::runReservePluginsUnreserve(framework::CycleState&, const framework::PodInfo&, const std::string&) {}
framework::Status FakeHandle::runPreScorePlugins(framework::CycleState&, const framework::PodInfo&,
                                                 std::span<const framework::NodeInfoPtr>) {
  return unsupported("runPreScorePlugins");
}
framework::Status FakeHandle::runScorePlugins(framework::CycleState&, const framework::PodInfo&,
                                              std::span<const framework::NodeInfoPtr>,
                                              std::vector<framework::NodePluginScores>&) {
  return unsupported("runScorePlugins");
}
framework::Status FakeHandle::runFilterPlugins(framework::CycleState&, const framework::PodInfo&,
                                               const framework::NodeInfo&) {
  return unsupported("runFilterPlugins");
}
framework::Status FakeHandle::runPreFilterExtensionAddPod(framework::CycleState&, const framework::PodInfo&,
                                                          const framework::PodInfoPtr&,
                                                          const framework::NodeInfo&) {
  return unsupported("runPreFilterExtensionAddPod");
}
framework::Status FakeHandle::runPreFilterExtensionRemovePod(framework::CycleState&,
                                                             const framework::PodInfo&,
                                                             const framework::PodInfoPtr&,
                                                             const framework::NodeInfo&) {
  return unsupported("runPreFilterExtensionRemovePod");
}

framework::PodInfoPtr podInfo(const api::Pod& pod) {
  return framework::PodInfo::create(std::make_shared<const api::Pod>(pod));
}

framework::NodeInfoPtr nodeInfoWith(const api::Node& node, const std::vector<api::PodPtr>& pods) {
  auto ni = std::make_shared<framework::NodeInfo>(pods);
  ni->setNode(std::make_shared<const api::Node>(node));
  return ni;
}

}  // namespace ks::plugintesting
