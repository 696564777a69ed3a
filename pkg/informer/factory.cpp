#include "pkg/informer/factory.h"

namespace ks::informer {

SharedInformerFactory::SharedInformerFactory(client::ListWatchers& listWatchers,
                                             SharedInformerFactoryOptions options)
    : listWatchers_(listWatchers), options_(std::move(options)) {}

SharedInformerFactory::~SharedInformerFactory() {
  stop();
}

template <typename T>
SharedInformer<T>& SharedInformerFactory::informerFor(std::unique_ptr<SharedInformer<T>>& slot,
                                                      client::ListWatcher<T>& lw, const char* name,
                                                      const std::string& fieldSelector) {
  std::lock_guard lock(mu_);
  if (!slot) {
    ReflectorOptions ro = options_.reflector;
    ro.name = name;
    ro.fieldSelector = fieldSelector;
    slot = std::make_unique<SharedInformer<T>>(lw, std::move(ro));
    entries_.push_back(Entry{slot.get(), false});
  }
  return *slot;
}

SharedInformer<api::Pod>& SharedInformerFactory::pods() {
  return informerFor(pods_, listWatchers_.pods(), "pods", options_.podFieldSelector);
}
SharedInformer<api::Node>& SharedInformerFactory::nodes() {
  return informerFor(nodes_, listWatchers_.nodes(), "nodes");
}
SharedInformer<api::Namespace>& SharedInformerFactory::namespaces() {
  return informerFor(namespaces_, listWatchers_.namespaces(), "namespaces");
}
SharedInformer<api::PersistentVolume>& SharedInformerFactory::persistentVolumes() {
  return informerFor(pvs_, listWatchers_.persistentVolumes(), "persistentvolumes");
}
SharedInformer<api::PersistentVolumeClaim>& SharedInformerFactory::persistentVolumeClaims() {
  return informerFor(pvcs_, listWatchers_.persistentVolumeClaims(), "persistentvolumeclaims");
}
SharedInformer<api::StorageClass>& SharedInformerFactory::storageClasses() {
  return informerFor(storageClasses_, listWatchers_.storageClasses(), "storageclasses");
}
SharedInformer<api::CSINode>& SharedInformerFactory::csiNodes() {
  return informerFor(csiNodes_, listWatchers_.csiNodes(), "csinodes");
}
SharedInformer<api::CSIDriver>& SharedInformerFactory::csiDrivers() {
  return informerFor(csiDrivers_, listWatchers_.csiDrivers(), "csidrivers");
}
SharedInformer<api::CSIStorageCapacity>& SharedInformerFactory::csiStorageCapacities() {
  return informerFor(csiCapacities_, listWatchers_.csiStorageCapacities(), "csistoragecapacities");
}
SharedInformer<api::VolumeAttachment>& SharedInformerFactory::volumeAttachments() {
  return informerFor(volumeAttachments_, listWatchers_.volumeAttachments(), "volumeattachments");
}
SharedInformer<api::PodDisruptionBudget>& SharedInformerFactory::podDisruptionBudgets() {
  return informerFor(pdbs_, listWatchers_.podDisruptionBudgets(), "poddisruptionbudgets");
}
SharedInformer<api::Service>& SharedInformerFactory::services() {
  return informerFor(services_, listWatchers_.services(), "services");
}
SharedInformer<api::ReplicationController>& SharedInformerFactory::replicationControllers() {
  return informerFor(rcs_, listWatchers_.replicationControllers(), "replicationcontrollers");
}
SharedInformer<api::ReplicaSet>& SharedInformerFactory::replicaSets() {
  return informerFor(replicaSets_, listWatchers_.replicaSets(), "replicasets");
}
SharedInformer<api::StatefulSet>& SharedInformerFactory::statefulSets() {
  return informerFor(statefulSets_, listWatchers_.statefulSets(), "statefulsets");
}
SharedInformer<api::ResourceClaim>& SharedInformerFactory::resourceClaims() {
  return informerFor(resourceClaims_, listWatchers_.resourceClaims(), "resourceclaims");
}
SharedInformer<api::ResourceSlice>& SharedInformerFactory::resourceSlices() {
  return informerFor(resourceSlices_, listWatchers_.resourceSlices(), "resourceslices");
}
SharedInformer<api::DeviceClass>& SharedInformerFactory::deviceClasses() {
  return informerFor(deviceClasses_, listWatchers_.deviceClasses(), "deviceclasses");
}

void SharedInformerFactory::start() {
  std::lock_guard lock(mu_);
  for (Entry& e : entries_) {
    if (e.started) continue;
    e.informer->start();
    e.started = true;
  }
}

bool SharedInformerFactory::waitForCacheSync(std::chrono::milliseconds timeout) {
  std::vector<InformerBase*> started;
  {
    std::lock_guard lock(mu_);
    for (const Entry& e : entries_) {
      if (e.started) started.push_back(e.informer);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (InformerBase* informer : started) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (!informer->waitForSync(std::max(left, std::chrono::milliseconds(0)))) return false;
  }
  return true;
}

void SharedInformerFactory::stop() {
  std::vector<InformerBase*> all;
  {
    std::lock_guard lock(mu_);
    for (const Entry& e : entries_) all.push_back(e.informer);
  }
  for (InformerBase* informer : all) informer->stop();
}

}  // namespace ks::informer
