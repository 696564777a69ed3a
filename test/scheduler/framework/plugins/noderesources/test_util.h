#pragma once
// Helpers shared by the noderesources test suites (upstream fit_test.go / test_util.go helpers).

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/plugins/noderesources/fit.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"

namespace ks::plugins::noderesources {

// One container's requests, as upstream's framework.Resource in newResourcePod.
struct R {
  R() = default;
  R(int64_t cpu, int64_t mem, int64_t eph = 0, std::map<std::string, int64_t> sc = {})
      : milliCPU(cpu), memory(mem), ephemeralStorage(eph), scalars(std::move(sc)) {}
  int64_t milliCPU = 0;
  int64_t memory = 0;
  int64_t ephemeralStorage = 0;
  std::map<std::string, int64_t> scalars;
};

inline api::ResourceList toList(const R& r) {
  api::ResourceList rl;
  rl["cpu"] = api::Quantity::fromMilli(r.milliCPU);
  rl["memory"] = api::Quantity::fromInt(r.memory, api::Quantity::Format::BinarySI);
  rl["pods"] = api::Quantity::fromInt(0, api::Quantity::Format::BinarySI);
  rl["ephemeral-storage"] = api::Quantity::fromInt(r.ephemeralStorage, api::Quantity::Format::BinarySI);
  for (const auto& [n, q] : r.scalars) rl[n] = api::Quantity::fromInt(q);
  return rl;
}

// newResourcePod: one container per usage, requesting cpu, memory, pods (0), ephemeral-storage and scalars.
inline api::Pod resourcePod(const std::vector<R>& usage) {
  api::Pod p;
  for (const auto& r : usage) {
    api::Container c;
    c.resources.requests = toList(r);
    p.spec.containers.push_back(std::move(c));
  }
  return p;
}

// newResourceInitPod: replaces the init containers.
inline api::Pod resourceInitPod(api::Pod p, const std::vector<R>& usage) {
  p.spec.initContainers = resourcePod(usage).spec.containers;
  return p;
}

// makeAllocatableResources(milliCPU, memory, pods, extended..., storage).
inline api::ResourceList makeResourceList(int64_t milliCPU, int64_t memory, int64_t pods,
                                          const std::map<std::string, int64_t>& scalars, int64_t storage) {
  api::ResourceList rl;
  rl["cpu"] = api::Quantity::fromMilli(milliCPU);
  rl["memory"] = api::Quantity::fromInt(memory, api::Quantity::Format::BinarySI);
  rl["pods"] = api::Quantity::fromInt(pods);
  rl["ephemeral-storage"] = api::Quantity::fromInt(storage, api::Quantity::Format::BinarySI);
  for (const auto& [n, q] : scalars) rl[n] = api::Quantity::fromInt(q);
  return rl;
}

// test_util.go makeNode: capacity = allocatable = cpu, memory and the given scalar resources.
inline api::NodePtr makeNode(const std::string& name, int64_t milliCPU, int64_t memory,
                             const std::map<std::string, int64_t>& scalars = {}) {
  api::Node n;
  n.metadata.name = name;
  api::ResourceList rl;
  for (const auto& [r, q] : scalars) rl[r] = api::Quantity::fromInt(q);
  rl["cpu"] = api::Quantity::fromMilli(milliCPU);
  rl["memory"] = api::Quantity::fromInt(memory, api::Quantity::Format::BinarySI);
  n.status.capacity = rl;
  n.status.allocatable = rl;
  return std::make_shared<const api::Node>(std::move(n));
}

inline const std::string kExtendedRes = "abc.com/xyz";

inline std::vector<config::ResourceSpec> defaultResources() {
  return {{"cpu", 1}, {"memory", 1}};
}
inline std::vector<config::ResourceSpec> extendedResourceSet() {
  return {{"cpu", 1}, {"memory", 1}, {kExtendedRes, 1}};
}

// Builds Fit from args over a snapshot of existingPods/nodes, optionally runs PreScore, scores every node
// (expecting status code `wantCode`) and returns the scores in node order.
inline std::vector<int64_t> runScore(const config::NodeResourcesFitArgs& args, const api::Pod& pod,
                                     const std::vector<api::NodePtr>& nodes,
                                     const std::vector<api::PodPtr>& existing, bool runPreScore,
                                     framework::Code wantCode) {
  auto lister = plugintesting::FakeSharedLister::create(existing, nodes);
  auto p = Fit::create(args);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  if (!p.ok()) return {};
  framework::CycleState state;
  auto pi = plugintesting::podInfo(pod);
  if (runPreScore) {
    auto infos = plugintesting::buildNodeInfos(nodes);
    EXPECT_TRUE((*p)->preScore(state, *pi, infos).isSuccess());
  }
  std::vector<int64_t> out;
  for (const auto& n : nodes) {
    auto ni = lister->get(n->metadata.name);
    EXPECT_TRUE(ni.ok());
    int64_t score = -1;
    auto status = (*p)->score(state, *pi, **ni, score);
    EXPECT_EQ(status.code(), wantCode) << status.toString();
    out.push_back(score);
  }
  return out;
}

}  // namespace ks::plugins::noderesources
