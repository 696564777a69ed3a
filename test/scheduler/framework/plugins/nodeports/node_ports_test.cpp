// Ports upstream plugins/nodeports/node_ports_test.go.
#include <gtest/gtest.h>

#include <sstream>

#include "pkg/scheduler/framework/plugins/nodeports/node_ports.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::nodeports {
namespace {

using framework::EventObject;
using framework::QueueingHint;
using ks::testing::MakePod;

// newPod("m1", "UDP/127.0.0.1/8080", ...) as upstream's helper: "<protocol>/<hostIP>/<hostPort>".
api::PodPtr newPod(const std::string& host, const std::vector<std::string>& hostPortInfos) {
  std::vector<api::ContainerPort> ports;
  for (const auto& info : hostPortInfos) {
    std::stringstream ss(info);
    std::string protocol, ip, port;
    std::getline(ss, protocol, '/');
    std::getline(ss, ip, '/');
    std::getline(ss, port, '/');
    api::ContainerPort p;
    p.protocol = protocol;
    p.hostIP = ip;
    p.hostPort = std::stoi(port);
    ports.push_back(p);
  }
  return MakePod().node(host).containerPort(ports).ptr();
}

TEST(NodePortsTest, PreFilterAndFilter) {
  const framework::Status conflict(framework::Code::Unschedulable,
                                   "node(s) didn't have free ports for the requested pod ports");
  struct Case {
    std::string name;
    api::PodPtr pod;
    std::vector<api::PodPtr> nodePods;
    framework::Status wantPreFilter;
    framework::Status wantFilter;
  };
  const std::vector<Case> cases = {
      {"skip filter", std::make_shared<const api::Pod>(), {}, framework::Status(framework::Code::Skip), {}},
      {"other port", newPod("m1", {"UDP/127.0.0.1/8080"}), {newPod("m1", {"UDP/127.0.0.1/9090"})}, {}, {}},
      {"same udp port",
       newPod("m1", {"UDP/127.0.0.1/8080"}),
       {newPod("m1", {"UDP/127.0.0.1/8080"})},
       {},
       conflict},
      {"same tcp port",
       newPod("m1", {"TCP/127.0.0.1/8080"}),
       {newPod("m1", {"TCP/127.0.0.1/8080"})},
       {},
       conflict},
      {"different host ip",
       newPod("m1", {"TCP/127.0.0.1/8080"}),
       {newPod("m1", {"TCP/127.0.0.2/8080"})},
       {},
       {}},
      {"different protocol",
       newPod("m1", {"UDP/127.0.0.1/8080"}),
       {newPod("m1", {"TCP/127.0.0.1/8080"})},
       {},
       {}},
      {"second udp port conflict",
       newPod("m1", {"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"}),
       {newPod("m1", {"UDP/127.0.0.1/8080"})},
       {},
       conflict},
      {"first tcp port conflict",
       newPod("m1", {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"}),
       {newPod("m1", {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"})},
       {},
       conflict},
      {"first tcp port conflict due to 0.0.0.0 hostIP",
       newPod("m1", {"TCP/0.0.0.0/8001"}),
       {newPod("m1", {"TCP/127.0.0.1/8001"})},
       {},
       conflict},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       newPod("m1", {"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"}),
       {newPod("m1", {"TCP/127.0.0.1/8001"})},
       {},
       conflict},
      {"second tcp port conflict to 0.0.0.0 hostIP",
       newPod("m1", {"TCP/127.0.0.1/8001"}),
       {newPod("m1", {"TCP/0.0.0.0/8001"})},
       {},
       conflict},
      {"second different protocol",
       newPod("m1", {"UDP/127.0.0.1/8001"}),
       {newPod("m1", {"TCP/0.0.0.0/8001"})},
       {},
       {}},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP",
       newPod("m1", {"UDP/127.0.0.1/8001"}),
       {newPod("m1", {"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"})},
       {},
       conflict},
      // Sidecar (restartable init container) host ports count, as GetHostPorts in v1.34.
      {"sidecar host port conflict",
       [] {
         api::Pod p;
         api::Container c;
         c.restartPolicy = "Always";
         api::ContainerPort port;
         port.hostPort = 8080;
         c.ports.push_back(port);
         p.spec.initContainers.push_back(c);
         return std::make_shared<const api::Pod>(p);
       }(),
       {newPod("m1", {"TCP/127.0.0.1/8080"})},
       {},
       conflict},
  };
  plugintesting::FakeHandle h;
  auto p = NodePorts::create(nullptr, h);
  ASSERT_TRUE(p.ok());
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(p->get());
  auto* fil = dynamic_cast<framework::FilterPlugin*>(p->get());
  ASSERT_NE(pre, nullptr);
  ASSERT_NE(fil, nullptr);
  for (const auto& c : cases) {
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pi = framework::PodInfo::create(c.pod);
    auto preStatus = pre->preFilter(state, *pi, {}, result);
    EXPECT_EQ(preStatus, c.wantPreFilter) << c.name;
    EXPECT_TRUE(result.allNodes()) << c.name;
    if (preStatus.isSkip()) continue;
    framework::NodeInfo ni(c.nodePods);
    EXPECT_EQ(fil->filter(state, *pi, ni), c.wantFilter) << c.name;
  }
}

TEST(NodePortsTest, PreFilterDisabled) {
  NodePorts pl;
  framework::CycleState state;
  auto ni = plugintesting::nodeInfoWith(api::Node{});
  auto s = pl.filter(state, *plugintesting::podInfo(api::Pod{}), *ni);
  EXPECT_EQ(s.code(), framework::Code::Error);
  EXPECT_EQ(s.message(), "reading \"PreFilterNodePorts\" from cycleState: not found");
}

TEST(NodePortsTest, GetContainerPorts) {
  // Upstream TestGetContainerPorts: only ports with a host port, in container order.
  auto tcp = [](int32_t containerPort, int32_t hostPort) {
    api::ContainerPort p;
    p.containerPort = containerPort;
    p.hostPort = hostPort;
    p.protocol = "TCP";
    return p;
  };
  auto pod = MakePod()
                 .containerPort({tcp(8001, 8001), tcp(8002, 8002)})
                 .containerPort({tcp(8003, 8003), tcp(8004, 8004)})
                 .containerPort({tcp(8005, 0)})
                 .obj();
  const std::vector<api::ContainerPort> want = {tcp(8001, 8001), tcp(8002, 8002), tcp(8003, 8003),
                                                tcp(8004, 8004)};
  EXPECT_EQ(framework::getHostPorts(pod), want);
}

TEST(NodePortsTest, IsSchedulableAfterPodDeleted) {
  auto podWithHostPort = MakePod().hostPort(8080).obj();
  struct Case {
    std::string name;
    EventObject oldObj;
    QueueingHint expectedHint;
    bool expectedErr;
  };
  const std::vector<Case> cases = {
      {"backoff-wrong-old-object", ks::testing::MakeNode().ptr(), QueueingHint::Queue, true},
      {"skip-queue-on-unscheduled", MakePod().ptr(), QueueingHint::QueueSkip, false},
      {"skip-queue-on-non-hostport", MakePod().node("fake-node").ptr(), QueueingHint::QueueSkip, false},
      {"skip-queue-on-unrelated-hostport", MakePod().node("fake-node").hostPort(8081).ptr(),
       QueueingHint::QueueSkip, false},
      {"queue-on-released-hostport", MakePod().node("fake-node").hostPort(8080).ptr(), QueueingHint::Queue,
       false},
      // A nominated (not yet bound) pod also held its ports.
      {"queue-on-released-hostport-of-nominated-pod",
       MakePod().nominatedNodeName("fake-node").hostPort(8080).ptr(), QueueingHint::Queue, false},
  };
  for (const auto& c : cases) {
    auto got = NodePorts::isSchedulableAfterAssignedPodDeleted(podWithHostPort, c.oldObj, EventObject{});
    EXPECT_EQ(!got.ok(), c.expectedErr) << c.name;
    if (got.ok()) {
      EXPECT_EQ(*got, c.expectedHint) << c.name;
    }
  }
}

TEST(NodePortsTest, EventsToRegister) {
  NodePorts pl;
  auto events = pl.eventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event.resource, framework::EventResource::AssignedPod);
  EXPECT_EQ((*events)[0].event.actionType, framework::action::Delete);
  EXPECT_TRUE(static_cast<bool>((*events)[0].queueingHintFn));
  EXPECT_EQ((*events)[1].event.resource, framework::EventResource::Node);
  EXPECT_EQ((*events)[1].event.actionType, framework::action::Add);
  EXPECT_FALSE(static_cast<bool>((*events)[1].queueingHintFn));
}

}  // namespace
}  // namespace ks::plugins::nodeports
