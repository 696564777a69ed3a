#include "pkg/scheduler/framework/plugins/defaultbinder/default_binder.h"

#include "pkg/client/client.h"

namespace ks::plugins::defaultbinder {

Result<std::unique_ptr<framework::Plugin>> DefaultBinder::create(const config::PluginArgs* /*args*/,
                                                                 framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<DefaultBinder>(handle));
}

framework::Status DefaultBinder::bind(framework::CycleState& /*state*/, const framework::PodInfo& podInfo,
                                      const std::string& nodeName) {
  client::Client* c = handle_.client();
  if (c == nullptr) return framework::Status::error("DefaultBinder: no API client");
  const api::Pod& pod = podInfo.pod();
  api::Binding binding;
  binding.metadata.namespace_ = pod.metadata.namespace_;
  binding.metadata.name = pod.metadata.name;
  binding.metadata.uid = pod.metadata.uid;
  binding.target.kind = "Node";
  binding.target.name = nodeName;
  auto r = c->bind(binding);
  if (!r.ok()) return framework::Status::error(r.error().message());
  return framework::Status();
}

}  // namespace ks::plugins::defaultbinder
