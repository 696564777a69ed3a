#pragma once
// A plain JSON-over-HTTPS client for tests that make many small API calls (kubectl costs ~0.1 s of process
// start per call): one kept-alive connection, the credentials of a kubeconfig, no retries, no typing.
//
//   auto api = ks::integration::ApiClient::create(cp->kubeconfigPath());
//   auto r = (*api)->get("/api/v1/namespaces/default/pods/p");   // r->status == 404 when absent
//
// Paths are absolute API paths (with query); bodies are JSON. Thread-compatible (one thread at a time).

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/util/result.h"

namespace ks::integration {

class ApiClient {
 public:
  struct Response {
    int status = 0;
    nlohmann::json body;  // null when the body was empty or not JSON
  };

  static Result<std::unique_ptr<ApiClient>> create(const std::string& kubeconfigPath);
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  // Errors only on transport failures (no connection, TLS, timeout); any HTTP status is a Response.
  Result<Response> request(const std::string& method, const std::string& path,
                           const nlohmann::json* body = nullptr,
                           const std::string& contentType = "application/json");
  Result<Response> get(const std::string& path) { return request("GET", path); }
  Result<Response> post(const std::string& path, const nlohmann::json& body) {
    return request("POST", path, &body);
  }
  // JSON merge patch (RFC 7386), e.g. of ".../pods/p/status".
  Result<Response> patch(const std::string& path, const nlohmann::json& mergePatch) {
    return request("PATCH", path, &mergePatch, "application/merge-patch+json");
  }
  // DELETE with a DeleteOptions body, e.g. {"gracePeriodSeconds": 0}.
  Result<Response> del(const std::string& path, const nlohmann::json& options = nlohmann::json::object()) {
    return request("DELETE", path, &options);
  }

 private:
  class Impl;
  explicit ApiClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ks::integration
