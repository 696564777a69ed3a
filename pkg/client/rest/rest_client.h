#pragma once
// RestClient: client::Client over HTTP(S) to a kube-apiserver (http_transport.h: blocking HTTP/1.1 on the
// calling thread, pooled keep-alive connections, OpenSSL).
//
//  - TLS: the config's CA (only it is trusted when given), client certificate/key, hostname
//    verification; insecureSkipTlsVerify turns verification off.
//  - Auth: bearer token (token file re-read every tokenFileRefresh), or basic auth.
//  - Client-side rate limiting: one token bucket (qps/burst) per client over every request except watches
//    (client-go's Watch is not throttled either). Each RestClient has its own bucket and connection pool.
//  - Metrics: RestConfig::metrics receives client-go's rest_client_* observations (request_metrics.h).
//  - Retries (retry.h): 429 honouring Retry-After, 5xx and safe transport failures, bounded.
//  - Watches stream line by line with bounded buffering; events are decoded and delivered on the
//    calling thread; std::stop_token cancels the HTTP request promptly.
// Thread-safe; every call blocks the calling thread, which does the I/O itself.

#include <cstddef>
#include <memory>

#include "pkg/client/client.h"
#include "pkg/client/rest/config.h"
#include "pkg/util/result.h"

namespace ks::client::rest {

class RestClient final : public Client {
 public:
  // Fails on a bad config (server URL, PEM data) with a message naming the field.
  static Result<std::unique_ptr<RestClient>> create(RestConfig config);
  ~RestClient() override;
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

#define KS_WATCHED_KIND(Type, accessor, ...) ListWatcher<api::Type>& accessor() override;
#include "pkg/api/kinds.def"

  // A 409 "pod p is already assigned to node <binding.target.name>" returns OK: an earlier attempt
  // of ours may have landed (after a 5xx, or re-sent by the transport on a stale pooled connection), and
  // either way the pod is where we bound it. Any other 409 (another node, UID mismatch) is returned.
  ApiResult<void> bind(const api::Binding& binding) override;
  ApiResult<api::Pod> patchPodStatus(const std::string& ns, const std::string& name,
                                     const PodStatusPatch& patch) override;
  ApiResult<void> deletePod(const std::string& ns, const std::string& name,
                            const DeleteOptions& options) override;

  ApiResult<api::PersistentVolume> updatePersistentVolumeBinding(const api::PersistentVolume& pv) override;
  ApiResult<api::PersistentVolumeClaim> updatePersistentVolumeClaimAnnotations(
      const api::PersistentVolumeClaim& claim) override;

  ApiResult<api::PodGroup> patchPodGroupStatusCondition(const std::string& ns, const std::string& name,
                                                        const api::Condition& condition) override;

  ApiResult<api::ResourceClaim> getResourceClaim(const std::string& ns, const std::string& name) override;
  ApiResult<api::ResourceClaim> createResourceClaim(const api::ResourceClaim& claim) override;
  ApiResult<api::ResourceClaim> updateResourceClaim(const api::ResourceClaim& claim) override;
  ApiResult<api::ResourceClaim> updateResourceClaimStatus(const api::ResourceClaim& claim) override;
  ApiResult<api::ResourceClaim> removeResourceClaimReservation(const std::string& ns, const std::string& name,
                                                               const std::string& claimUid,
                                                               const std::string& consumerUid) override;
  ApiResult<void> deleteResourceClaim(const std::string& ns, const std::string& name,
                                      const DeleteOptions& options) override;

  ApiResult<api::Event> createEvent(const api::Event& event) override;
  ApiResult<api::Event> updateEventSeries(const std::string& ns, const std::string& name,
                                          const api::EventSeries& series) override;

  ApiResult<api::Lease> getLease(const std::string& ns, const std::string& name) override;
  ApiResult<api::Lease> createLease(const api::Lease& lease) override;
  ApiResult<api::Lease> updateLease(const api::Lease& lease) override;

  // Delegated authentication and authorization of the secure port (pkg/server/auth): JSON in, the
  // server's JSON answer out. The reviews have no side effects, so they are retried as idempotent calls.
  // POST /apis/authentication.k8s.io/v1/tokenreviews
  ApiResult<std::string> createTokenReview(const std::string& body);
  // POST /apis/authorization.k8s.io/v1/subjectaccessreviews
  ApiResult<std::string> createSubjectAccessReview(const std::string& body);
  // GET /api/v1/namespaces/<ns>/configmaps/<name>
  ApiResult<std::string> getConfigMap(const std::string& ns, const std::string& name);

  const RestConfig& config() const;

  class Impl;

 private:
  explicit RestClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Follows metadata.continue until the last page; items of all pages in one list whose metadata is
// the last page's. A 410 mid-way (continue token expired) is returned: relist from scratch.
template <typename T>
ApiResult<api::List<T>> listAll(ListWatcher<T>& lw, ListOptions options) {
  api::List<T> all;
  while (true) {
    auto page = lw.list(options);
    if (!page.ok()) return page.error();
    api::List<T>& p = page.value();
    all.items.insert(all.items.end(), std::make_move_iterator(p.items.begin()),
                     std::make_move_iterator(p.items.end()));
    all.metadata = std::move(p.metadata);
    if (all.metadata.continue_.empty()) break;
    options.continue_ = all.metadata.continue_;
    options.resourceVersion.clear();  // not allowed together with continue
  }
  all.metadata.continue_.clear();
  return all;
}

}  // namespace ks::client::rest
