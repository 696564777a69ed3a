#pragma once
// SharedInformerFactory: one SharedInformer per kind over a client::ListWatchers, created lazily by the
// accessors (as informers.SharedInformerFactory.Core().V1().Pods()), started together, waited on
// together, stopped together.
//
// Thread-safety: all methods may be called from any thread. Informers created after start() are not
// running until start() is called again (as upstream). stop() joins every informer's threads.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/api/apps.h"
#include "pkg/api/core.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/storage.h"
#include "pkg/client/client.h"
#include "pkg/informer/shared_informer.h"

namespace ks::informer {

struct SharedInformerFactoryOptions {
  // Template for every informer's reflector (name and selectors are set per kind).
  ReflectorOptions reflector;
  // Field selector of the pod informer; kube-scheduler uses
  // "status.phase!=Succeeded,status.phase!=Failed" (see kSchedulerPodFieldSelector).
  std::string podFieldSelector;
};

// What kube-scheduler's pod informer selects (scheduler.go newPodInformer).
inline constexpr std::string_view kSchedulerPodFieldSelector = "status.phase!=Succeeded,status.phase!=Failed";

class SharedInformerFactory {
 public:
  explicit SharedInformerFactory(client::ListWatchers& listWatchers,
                                 SharedInformerFactoryOptions options = {});
  ~SharedInformerFactory();
  SharedInformerFactory(const SharedInformerFactory&) = delete;
  SharedInformerFactory& operator=(const SharedInformerFactory&) = delete;

  SharedInformer<api::Pod>& pods();
  SharedInformer<api::Node>& nodes();
  SharedInformer<api::Namespace>& namespaces();
  SharedInformer<api::PersistentVolume>& persistentVolumes();
  SharedInformer<api::PersistentVolumeClaim>& persistentVolumeClaims();
  SharedInformer<api::StorageClass>& storageClasses();
  SharedInformer<api::CSINode>& csiNodes();
  SharedInformer<api::CSIDriver>& csiDrivers();
  SharedInformer<api::CSIStorageCapacity>& csiStorageCapacities();
  SharedInformer<api::VolumeAttachment>& volumeAttachments();
  SharedInformer<api::PodDisruptionBudget>& podDisruptionBudgets();
  SharedInformer<api::Service>& services();
  SharedInformer<api::ReplicationController>& replicationControllers();
  SharedInformer<api::ReplicaSet>& replicaSets();
  SharedInformer<api::StatefulSet>& statefulSets();
  SharedInformer<api::ResourceClaim>& resourceClaims();
  SharedInformer<api::ResourceSlice>& resourceSlices();
  SharedInformer<api::DeviceClass>& deviceClasses();

  // Starts every informer created so far that is not running yet.
  void start();
  // Waits until every started informer has synced; false when `timeout` passes first.
  bool waitForCacheSync(std::chrono::milliseconds timeout);
  // Stops every informer and joins its threads. Idempotent.
  void stop();

 private:
  template <typename T>
  SharedInformer<T>& informerFor(std::unique_ptr<SharedInformer<T>>& slot, client::ListWatcher<T>& lw,
                                 const char* name, const std::string& fieldSelector = "");

  client::ListWatchers& listWatchers_;
  const SharedInformerFactoryOptions options_;

  std::mutex mu_;
  struct Entry {
    InformerBase* informer;
    bool started;
  };
  std::vector<Entry> entries_;  // guarded by mu_, creation order
  std::unique_ptr<SharedInformer<api::Pod>> pods_;
  std::unique_ptr<SharedInformer<api::Node>> nodes_;
  std::unique_ptr<SharedInformer<api::Namespace>> namespaces_;
  std::unique_ptr<SharedInformer<api::PersistentVolume>> pvs_;
  std::unique_ptr<SharedInformer<api::PersistentVolumeClaim>> pvcs_;
  std::unique_ptr<SharedInformer<api::StorageClass>> storageClasses_;
  std::unique_ptr<SharedInformer<api::CSINode>> csiNodes_;
  std::unique_ptr<SharedInformer<api::CSIDriver>> csiDrivers_;
  std::unique_ptr<SharedInformer<api::CSIStorageCapacity>> csiCapacities_;
  std::unique_ptr<SharedInformer<api::VolumeAttachment>> volumeAttachments_;
  std::unique_ptr<SharedInformer<api::PodDisruptionBudget>> pdbs_;
  std::unique_ptr<SharedInformer<api::Service>> services_;
  std::unique_ptr<SharedInformer<api::ReplicationController>> rcs_;
  std::unique_ptr<SharedInformer<api::ReplicaSet>> replicaSets_;
  std::unique_ptr<SharedInformer<api::StatefulSet>> statefulSets_;
  std::unique_ptr<SharedInformer<api::ResourceClaim>> resourceClaims_;
  std::unique_ptr<SharedInformer<api::ResourceSlice>> resourceSlices_;
  std::unique_ptr<SharedInformer<api::DeviceClass>> deviceClasses_;
};

}  // namespace ks::informer
