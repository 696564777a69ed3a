#include "pkg/scheduler/framework/plugins/volumebinding/binder.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "pkg/api/labels.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/volume/csitranslation/csi_translation.h"
#include "pkg/volume/volume_helpers.h"

namespace ks::volumebinding {

const std::optional<api::Quantity>& volumeLimit(const api::CSIStorageCapacity& c) {
  return c.maximumVolumeSize ? c.maximumVolumeSize : c.capacity;
}

namespace {

std::string podKey(const api::Pod& pod) { return pod.metadata.namespace_ + "/" + pod.metadata.name; }

// As upstream storage.APIObjectVersioner: an unparsable resourceVersion counts as 0.
int64_t resourceVersionOf(const api::ObjectMeta& m) { return parseResourceVersion(m.resourceVersion).value_or(0); }

class VolumeBinder final : public SchedulerVolumeBinder {
 public:
  VolumeBinder(client::VolumeWriter& client, VolumeBinderListers listers, std::shared_ptr<PVAssumeCache> pvCache,
               std::shared_ptr<PVCAssumeCache> pvcCache, std::shared_ptr<const InTreeToCSITranslator> translator,
               metrics::Metrics* metrics, VolumeBinderOptions options)
      : client_(client),
        listers_(std::move(listers)),
        pvCache_(std::move(pvCache)),
        pvcCache_(std::move(pvcCache)),
        translator_(std::move(translator)),
        metrics_(metrics),
        options_(options) {}

  Result<PodVolumeClaims> getPodVolumeClaims(const api::Pod& pod) override {
    PodVolumeClaims claims;
    for (const api::Volume& vol : pod.spec.volumes) {
      auto bound = isVolumeBound(pod, vol);
      if (!bound.ok()) return bound.error();
      const auto& [isBound, pvc] = *bound;
      if (!pvc) continue;
      if (isBound) {
        claims.boundClaims.push_back(pvc);
        continue;
      }
      auto delay = volume::isDelayBindingMode(*pvc, listers_.storageClass);
      if (!delay.ok()) return delay.error();
      if (*delay && pvc->spec.volumeName.empty()) {
        claims.unboundClaimsDelayBinding.push_back(pvc);
      } else {
        claims.unboundClaimsImmediate.push_back(pvc);
      }
    }
    for (const PVCPtr& pvc : claims.unboundClaimsDelayBinding) {
      const std::string cls = volume::persistentVolumeClaimClass(*pvc);
      claims.unboundVolumesDelayBinding[cls] = pvCache_->list(cls);
    }
    return claims;
  }

  Result<PodVolumes> findPodVolumes(const api::Pod&, const PodVolumeClaims& claims, const api::Node& node,
                                    std::vector<std::string>& reasons) override {
    PodVolumes out;
    bool boundVolumesSatisfied = true;
    bool boundPVsFound = true;
    bool unboundVolumesSatisfied = true;
    bool sufficientStorage = true;
    auto failed = [&](Error e) -> Result<PodVolumes> {
      if (metrics_) metrics_->incVolumeSchedulingStageError(metrics::VolumeStage::Predicate);
      return e;
    };

    if (!claims.boundClaims.empty()) {
      auto r = checkBoundClaims(claims.boundClaims, node);
      if (!r.ok()) return failed(r.error());
      boundVolumesSatisfied = r->first;
      boundPVsFound = r->second;
    }

    if (!claims.unboundClaimsDelayBinding.empty()) {
      auto r = checkUnboundClaims(claims, node, out, unboundVolumesSatisfied, sufficientStorage);
      if (!r.ok()) return failed(r.error());
    }

    if (!boundVolumesSatisfied) reasons.emplace_back(kErrReasonNodeConflict);
    if (!unboundVolumesSatisfied) reasons.emplace_back(kErrReasonBindConflict);
    if (!sufficientStorage) reasons.emplace_back(kErrReasonNotEnoughSpace);
    if (!boundPVsFound) reasons.emplace_back(kErrReasonPVNotExist);
    return out;
  }

  Result<bool> assumePodVolumes(const api::Pod& pod, const std::string& nodeName, PodVolumes& podVolumes) override {
    if (arePodVolumesBound(pod)) return true;
    auto failed = [&](Error e) -> Result<bool> {
      if (metrics_) metrics_->incVolumeSchedulingStageError(metrics::VolumeStage::Assume);
      return e;
    };

    std::vector<BindingInfo> newBindings;
    for (const BindingInfo& binding : podVolumes.staticBindings) {
      auto [newPV, dirty] = volume::bindVolumeToClaim(*binding.pv, *binding.pvc);
      auto pv = std::make_shared<const api::PersistentVolume>(std::move(newPV));
      if (dirty) {
        if (auto r = pvCache_->assume(pv); !r.ok()) {
          revertAssumedPVs(newBindings);
          return failed(r.error());
        }
      }
      newBindings.push_back(BindingInfo{binding.pvc, std::move(pv)});
    }

    std::vector<DynamicProvision> newProvisions;
    for (const DynamicProvision& provision : podVolumes.dynamicProvisions) {
      auto claim = std::make_shared<api::PersistentVolumeClaim>(*provision.pvc);
      claim->metadata.annotations[std::string(volume::kAnnSelectedNode)] = nodeName;
      if (auto r = pvcCache_->assume(claim); !r.ok()) {
        revertAssumedPVs(newBindings);
        revertAssumedPVCs(newProvisions);
        return failed(r.error());
      }
      newProvisions.push_back(DynamicProvision{std::move(claim), nullptr});
    }
    podVolumes.staticBindings = std::move(newBindings);
    podVolumes.dynamicProvisions = std::move(newProvisions);
    return false;
  }

  void revertAssumedPodVolumes(const PodVolumes& podVolumes) override {
    revertAssumedPVs(podVolumes.staticBindings);
    revertAssumedPVCs(podVolumes.dynamicProvisions);
  }

  Result<void> bindPodVolumes(const api::Pod& pod, const std::string& nodeName, PodVolumes& podVolumes,
                              std::stop_token stop) override {
    auto failed = [&](Error e) -> Result<void> {
      if (metrics_) metrics_->incVolumeSchedulingStageError(metrics::VolumeStage::Bind);
      return e;
    };
    if (auto r = bindAPIUpdate(pod, podVolumes); !r.ok()) return failed(r.error());
    if (options_.assumeBindingCompletes) return {};

    // wait.PollUntilContextTimeout(interval, bindTimeout, immediate=false): check after each interval
    // until bound, an error, the deadline or shutdown.
    const auto deadline = std::chrono::steady_clock::now() + options_.bindTimeout;
    std::mutex mu;
    std::condition_variable_any cv;
    for (;;) {
      const auto next = std::min(std::chrono::steady_clock::now() + options_.pollInterval, deadline);
      {
        std::unique_lock lock(mu);
        cv.wait_until(lock, stop, next, [] { return false; });
      }
      if (stop.stop_requested()) return failed(Error("binding volumes: context canceled"));
      if (std::chrono::steady_clock::now() >= deadline) {
        return failed(Error("binding volumes: context deadline exceeded"));
      }
      auto done = checkBindings(pod, nodeName, podVolumes);
      if (!done.ok()) return failed(Error("binding volumes: " + done.error().message()));
      if (*done) return {};
    }
  }

 private:
  // The delayed-binding claims on `node`: static bindings or provisioning into `out`.
  Result<void> checkUnboundClaims(const PodVolumeClaims& claims, const api::Node& node, PodVolumes& out,
                                  bool& unboundVolumesSatisfied, bool& sufficientStorage) const {
    std::vector<PVCPtr> toFindMatching;
    std::vector<PVCPtr> toProvision;
    for (const PVCPtr& claim : claims.unboundClaimsDelayBinding) {
      auto it = claim->metadata.annotations.find(std::string(volume::kAnnSelectedNode));
      if (it == claim->metadata.annotations.end()) {
        toFindMatching.push_back(claim);
      } else if (it->second != node.metadata.name) {
        unboundVolumesSatisfied = false;  // provisioning already started for another node
        return {};
      } else {
        toProvision.push_back(claim);
      }
    }
    if (!toFindMatching.empty()) {
      auto r = findMatchingVolumes(toFindMatching, claims.unboundVolumesDelayBinding, node, out.staticBindings,
                                   toProvision);
      if (!r.ok()) return r.error();
      unboundVolumesSatisfied = *r;
    }
    if (!toProvision.empty()) {
      auto r = checkVolumeProvisions(toProvision, node, out.dynamicProvisions);
      if (!r.ok()) return r.error();
      unboundVolumesSatisfied = r->first;
      sufficientStorage = r->second;
    }
    return {};
  }

  // Whether the volume's claim (if it has one) is fully bound; the claim itself (null for volumes
  // without claim).
  Result<std::pair<bool, PVCPtr>> isVolumeBound(const api::Pod& pod, const api::Volume& vol) const {
    const auto claimOf = volume::podVolumeClaim(pod, vol);
    if (!claimOf) return std::pair<bool, PVCPtr>{true, nullptr};
    const std::string key = pod.metadata.namespace_ + "/" + claimOf->name;
    auto pvc = pvcCache_->get(key);
    if (!pvc.ok() || !*pvc) {
      return Error("error getting PVC \"" + key + "\": " + (pvc.ok() ? std::string("<nil>") : pvc.error().message()));
    }
    if (claimOf->ephemeral) {
      if (auto r = volume::ephemeralVolumeIsForPod(pod, **pvc); !r.ok()) return r.error();
    }
    return std::pair<bool, PVCPtr>{isPVCFullyBound(**pvc), *pvc};
  }

  static bool isPVCFullyBound(const api::PersistentVolumeClaim& pvc) {
    return !pvc.spec.volumeName.empty() && pvc.metadata.annotations.contains(std::string(volume::kAnnBindCompleted));
  }

  bool arePodVolumesBound(const api::Pod& pod) const {
    for (const api::Volume& vol : pod.spec.volumes) {
      auto r = isVolumeBound(pod, vol);
      if (!r.ok() || !r->first) return false;
    }
    return true;
  }

  // The PV as the node's CSI driver sees it, when its in-tree plugin is migrated there.
  Result<PVPtr> tryTranslatePVToCSI(const PVPtr& pv, const api::CSINode* csiNode) const {
    if (!translator_ || !translator_->isPVMigratable(*pv)) return pv;
    auto plugin = translator_->inTreePluginName(*pv);
    if (!plugin.ok()) return Error("could not get plugin name from pv: " + plugin.error().message());
    if (!volume::csitranslation::isCSIMigrationOnForPlugin(*plugin, options_.enableCSIMigrationPortworx)) return pv;
    if (!volume::csitranslation::isPluginMigratedToCSIOnNode(*plugin, csiNode)) return pv;
    auto translated = translator_->translateInTreePVToCSI(*pv);
    if (!translated.ok()) return Error("could not translate pv: " + translated.error().message());
    return std::make_shared<const api::PersistentVolume>(std::move(translated).value());
  }

  // {bound volumes fit the node, every bound PV exists}.
  Result<std::pair<bool, bool>> checkBoundClaims(const std::vector<PVCPtr>& claims, const api::Node& node) const {
    auto csiNode = listers_.csiNode(node.metadata.name);
    for (const PVCPtr& pvc : claims) {
      auto pv = pvCache_->get(pvc->spec.volumeName);
      if (!pv.ok()) return std::pair{true, false};
      auto translated = tryTranslatePVToCSI(*pv, csiNode.get());
      if (!translated.ok()) return translated.error();
      if (!volume::checkNodeAffinity(**translated, node.metadata.labels).ok()) return std::pair{false, true};
    }
    return std::pair{true, true};
  }

  // Matches the claims, smallest first, to distinct PVs; the matched go to `bindings`, the others to
  // `unbound`. True when all matched.
  Result<bool> findMatchingVolumes(std::vector<PVCPtr> claims,
                                   const std::map<std::string, std::vector<PVPtr>>& volumesByClass,
                                   const api::Node& node, std::vector<BindingInfo>& bindings,
                                   std::vector<PVCPtr>& unbound) const {
    std::stable_sort(claims.begin(), claims.end(), [](const PVCPtr& a, const PVCPtr& b) {
      return volume::claimStorageRequest(*a).compare(volume::claimStorageRequest(*b)) < 0;
    });
    static const std::vector<PVPtr> kNone;
    std::map<std::string, PVPtr> chosen;
    bool all = true;
    for (const PVCPtr& pvc : claims) {
      auto it = volumesByClass.find(volume::persistentVolumeClaimClass(*pvc));
      const std::vector<PVPtr>& pvs = it == volumesByClass.end() ? kNone : it->second;
      auto pv = volume::findMatchingVolume(*pvc, pvs, &node, chosen, true, options_.enableVolumeAttributesClass);
      if (!pv.ok()) return pv.error();
      if (!*pv) {
        unbound.push_back(pvc);
        all = false;
        continue;
      }
      chosen[(*pv)->metadata.name] = *pv;
      bindings.push_back(BindingInfo{pvc, *pv});
    }
    return all;
  }

  // {provisioning possible on the node, enough storage capacity}.
  Result<std::pair<bool, bool>> checkVolumeProvisions(const std::vector<PVCPtr>& claims, const api::Node& node,
                                                      std::vector<DynamicProvision>& provisions) const {
    std::vector<DynamicProvision> out;
    for (const PVCPtr& claim : claims) {
      const std::string className = volume::persistentVolumeClaimClass(*claim);
      if (className.empty()) return Error("no class for claim \"" + volume::claimKey(*claim) + "\"");
      auto cls = listers_.storageClass(className);
      if (!cls) return Error("failed to find storage class \"" + className + "\"");
      if (cls->provisioner.empty() || cls->provisioner == volume::kNotSupportedProvisioner) {
        return std::pair{false, true};
      }
      if (!volume::matchTopologySelectorTerms(cls->allowedTopologies, node.metadata.labels)) {
        return std::pair{false, true};
      }
      auto capacity = hasEnoughCapacity(cls->provisioner, *claim, *cls, node);
      if (!capacity.ok()) return capacity.error();
      if (!capacity->first) return std::pair{true, false};
      out.push_back(DynamicProvision{claim, capacity->second});
    }
    provisions = std::move(out);
    return std::pair{true, true};
  }

  // Whether some CSIStorageCapacity of the class, accessible from the node, fits the claim; only
  // checked when the claim requests storage and the provisioner's CSIDriver asks for it.
  Result<std::pair<bool, std::shared_ptr<const api::CSIStorageCapacity>>> hasEnoughCapacity(
      const std::string& provisioner, const api::PersistentVolumeClaim& claim, const api::StorageClass& cls,
      const api::Node& node) const {
    using Out = std::pair<bool, std::shared_ptr<const api::CSIStorageCapacity>>;
    auto request = claim.spec.resources.requests.find("storage");
    if (request == claim.spec.resources.requests.end()) return Out{true, nullptr};
    auto driver = listers_.csiDriver(provisioner);
    if (!driver || !driver->spec.storageCapacity.value_or(false)) return Out{true, nullptr};
    const int64_t size = request->second.value();
    for (const auto& capacity : listers_.csiStorageCapacities()) {
      if (capacity->storageClassName != cls.metadata.name) continue;
      const auto& limit = volumeLimit(*capacity);
      if (!limit || limit->value() < size) continue;
      if (!capacity->nodeTopology) continue;
      auto selector = api::Selector::fromLabelSelector(*capacity->nodeTopology);
      if (!selector.ok()) {
        spdlog::error("Unexpected error converting to a label selector: {}", selector.error().message());
        continue;
      }
      if (selector->matches(node.metadata.labels)) return Out{true, capacity};
    }
    return Out{false, nullptr};
  }

  void revertAssumedPVs(const std::vector<BindingInfo>& bindings) const {
    for (const BindingInfo& b : bindings) pvCache_->restore(b.pv->metadata.name);
  }
  void revertAssumedPVCs(const std::vector<DynamicProvision>& provisions) const {
    for (const DynamicProvision& p : provisions) pvcCache_->restore(volume::claimKey(*p.pvc));
  }

  // The PV updates (claimRef) then the claim updates (selected node), in order; on failure the
  // assumptions not yet written are reverted.
  Result<void> bindAPIUpdate(const api::Pod& pod, PodVolumes& podVolumes) {
    auto& bindings = podVolumes.staticBindings;
    auto& provisions = podVolumes.dynamicProvisions;
    size_t boundPVs = 0;
    size_t updatedClaims = 0;
    auto revertRest = [&] {
      revertAssumedPVs(std::vector<BindingInfo>(bindings.begin() + static_cast<ptrdiff_t>(boundPVs), bindings.end()));
      revertAssumedPVCs(
          std::vector<DynamicProvision>(provisions.begin() + static_cast<ptrdiff_t>(updatedClaims), provisions.end()));
    };
    for (BindingInfo& binding : bindings) {
      auto updated = client_.updatePersistentVolumeBinding(*binding.pv);
      if (!updated.ok()) {
        spdlog::debug("Updating PersistentVolume {} for pod {}: binding to claim {} failed: {}",
                      binding.pv->metadata.name, podKey(pod), volume::claimKey(*binding.pvc), updated.error().message());
        revertRest();
        return Error(updated.error().message());
      }
      spdlog::info("Updated PersistentVolume {} with claim {} for pod {}; waiting for binding to complete",
                   binding.pv->metadata.name, volume::claimKey(*binding.pvc), podKey(pod));
      binding.pv = std::make_shared<const api::PersistentVolume>(std::move(updated).value());
      ++boundPVs;
    }
    for (DynamicProvision& provision : provisions) {
      auto updated = client_.updatePersistentVolumeClaimAnnotations(*provision.pvc);
      if (!updated.ok()) {
        spdlog::debug("Updating PersistentVolumeClaim {} to trigger provisioning failed: {}",
                      volume::claimKey(*provision.pvc), updated.error().message());
        revertRest();
        return Error(updated.error().message());
      }
      provision.pvc = std::make_shared<const api::PersistentVolumeClaim>(std::move(updated).value());
      ++updatedClaims;
    }
    return {};
  }

  // True when the PV controller has bound every claim; an error when binding can no longer succeed.
  Result<bool> checkBindings(const api::Pod& pod, const std::string& nodeName, const PodVolumes& podVolumes) {
    api::NodePtr node = listers_.node(nodeName);
    if (!node) return Error("failed to get node \"" + nodeName + "\": " + volume::listerNotFound("node", nodeName));
    auto csiNode = listers_.csiNode(nodeName);
    if (!listers_.pod(pod.metadata.namespace_, pod.metadata.name)) {
      return Error("pod does not exist any more: " + volume::listerNotFound("pod", pod.metadata.name));
    }

    for (const BindingInfo& binding : podVolumes.staticBindings) {
      auto pv = pvCache_->getAPIObj(binding.pv->metadata.name);
      if (!pv.ok()) return Error("failed to check binding: " + pv.error().message());
      auto pvc = pvcCache_->getAPIObj(volume::claimKey(*binding.pvc));
      if (!pvc.ok()) return Error("failed to check binding: " + pvc.error().message());
      // The informer has not seen our write yet.
      if (resourceVersionOf(binding.pv->metadata) > resourceVersionOf((*pv)->metadata)) return false;
      auto translated = tryTranslatePVToCSI(*pv, csiNode.get());
      if (!translated.ok()) return Error("failed to translate pv to csi: " + translated.error().message());
      if (auto r = volume::checkNodeAffinity(**translated, node->metadata.labels); !r.ok()) {
        return Error("pv \"" + (*translated)->metadata.name + "\" node affinity doesn't match node \"" + nodeName +
                     "\": " + r.error().message());
      }
      // The PV controller resets claimRef when binding failed.
      if (!(*translated)->spec.claimRef || (*translated)->spec.claimRef->uid.empty()) {
        return Error("ClaimRef got reset for pv \"" + (*translated)->metadata.name + "\"");
      }
      if (!isPVCFullyBound(**pvc)) return false;
    }

    for (const DynamicProvision& provision : podVolumes.dynamicProvisions) {
      auto pvc = pvcCache_->getAPIObj(volume::claimKey(*provision.pvc));
      if (!pvc.ok()) return Error("failed to check provisioning pvc: " + pvc.error().message());
      if (resourceVersionOf(provision.pvc->metadata) > resourceVersionOf((*pvc)->metadata)) return false;
      const auto& annotations = (*pvc)->metadata.annotations;
      if (annotations.empty()) {
        return Error("selectedNode annotation reset for PVC \"" + (*pvc)->metadata.name + "\"");
      }
      auto selected = annotations.find(std::string(volume::kAnnSelectedNode));
      if (selected == annotations.end() || selected->second != nodeName) {
        // The provisioner gave up on this node and the PV controller took the annotation away.
        return Error("provisioning failed for PVC \"" + (*pvc)->metadata.name + "\"");
      }
      if (!(*pvc)->spec.volumeName.empty()) {
        auto pv = pvCache_->getAPIObj((*pvc)->spec.volumeName);
        if (!pv.ok()) return false;  // the informer has not seen the provisioned PV yet
        auto translated = tryTranslatePVToCSI(*pv, csiNode.get());
        if (!translated.ok()) return translated.error();
        if (auto r = volume::checkNodeAffinity(**translated, node->metadata.labels); !r.ok()) {
          return Error("pv \"" + (*translated)->metadata.name + "\" node affinity doesn't match node \"" + nodeName +
                       "\": " + r.error().message());
        }
      }
      if (!isPVCFullyBound(**pvc)) return false;
    }
    spdlog::debug("All PVCs for pod {} are bound", podKey(pod));
    return true;
  }

  client::VolumeWriter& client_;
  const VolumeBinderListers listers_;
  const std::shared_ptr<PVAssumeCache> pvCache_;
  const std::shared_ptr<PVCAssumeCache> pvcCache_;
  const std::shared_ptr<const InTreeToCSITranslator> translator_;
  metrics::Metrics* const metrics_;
  const VolumeBinderOptions options_;
};

}  // namespace

std::unique_ptr<SchedulerVolumeBinder> newVolumeBinder(client::VolumeWriter& client, VolumeBinderListers listers,
                                                       std::shared_ptr<PVAssumeCache> pvCache,
                                                       std::shared_ptr<PVCAssumeCache> pvcCache,
                                                       std::shared_ptr<const InTreeToCSITranslator> translator,
                                                       metrics::Metrics* metrics, VolumeBinderOptions options) {
  return std::make_unique<VolumeBinder>(client, std::move(listers), std::move(pvCache), std::move(pvcCache),
                                        std::move(translator), metrics, options);
}

}  // namespace ks::volumebinding
