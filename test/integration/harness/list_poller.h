#pragma once
// What the integration tests' stand-ins for a missing component (a kubelet, an external provisioner) run
// on, and observers of what the scheduler writes: one list polled on its own thread and API connection.

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
  // Called with one item of the list, or (the second constructor) with the whole list body.
  using Visit = std::function<void(ApiClient& api, const nlohmann::json& item)>;

  // Polls GET `listPath` (e.g. "/api/v1/pods") every 100 ms until destroyed; `visit` sees each item.
  ListPoller(const std::string& kubeconfig, std::string listPath, Visit visit)
      : ListPoller(kubeconfig, std::move(listPath), std::chrono::milliseconds(100),
                   [visit = std::move(visit)](ApiClient& api, const nlohmann::json& list) {
                     for (const auto& item : list["items"]) visit(api, item);
                   }) {}

  // Polls every `interval`; `visitList` sees each successful (200) list body. Failed lists (e.g. while the
  // apiserver is down) are skipped.
  ListPoller(const std::string& kubeconfig, std::string listPath, std::chrono::milliseconds interval,
             Visit visitList)
      : listPath_(std::move(listPath)), visitList_(std::move(visitList)) {
    auto api = ApiClient::create(kubeconfig);
    if (!api.ok()) {
      ADD_FAILURE() << api.error().message();
      return;
    }
    api_ = std::move(api).value();
    thread_ = std::jthread([this, interval](std::stop_token stop) {
      while (!stop.stop_requested()) {
        auto list = api_->get(listPath_);
        if (list.ok() && list->status == 200 && list->body.contains("items")) visitList_(*api_, list->body);
        std::this_thread::sleep_for(interval);
      }
    });
  }

 private:
  const std::string listPath_;
  const Visit visitList_;
  std::unique_ptr<ApiClient> api_;
  std::jthread thread_;  // last: stopped before the members it uses go
};

}  // namespace ks::integration
