// The in-tree plugins' SignPod (opportunistic batching): upstream TestFitSignPod,
// TestBalancedAllocationSignPod, TestPodAffinitySignature, TestPodTopoSignatures and TestImageSignature,
// plus the fragments of the other default plugins and whole signatures of the default profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/framework/signers.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins {
namespace {

using framework::Code;
using framework::SignFragment;
using testing::MakePod;

// A plugin of the in-tree registry over an empty snapshot and an informer factory (not started: signing
// reads neither).
class SignEnv {
 public:
  SignEnv() : factory_(client_) {
    lister_ = plugintesting::FakeSharedLister::create({}, {});
    handle_.setSnapshotSharedLister(lister_.get());
    handle_.setSharedInformerFactory(&factory_);
    handle_.setClient(&client_);
  }

  framework::SignPlugin& plugin(const std::string& name, const config::PluginArgs* args = nullptr) {
    auto p = registry_.factories().at(name)(args, handle_);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    plugins_.push_back(std::move(p).value());
    auto* sp = dynamic_cast<framework::SignPlugin*>(plugins_.back().get());
    EXPECT_NE(sp, nullptr) << name << " does not sign pods";
    return *sp;
  }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_;
  std::unique_ptr<plugintesting::FakeSharedLister> lister_;
  plugintesting::FakeHandle handle_;
  framework::runtime::Registry registry_ = newInTreeRegistry();
  std::vector<std::unique_ptr<framework::Plugin>> plugins_;
};

struct Signed {
  Code code = Code::Success;
  std::vector<SignFragment> fragments;
};

Signed sign(framework::SignPlugin& p, const api::Pod& pod) {
  Signed out;
  out.code = p.signPod(pod, out.fragments).code();
  return out;
}

std::vector<SignFragment> resources(const std::string& json) {
  return {{std::string(framework::kResourcesSignerName), json}};
}

// Upstream TestFitSignPod and TestBalancedAllocationSignPod without a DRA manager (the "disabled" cases;
// DRAExtendedResourceIsNotSignable has the "enabled" one).
TEST(SignPodTest, NodeResourcesFitAndBalancedAllocation) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"pod with CPU and memory requests", MakePod().req({{"cpu", "1000m"}, {"memory", "2000"}}).obj(),
       R"({"MilliCPU":1000,"Memory":2000,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":null})"},
      {"best-effort pod with no requests", MakePod().obj(),
       R"({"MilliCPU":0,"Memory":0,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":null})"},
      {"pod with multiple containers",
       MakePod().req({{"cpu", "500m"}, {"memory", "1000"}}).req({{"cpu", "1500m"}, {"memory", "3000"}}).obj(),
       R"({"MilliCPU":2000,"Memory":4000,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":null})"},
      {"DRA extended resource disabled",
       MakePod().req({{"cpu", "1000m"}, {"memory", "2000"}, {"deviceclass.example.com/gpu", "1"}}).obj(),
       R"({"MilliCPU":1000,"Memory":2000,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":{"deviceclass.example.com/gpu":1}})"},
  };
  SignEnv env;
  for (const char* plugin : {"NodeResourcesFit", "NodeResourcesBalancedAllocation"}) {
    framework::SignPlugin& p = env.plugin(plugin);
    for (const auto& c : cases) {
      SCOPED_TRACE(std::string(plugin) + ": " + c.name);
      Signed s = sign(p, c.pod);
      EXPECT_EQ(s.code, Code::Success);
      EXPECT_EQ(s.fragments, resources(c.want));
    }
  }
}

// Upstream TestFitSignPod / TestBalancedAllocationSignPod "DRA extended resource enabled - returns
// unschedulable": a request for an extended resource a DeviceClass maps makes the pod unsignable.
TEST(SignPodTest, DRAExtendedResourceIsNotSignable) {
  client::MemoryClient client;
  api::DeviceClass cls;
  cls.metadata.name = "device-class-name";
  cls.spec.extendedResourceName = "extended.resource.dra.io/something";
  ASSERT_TRUE(client.create(cls).ok());
  informer::SharedInformerFactory factory(client);
  dynamicresources::DefaultDRAManager manager(factory);
  factory.start();
  ASSERT_TRUE(factory.waitForCacheSync(std::chrono::seconds(30)));
  for (int i = 0; i < 1000 && manager.deviceClassResolver()->getDeviceClass(
                                  cls.spec.extendedResourceName.value()) == nullptr;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  plugintesting::FakeHandle handle;
  handle.setSharedInformerFactory(&factory);
  handle.setClient(&client);
  handle.setSharedDRAManager(&manager);
  const framework::runtime::Registry registry = newInTreeRegistry();
  const api::Pod pod =
      MakePod()
          .req({{"cpu", "1000m"}, {"memory", "2000"}, {"extended.resource.dra.io/something", "1"}})
          .obj();
  for (const char* name : {"NodeResourcesFit", "NodeResourcesBalancedAllocation"}) {
    SCOPED_TRACE(name);
    auto p = registry.factories().at(name)(nullptr, handle);
    ASSERT_TRUE(p.ok()) << p.error().message();
    auto* sp = dynamic_cast<framework::SignPlugin*>(p->get());
    ASSERT_NE(sp, nullptr);
    Signed s = sign(*sp, pod);
    EXPECT_EQ(s.code, Code::Unschedulable);
    EXPECT_TRUE(s.fragments.empty());
    // Without the feature the request is signed as any other.
    Features off;
    off.enableDRAExtendedResource = false;
    auto q = newInTreeRegistry(off).factories().at(name)(nullptr, handle);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(sign(*dynamic_cast<framework::SignPlugin*>(q->get()), pod).code, Code::Success);
  }
  factory.stop();
}

// Upstream TestPodAffinitySignature.
TEST(SignPodTest, InterPodAffinity) {
  SignEnv env;
  config::InterPodAffinityArgs defaults;
  config::InterPodAffinityArgs ignore;
  ignore.ignorePreferredTermsOfExistingPods = true;
  const api::Pod labelled = MakePod().label("foo", "bar").obj();

  Signed s = sign(env.plugin("InterPodAffinity", &defaults), labelled);
  EXPECT_EQ(s.code, Code::Success);
  EXPECT_EQ(s.fragments,
            (std::vector<SignFragment>{{std::string(framework::kLabelsSignerName), R"({"foo":"bar"})"}}));

  s = sign(env.plugin("InterPodAffinity", &ignore), labelled);
  EXPECT_EQ(s.code, Code::Success);
  EXPECT_TRUE(s.fragments.empty());

  // Any pod affinity, even an empty term, makes the pod unsignable.
  api::Pod withAffinity = labelled;
  withAffinity.spec.affinity.emplace().podAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution =
      {api::PodAffinityTerm{}};
  s = sign(env.plugin("InterPodAffinity", &defaults), withAffinity);
  EXPECT_EQ(s.code, Code::Unschedulable);
  EXPECT_TRUE(s.fragments.empty());
  api::Pod withAntiAffinity = labelled;
  withAntiAffinity.spec.affinity.emplace().podAntiAffinity.emplace();
  EXPECT_EQ(sign(env.plugin("InterPodAffinity", &defaults), withAntiAffinity).code, Code::Unschedulable);
}

// Upstream TestPodTopoSignatures: System defaulting (the default) makes every pod unsignable.
TEST(SignPodTest, PodTopologySpread) {
  SignEnv env;
  config::PodTopologySpreadArgs system;
  config::PodTopologySpreadArgs list;
  list.defaultingType = "List";

  api::Pod withConstraints = MakePod().obj();
  api::TopologySpreadConstraint c;
  c.topologyKey = "test";
  withConstraints.spec.topologySpreadConstraints = {c};
  EXPECT_EQ(sign(env.plugin("PodTopologySpread", &system), withConstraints).code, Code::Unschedulable);
  EXPECT_EQ(sign(env.plugin("PodTopologySpread", &list), withConstraints).code, Code::Unschedulable);

  Signed s = sign(env.plugin("PodTopologySpread", &system), MakePod().obj());
  EXPECT_EQ(s.code, Code::Unschedulable);
  s = sign(env.plugin("PodTopologySpread", &list), MakePod().obj());
  EXPECT_EQ(s.code, Code::Success);
  EXPECT_TRUE(s.fragments.empty());
}

// Upstream TestImageSignature.
TEST(SignPodTest, ImageLocality) {
  SignEnv env;
  framework::SignPlugin& p = env.plugin("ImageLocality");
  const std::string key(framework::kImageNamesSignerName);
  EXPECT_EQ(sign(p, api::Pod{}).fragments, (std::vector<SignFragment>{{key, "[]"}}));
  api::Pod one;
  one.spec.containers = {api::Container{.name = "c", .image = "myimage"}};
  EXPECT_EQ(sign(p, one).fragments, (std::vector<SignFragment>{{key, R"(["myimage:latest"])"}}));
  api::Pod two;
  two.spec.containers = {api::Container{.name = "c", .image = "zmyimage"},
                         api::Container{.name = "c2", .image = "myimage"}};
  EXPECT_EQ(sign(p, two).fragments,
            (std::vector<SignFragment>{{key, R"(["myimage:latest","zmyimage:latest"])"}}));
  // Init containers count, duplicates once.
  api::Pod withInit = two;
  withInit.spec.initContainers = {api::Container{.name = "i", .image = "myimage:latest"}};
  EXPECT_EQ(sign(p, withInit).fragments, sign(p, two).fragments);
}

// The other default plugins' fragments.
TEST(SignPodTest, OtherDefaultPlugins) {
  SignEnv env;
  api::Pod pod = MakePod()
                     .nodeSelector({{"zone", "a"}})
                     .toleration(api::Toleration{"k", "Exists", "", "NoSchedule", std::nullopt})
                     .hostPort(8080)
                     .obj();
  pod.spec.nodeName = "n1";
  api::Volume claim;
  claim.name = "data";
  claim.persistentVolumeClaim = api::PersistentVolumeClaimVolumeSource{"claim", false};
  pod.spec.volumes = {claim};

  auto fragments = [&](const std::string& plugin) {
    Signed s = sign(env.plugin(plugin), pod);
    EXPECT_EQ(s.code, Code::Success) << plugin;
    return s.fragments;
  };
  const std::string tolerations = R"([{"key":"k","operator":"Exists","effect":"NoSchedule"}])";
  EXPECT_EQ(fragments("NodeName"), (std::vector<SignFragment>{{"v1.Pod.Spec.NodeName", R"("n1")"}}));
  EXPECT_EQ(fragments("NodeUnschedulable"),
            (std::vector<SignFragment>{{"v1.Pod.Spec.Tolerations", tolerations}}));
  EXPECT_EQ(fragments("TaintToleration"),
            (std::vector<SignFragment>{{"v1.Pod.Spec.Tolerations", tolerations}}));
  EXPECT_EQ(fragments("NodeAffinity"),
            (std::vector<SignFragment>{{"v1.Pod.Spec.Affinity.NodeAffinity", "null"},
                                       {"v1.Pod.Spec.Affinity.NodeSelector", R"({"zone":"a"})"}}));
  EXPECT_EQ(fragments("NodePorts"), (std::vector<SignFragment>{{"v1.Pod.Spec.HostPorts()", "[8080]"}}));
  const std::vector<SignFragment> volumes = {
      {"v1.Pod.Spec.Volumes.NonSyntheticSources()",
       R"(["{\"persistentVolumeClaim\":{\"claimName\":\"claim\"}}"])"}};
  for (const char* p : {"VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"}) {
    EXPECT_EQ(fragments(p), volumes) << p;
  }
  EXPECT_EQ(fragments("DynamicResources"), std::vector<SignFragment>{});
  // No feature required.
  EXPECT_EQ(fragments("NodeDeclaredFeatures").size(), 1u);

  api::Pod withClaim = pod;
  withClaim.spec.resourceClaims = {api::PodResourceClaim{"gpu", std::string("claim"), std::nullopt}};
  EXPECT_EQ(sign(env.plugin("DynamicResources"), withClaim).code, Code::Unschedulable);
}

// Whole signatures in the default profile and in one whose PodTopologySpread has no default constraints.
class ProfileSignatureTest : public ::testing::Test {
 protected:
  std::unique_ptr<framework::runtime::Framework> profile(bool listDefaulting) {
    config::KubeSchedulerProfile p;
    p.schedulerName = "default-scheduler";
    p.plugins = config::getDefaultPlugins();
    std::erase_if(p.plugins.multiPoint.enabled, [](const config::Plugin& pl) {
      const auto& missing = notYetImplementedPlugins();
      return std::find(missing.begin(), missing.end(), pl.name) != missing.end();
    });
    if (listDefaulting) {
      auto args = std::make_shared<config::PodTopologySpreadArgs>();
      args->defaultingType = "List";
      p.pluginConfig.push_back({"PodTopologySpread", args});
    }
    framework::runtime::FrameworkOptions o;
    o.snapshotSharedLister = lister_.get();
    o.informerFactory = &factory_;
    o.client = &client_;
    auto f = framework::runtime::Framework::create(newInTreeRegistry(), p, std::move(o));
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message());
    return f.ok() ? std::move(f).value() : nullptr;
  }

  client::MemoryClient client_;
  informer::SharedInformerFactory factory_{client_};
  std::unique_ptr<plugintesting::FakeSharedLister> lister_ = plugintesting::FakeSharedLister::create({}, {});
};

TEST_F(ProfileSignatureTest, DefaultProfileSignsNoPod) {
  auto fw = profile(false);
  ASSERT_TRUE(fw);
  EXPECT_TRUE(fw->signaturesEnabled());
  EXPECT_EQ(fw->signPod(MakePod().name("p").req({{"cpu", "1"}}).obj()), nullptr);
}

TEST_F(ProfileSignatureTest, ListDefaultingSignsPlainPods) {
  auto fw = profile(true);
  ASSERT_TRUE(fw);
  const api::Pod a = MakePod().name("a").uid("a").label("app", "x").req({{"cpu", "1"}}).obj();
  const api::Pod b = MakePod().name("b").uid("b").label("app", "x").req({{"cpu", "1"}}).obj();
  framework::PodSignature sa = fw->signPod(a);
  ASSERT_NE(sa, nullptr);
  EXPECT_TRUE(framework::sameSignature(sa, fw->signPod(b)));
  // Differences that matter.
  EXPECT_FALSE(framework::sameSignature(
      sa, fw->signPod(MakePod().name("c").label("app", "y").req({{"cpu", "1"}}).obj())));
  EXPECT_FALSE(framework::sameSignature(
      sa, fw->signPod(MakePod().name("d").label("app", "x").req({{"cpu", "2"}}).obj())));
  // Pods that can't be signed.
  api::Pod spread = a;
  api::TopologySpreadConstraint c;
  c.topologyKey = "zone";
  spread.spec.topologySpreadConstraints = {c};
  EXPECT_EQ(fw->signPod(spread), nullptr);
  api::Pod antiAffinity = a;
  antiAffinity.spec.affinity.emplace().podAntiAffinity.emplace();
  EXPECT_EQ(fw->signPod(antiAffinity), nullptr);
  api::Pod withClaim = a;
  withClaim.spec.resourceClaims = {api::PodResourceClaim{"gpu", std::string("claim"), std::nullopt}};
  EXPECT_EQ(fw->signPod(withClaim), nullptr);
}

}  // namespace
}  // namespace ks::plugins
