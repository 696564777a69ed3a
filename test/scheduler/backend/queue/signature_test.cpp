// Pod signatures in the scheduling queue (opportunistic batching): upstream scheduling_queue_test.go's
// TestPriorityQueue_signPod, TestPriorityQueue_AddComputesSignature and
// TestPriorityQueue_UpdateRecomputesSignature (v1.37).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "pkg/scheduler/backend/queue/scheduling_queue.h"
#include "test/scheduler/framework/fake_clock.h"
#include "test/support/wrappers.h"

namespace ks::queue {
namespace {

using framework::PodSignature;
using framework::QueuedPodInfo;
using ks::testing::MakePod;

bool fifo(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  return a.timestamp < b.timestamp;
}

using Signer = std::function<PodSignature(const api::Pod&)>;

PodSignature sig(const std::string& s) {
  return std::make_shared<const std::string>(s);
}

// A queue with one profile, "default-scheduler", whose signer is `signer` (none when empty).
std::unique_ptr<PriorityQueue> makeQueue(framework::testing::FakeClock& clock, Signer signer,
                                         bool batching = true) {
  QueueOptions o;
  o.clock = &clock;
  o.enableOpportunisticBatching = batching;
  ProfileHooks hooks;
  hooks.signPod = std::move(signer);
  std::map<std::string, ProfileHooks> profiles;
  profiles.emplace("default-scheduler", std::move(hooks));
  return std::make_unique<PriorityQueue>(fifo, std::move(profiles), o);
}

std::string signatureOf(const PriorityQueue& q, const std::string& key) {
  auto p = q.getForTest(key);
  EXPECT_TRUE(p.has_value()) << key;
  if (!p || p->podSignature == nullptr) return "<nil>";
  return *p->podSignature;
}

// Upstream TestPriorityQueue_signPod: the signature a newly added pod gets.
TEST(QueueSignatureTest, SignPod) {
  const Signer constant = [](const api::Pod&) { return sig("sig-1"); };
  struct Case {
    std::string name;
    bool batching;
    Signer signer;
    std::string schedulerName;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"Feature gate disabled", false, constant, "default-scheduler", "<nil>"},
      {"No signers configured", true, {}, "default-scheduler", "<nil>"},
      {"Signer not found for scheduler", true, constant, "custom-scheduler", "<nil>"},
      {"Successful signature computation", true, constant, "default-scheduler", "sig-1"},
      {"Signer returns nil (unsignable pod)", true, [](const api::Pod&) { return PodSignature(); },
       "default-scheduler", "<nil>"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    framework::testing::FakeClock clock;
    auto q = makeQueue(clock, c.signer, c.batching);
    q->add(MakePod().name("pod1").namespace_("ns").uid("u1").schedulerName(c.schedulerName).ptr());
    EXPECT_EQ(signatureOf(*q, "ns/pod1"), c.want);
  }
}

const Signer kByLabel = [](const api::Pod& pod) {
  auto it = pod.metadata.labels.find("key");
  return sig(it != pod.metadata.labels.end() ? "sig-" + it->second : "sig-default");
};

// Upstream TestPriorityQueue_AddComputesSignature.
TEST(QueueSignatureTest, AddComputesSignature) {
  framework::testing::FakeClock clock;
  auto q = makeQueue(clock, kByLabel);
  q->add(MakePod().name("pod1").namespace_("ns").uid("u1").label("key", "value1").ptr());
  EXPECT_EQ(signatureOf(*q, "ns/pod1"), "sig-value1");
}

// Upstream TestPriorityQueue_UpdateRecomputesSignature: wherever the pod waits, an update signs it again.
TEST(QueueSignatureTest, UpdateRecomputesSignature) {
  const api::PodPtr pod1 = MakePod().name("pod1").namespace_("ns").uid("u1").label("key", "value1").ptr();
  const api::PodPtr pod2 = MakePod().name("pod1").namespace_("ns").uid("u1").label("key", "value2").ptr();
  struct Case {
    std::string name;
    std::function<void(PriorityQueue&)> prepare;
    QueueName where;
  };
  const std::vector<Case> cases = {
      {"pod in activeQ", [&](PriorityQueue& q) { q.add(pod1); }, QueueName::ActiveQ},
      {"pod in backoffQ",
       [&](PriorityQueue& q) {
         q.add(pod1);
         const int64_t cycle = q.schedulingCycle();
         auto p = q.pop();
         ASSERT_TRUE(p.has_value());
         ASSERT_TRUE(q.addUnschedulableIfNotPresent(*p, cycle + 1).ok());  // an error: backoffQ
       },
       QueueName::BackoffQ},
      {"pod in unschedulableEntities",
       [&](PriorityQueue& q) {
         q.add(pod1);
         const int64_t cycle = q.schedulingCycle();
         auto p = q.pop();
         ASSERT_TRUE(p.has_value());
         p->unschedulablePlugins = {"fooPlugin"};
         ASSERT_TRUE(q.addUnschedulableIfNotPresent(*p, cycle + 1).ok());
       },
       QueueName::UnschedulablePods},
      {"pod not in any queue", {}, QueueName::ActiveQ},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    framework::testing::FakeClock clock;
    auto q = makeQueue(clock, kByLabel);
    if (c.prepare) c.prepare(*q);
    q->update(pod1, pod2);
    EXPECT_EQ(q->whereIs("ns/pod1"), c.where);
    EXPECT_EQ(signatureOf(*q, "ns/pod1"), "sig-value2");
  }
}

// A pod updated while it is being scheduled keeps the signature it was popped with (upstream records the
// event only); the failure handler requeues it with that signature.
TEST(QueueSignatureTest, InFlightUpdateKeepsSignature) {
  framework::testing::FakeClock clock;
  auto q = makeQueue(clock, kByLabel);
  const api::PodPtr pod1 = MakePod().name("pod1").namespace_("ns").uid("u1").label("key", "value1").ptr();
  q->add(pod1);
  auto p = q->pop();
  ASSERT_TRUE(p.has_value());
  ASSERT_NE(p->podSignature, nullptr);
  EXPECT_EQ(*p->podSignature, "sig-value1");
  q->update(pod1, MakePod().name("pod1").namespace_("ns").uid("u1").label("key", "value2").ptr());
  EXPECT_EQ(q->whereIs("ns/pod1"), QueueName::InFlight);
}

}  // namespace
}  // namespace ks::queue
