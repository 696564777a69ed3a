#pragma once
// Test doubles for running plugins outside a Framework (upstream's cache.NewSnapshot +
// runtime.NewFramework(WithSnapshotSharedLister) + tf.BuildNodeInfos):
//   auto lister = FakeSharedLister::create(pods, nodes);
//   FakeHandle handle;
//   handle.setSnapshotSharedLister(lister.get());
//   auto plugin = SomePlugin::create(nullptr, handle);

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/scheduler/framework/interface.h"

namespace ks::plugintesting {

// NodeInfos for `nodes`, one per node with no pods (upstream tf.BuildNodeInfos).
std::vector<framework::NodeInfoPtr> buildNodeInfos(const std::vector<api::NodePtr>& nodes);

// A snapshot over NodeInfos built from pods and nodes (upstream cache.NewSnapshot): each pod is added
// to the NodeInfo of its spec.nodeName; list() holds the NodeInfos of `nodes` in the given order (pods
// on nodes not in `nodes` are kept but not listed, as their NodeInfo has no node).
class FakeSharedLister final : public framework::SharedLister,
                               public framework::NodeInfoLister,
                               public framework::StorageInfoLister {
 public:
  static std::unique_ptr<FakeSharedLister> create(const std::vector<api::PodPtr>& pods,
                                                  const std::vector<api::NodePtr>& nodes);
  // A snapshot over ready-made NodeInfos (listed in the given order).
  static std::unique_ptr<FakeSharedLister> fromNodeInfos(std::vector<framework::NodeInfoPtr> nodeInfos);

  const framework::NodeInfoLister& nodeInfos() const override { return *this; }
  const framework::StorageInfoLister& storageInfos() const override { return *this; }

  const std::vector<framework::NodeInfoPtr>& list() const override { return list_; }
  const std::vector<framework::NodeInfoPtr>& havePodsWithAffinityList() const override {
    return withAffinity_;
  }
  const std::vector<framework::NodeInfoPtr>& havePodsWithRequiredAntiAffinityList() const override {
    return withRequiredAntiAffinity_;
  }
  Result<framework::NodeInfoPtr> get(std::string_view nodeName) const override;

  bool isPVCUsedByPods(std::string_view key) const override;

 private:
  std::vector<framework::NodeInfoPtr> list_;
  std::vector<framework::NodeInfoPtr> withAffinity_;
  std::vector<framework::NodeInfoPtr> withRequiredAntiAffinity_;
  std::vector<framework::NodeInfoPtr> all_;  // incl. node-less infos of pods on unknown nodes
};

// A Handle with settable snapshot lister, client, event recorder and pod nominator. The plugin-runner
// methods (runFilterPlugins, ...) return an Error status: tests that need them use the real Framework.
class FakeHandle final : public framework::Handle {
 public:
  FakeHandle() = default;

  void setSnapshotSharedLister(const framework::SharedLister* l) { lister_ = l; }
  void setMutableSnapshotSharedLister(framework::MutableSharedLister* l) { mutableLister_ = l; }
  void setClient(client::Client* c) { client_ = c; }
  void setSharedDRAManager(framework::SharedDRAManager* m) { draManager_ = m; }
  void setSharedInformerFactory(informer::SharedInformerFactory* f) { informerFactory_ = f; }
  void setEventRecorder(framework::EventRecorder* r) { recorder_ = r; }
  void setPodNominator(framework::PodNominator* n) { nominator_ = n; }
  void setMetrics(metrics::Metrics* m) { metrics_ = m; }
  void setProfileName(std::string name) { profileName_ = std::move(name); }
  void setClock(Clock* c) { clock_ = c; }
  void setPodGroupManager(const framework::PodGroupManager* m) { podGroupManager_ = m; }
  // What getWaitingPod(uid) returns for the pod's UID (none are waiting by default).
  void addWaitingPod(std::shared_ptr<framework::WaitingPod> wp);
  // Pods passed to activate(), in call order.
  std::vector<api::PodPtr> activatedPods() const;

  const framework::SharedLister* snapshotSharedLister() const override { return lister_; }
  framework::MutableSharedLister* mutableSnapshotSharedLister() const override { return mutableLister_; }
  client::Client* client() const override { return client_; }
  framework::SharedDRAManager* sharedDRAManager() const override { return draManager_; }
  informer::SharedInformerFactory* sharedInformerFactory() const override { return informerFactory_; }
  framework::EventRecorder* eventRecorder() const override { return recorder_; }
  framework::parallelize::Parallelizer& parallelizer() override { return parallelizer_; }
  framework::PodNominator* podNominator() const override { return nominator_; }
  metrics::Metrics* metrics() const override { return metrics_; }
  const std::string& profileName() const override { return profileName_; }
  void activate(const std::vector<api::PodPtr>& pods) override;
  std::stop_token stopToken() const override { return stop_.get_token(); }
  Clock& clock() const override { return clock_ != nullptr ? *clock_ : realClock(); }
  const framework::PodGroupManager* podGroupManager() const override { return podGroupManager_; }
  // Ends waits on stopToken(), as a scheduler shutdown does.
  void requestStop() { stop_.request_stop(); }

  void iterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>& fn) override;
  std::shared_ptr<framework::WaitingPod> getWaitingPod(const std::string& uid) override;
  bool rejectWaitingPod(const std::string& uid) override;
  framework::Status runFilterPluginsWithNominatedPods(framework::CycleState& state,
                                                      const framework::PodInfo& pod,
                                                      const framework::NodeInfo& info) override;

  framework::Status runPreScorePlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                       std::span<const framework::NodeInfoPtr> nodes) override;
  framework::Status runScorePlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                    std::span<const framework::NodeInfoPtr> nodes,
                                    std::vector<framework::NodePluginScores>& out) override;
  framework::Status runFilterPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                     const framework::NodeInfo& nodeInfo) override;
  framework::Status runPreFilterExtensionAddPod(framework::CycleState& state,
                                                const framework::PodInfo& podToSchedule,
                                                const framework::PodInfoPtr& podInfoToAdd,
                                                const framework::NodeInfo& nodeInfo) override;
  framework::Status runPreFilterExtensionRemovePod(framework::CycleState& state,
                                                   const framework::PodInfo& podToSchedule,
                                                   const framework::PodInfoPtr& podInfoToRemove,
                                                   const framework::NodeInfo& nodeInfo) override;
  framework::Status runReservePluginsReserve(framework::CycleState& state, const framework::PodInfo& pod,
                                             const std::string& nodeName) override;
  void runReservePluginsUnreserve(framework::CycleState& state, const framework::PodInfo& pod,
                                  const std::string& nodeName) override;

 private:
  std::stop_source stop_;
  const framework::SharedLister* lister_ = nullptr;
  framework::MutableSharedLister* mutableLister_ = nullptr;
  client::Client* client_ = nullptr;
  framework::SharedDRAManager* draManager_ = nullptr;
  informer::SharedInformerFactory* informerFactory_ = nullptr;
  framework::EventRecorder* recorder_ = nullptr;
  framework::PodNominator* nominator_ = nullptr;
  metrics::Metrics* metrics_ = nullptr;
  std::string profileName_;
  Clock* clock_ = nullptr;  // realClock() when null
  const framework::PodGroupManager* podGroupManager_ = nullptr;
  std::map<std::string, std::shared_ptr<framework::WaitingPod>> waitingPods_;
  mutable std::mutex activatedMu_;
  std::vector<api::PodPtr> activated_;
  framework::parallelize::Parallelizer parallelizer_{2};
};

// PodInfo / NodeInfo shorthands for tests.
framework::PodInfoPtr podInfo(const api::Pod& pod);
framework::NodeInfoPtr nodeInfoWith(const api::Node& node, const std::vector<api::PodPtr>& pods = {});

}  // namespace ks::plugintesting
