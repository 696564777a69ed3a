#pragma once
// Tiny builders for the framework tests (the shared PodBuilder/NodeBuilder belong in test/support).

#include <memory>
#include <string>

#include "pkg/api/core.h"

namespace ks::framework::testing {

inline api::Quantity q(const std::string& s) {
  return api::Quantity::parse(s).value();
}

struct PodSpecBuilder {
  api::Pod pod;
  PodSpecBuilder(std::string name, std::string uid = {}) {
    pod.metadata.name = std::move(name);
    pod.metadata.namespace_ = "node_info_cache_test";
    pod.metadata.uid = uid.empty() ? pod.metadata.name : std::move(uid);
  }
  PodSpecBuilder& ns(std::string n) {
    pod.metadata.namespace_ = std::move(n);
    return *this;
  }
  PodSpecBuilder& container(const std::string& cpu, const std::string& mem,
                            std::vector<api::ContainerPort> ports = {}) {
    api::Container c;
    c.name = "c" + std::to_string(pod.spec.containers.size());
    if (!cpu.empty()) c.resources.requests["cpu"] = q(cpu);
    if (!mem.empty()) c.resources.requests["memory"] = q(mem);
    c.ports = std::move(ports);
    pod.spec.containers.push_back(std::move(c));
    return *this;
  }
  PodSpecBuilder& nodeName(std::string n) {
    pod.spec.nodeName = std::move(n);
    return *this;
  }
  PodSpecBuilder& priority(int32_t p) {
    pod.spec.priority = p;
    return *this;
  }
  PodSpecBuilder& pvc(std::string claim) {
    api::Volume v;
    v.name = "vol-" + claim;
    v.persistentVolumeClaim = api::PersistentVolumeClaimVolumeSource{std::move(claim), false};
    pod.spec.volumes.push_back(std::move(v));
    return *this;
  }
  api::PodPtr build() const { return std::make_shared<const api::Pod>(pod); }
};

inline api::ContainerPort hostPort(const std::string& ip, const std::string& protocol, int32_t port) {
  api::ContainerPort p;
  p.hostIP = ip;
  p.protocol = protocol;
  p.hostPort = port;
  return p;
}

inline api::NodePtr makeNode(const std::string& name, const std::string& cpu = "",
                             const std::string& mem = "", const std::string& pods = "") {
  api::Node n;
  n.metadata.name = name;
  if (!cpu.empty()) n.status.allocatable["cpu"] = q(cpu);
  if (!mem.empty()) n.status.allocatable["memory"] = q(mem);
  if (!pods.empty()) n.status.allocatable["pods"] = q(pods);
  return std::make_shared<const api::Node>(std::move(n));
}

}  // namespace ks::framework::testing
