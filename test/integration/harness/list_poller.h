#pragma once
// What the integration tests' stand-ins for a missing component (a kubelet, an external provisioner) run
// on: every 100 ms, on its own thread and API connection, `visit` is called for each item of one list.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test/integration/harness/api_client.h"

namespace ks::integration {

class ListPoller {
 public:
  using Visit = std::function<void(ApiClient& api, const nlohmann::json& item)>;

  // Polls GET `listPath` (e.g. "/api/v1/pods") until destroyed.
  ListPoller(const std::string& kubeconfig, std::string listPath, Visit visit)
      : listPath_(std::move(listPath)), visit_(std::move(visit)) {
    auto api = ApiClient::create(kubeconfig);
    if (!api.ok()) {
      ADD_FAILURE() << api.error().message();
      return;
    }
    api_ = std::move(api).value();
    thread_ = std::jthread([this](std::stop_token stop) {
      while (!stop.stop_requested()) {
        auto list = api_->get(listPath_);
        if (list.ok() && list->status == 200) {
          for (const auto& item : list->body["items"]) visit_(*api_, item);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }

 private:
  const std::string listPath_;
  const Visit visit_;
  std::unique_ptr<ApiClient> api_;
  std::jthread thread_;  // last: stopped before the members it uses go
};

}  // namespace ks::integration
