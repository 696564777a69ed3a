#include "pkg/server/auth/delegating.h"

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "pkg/client/rest/config.h"
#include "pkg/client/rest/rest_client.h"
#include "pkg/server/auth/authorizers.h"
#include "pkg/server/auth/filter.h"

namespace ks::server::auth {
namespace {

using json = nlohmann::json;

constexpr const char* kAuthenticationRoleName = "extension-apiserver-authentication-reader";

class RestAuthApi final : public AuthApi {
 public:
  explicit RestAuthApi(std::unique_ptr<client::rest::RestClient> c) : client_(std::move(c)) {}
  client::ApiResult<std::string> createTokenReview(const std::string& body) override {
    return client_->createTokenReview(body);
  }
  client::ApiResult<std::string> createSubjectAccessReview(const std::string& body) override {
    return client_->createSubjectAccessReview(body);
  }
  client::ApiResult<std::string> getConfigMap(const std::string& ns, const std::string& name) override {
    return client_->getConfigMap(ns, name);
  }

 private:
  std::unique_ptr<client::rest::RestClient> client_;
};

bool caseInsensitiveHas(const std::vector<std::string>& values, std::string_view want) {
  return std::any_of(values.begin(), values.end(), [&](const std::string& v) {
    return v.size() == want.size() && std::equal(v.begin(), v.end(), want.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  });
}

std::optional<std::string> whiteSpaceOnly(const std::string& flag, const std::vector<std::string>& values) {
  for (const auto& v : values) {
    if (std::all_of(v.begin(), v.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
      return "empty value in \"" + flag + "\"";
    }
  }
  return std::nullopt;
}

// The ConfigMap's requestheader-* list keys hold JSON arrays of strings ("" = none).
Result<std::vector<std::string>> deserializeStrings(const json& data, const std::string& key) {
  if (!data.contains(key) || !data[key].is_string() || data[key].get<std::string>().empty()) {
    return std::vector<std::string>{};
  }
  try {
    const json arr = json::parse(data[key].get<std::string>());
    if (arr.is_null()) return std::vector<std::string>{};
    return arr.get<std::vector<std::string>>();
  } catch (const std::exception& e) {
    return Error(key + ": " + e.what());
  }
}

}  // namespace

VoidResult validateAuthentication(const DelegatingAuthenticationOptions& options, std::vector<std::string>* warnings) {
  const RequestHeaderOptions& rh = options.requestHeader;
  std::vector<std::string> errors;
  auto check = [&](const char* flag, const std::vector<std::string>& v) {
    if (auto e = whiteSpaceOnly(flag, v)) errors.push_back(*e);
  };
  check("requestheader-username-headers", rh.usernameHeaders);
  check("requestheader-group-headers", rh.groupHeaders);
  check("requestheader-extra-headers-prefix", rh.extraHeaderPrefixes);
  check("requestheader-allowed-names", rh.allowedNames);
  auto warn = [&](std::string w) {
    if (warnings != nullptr) warnings->push_back(std::move(w));
  };
  if (!rh.usernameHeaders.empty() && !caseInsensitiveHas(rh.usernameHeaders, "X-Remote-User")) {
    warn("--requestheader-username-headers is set without specifying the standard X-Remote-User header - API "
         "aggregation will not work");
  }
  if (!rh.groupHeaders.empty() && !caseInsensitiveHas(rh.groupHeaders, "X-Remote-Group")) {
    warn("--requestheader-group-headers is set without specifying the standard X-Remote-Group header - API "
         "aggregation will not work");
  }
  if (!rh.extraHeaderPrefixes.empty() && !caseInsensitiveHas(rh.extraHeaderPrefixes, "X-Remote-Extra-")) {
    warn("--requestheader-extra-headers-prefix is set without specifying the standard X-Remote-Extra- header "
         "prefix - API aggregation will not work");
  }
  check("requestheader-uid-headers", rh.uidHeaders);
  if (!rh.uidHeaders.empty() && !caseInsensitiveHas(rh.uidHeaders, "X-Remote-Uid")) {
    errors.push_back(
        "--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API "
        "aggregation will not work");
  }
  if (errors.empty()) return {};
  std::string msg;
  for (const auto& e : errors) msg += (msg.empty() ? "" : "; ") + e;
  return Error(msg);
}

AuthApiFactory restAuthApiFactory() {
  return [](const std::string& kubeconfig, std::string_view purpose) -> Result<std::shared_ptr<AuthApi>> {
    const std::string what = "failed to get delegated " + std::string(purpose) + " kubeconfig: ";
    client::rest::RestConfig rc;
    if (!kubeconfig.empty()) {
      auto loaded = client::rest::loadKubeconfig(kubeconfig);
      if (!loaded.ok()) return Error(what + loaded.error().message());
      rc = std::move(loaded).value();
    } else {
      auto inCluster = client::rest::inClusterConfig();
      if (!inCluster.ok()) {
        // RemoteKubeConfigFileOptional: not in a cluster is silent, any other failure a warning.
        if (inCluster.error().message().rfind("unable to load in-cluster configuration", 0) != 0) {
          spdlog::warn("failed to read in-cluster kubeconfig for delegated {}: {}", purpose,
                       inCluster.error().message());
        }
        return std::shared_ptr<AuthApi>();
      }
      rc = std::move(inCluster).value();
    }
    // upstream: high limits, since they bound the server's responsiveness; 10 s per review; retries as
    // DefaultAuthWebhookRetryBackoff (500 ms, 5 steps).
    rc.qps = 200;
    rc.burst = 400;
    rc.requestTimeout = std::chrono::seconds(10);
    rc.retry.maxRetries = 4;
    rc.retry.initialBackoff = std::chrono::milliseconds(500);
    auto created = client::rest::RestClient::create(std::move(rc));
    if (!created.ok()) return Error(what + created.error().message());
    return std::shared_ptr<AuthApi>(std::make_shared<RestAuthApi>(std::move(created).value()));
  };
}

struct DelegatingAuth::State {
  enum class Source { None, File, ConfigMap };

  DelegatingAuthenticationOptions authnOptions;
  DelegatingAuthSettings settings;
  std::shared_ptr<AuthApi> authnApi;
  std::shared_ptr<AuthApi> authzApi;

  Source clientCaSource = Source::None;
  std::shared_ptr<DynamicCA> clientCa = std::make_shared<DynamicCA>();
  Source requestHeaderSource = Source::None;
  std::shared_ptr<Dynamic<RequestHeaderBundle>> requestHeader = std::make_shared<Dynamic<RequestHeaderBundle>>();

  std::shared_ptr<Authenticator> authenticator;
  std::shared_ptr<Authorizer> authorizer;
  bool requestHeaderOn = false;

  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;  // guarded by mu
  std::thread refresher;

  // Parses `pem` into `target` unless it holds the same bundle already.
  static VoidResult storeCa(Dynamic<CABundle>& target, const std::string& pem, const std::string& name) {
    if (auto cur = target.get(); cur && cur->pem() == pem) return {};
    auto parsed = CABundle::parse(pem, name);
    if (!parsed.ok()) return parsed.error();
    target.set(std::move(parsed).value());
    spdlog::debug("Loaded a new CA Bundle and Verifier name=\"{}\"", name);
    return {};
  }

  static Result<std::shared_ptr<const CABundle>> loadCaFile(const std::string& path, const std::string& name) {
    auto pem = client::rest::readFile(path);
    if (!pem.ok()) return pem.error();
    return CABundle::parse(*pem, name + "::" + path);
  }

  // The ConfigMap's request-header settings; NotFound is an empty bundle, as upstream's RunOnce.
  client::ApiResult<std::shared_ptr<const RequestHeaderBundle>> requestHeaderFrom(const json& data) const {
    auto bundle = std::make_shared<RequestHeaderBundle>();
    const std::string ca = data.value("requestheader-client-ca-file", "");
    if (!ca.empty()) {
      if (auto cur = requestHeader->get(); cur && cur->ca && cur->ca->pem() == ca) {
        bundle->ca = cur->ca;
      } else {
        auto parsed = CABundle::parse(ca, "request-header");
        if (!parsed.ok()) return client::ApiError(0, "", parsed.error().message());
        bundle->ca = std::move(parsed).value();
      }
    }
    struct Key {
      const char* name;
      std::vector<std::string> RequestHeaderSettings::*field;
    };
    const Key keys[] = {{"requestheader-username-headers", &RequestHeaderSettings::usernameHeaders},
                        {"requestheader-uid-headers", &RequestHeaderSettings::uidHeaders},
                        {"requestheader-group-headers", &RequestHeaderSettings::groupHeaders},
                        {"requestheader-extra-headers-prefix", &RequestHeaderSettings::extraHeaderPrefixes},
                        {"requestheader-allowed-names", &RequestHeaderSettings::allowedNames}};
    for (const auto& k : keys) {
      auto v = deserializeStrings(data, k.name);
      if (!v.ok()) return client::ApiError(0, "", v.error().message());
      bundle->settings.*k.field = std::move(v).value();
    }
    return std::shared_ptr<const RequestHeaderBundle>(std::move(bundle));
  }

  client::ApiResult<json> configMapData() const {
    auto cm = authnApi->getConfigMap(kAuthenticationConfigMapNamespace, kAuthenticationConfigMapName);
    if (!cm.ok()) return cm.error();
    try {
      json parsed = json::parse(*cm);
      return parsed.value("data", json::object());
    } catch (const std::exception& e) {
      return client::ApiError(0, "", std::string("decoding configmap: ") + e.what());
    }
  }

  void refresh() {
    if (clientCaSource == Source::File) {
      auto pem = client::rest::readFile(authnOptions.clientCaFile);
      if (!pem.ok()) {
        spdlog::error("Failed to reload CA file client-ca-bundle::{}: {}", authnOptions.clientCaFile,
                      pem.error().message());
      } else if (auto r = storeCa(*clientCa, *pem, "client-ca-bundle::" + authnOptions.clientCaFile); !r.ok()) {
        spdlog::error("{}", r.error().message());
      }
    }
    if (requestHeaderSource == Source::File) {
      auto loaded = loadCaFile(authnOptions.requestHeader.clientCaFile, "request-header");
      if (!loaded.ok()) {
        spdlog::error("Failed to reload request-header CA file: {}", loaded.error().message());
      } else if (auto cur = requestHeader->get(); !cur || !cur->ca || cur->ca->pem() != (*loaded)->pem()) {
        auto next = std::make_shared<RequestHeaderBundle>(cur ? *cur : RequestHeaderBundle{});
        next->ca = std::move(loaded).value();
        requestHeader->set(std::move(next));
      }
    }
    if (clientCaSource != Source::ConfigMap && requestHeaderSource != Source::ConfigMap) return;
    auto data = configMapData();
    if (!data.ok()) {
      // upstream's controllers: utilruntime.HandleError("<ns>/<name> failed with : <err>")
      spdlog::error("{}/{} failed with : {}", kAuthenticationConfigMapNamespace, kAuthenticationConfigMapName,
                    data.error().message());
      return;
    }
    if (clientCaSource == Source::ConfigMap) {
      const std::string pem = data->value("client-ca-file", "");
      if (pem.empty()) {
        spdlog::error("missing content for CA bundle \"client-ca::{}::{}::client-ca-file\"",
                      kAuthenticationConfigMapNamespace, kAuthenticationConfigMapName);
      } else if (auto r = storeCa(*clientCa, pem, "client-ca"); !r.ok()) {
        spdlog::error("{}", r.error().message());
      }
    }
    if (requestHeaderSource == Source::ConfigMap) {
      auto bundle = requestHeaderFrom(*data);
      if (!bundle.ok()) {
        spdlog::error("{}", bundle.error().message());
      } else {
        requestHeader->set(std::move(bundle).value());
      }
    }
  }

  void run() {
    std::unique_lock lock(mu);
    while (!cv.wait_for(lock, settings.refreshPeriod, [&] { return stopping; })) {
      lock.unlock();
      refresh();
      lock.lock();
    }
  }
};

DelegatingAuth::DelegatingAuth(std::shared_ptr<State> state) : state_(std::move(state)) {}

DelegatingAuth::~DelegatingAuth() {
  {
    std::lock_guard lock(state_->mu);
    state_->stopping = true;
  }
  state_->cv.notify_all();
  if (state_->refresher.joinable()) state_->refresher.join();
}

Result<std::unique_ptr<DelegatingAuth>> DelegatingAuth::create(const DelegatingAuthenticationOptions& authn,
                                                               const DelegatingAuthorizationOptions& authz,
                                                               const AuthApiFactory& factory,
                                                               DelegatingAuthSettings settings) {
  auto s = std::make_shared<State>();
  s->authnOptions = authn;
  s->settings = std::move(settings);
  using Source = State::Source;

  // ---- authentication (DelegatingAuthenticationOptions.ApplyTo) ----
  auto authnApi = factory(authn.remoteKubeconfig, "authentication");
  if (!authnApi.ok()) return authnApi.error().wrap("failed to get delegated authentication kubeconfig");
  s->authnApi = std::move(authnApi).value();

  if (!authn.clientCaFile.empty()) {
    auto loaded = State::loadCaFile(authn.clientCaFile, "client-ca-bundle");
    if (!loaded.ok()) return loaded.error().wrap("unable to load client CA provider");
    s->clientCa->set(std::move(loaded).value());
    s->clientCaSource = Source::File;
  } else if (!authn.skipLookup) {
    if (!s->authnApi) {
      spdlog::warn(
          "No authentication-kubeconfig provided in order to lookup client-ca-file in configmap/{} in {}, so "
          "client certificate authentication won't work.",
          kAuthenticationConfigMapName, kAuthenticationConfigMapNamespace);
    } else {
      s->clientCaSource = Source::ConfigMap;
    }
  }

  bool requestHeaderOn = false;
  if (!authn.requestHeader.clientCaFile.empty()) {
    auto loaded = State::loadCaFile(authn.requestHeader.clientCaFile, "request-header");
    if (!loaded.ok()) return loaded.error().wrap("unable to create request header authentication config");
    auto bundle = std::make_shared<RequestHeaderBundle>();
    bundle->ca = std::move(loaded).value();
    const RequestHeaderOptions& rh = authn.requestHeader;
    bundle->settings = {rh.usernameHeaders, rh.uidHeaders, rh.groupHeaders, rh.extraHeaderPrefixes, rh.allowedNames};
    s->requestHeader->set(std::move(bundle));
    s->requestHeaderSource = Source::File;
    requestHeaderOn = true;
  } else if (!authn.skipLookup) {
    if (!s->authnApi) {
      spdlog::warn(
          "No authentication-kubeconfig provided in order to lookup requestheader-client-ca-file in "
          "configmap/{} in {}, so request-header client certificate authentication won't work.",
          kAuthenticationConfigMapName, kAuthenticationConfigMapNamespace);
    } else {
      // RunOnce: NotFound is no configuration (yet); Forbidden and other errors fail the lookup.
      std::optional<std::string> lookupError;
      auto data = s->configMapData();
      if (!data.ok()) {
        if (data.error().code() == 403) {
          spdlog::warn(
              "Unable to get configmap/{} in {}.  Usually fixed by 'kubectl create rolebinding -n {} "
              "ROLEBINDING_NAME --role={} --serviceaccount=YOUR_NS:YOUR_SA'",
              kAuthenticationConfigMapName, kAuthenticationConfigMapNamespace, kAuthenticationConfigMapNamespace,
              kAuthenticationRoleName);
        }
        if (!data.error().isNotFound()) lookupError = data.error().message();
      } else if (auto bundle = s->requestHeaderFrom(*data); !bundle.ok()) {
        lookupError = bundle.error().message();
      } else {
        s->requestHeader->set(std::move(bundle).value());
      }
      if (lookupError) {
        if (!authn.tolerateLookupFailure) {
          return Error("unable to load configmap based request-header-client-ca-file: " + *lookupError);
        }
        spdlog::warn("Error looking up in-cluster authentication configuration: {}", *lookupError);
        spdlog::warn("Continuing without authentication configuration. This may treat all requests as anonymous.");
        spdlog::warn(
            "To require authentication configuration lookup to succeed, set "
            "--authentication-tolerate-lookup-failure=false");
      } else {
        s->requestHeaderSource = Source::ConfigMap;
        requestHeaderOn = true;
      }
    }
  }
  // The client CA from the ConfigMap is loaded now rather than on the first tick (upstream's controller
  // syncs before serving).
  if (s->clientCaSource == Source::ConfigMap) {
    const Source rhSource = s->requestHeaderSource;
    s->requestHeaderSource = Source::None;  // just looked up
    s->refresh();
    s->requestHeaderSource = rhSource;
  }

  std::vector<std::unique_ptr<Authenticator>> authenticators;
  s->requestHeaderOn = requestHeaderOn;
  if (requestHeaderOn) authenticators.push_back(newRequestHeaderAuthenticator(s->requestHeader));
  if (s->clientCaSource != Source::None) authenticators.push_back(newX509Authenticator(s->clientCa));
  if (s->authnApi) {
    std::shared_ptr<TokenAuthenticator> tokens =
        newCachedTokenAuthenticator(newWebhookTokenAuthenticator(*s->authnApi), authn.cacheTtl, authn.cacheTtl,
                                    s->settings.clock);
    authenticators.push_back(newBearerTokenAuthenticator(std::move(tokens)));
  }
  if (authenticators.empty()) {
    s->authenticator = newAnonymousAuthenticator();
  } else {
    std::vector<std::unique_ptr<Authenticator>> outer;
    outer.push_back(newAuthenticatedGroupAdder(newUnionAuthenticator(std::move(authenticators))));
    outer.push_back(newAnonymousAuthenticator());
    s->authenticator = newUnionAuthenticator(std::move(outer), /*failOnError=*/true);
  }

  // ---- authorization (DelegatingAuthorizationOptions.ApplyTo) ----
  auto authzApi = factory(authz.remoteKubeconfig, "authorization");
  if (!authzApi.ok()) return authzApi.error();
  s->authzApi = std::move(authzApi).value();
  std::vector<std::unique_ptr<Authorizer>> authorizers;
  if (!authz.alwaysAllowGroups.empty()) authorizers.push_back(newPrivilegedGroupsAuthorizer(authz.alwaysAllowGroups));
  if (!authz.alwaysAllowPaths.empty()) {
    auto paths = newPathAuthorizer(authz.alwaysAllowPaths);
    if (!paths.ok()) return paths.error();
    authorizers.push_back(std::move(paths).value());
  }
  if (!s->authzApi) {
    spdlog::warn("No authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won't work.");
  } else {
    authorizers.push_back(newWebhookAuthorizer(*s->authzApi, authz.allowCacheTtl, authz.denyCacheTtl, s->settings.clock));
  }
  s->authorizer = newUnionAuthorizer(std::move(authorizers));
  return std::unique_ptr<DelegatingAuth>(new DelegatingAuth(std::move(s)));
}

void DelegatingAuth::start() {
  if (state_->refresher.joinable()) return;
  if (state_->clientCaSource == State::Source::None && state_->requestHeaderSource == State::Source::None) return;
  State* s = state_.get();
  state_->refresher = std::thread([s] { s->run(); });
}

void DelegatingAuth::refresh() {
  state_->refresh();
}

std::shared_ptr<Authenticator> DelegatingAuth::authenticator() const {
  return state_->authenticator;
}

std::shared_ptr<Authorizer> DelegatingAuth::authorizer() const {
  return state_->authorizer;
}

bool DelegatingAuth::usesClientCertificates() const {
  return state_->clientCaSource != State::Source::None || state_->requestHeaderOn;
}

Filter DelegatingAuth::filter() const {
  return newAuthFilter(state_->authenticator, state_->authorizer);
}

}  // namespace ks::server::auth
