#pragma once
// Shared by the preemption evaluator and DefaultPreemption tests: the fakes upstream's tests build from
// client-go's fake clientset (the patch/delete reactors), events.FakeRecorder and preemption_test.go's
// fakePodNominator, and a Framework environment (upstream tf.NewFramework with WithClientSet,
// WithInformerFactory, WithEventRecorder, WithPodNominator, WithSnapshotSharedLister, WithParallelism,
// WithPodActivator) over the real runtime, the in-tree plugins and test plugins.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/backend/cache/snapshot.h"
#include "pkg/scheduler/backend/queue/nominator.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "test/support/forwarding_client.h"
#include "test/support/pod_group_objects.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::preemptiontesting {

// A client whose pod status patches and pod deletions behave as the reactors upstream's tests prepend
// (clientset.PrependReactor("patch"/"delete", "pods", ...)): each call is recorded and succeeds without
// touching any store, except for the pods set up to fail. Everything else goes to `inner`.
class RecordingClient final : public testsupport::ForwardingClient {
 public:
  struct Patch {
    std::string ns;
    std::string name;
    client::PodStatusPatch patch;
  };

  explicit RecordingClient(client::MemoryClient& inner) : ForwardingClient(inner) {}

  // Patches / deletions of the pod named `podName` fail with `message`.
  void failPatchFor(std::string podName, std::string message) {
    std::lock_guard lock(mu_);
    patchFailures_[std::move(podName)] = std::move(message);
  }
  void failDeleteFor(std::string podName, std::string message) {
    std::lock_guard lock(mu_);
    deleteFailures_[std::move(podName)] = std::move(message);
  }

  // Patches and deletions of the pod named `podName` fail with NotFound (upstream's "not-found-victim").
  void notFound(std::string podName) {
    std::lock_guard lock(mu_);
    notFound_.insert(std::move(podName));
  }

  // Pod status patches and deletions wait until releaseWrites() (to look at an asynchronous
  // preemption in flight).
  void holdWrites() {
    std::lock_guard lock(mu_);
    held_ = true;
  }
  void releaseWrites() {
    std::lock_guard lock(mu_);
    held_ = false;
    cv_.notify_all();
  }

  // Names of the pods deleted / patched successfully.
  std::set<std::string> deletedPods() const {
    std::lock_guard lock(mu_);
    return deleted_;
  }
  // Names of the pods a deletion was asked for, whatever its outcome.
  std::set<std::string> deleteAttempts() const {
    std::lock_guard lock(mu_);
    return deleteAttempts_;
  }
  std::set<std::string> patchedPods() const {
    std::lock_guard lock(mu_);
    std::set<std::string> out;
    for (const auto& p : patches_) out.insert(p.name);
    return out;
  }
  // The successful patches, in call order.
  std::vector<Patch> patches() const {
    std::lock_guard lock(mu_);
    return patches_;
  }
  bool deletionFailed() const {
    std::lock_guard lock(mu_);
    return deletionFailed_;
  }
  bool patchFailed() const {
    std::lock_guard lock(mu_);
    return patchFailed_;
  }

  // ---- client::Client ----
  client::ApiResult<api::Pod> patchPodStatus(const std::string& ns, const std::string& name,
                                             const client::PodStatusPatch& patch) override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return !held_; });
    if (auto it = patchFailures_.find(name); it != patchFailures_.end()) {
      patchFailed_ = true;
      return client::ApiError(500, "InternalError", it->second);
    }
    if (notFound_.contains(name)) return client::ApiError(404, "NotFound", "pods \"" + name + "\" not found");
    patches_.push_back(Patch{ns, name, patch});
    api::Pod pod;
    pod.metadata.namespace_ = ns;
    pod.metadata.name = name;
    return pod;
  }
  client::ApiResult<void> deletePod(const std::string& /*ns*/, const std::string& name,
                                    const client::DeleteOptions& /*options*/) override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return !held_; });
    deleteAttempts_.insert(name);
    if (notFound_.contains(name)) return client::ApiError(404, "NotFound", "pods \"" + name + "\" not found");
    if (auto it = deleteFailures_.find(name); it != deleteFailures_.end()) {
      deletionFailed_ = true;
      return client::ApiError(500, "InternalError", it->second);
    }
    deleted_.insert(name);
    return {};
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;                                  // guarded by mu_
  std::map<std::string, std::string> patchFailures_;   // guarded by mu_
  std::map<std::string, std::string> deleteFailures_;  // guarded by mu_
  std::set<std::string> notFound_;                     // guarded by mu_
  std::set<std::string> deleted_;                      // guarded by mu_
  std::set<std::string> deleteAttempts_;               // guarded by mu_
  std::vector<Patch> patches_;                         // guarded by mu_
  bool deletionFailed_ = false;                        // guarded by mu_
  bool patchFailed_ = false;                           // guarded by mu_
};

// Records events (upstream events.FakeRecorder, which the tests give the framework).
class RecordingEventRecorder final : public framework::EventRecorder {
 public:
  struct Event {
    api::ObjectReference regarding;
    std::optional<api::ObjectReference> related;
    std::string type;
    std::string reason;
    std::string action;
    std::string note;
  };
  void eventf(const api::ObjectReference& regarding, const api::ObjectReference* related, std::string_view type,
              std::string_view reason, std::string_view action, std::string note) override {
    std::lock_guard lock(mu_);
    events_.push_back(Event{regarding, related ? std::optional(*related) : std::nullopt, std::string(type),
                            std::string(reason), std::string(action), std::move(note)});
  }
  std::vector<Event> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;  // guarded by mu_
};

// preemption_test.go's fakePodNominator: nominatedPodsForNode() doesn't answer until release(), so a
// test can look at the evaluator while its asynchronous preemption hasn't done anything yet. It then
// answers the pods given to setNominatedPods (upstream's answers none). Filter runs ask it too
// (runFilterPluginsWithNominatedPods), so hold it back only in frameworks whose dry run runs no filters.
class BlockingNominator final : public framework::PodNominator {
 public:
  void setNominatedPods(std::string node, std::vector<framework::PodInfoPtr> pods) {
    std::lock_guard lock(mu_);
    nominated_[std::move(node)] = std::move(pods);
  }
  void release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

  void addNominatedPod(const framework::PodInfoPtr&, const framework::NominatingInfo&) override {}
  void deleteNominatedPodIfExists(const api::Pod&) override {}
  void updateNominatedPod(const api::Pod&, const framework::PodInfoPtr&) override {}
  std::vector<framework::PodInfoPtr> nominatedPodsForNode(const std::string& nodeName) const override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return released_; });
    auto it = nominated_.find(nodeName);
    return it == nominated_.end() ? std::vector<framework::PodInfoPtr>{} : it->second;
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool released_ = false;                                            // guarded by mu_
  std::map<std::string, std::vector<framework::PodInfoPtr>> nominated_;  // guarded by mu_
};

// Runs `fn` when it goes out of scope. Declared after an evaluator, it releases what the evaluator's
// asynchronous preemptions wait for before the evaluator (which waits for them) is destroyed.
class ScopeExit {
 public:
  explicit ScopeExit(std::function<void()> fn) : fn_(std::move(fn)) {}
  ~ScopeExit() { fn_(); }
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;

 private:
  std::function<void()> fn_;
};

// One plugin of a test framework and the extension points it is enabled at (upstream
// tf.RegisterPluginAsExtensions / RegisterQueueSortPlugin / RegisterBindPlugin / RegisterFilterPlugin).
struct RegisteredPlugin {
  std::string name;
  framework::runtime::PluginFactory factory;
  std::vector<std::string> points;  // "QueueSort", "PreFilter", "Filter", "PostFilter", "Permit", "Bind"
};

// An in-tree plugin (from newInTreeRegistry) enabled at `points`.
inline RegisteredPlugin inTreePlugin(std::string_view name, std::vector<std::string> points) {
  static const framework::runtime::Registry kInTree = plugins::newInTreeRegistry();
  return RegisteredPlugin{std::string(name), kInTree.factories().at(std::string(name)), std::move(points)};
}
// The queue sort and bind plugins every profile needs (upstream's queuesort.New and defaultbinder.New).
inline RegisteredPlugin queueSortPlugin() {
  return inTreePlugin("PrioritySort", {"QueueSort"});
}
inline RegisteredPlugin bindPlugin() {
  return inTreePlugin("DefaultBinder", {"Bind"});
}

// A framework over a snapshot of `pods` on `nodes`, with an informer factory over an in-memory API
// (not started: tests add objects to its stores directly, as upstream's podInformer.GetStore().Add, or
// start it), a RecordingClient, a RecordingEventRecorder and a pod nominator (the queue's Nominator
// unless one is given). Pods passed to Handle::activate() are recorded. With `podGroups` set the snapshot
// is the cache's (upstream NewTestSnapshotWithPodGroups: the groups, and their members' states) and
// Handle::podGroupManager() answers the same groups (upstream WithPodGroupManager(cache)); the snapshot is
// then also Handle::mutableSnapshotSharedLister() (upstream WithMutableSnapshotLister).
class FrameworkEnv {
 public:
  struct Options {
    std::vector<RegisteredPlugin> plugins;
    std::vector<api::PodPtr> pods;
    std::vector<api::NodePtr> nodes;
    int parallelism = framework::parallelize::kDefaultParallelism;
    framework::PodNominator* nominator = nullptr;
    // The framework's client: the RecordingClient (upstream's reactors), or the in-memory API itself.
    bool recordingClient = true;
    // Where the framework (and preemption) record metrics; none when null.
    metrics::Metrics* metrics = nullptr;
    // Handle::extenders() (upstream WithExtenders); not owned.
    std::vector<framework::Extender*> extenders;
    // The PodGroups of a GenericWorkload test (see above); nullopt: a plain snapshot, no pod groups.
    std::optional<std::vector<framework::PodGroupPtr>> podGroups;
  };

  explicit FrameworkEnv(Options o) : client_(memory_), factory_(memory_) {
    framework::runtime::Registry registry;
    config::KubeSchedulerProfile profile;
    for (auto& p : o.plugins) {
      if (!registry.contains(p.name)) {
        EXPECT_TRUE(registry.registerPlugin(p.name, p.factory).ok()) << p.name;
      }
      for (const auto& point : p.points) {
        config::PluginSet* set = point == "QueueSort"    ? &profile.plugins.queueSort
                                 : point == "PreFilter"  ? &profile.plugins.preFilter
                                 : point == "Filter"     ? &profile.plugins.filter
                                 : point == "PostFilter" ? &profile.plugins.postFilter
                                 : point == "Permit"     ? &profile.plugins.permit
                                 : point == "Bind"       ? &profile.plugins.bind
                                                         : nullptr;
        EXPECT_NE(set, nullptr) << "unknown extension point " << point;
        if (set != nullptr) set->enabled.push_back({p.name, 0});
      }
    }
    podGroups_ = o.podGroups;
    makeSnapshot(o.pods, o.nodes);
    framework::runtime::FrameworkOptions fo;
    fo.snapshotSharedLister = shared_;
    fo.mutableSnapshotSharedLister = snapshot_.get();
    if (podGroups_) {
      liveGroups_ = std::make_unique<cache::Snapshot>(cache::newSnapshotWithPodGroups(o.pods, o.nodes, *podGroups_));
      fo.podGroupManager = liveGroups_.get();
    }
    fo.client = o.recordingClient ? static_cast<client::Client*>(&client_) : &memory_;
    fo.informerFactory = &factory_;
    fo.eventRecorder = &recorder_;
    fo.podNominator = o.nominator != nullptr ? o.nominator : &nominator_;
    fo.parallelizer = std::make_shared<framework::parallelize::Parallelizer>(o.parallelism);
    fo.metrics = o.metrics;
    fo.extenders = o.extenders;
    auto fw = framework::runtime::Framework::create(registry, profile, std::move(fo));
    EXPECT_TRUE(fw.ok()) << (fw.ok() ? "" : fw.error().message());
    if (fw.ok()) {
      fw_ = std::move(fw).value();
      fw_->setPodActivator([this](const std::vector<api::PodPtr>& pods) {
        std::lock_guard lock(mu_);
        activated_.insert(activated_.end(), pods.begin(), pods.end());
      });
    }
  }
  ~FrameworkEnv() {
    fw_.reset();
    factory_.stop();
  }
  FrameworkEnv(const FrameworkEnv&) = delete;
  FrameworkEnv& operator=(const FrameworkEnv&) = delete;

  bool ok() const { return fw_ != nullptr; }
  framework::runtime::Framework& fw() { return *fw_; }
  client::MemoryClient& memory() { return memory_; }
  RecordingClient& client() { return client_; }
  informer::SharedInformerFactory& factory() { return factory_; }
  RecordingEventRecorder& recorder() { return recorder_; }
  queue::Nominator& nominator() { return nominator_; }
  const framework::NodeInfoLister& lister() const { return shared_->nodeInfos(); }
  const framework::SharedLister& snapshot() const { return *shared_; }
  // Replaces the snapshot (upstream tests mutate the pods the snapshot points to).
  void setSnapshot(const std::vector<api::PodPtr>& pods, const std::vector<api::NodePtr>& nodes) {
    makeSnapshot(pods, nodes);
    fw_->setSnapshotSharedLister(shared_);
    fw_->setMutableSnapshotSharedLister(snapshot_.get());
  }
  // The cache's snapshot, which is also Handle::mutableSnapshotSharedLister() (upstream
  // WithMutableSnapshotLister(snapshot)); null without pod groups.
  cache::Snapshot* cacheSnapshot() { return snapshot_.get(); }
  // Adds the objects to the informers' stores (upstream informer.GetStore().Add).
  void addToPodStore(const api::PodPtr& pod) { factory_.pods().store().upsert(pod); }
  void addToPDBStore(const std::shared_ptr<const api::PodDisruptionBudget>& pdb) {
    factory_.podDisruptionBudgets().store().upsert(pdb);
  }
  std::vector<api::PodPtr> activatedPods() const {
    std::lock_guard lock(mu_);
    return activated_;
  }

  // Upstream f.RunPreFilterPlugins(ctx, state, pod): fills `state`.
  framework::Status runPreFilter(framework::CycleState& state, const framework::PodInfo& pod) {
    framework::PreFilterResult result;
    return fw_->runPreFilterPlugins(state, pod, result);
  }

 private:
  void makeSnapshot(const std::vector<api::PodPtr>& pods, const std::vector<api::NodePtr>& nodes) {
    if (podGroups_) {
      snapshot_ = std::make_unique<cache::Snapshot>(cache::newSnapshotWithPodGroups(pods, nodes, *podGroups_));
      shared_ = snapshot_.get();
    } else {
      snapshot_.reset();
      lister_ = plugintesting::FakeSharedLister::create(pods, nodes);
      shared_ = lister_.get();
    }
  }

  client::MemoryClient memory_;
  RecordingClient client_;
  informer::SharedInformerFactory factory_;
  RecordingEventRecorder recorder_;
  queue::Nominator nominator_;
  std::optional<std::vector<framework::PodGroupPtr>> podGroups_;
  std::unique_ptr<plugintesting::FakeSharedLister> lister_;  // without pod groups
  std::unique_ptr<cache::Snapshot> snapshot_;                // with pod groups
  std::unique_ptr<cache::Snapshot> liveGroups_;              // Handle::podGroupManager()
  const framework::SharedLister* shared_ = nullptr;          // lister_ or snapshot_
  std::unique_ptr<framework::runtime::Framework> fw_;
  mutable std::mutex mu_;
  std::vector<api::PodPtr> activated_;  // guarded by mu_
};

// A PodGroup's spec.disruptionMode (upstream st.MakePodGroup().DisruptionModeAll() / DisruptionModeSingle()).
enum class Disruption : uint8_t { Unset, Single, All };

// Upstream st.MakePodGroup().Namespace(ns).Name(name).UID(uid).Priority(priority).DisruptionMode...(): the
// UID is the name unless given.
inline framework::PodGroupPtr makeTestPodGroup(const std::string& ns, const std::string& name,
                                               std::optional<int32_t> priority = std::nullopt,
                                               Disruption disruption = Disruption::Unset,
                                               std::optional<std::string> uid = std::nullopt) {
  api::PodGroup pg;
  pg.metadata.namespace_ = ns;
  pg.metadata.name = name;
  pg.metadata.uid = uid.value_or(name);
  pg.spec.priority = priority;
  if (disruption == Disruption::Single) pg.spec.disruptionMode = api::DisruptionMode{.single = api::EmptyObject{}};
  if (disruption == Disruption::All) pg.spec.disruptionMode = api::DisruptionMode{.all = api::EmptyObject{}};
  return std::make_shared<const api::PodGroup>(std::move(pg));
}

// `pod` as a member of the PodGroup `group` (upstream st.MakePod()...PodGroupName(group)).
inline api::PodPtr inGroup(const ks::testing::PodWrapper& pod, const std::string& group) {
  return std::make_shared<const api::Pod>(ks::testing::inPodGroup(pod.obj(), group));
}

// Names of the pods, in order.
inline std::vector<std::string> podNames(const std::vector<framework::PodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->pod().metadata.name);
  return out;
}

// metav1.NewTime(time.Unix(0, ns)).
inline api::Time unixNanos(int64_t ns) {
  return api::Time(std::chrono::duration_cast<api::Time::duration>(std::chrono::nanoseconds(ns)));
}

}  // namespace ks::preemptiontesting
