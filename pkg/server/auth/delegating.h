#pragma once
// Upstream kube-scheduler's delegated authentication and authorization (k8s.io/apiserver
// DelegatingAuthenticationOptions / DelegatingAuthorizationOptions, with kube-scheduler's settings
// TolerateInClusterLookupFailure=true and RemoteKubeConfigFileOptional=true for both):
//
// Authentication = FailOnError(AuthenticatedGroupAdder(Union(request header, x509, bearer token)), anonymous):
//   - request header (front proxy): --requestheader-client-ca-file and the --requestheader-* flags, or,
//     without that flag and unless --authentication-skip-lookup, the requestheader-* keys of ConfigMap
//     kube-system/extension-apiserver-authentication (looked up once at start: a failure is tolerated with
//     upstream's warnings unless --authentication-tolerate-lookup-failure=false);
//   - x509: --client-ca-file, or else (unless skipped) the ConfigMap's client-ca-file key;
//   - bearer tokens through TokenReview, cached for --authentication-token-webhook-cache-ttl; only with an
//     authentication kubeconfig (the flag, else the in-cluster config; neither: no token authentication);
//   - anonymous: a request without credentials is system:anonymous.
// The CAs (files and ConfigMap) and the ConfigMap's request-header settings are re-read every minute
// (upstream's dynamiccertificates FileRefreshDuration), so rotated CAs are picked up.
//
// Authorization = Union(system:masters, --authorization-always-allow-paths[, SubjectAccessReview]): the
// SubjectAccessReview authorizer only with an authorization kubeconfig (flag or in-cluster); without one
// everything not always allowed is forbidden.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/server/auth/auth.h"
#include "pkg/server/auth/authenticators.h"
#include "pkg/server/auth/ttl_cache.h"
#include "pkg/server/server.h"
#include "pkg/util/result.h"

namespace ks::server::auth {

inline constexpr const char* kAuthenticationConfigMapNamespace = "kube-system";
inline constexpr const char* kAuthenticationConfigMapName = "extension-apiserver-authentication";

struct RequestHeaderOptions {
  std::string clientCaFile;  // --requestheader-client-ca-file
  std::vector<std::string> usernameHeaders{"x-remote-user"};
  std::vector<std::string> uidHeaders;
  std::vector<std::string> groupHeaders{"x-remote-group"};
  std::vector<std::string> extraHeaderPrefixes{"x-remote-extra-"};
  std::vector<std::string> allowedNames;
};

struct DelegatingAuthenticationOptions {
  std::string remoteKubeconfig;  // --authentication-kubeconfig; "" = in-cluster config, optional
  std::chrono::milliseconds cacheTtl{10000};
  std::string clientCaFile;  // --client-ca-file
  RequestHeaderOptions requestHeader;
  bool skipLookup = false;
  bool tolerateLookupFailure = true;
};

struct DelegatingAuthorizationOptions {
  std::string remoteKubeconfig;  // --authorization-kubeconfig; "" = in-cluster config, optional
  std::chrono::milliseconds allowCacheTtl{10000};
  std::chrono::milliseconds denyCacheTtl{10000};
  std::vector<std::string> alwaysAllowPaths{"/healthz", "/readyz", "/livez"};
  std::vector<std::string> alwaysAllowGroups{"system:masters"};
};

// Upstream's DelegatingAuthenticationOptions.Validate (RemoteRequestHeaderUID on, as in v1.34): errors
// joined by "; ", warnings appended to `warnings`.
VoidResult validateAuthentication(const DelegatingAuthenticationOptions& options,
                                  std::vector<std::string>* warnings = nullptr);

// The client for a kubeconfig path; "" means the in-cluster config, and nullptr when not running in a
// cluster (RemoteKubeConfigFileOptional). `purpose` is "authentication" or "authorization".
using AuthApiFactory =
    std::function<Result<std::shared_ptr<AuthApi>>(const std::string& kubeconfig, std::string_view purpose)>;

// The factory over pkg/client/rest (QPS 200 / burst 400 and a 10 s timeout, as upstream's getClient).
AuthApiFactory restAuthApiFactory();

struct DelegatingAuthSettings {
  std::chrono::steady_clock::duration refreshPeriod = std::chrono::minutes(1);
  Clock clock = steadyClock();
};

class DelegatingAuth {
 public:
  // Builds both from the options: loads the CA files, looks the ConfigMap up once (see the file comment),
  // logs upstream's warnings. Errors as upstream's ApplyTo ("unable to load client CA provider: ...").
  static Result<std::unique_ptr<DelegatingAuth>> create(const DelegatingAuthenticationOptions& authn,
                                                        const DelegatingAuthorizationOptions& authz,
                                                        const AuthApiFactory& factory,
                                                        DelegatingAuthSettings settings = {});
  ~DelegatingAuth();
  DelegatingAuth(const DelegatingAuth&) = delete;
  DelegatingAuth& operator=(const DelegatingAuth&) = delete;

  // Starts re-reading the CAs and the ConfigMap every refreshPeriod, on a background thread.
  void start();
  // One refresh, on the caller's thread (what the background thread does each period).
  void refresh();

  std::shared_ptr<Authenticator> authenticator() const;
  std::shared_ptr<Authorizer> authorizer() const;
  // The filter for Server::setFilter.
  Filter filter() const;
  // Whether a client CA (x509 or request header) is configured: upstream's server then asks TLS clients for
  // a certificate (ServerOptions::requestClientCertificates).
  bool usesClientCertificates() const;

  struct State;

 private:
  explicit DelegatingAuth(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace ks::server::auth
