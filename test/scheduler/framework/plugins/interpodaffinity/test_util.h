#pragma once
// Shared by the InterPodAffinity test files: upstream's plugintesting.SetupPluginWithInformers (the
// plugin over a snapshot, with a started informer factory serving namespaces), the namespaces of
// scoring_test.go, and small builders for the test tables.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/interpodaffinity/plugin.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::interpodaffinity::testutil {

using Labels = std::map<std::string, std::string>;

inline api::Namespace makeNamespace(std::string name, Labels labels = {}) {
  api::Namespace ns;
  ns.metadata.name = std::move(name);
  ns.metadata.labels = std::move(labels);
  return ns;
}

// scoring_test.go's `namespaces`.
inline std::vector<api::Namespace> teamNamespaces() {
  const Labels t1{{"team", "team1"}};
  const Labels t2{{"team", "team2"}};
  return {makeNamespace("subteam1.team1", t1), makeNamespace("subteam2.team1", t1),
          makeNamespace("subteam1.team2", t2), makeNamespace("subteam2.team2", t2)};
}

inline api::NodePtr makeNode(std::string name, Labels labels) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = std::move(name);
  n->metadata.labels = std::move(labels);
  return n;
}

// A pod with only labels, namespace and nodeName set (the tables' &v1.Pod{...} literals).
inline api::PodPtr makePod(std::string ns, std::string nodeName, Labels labels,
                           std::optional<api::Affinity> affinity = std::nullopt) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.namespace_ = std::move(ns);
  p->metadata.labels = std::move(labels);
  p->spec.nodeName = std::move(nodeName);
  p->spec.affinity = std::move(affinity);
  return p;
}

inline api::LabelSelectorRequirement req(std::string key, std::string op,
                                         std::vector<std::string> values = {}) {
  return api::LabelSelectorRequirement{std::move(key), std::move(op), std::move(values)};
}

inline api::LabelSelector exprs(std::vector<api::LabelSelectorRequirement> e) {
  api::LabelSelector s;
  s.matchExpressions = std::move(e);
  return s;
}

// A term with a label selector of matchExpressions.
inline api::PodAffinityTerm term(std::vector<api::LabelSelectorRequirement> e, std::string topologyKey,
                                 std::vector<std::string> namespaces = {},
                                 std::optional<api::LabelSelector> namespaceSelector = std::nullopt) {
  api::PodAffinityTerm t;
  t.labelSelector = exprs(std::move(e));
  t.topologyKey = std::move(topologyKey);
  t.namespaces = std::move(namespaces);
  t.namespaceSelector = std::move(namespaceSelector);
  return t;
}

// st.PodAffinityNotIn / PodAntiAffinityNotIn (required terms).
inline ks::testing::PodWrapper& podAffinityNotIn(ks::testing::PodWrapper& w, std::string key,
                                                 std::string topologyKey, std::vector<std::string> values) {
  return w.podAffinity(std::move(topologyKey), exprs({req(std::move(key), "NotIn", std::move(values))}));
}
inline ks::testing::PodWrapper& podAntiAffinityNotIn(ks::testing::PodWrapper& w, std::string key,
                                                     std::string topologyKey,
                                                     std::vector<std::string> values) {
  return w.podAntiAffinity(std::move(topologyKey), exprs({req(std::move(key), "NotIn", std::move(values))}));
}

// The plugin over `lister` with args, its handle and informers serving `namespaces` (upstream
// SetupPluginWithInformers: the informers are started and synced before the plugin is used).
class PluginEnv {
 public:
  PluginEnv(const config::InterPodAffinityArgs& args, std::unique_ptr<plugintesting::FakeSharedLister> lister,
            const std::vector<api::Namespace>& namespaces = {})
      : factory_(client_), lister_(std::move(lister)) {
    for (const auto& ns : namespaces) {
      auto created = client_.create(ns);
      EXPECT_TRUE(created.ok());
    }
    handle_.setSnapshotSharedLister(lister_.get());
    handle_.setSharedInformerFactory(&factory_);
    auto p = InterPodAffinity::create(&args, handle_);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    if (p.ok()) {
      owner_ = std::move(p).value();
      plugin_ = dynamic_cast<InterPodAffinity*>(owner_.get());
    }
    factory_.start();
    EXPECT_TRUE(factory_.waitForCacheSync(std::chrono::seconds(10)));
  }
  ~PluginEnv() {
    owner_.reset();
    factory_.stop();
  }
  PluginEnv(const PluginEnv&) = delete;
  PluginEnv& operator=(const PluginEnv&) = delete;

  InterPodAffinity& plugin() { return *plugin_; }
  const plugintesting::FakeSharedLister& lister() const { return *lister_; }
  framework::NodeInfoPtr nodeInfo(const std::string& name) const {
    auto ni = lister_->get(name);
    EXPECT_TRUE(ni.ok()) << name;
    return ni.ok() ? *ni : nullptr;
  }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_;
  std::unique_ptr<plugintesting::FakeSharedLister> lister_;
  plugintesting::FakeHandle handle_;
  std::unique_ptr<framework::Plugin> owner_;
  InterPodAffinity* plugin_ = nullptr;
};

inline config::InterPodAffinityArgs argsWith(int32_t hardPodAffinityWeight,
                                             bool ignorePreferredTermsOfExistingPods = false) {
  config::InterPodAffinityArgs a;
  a.hardPodAffinityWeight = hardPodAffinityWeight;
  a.ignorePreferredTermsOfExistingPods = ignorePreferredTermsOfExistingPods;
  return a;
}

inline std::string describe(const framework::Status& s) {
  return s.isSuccess() && s.reasons().empty() ? "Success" : s.toString();
}

}  // namespace ks::plugins::interpodaffinity::testutil
