#pragma once
// A client::Client that forwards every call to another client. Test doubles derive from it and override
// only the calls they record or fake (bindings timed by the benchmark, evictions recorded by the
// preemption tests), so a new call needs one forwarder here, not one per double (the list/watch accessors
// come from pkg/api/kinds.def).

#include <string>

#include "pkg/client/client.h"

namespace ks::testsupport {

class ForwardingClient : public client::Client {
 public:
  explicit ForwardingClient(client::Client& inner) : inner_(inner) {}

#define KS_WATCHED_KIND(Type, accessor, ...)            \
  client::ListWatcher<api::Type>& accessor() override { \
    return inner_.accessor();                           \
  }
#include "pkg/api/kinds.def"

  client::ApiResult<void> bind(const api::Binding& binding) override { return inner_.bind(binding); }
  client::ApiResult<api::Pod> patchPodStatus(const std::string& ns, const std::string& name,
                                             const client::PodStatusPatch& patch) override {
    return inner_.patchPodStatus(ns, name, patch);
  }
  client::ApiResult<void> deletePod(const std::string& ns, const std::string& name,
                                    const client::DeleteOptions& options) override {
    return inner_.deletePod(ns, name, options);
  }
  client::ApiResult<api::PersistentVolume> updatePersistentVolumeBinding(const api::PersistentVolume& pv) override {
    return inner_.updatePersistentVolumeBinding(pv);
  }
  client::ApiResult<api::PersistentVolumeClaim> updatePersistentVolumeClaimAnnotations(
      const api::PersistentVolumeClaim& claim) override {
    return inner_.updatePersistentVolumeClaimAnnotations(claim);
  }
  client::ApiResult<api::ResourceClaim> getResourceClaim(const std::string& ns,
                                                         const std::string& name) override {
    return inner_.getResourceClaim(ns, name);
  }
  client::ApiResult<api::ResourceClaim> createResourceClaim(const api::ResourceClaim& claim) override {
    return inner_.createResourceClaim(claim);
  }
  client::ApiResult<api::ResourceClaim> updateResourceClaim(const api::ResourceClaim& claim) override {
    return inner_.updateResourceClaim(claim);
  }
  client::ApiResult<api::ResourceClaim> updateResourceClaimStatus(const api::ResourceClaim& claim) override {
    return inner_.updateResourceClaimStatus(claim);
  }
  client::ApiResult<api::ResourceClaim> removeResourceClaimReservation(
      const std::string& ns, const std::string& name, const std::string& claimUid,
      const std::string& consumerUid) override {
    return inner_.removeResourceClaimReservation(ns, name, claimUid, consumerUid);
  }
  client::ApiResult<void> deleteResourceClaim(const std::string& ns, const std::string& name,
                                              const client::DeleteOptions& options) override {
    return inner_.deleteResourceClaim(ns, name, options);
  }
  client::ApiResult<api::PodGroup> patchPodGroupStatusCondition(const std::string& ns, const std::string& name,
                                                                const api::Condition& condition) override {
    return inner_.patchPodGroupStatusCondition(ns, name, condition);
  }
  client::ApiResult<api::Event> createEvent(const api::Event& event) override { return inner_.createEvent(event); }
  client::ApiResult<api::Event> updateEventSeries(const std::string& ns, const std::string& name,
                                                  const api::EventSeries& series) override {
    return inner_.updateEventSeries(ns, name, series);
  }
  client::ApiResult<api::Lease> getLease(const std::string& ns, const std::string& name) override {
    return inner_.getLease(ns, name);
  }
  client::ApiResult<api::Lease> createLease(const api::Lease& lease) override { return inner_.createLease(lease); }
  client::ApiResult<api::Lease> updateLease(const api::Lease& lease) override { return inner_.updateLease(lease); }

 private:
  client::Client& inner_;
};

}  // namespace ks::testsupport
