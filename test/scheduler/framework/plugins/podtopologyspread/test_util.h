#pragma once
// Shared by the PodTopologySpread test files: label selector builders (upstream st.MakeLabelSelector),
// expected-state helpers with upstream's critical-path normalisation, and a plugin environment over a
// fake snapshot and an informer factory (upstream plugintesting.SetupPluginWithInformers).

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/podtopologyspread/plugin.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::podtopologyspread::testutil {

using ks::testing::MakeNode;
using ks::testing::MakePod;

// st.MakeLabelSelector().
class LabelSelectorWrapper {
 public:
  LabelSelectorWrapper& label(std::string k, std::string v) {
    s_.matchLabels[std::move(k)] = std::move(v);
    return *this;
  }
  LabelSelectorWrapper& exists(std::string k) {
    s_.matchExpressions.push_back({std::move(k), "Exists", {}});
    return *this;
  }
  api::LabelSelector obj() const { return s_; }

 private:
  api::LabelSelector s_;
};
inline LabelSelectorWrapper makeLabelSelector() {
  return {};
}

inline std::optional<api::LabelSelector> fooSelector() {
  return makeLabelSelector().exists("foo").obj();
}
inline std::optional<api::LabelSelector> barSelector() {
  return makeLabelSelector().exists("bar").obj();
}
inline const std::optional<api::LabelSelector> kNilSelector = std::nullopt;
inline const std::optional<std::string> kIgnorePolicy = "Ignore";
inline const std::optional<std::string> kHonorPolicy = "Honor";
inline const std::string kDoNotScheduleS(kDoNotSchedule);
inline const std::string kScheduleAnywayS(kScheduleAnyway);
inline const std::string kHostname(kLabelHostname);
inline const std::string kZone(kLabelTopologyZone);

using Labels = std::map<std::string, std::string>;

// st.MakeNode().Name(name).Label(...).Taints(taints).
inline api::NodePtr nodeL(const std::string& name, const Labels& labels,
                          std::vector<api::Taint> taints = {}) {
  auto w = MakeNode().name(name);
  for (const auto& [k, v] : labels) w.label(k, v);
  if (!taints.empty()) w.taints(std::move(taints));
  return w.ptr();
}

// st.MakePod().Name(name).Namespace(ns).Node(node).Label(...).
inline api::PodPtr epod(const std::string& name, const std::string& node, const Labels& labels,
                        const std::string& ns = "") {
  auto w = MakePod().name(name).node(node);
  if (!ns.empty()) w.namespace_(ns);
  for (const auto& [k, v] : labels) w.label(k, v);
  return w.ptr();
}

inline const Labels kFoo = {{"foo", ""}};
inline const Labels kBar = {{"bar", ""}};
inline const Labels kFooBar = {{"foo", ""}, {"bar", ""}};

// v1.TaintNodeUnschedulable NoSchedule (upstream `taints`).
inline std::vector<api::Taint> unschedulableTaints() {
  return {api::Taint{"node.kubernetes.io/unschedulable", "", "NoSchedule", std::nullopt}};
}

// mustConvertLabelSelectorAsSelector.
inline api::Selector mustConvert(const std::optional<api::LabelSelector>& ls) {
  auto s = api::Selector::fromLabelSelector(ls);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message());
  return s.ok() ? std::move(s).value() : api::Selector::nothing();
}

// A parsed constraint as upstream's expectations spell it (defaults: minDomains 1, Honor, Ignore).
inline TopologySpreadConstraint tsc(int32_t maxSkew, std::string key, api::Selector selector,
                                    NodeInclusionPolicy affinity = NodeInclusionPolicy::Honor,
                                    NodeInclusionPolicy taints = NodeInclusionPolicy::Ignore) {
  TopologySpreadConstraint c;
  c.maxSkew = maxSkew;
  c.topologyKey = std::move(key);
  c.selector = std::move(selector);
  c.minDomains = 1;
  c.nodeAffinityPolicy = affinity;
  c.nodeTaintsPolicy = taints;
  return c;
}
inline constexpr NodeInclusionPolicy kHonor = NodeInclusionPolicy::Honor;
inline constexpr NodeInclusionPolicy kIgnore = NodeInclusionPolicy::Ignore;

// {{"zone1", 0}, {"zone2", 0}}; cp() is newCriticalPaths().
inline CriticalPaths cp(CriticalPath a = {}, CriticalPath b = {}) {
  return CriticalPaths{{std::move(a), std::move(b)}};
}

// The expected preFilterState.
struct WantPreFilterState {
  std::vector<TopologySpreadConstraint> constraints;
  std::vector<CriticalPaths> criticalPaths;
  std::vector<std::map<std::string, int>> tpValueToMatchNum;
};

// Upstream's comparer: paths with equal matchNum are compared with their topology values sorted.
inline CriticalPaths normalized(CriticalPaths p) {
  if (p.paths[0].matchNum == p.paths[1].matchNum && p.paths[0].topologyValue > p.paths[1].topologyValue) {
    std::swap(p.paths[0].topologyValue, p.paths[1].topologyValue);
  }
  return p;
}

inline std::string policyName(NodeInclusionPolicy p) {
  return p == NodeInclusionPolicy::Honor ? "Honor" : "Ignore";
}

inline std::string describe(const std::vector<TopologySpreadConstraint>& cs) {
  std::string out;
  for (const auto& c : cs) {
    out += "{maxSkew=" + std::to_string(c.maxSkew) + " key=" + c.topologyKey +
           " selector=" + (c.selector.isNothing() ? "<nothing>" : "[" + c.selector.toString() + "]") +
           " minDomains=" + std::to_string(c.minDomains) + " affinity=" + policyName(c.nodeAffinityPolicy) +
           " taints=" + policyName(c.nodeTaintsPolicy) + "} ";
  }
  return out;
}

inline std::string describe(const std::vector<CriticalPaths>& ps) {
  std::string out;
  for (const auto& p : ps) {
    out += "[{" + p.paths[0].topologyValue + "," + std::to_string(p.paths[0].matchNum) + "},{" +
           p.paths[1].topologyValue + "," + std::to_string(p.paths[1].matchNum) + "}] ";
  }
  return out;
}

template <typename Map>
std::string describeMaps(const std::vector<Map>& ms) {
  std::string out;
  for (const auto& m : ms) {
    out += "{";
    for (const auto& [k, v] : m) out += k + ":" + std::to_string(v) + " ";
    out += "} ";
  }
  return out;
}

// Compares a PreFilterState with the expectation (critical paths normalised as upstream).
inline void expectPreFilterState(const WantPreFilterState& want, const PreFilterState& got) {
  EXPECT_EQ(want.constraints, got.constraints())
      << "want " << describe(want.constraints) << "\n got " << describe(got.constraints());
  std::vector<CriticalPaths> wantPaths, gotPaths;
  for (const auto& p : want.criticalPaths) wantPaths.push_back(normalized(p));
  for (const auto& p : got.criticalPaths) gotPaths.push_back(normalized(p));
  EXPECT_EQ(wantPaths, gotPaths) << "want " << describe(wantPaths) << "\n got " << describe(gotPaths);
  std::vector<std::map<std::string, int>> gotCounts;
  for (const auto& m : got.tpValueToMatchNum) gotCounts.emplace_back(m.begin(), m.end());
  EXPECT_EQ(want.tpValueToMatchNum, gotCounts)
      << "want " << describeMaps(want.tpValueToMatchNum) << "\n got " << describeMaps(gotCounts);
}

// The objects an informer factory holds for default selectors (upstream's `objs`).
struct Objects {
  std::vector<api::Service> services;
  std::vector<api::ReplicationController> replicationControllers;
  std::vector<api::ReplicaSet> replicaSets;
  std::vector<api::StatefulSet> statefulSets;
};

inline api::Service service(std::map<std::string, std::string> selector, std::string ns = "",
                            std::string name = "") {
  api::Service s;
  s.metadata.namespace_ = std::move(ns);
  s.metadata.name = std::move(name);
  s.spec.selector = std::move(selector);
  return s;
}

inline api::ReplicaSet replicaSet(std::string ns, std::string name,
                                  std::optional<api::LabelSelector> selector) {
  api::ReplicaSet rs;
  rs.metadata.namespace_ = std::move(ns);
  rs.metadata.name = std::move(name);
  rs.spec.selector = std::move(selector);
  return rs;
}

// A snapshot of `pods` on `nodes` (cache.NewSnapshot), a FakeHandle over it and an informer factory
// whose stores hold `objs` (as upstream's informer stores fed by a fake clientset; the factory is not
// started, the plugin only reads the stores).
class PluginEnv {
 public:
  PluginEnv(const std::vector<api::PodPtr>& pods, const std::vector<api::NodePtr>& nodes,
            const Objects& objs = {})
      : lister_(plugintesting::FakeSharedLister::create(pods, nodes)) {
    handle_.setSnapshotSharedLister(lister_.get());
    handle_.setSharedInformerFactory(&factory_);
    for (const auto& o : objs.services)
      factory_.services().store().upsert(std::make_shared<const api::Service>(o));
    for (const auto& o : objs.replicationControllers) {
      factory_.replicationControllers().store().upsert(std::make_shared<const api::ReplicationController>(o));
    }
    for (const auto& o : objs.replicaSets) {
      factory_.replicaSets().store().upsert(std::make_shared<const api::ReplicaSet>(o));
    }
    for (const auto& o : objs.statefulSets) {
      factory_.statefulSets().store().upsert(std::make_shared<const api::StatefulSet>(o));
    }
  }

  // The plugin with `args`, or a test failure and null.
  std::unique_ptr<PodTopologySpread> plugin(const config::PodTopologySpreadArgs& args,
                                            const Features& features) {
    auto p = PodTopologySpread::create(args, handle_, features);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    return p.ok() ? std::move(p).value() : nullptr;
  }

  plugintesting::FakeSharedLister& lister() { return *lister_; }
  framework::NodeInfoPtr nodeInfo(const std::string& name) {
    auto ni = lister_->get(name);
    EXPECT_TRUE(ni.ok()) << name;
    return ni.ok() ? *ni : nullptr;
  }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_{client_};
  std::unique_ptr<plugintesting::FakeSharedLister> lister_;
  plugintesting::FakeHandle handle_;
};

inline config::PodTopologySpreadArgs listDefaulting(
    std::vector<api::TopologySpreadConstraint> constraints = {}) {
  config::PodTopologySpreadArgs a;
  a.defaultingType = "List";
  a.defaultConstraints = std::move(constraints);
  return a;
}

inline config::PodTopologySpreadArgs systemDefaulting() {
  config::PodTopologySpreadArgs a;
  a.defaultingType = "System";
  return a;
}

// {MaxSkew, TopologyKey, WhenUnsatisfiable} of a default constraint.
inline api::TopologySpreadConstraint defaultConstraint(int32_t maxSkew, std::string key, std::string when) {
  api::TopologySpreadConstraint c;
  c.maxSkew = maxSkew;
  c.topologyKey = std::move(key);
  c.whenUnsatisfiable = std::move(when);
  return c;
}

// Upstream feature.Features{} as the tests set them (both gates off unless the case enables them).
inline Features features(bool nodeInclusionPolicy, bool matchLabelKeys) {
  Features f;
  f.enableNodeInclusionPolicyInPodTopologySpread = nodeInclusionPolicy;
  f.enableMatchLabelKeysInPodTopologySpread = matchLabelKeys;
  return f;
}

}  // namespace ks::plugins::podtopologyspread::testutil
