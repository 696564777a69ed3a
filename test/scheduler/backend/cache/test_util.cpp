#include "test/scheduler/backend/cache/test_util.h"

#include <algorithm>

#include <set>
#include <sstream>

#include "test/support/wrappers.h"

namespace ks::cache::testing {

using ks::testing::MakePod;
using ks::testing::mustParse;

api::PodPtr makeBasePod(const std::string& nodeName, const std::string& objName, const std::string& cpu,
                        const std::string& mem, const std::string& extended,
                        const std::vector<api::ContainerPort>& ports) {
  api::Pod pod = MakePod().name(objName).namespace_("node_info_cache_test").uid(objName).node(nodeName).obj();
  api::Container c;
  c.name = "container";
  c.image = "pause";
  if (!cpu.empty()) {
    c.resources.requests["cpu"] = mustParse(cpu);
    c.resources.requests["memory"] = mustParse(mem);
    if (!extended.empty()) {
      const auto colon = extended.find(':');
      c.resources.requests[extended.substr(0, colon)] = mustParse(extended.substr(colon + 1));
    }
  }
  c.ports = ports;
  pod.spec.containers.push_back(std::move(c));
  return std::make_shared<const api::Pod>(std::move(pod));
}

api::ContainerPort hostPort(const std::string& ip, int32_t port, const std::string& protocol) {
  api::ContainerPort p;
  p.hostIP = ip;
  p.hostPort = port;
  p.protocol = protocol;
  return p;
}

framework::HostPortInfo portsOf(const std::vector<api::ContainerPort>& ports) {
  framework::HostPortInfo out;
  for (const auto& p : ports) out.add(p.hostIP, p.protocol, p.hostPort);
  return out;
}

framework::Resource cpuMem(int64_t milliCPU, int64_t memory) {
  framework::Resource r;
  r.milliCPU = milliCPU;
  r.memory = memory;
  return r;
}

std::string toString(const framework::Resource& r) {
  std::ostringstream os;
  os << "{cpu:" << r.milliCPU << "m mem:" << r.memory << " eph:" << r.ephemeralStorage
     << " pods:" << r.allowedPodNumber;
  for (const auto& [k, v] : r.scalarResources) os << " " << k << ":" << v;
  os << "}";
  return os.str();
}

namespace {

// Scalar maps compare equal when they differ only by zero entries (a removed pod leaves 0 behind).
bool sameResource(const framework::Resource& a, const framework::Resource& b) {
  if (a.milliCPU != b.milliCPU || a.memory != b.memory || a.ephemeralStorage != b.ephemeralStorage ||
      a.allowedPodNumber != b.allowedPodNumber) {
    return false;
  }
  auto nonZero = [](const std::map<std::string, int64_t>& m) {
    std::map<std::string, int64_t> out;
    for (const auto& [k, v] : m) {
      if (v != 0) out.emplace(k, v);
    }
    return out;
  };
  return nonZero(a.scalarResources) == nonZero(b.scalarResources);
}

std::string portsString(const framework::HostPortInfo& p) {
  std::ostringstream os;
  for (const auto& [ip, set] : p.byIP()) {
    for (const auto& pp : set) os << ip << "/" << pp.protocol << "/" << pp.port << " ";
  }
  return os.str();
}

std::string imagesString(const std::map<std::string, framework::ImageStateSummary>& m) {
  std::ostringstream os;
  for (const auto& [k, v] : m)
    os << k << "{size:" << v.size << " numNodes:" << v.numNodes << " nodes:" << v.nodes.size() << "} ";
  return os.str();
}

std::vector<std::string> uids(const std::vector<framework::PodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->pod().metadata.uid);
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? " " : "") + v[i];
  return out + "]";
}

}  // namespace

std::vector<std::string> names(const std::vector<framework::NodeInfoPtr>& infos) {
  std::vector<std::string> out;
  for (const auto& i : infos) out.push_back(i->nodeName());
  return out;
}

std::string diffNodeInfo(const ExpectedNodeInfo& want, const framework::NodeInfo& got) {
  std::ostringstream os;
  if (!sameResource(want.requested, got.requested())) {
    os << "requested: want " << toString(want.requested) << " got " << toString(got.requested()) << "\n";
  }
  if (want.nonZeroRequested.milliCPU != got.nonZeroRequested().milliCPU ||
      want.nonZeroRequested.memory != got.nonZeroRequested().memory) {
    os << "nonZeroRequested: want " << toString(want.nonZeroRequested) << " got "
       << toString(got.nonZeroRequested()) << "\n";
  }
  bool podsEqual = want.pods.size() == got.pods().size();
  for (std::size_t i = 0; podsEqual && i < want.pods.size(); ++i)
    podsEqual = *want.pods[i] == got.pods()[i]->pod();
  if (!podsEqual) {
    std::vector<std::string> w;
    for (const auto& p : want.pods) w.push_back(p->metadata.uid);
    os << "pods: want " << join(w) << " got " << join(uids(got.pods())) << " (or objects differ)\n";
  }
  if (!(want.usedPorts == got.usedPorts())) {
    os << "usedPorts: want " << portsString(want.usedPorts) << " got " << portsString(got.usedPorts())
       << "\n";
  }
  if (want.imageStates != got.imageStates()) {
    os << "imageStates: want " << imagesString(want.imageStates) << " got " << imagesString(got.imageStates())
       << "\n";
  }
  return os.str();
}

std::string diffNodeInfo(const framework::NodeInfo& want, const framework::NodeInfo& got,
                         bool checkGeneration) {
  std::ostringstream os;
  if (want.nodePtr() != got.nodePtr() && !(want.node() && got.node() && *want.node() == *got.node())) {
    os << "node: want " << want.nodeName() << " got " << got.nodeName() << "\n";
  }
  if (uids(want.pods()) != uids(got.pods()))
    os << "pods: want " << join(uids(want.pods())) << " got " << join(uids(got.pods())) << "\n";
  if (uids(want.podsWithAffinity()) != uids(got.podsWithAffinity())) os << "podsWithAffinity differ\n";
  if (uids(want.podsWithRequiredAntiAffinity()) != uids(got.podsWithRequiredAntiAffinity())) {
    os << "podsWithRequiredAntiAffinity differ\n";
  }
  if (!(want.usedPorts() == got.usedPorts()))
    os << "usedPorts: want " << portsString(want.usedPorts()) << " got " << portsString(got.usedPorts())
       << "\n";
  if (!sameResource(want.requested(), got.requested()))
    os << "requested: want " << toString(want.requested()) << " got " << toString(got.requested()) << "\n";
  if (!sameResource(want.nonZeroRequested(), got.nonZeroRequested())) os << "nonZeroRequested differ\n";
  if (!sameResource(want.allocatable(), got.allocatable()))
    os << "allocatable: want " << toString(want.allocatable()) << " got " << toString(got.allocatable())
       << "\n";
  if (want.imageStates() != got.imageStates())
    os << "imageStates: want " << imagesString(want.imageStates()) << " got "
       << imagesString(got.imageStates()) << "\n";
  if (want.pvcRefCounts() != got.pvcRefCounts()) os << "pvcRefCounts differ\n";
  if (checkGeneration && want.generation() != got.generation()) {
    os << "generation: want " << want.generation() << " got " << got.generation() << "\n";
  }
  return os.str();
}

std::string compareCacheWithSnapshot(const CacheImpl& cache, const Snapshot& snapshot, bool exactImageCounts,
                                     ListOrder listOrder) {
  const NodeTree tree = cache.nodeTreeForTest();
  const NodeInfoMap& map = snapshot.nodeInfoMapForTest();
  if (static_cast<int>(map.size()) != tree.numNodes()) {
    return "unexpected number of nodes in the snapshot. Expected: " + std::to_string(tree.numNodes()) +
           ", got: " + std::to_string(map.size());
  }
  const auto images = cache.imageStatesForTest();
  for (const auto& name : cache.nodeListOrderForTest()) {
    framework::NodeInfoPtr want = cache.nodeInfoForTest(name);
    auto it = map.find(name);
    if (want->node() == nullptr) {
      if (it != map.end()) return "node-less node " + name + " is in the snapshot";
      continue;
    }
    if (it == map.end()) return "node " + name + " missing from the snapshot";
    // The cache stores {size}; snapshot copies carry numNodes from the image index.
    auto states = want->imageStates();
    for (auto& [img, s] : states) {
      auto i = images.find(img);
      s.numNodes = i == images.end() ? 0 : i->second.numNodes;
      if (!exactImageCounts) {
        auto g = it->second->imageStates().find(img);
        if (g != it->second->imageStates().end()) s.numNodes = g->second.numNodes;
      }
    }
    want->setImageStates(std::move(states));
    if (std::string d = diffNodeInfo(*want, *it->second, true); !d.empty()) {
      return "Unexpected node info for node " + name + ":\n" + d;
    }
  }
  if (static_cast<int>(snapshot.list().size()) != tree.numNodes()) {
    return "unexpected number of nodes in NodeInfoList. Expected: " + std::to_string(tree.numNodes()) +
           ", got: " + std::to_string(snapshot.list().size());
  }
  std::vector<framework::NodeInfoPtr> expectedList, expectedAffinity, expectedAnti;
  std::set<std::string, std::less<>> expectedPVCs;
  std::vector<std::string> order = tree.list();
  if (listOrder == ListOrder::Any) {
    // The same nodes as the tree, in the snapshot's own order (the derived lists follow it).
    order = names(snapshot.list());
    std::vector<std::string> a = order, b = tree.list();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b)
      return "NodeInfoList has other nodes than the tree: " + join(order) + " vs " + join(tree.list());
  }
  for (const auto& name : order) {
    auto it = map.find(name);
    if (it == map.end())
      return "node " + name + " exist in nodeTree but not in NodeInfoMap, this should not happen";
    expectedList.push_back(it->second);
    if (!it->second->podsWithAffinity().empty()) expectedAffinity.push_back(it->second);
    if (!it->second->podsWithRequiredAntiAffinity().empty()) expectedAnti.push_back(it->second);
    for (const auto& [k, _] : it->second->pvcRefCounts()) expectedPVCs.insert(k);
  }
  if (expectedList != snapshot.list()) {
    return "unexpected NodeInfo pointers in NodeInfoList: want " + join(names(expectedList)) + " got " +
           join(names(snapshot.list()));
  }
  if (expectedAffinity != snapshot.havePodsWithAffinityList()) {
    return "unexpected HavePodsWithAffinityNodeInfoList: want " + join(names(expectedAffinity)) + " got " +
           join(names(snapshot.havePodsWithAffinityList()));
  }
  if (expectedAnti != snapshot.havePodsWithRequiredAntiAffinityList()) {
    return "unexpected HavePodsWithRequiredAntiAffinityNodeInfoList";
  }
  if (expectedPVCs != snapshot.usedPVCSetForTest()) return "unexpected usedPVCSet";
  return {};
}

}  // namespace ks::cache::testing
