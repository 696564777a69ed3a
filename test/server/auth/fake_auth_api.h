#pragma once
// A fake kube-apiserver for the delegated authn/authz tests: TokenReview answers by token, SAR answers by
// (user, path, verb), the ConfigMap's data; records every call.

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/server/auth/auth.h"

namespace ks::server::auth::testing {

class FakeAuthApi final : public AuthApi {
 public:
  using json = nlohmann::json;

  // Tokens that authenticate, and as whom.
  void addToken(const std::string& token, const std::string& user, std::vector<std::string> groups = {}) {
    std::lock_guard lock(mu_);
    tokens_[token] = {user, std::move(groups)};
  }
  // (user, verb, path) allowed by the SAR.
  void allow(const std::string& user, const std::string& verb, const std::string& path) {
    std::lock_guard lock(mu_);
    allowed_.push_back(user + " " + verb + " " + path);
  }
  void setConfigMapData(json data) {
    std::lock_guard lock(mu_);
    configMap_ = std::move(data);
  }
  void failWith(int code) {
    std::lock_guard lock(mu_);
    failCode_ = code;
  }
  void setTokenReviewError(const std::string& e) {
    std::lock_guard lock(mu_);
    tokenReviewError_ = e;
  }

  int tokenReviews() const {
    std::lock_guard lock(mu_);
    return tokenReviews_;
  }
  int accessReviews() const {
    std::lock_guard lock(mu_);
    return accessReviews_;
  }
  json lastAccessReview() const {
    std::lock_guard lock(mu_);
    return lastSar_;
  }
  json lastTokenReview() const {
    std::lock_guard lock(mu_);
    return lastTr_;
  }

  client::ApiResult<std::string> createTokenReview(const std::string& body) override {
    std::lock_guard lock(mu_);
    ++tokenReviews_;
    if (failCode_ != 0) return client::ApiError(failCode_, "InternalError", "the server is on fire");
    lastTr_ = json::parse(body);
    json review = lastTr_;
    const std::string token = review["spec"]["token"];
    if (auto it = tokens_.find(token); it != tokens_.end()) {
      review["status"] = {{"authenticated", true},
                          {"user", {{"username", it->second.first}, {"uid", "uid-" + it->second.first},
                                    {"groups", it->second.second}}}};
    } else {
      review["status"] = {{"authenticated", false}};
      if (!tokenReviewError_.empty()) review["status"]["error"] = tokenReviewError_;
    }
    return review.dump();
  }

  client::ApiResult<std::string> createSubjectAccessReview(const std::string& body) override {
    std::lock_guard lock(mu_);
    ++accessReviews_;
    if (failCode_ != 0) return client::ApiError(failCode_, "InternalError", "the server is on fire");
    lastSar_ = json::parse(body);
    json review = lastSar_;
    const json& spec = review["spec"];
    const std::string key = spec.value("user", "") + " " + spec["nonResourceAttributes"].value("verb", "") + " " +
                            spec["nonResourceAttributes"].value("path", "");
    const bool ok = std::find(allowed_.begin(), allowed_.end(), key) != allowed_.end();
    review["status"] = {{"allowed", ok}};
    if (!ok) review["status"]["reason"] = "";
    return review.dump();
  }

  client::ApiResult<std::string> getConfigMap(const std::string& ns, const std::string& name) override {
    std::lock_guard lock(mu_);
    if (failCode_ != 0) return client::ApiError(failCode_, "InternalError", "the server is on fire");
    if (!configMap_) {
      return client::ApiError(404, "NotFound", "configmaps \"" + name + "\" not found");
    }
    return json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata", {{"namespace", ns}, {"name", name}}},
                {"data", *configMap_}}
        .dump();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> tokens_;
  std::vector<std::string> allowed_;
  std::optional<json> configMap_;
  int failCode_ = 0;
  std::string tokenReviewError_;
  int tokenReviews_ = 0;
  int accessReviews_ = 0;
  json lastSar_;
  json lastTr_;
};

}  // namespace ks::server::auth::testing
