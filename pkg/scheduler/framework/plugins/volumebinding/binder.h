#pragma once
// The scheduler's volume binder (upstream volumebinding/binder.go): which of a pod's claims are bound,
// which PVs or provisioning fit a node (Filter), the assumed bindings (Reserve) and their API writes
// plus the wait for the PV controller to finish them (PreBind).

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/storage.h"
#include "pkg/client/client.h"
#include "pkg/scheduler/framework/plugins/volumebinding/assume_cache.h"
#include "pkg/util/result.h"

namespace ks::metrics {
class Metrics;
}

namespace ks::volumebinding {

// Filter reasons, as upstream.
inline constexpr std::string_view kErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind";
inline constexpr std::string_view kErrReasonNodeConflict = "node(s) didn't match PersistentVolume's node affinity";
inline constexpr std::string_view kErrReasonNotEnoughSpace = "node(s) did not have enough free storage";
inline constexpr std::string_view kErrReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

using PVPtr = std::shared_ptr<const api::PersistentVolume>;
using PVCPtr = std::shared_ptr<const api::PersistentVolumeClaim>;

// A claim to bind to an existing PV.
struct BindingInfo {
  PVCPtr pvc;
  PVPtr pv;
};

// A claim to provision on the chosen node; the CSIStorageCapacity that made room for it, if checked.
struct DynamicProvision {
  PVCPtr pvc;
  std::shared_ptr<const api::CSIStorageCapacity> nodeCapacity;
};

// What a pod's unbound claims need on one node.
struct PodVolumes {
  std::vector<BindingInfo> staticBindings;
  std::vector<DynamicProvision> dynamicProvisions;
};

// A pod's claims, sorted by state (PreFilter), and the PVs its delayed claims may bind to, by class.
struct PodVolumeClaims {
  std::vector<PVCPtr> boundClaims;
  std::vector<PVCPtr> unboundClaimsDelayBinding;
  std::vector<PVCPtr> unboundClaimsImmediate;
  std::map<std::string, std::vector<PVPtr>> unboundVolumesDelayBinding;
};

// The room a CSIStorageCapacity offers one volume: maximumVolumeSize, else capacity (either may be unset).
const std::optional<api::Quantity>& volumeLimit(const api::CSIStorageCapacity& capacity);

// The in-tree → CSI translation the binder needs to check a migrated PV's node affinity.
class InTreeToCSITranslator {
 public:
  virtual ~InTreeToCSITranslator() = default;
  virtual bool isPVMigratable(const api::PersistentVolume& pv) const = 0;
  virtual Result<std::string> inTreePluginName(const api::PersistentVolume& pv) const = 0;
  virtual Result<api::PersistentVolume> translateInTreePVToCSI(const api::PersistentVolume& pv) const = 0;
};

class SchedulerVolumeBinder {
 public:
  virtual ~SchedulerVolumeBinder() = default;

  // Sorts the pod's claims into bound, unbound WaitForFirstConsumer and unbound Immediate ones.
  virtual Result<PodVolumeClaims> getPodVolumeClaims(const api::Pod& pod) = 0;

  // What the pod's claims need on `node`. Unmet needs are appended to `reasons` (the kErrReason*
  // texts); an error means the check itself failed.
  virtual Result<PodVolumes> findPodVolumes(const api::Pod& pod, const PodVolumeClaims& claims,
                                            const api::Node& node, std::vector<std::string>& reasons) = 0;

  // Assumes the bindings / provisioning of `podVolumes` on `nodeName` in the assume caches and
  // rewrites `podVolumes` to the assumed objects. True when all the pod's volumes are already bound
  // (nothing to do at PreBind).
  virtual Result<bool> assumePodVolumes(const api::Pod& pod, const std::string& nodeName, PodVolumes& podVolumes) = 0;

  // Undoes assumePodVolumes.
  virtual void revertAssumedPodVolumes(const PodVolumes& podVolumes) = 0;

  // Writes the assumed bindings to the API, then waits (polling every second, up to the bind timeout
  // or until `stop`) until the PV controller has bound every claim.
  virtual Result<void> bindPodVolumes(const api::Pod& pod, const std::string& nodeName, PodVolumes& podVolumes,
                                      std::stop_token stop) = 0;
};

// csi-translation-lib's translator (pkg/volume/csitranslation) behind InTreeToCSITranslator.
std::shared_ptr<const InTreeToCSITranslator> newInTreeToCSITranslator();

// Where the binder reads cluster state; each getter returns nullptr when the object does not exist.
struct VolumeBinderListers {
  std::function<std::shared_ptr<const api::StorageClass>(const std::string& name)> storageClass;
  std::function<api::NodePtr(const std::string& name)> node;
  std::function<std::shared_ptr<const api::CSINode>(const std::string& name)> csiNode;
  std::function<api::PodPtr(const std::string& ns, const std::string& name)> pod;
  std::function<std::shared_ptr<const api::CSIDriver>(const std::string& name)> csiDriver;
  std::function<std::vector<std::shared_ptr<const api::CSIStorageCapacity>>()> csiStorageCapacities;
};

struct VolumeBinderOptions {
  std::chrono::milliseconds bindTimeout = std::chrono::seconds(600);
  // How often PreBind checks whether the PV controller finished (upstream: every second).
  std::chrono::milliseconds pollInterval = std::chrono::seconds(1);
  bool enableVolumeAttributesClass = true;  // GA in v1.34
  bool enableCSIMigrationPortworx = true;   // beta, on by default
  // simulate: there is no PV controller, so PreBind writes the bindings and takes them as done.
  bool assumeBindingCompletes = false;
};

// The binder over informer-fed assume caches. `client` does the API writes; `metrics` may be null.
std::unique_ptr<SchedulerVolumeBinder> newVolumeBinder(client::VolumeWriter& client, VolumeBinderListers listers,
                                                       std::shared_ptr<PVAssumeCache> pvCache,
                                                       std::shared_ptr<PVCAssumeCache> pvcCache,
                                                       std::shared_ptr<const InTreeToCSITranslator> translator,
                                                       metrics::Metrics* metrics, VolumeBinderOptions options);

}  // namespace ks::volumebinding
