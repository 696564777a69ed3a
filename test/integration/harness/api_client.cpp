#include "test/integration/harness/api_client.h"

#include <string_view>
#include <utility>

#include "pkg/client/rest/config.h"
#include "pkg/client/rest/http_transport.h"
#include "pkg/client/rest/tls.h"

namespace ks::integration {

// The product's own transport (pkg/client/rest), without RestClient's typing, rate limit and retries.
class ApiClient::Impl {
 public:
  std::unique_ptr<client::rest::HttpTransport> transport;
  std::string bearerToken;
};

Result<std::unique_ptr<ApiClient>> ApiClient::create(const std::string& kubeconfigPath) {
  auto cfg = client::rest::loadKubeconfig(kubeconfigPath);
  if (!cfg.ok()) return cfg.error();
  auto tls = client::rest::TlsMaterial::fromPem(cfg->caPem, cfg->clientCertPem, cfg->clientKeyPem);
  if (!tls.ok()) return tls.error();
  client::rest::HttpTransport::Options options;
  options.server = cfg->server;
  options.tls = *tls;
  options.insecureSkipTlsVerify = cfg->insecureSkipTlsVerify;
  options.idleTimeout = std::chrono::seconds(60);
  auto transport = client::rest::HttpTransport::create(std::move(options));
  if (!transport.ok()) return transport.error().wrap("ApiClient");
  auto impl = std::make_unique<Impl>();
  impl->transport = std::move(*transport);
  impl->bearerToken = cfg->bearerToken;
  return std::unique_ptr<ApiClient>(new ApiClient(std::move(impl)));
}

ApiClient::ApiClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiClient::~ApiClient() = default;

Result<ApiClient::Response> ApiClient::request(const std::string& method, const std::string& path,
                                               const nlohmann::json* body, const std::string& contentType) {
  client::rest::HttpRequest req;
  req.method = method;
  req.target = path;
  req.headers.emplace_back("Accept", "application/json");
  if (!impl_->bearerToken.empty()) req.headers.emplace_back("Authorization", "Bearer " + impl_->bearerToken);
  std::string text;
  if (body != nullptr) {
    text = body->dump();
    req.body = &text;
    req.contentType = contentType;
  }
  Response out;
  std::string received;
  auto sent = impl_->transport->roundTrip(
      req, [&](const client::rest::HttpHead& head) { out.status = head.status; },
      [&](std::string_view piece) {
        received.append(piece);
        return true;
      });
  if (!sent.ok()) return Error(method + " " + path + ": " + sent.error().message);
  out.body = nlohmann::json::parse(received, nullptr, /*allow_exceptions=*/false);
  if (out.body.is_discarded()) out.body = nullptr;
  return out;
}

}  // namespace ks::integration
