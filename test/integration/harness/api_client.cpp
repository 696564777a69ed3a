#include "test/integration/harness/api_client.h"

#include <cpprest/http_client.h>

#include <stdexcept>
#include <utility>

#include "pkg/client/rest/config.h"
#include "pkg/client/rest/rest_client.h"
#include "pkg/client/rest/tls.h"

namespace ks::integration {

namespace http = web::http;

class ApiClient::Impl {
 public:
  Impl(const std::string& server, http::client::http_client_config cfg) : client_(server, std::move(cfg)) {}
  http::client::http_client client_;
};

Result<std::unique_ptr<ApiClient>> ApiClient::create(const std::string& kubeconfigPath) {
  auto cfg = client::rest::loadKubeconfig(kubeconfigPath);
  if (!cfg.ok()) return cfg.error();
  auto tls = client::rest::TlsMaterial::fromPem(cfg->caPem, cfg->clientCertPem, cfg->clientKeyPem);
  if (!tls.ok()) return tls.error();
  http::client::http_client_config hc;
  hc.set_timeout(std::chrono::seconds(60));
  hc.set_ssl_context_callback([material = *tls](boost::asio::ssl::context& ctx) {
    if (!material->applyTo(ctx.native_handle())) throw std::runtime_error("cannot install the TLS material");
  });
  try {
    return std::unique_ptr<ApiClient>(new ApiClient(std::make_unique<Impl>(cfg->server, std::move(hc))));
  } catch (const std::exception& e) {
    return Error(std::string("ApiClient: ") + e.what());
  }
}

ApiClient::ApiClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiClient::~ApiClient() = default;

Result<ApiClient::Response> ApiClient::request(const std::string& method, const std::string& path,
                                               const nlohmann::json* body, const std::string& contentType) {
  try {
    http::http_request req(method);
    req.set_request_uri(path);
    req.headers().add("Accept", "application/json");
    if (body != nullptr) req.set_body(body->dump(), contentType);
    http::http_response resp = impl_->client_.request(req).get();
    Response out;
    out.status = resp.status_code();
    const std::string text = resp.extract_utf8string(true).get();
    out.body = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (out.body.is_discarded()) out.body = nullptr;
    return out;
  } catch (const std::exception& e) {
    return Error(method + " " + path + ": " + e.what());
  }
}

}  // namespace ks::integration
