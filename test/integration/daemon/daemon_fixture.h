#pragma once
// The fixture of the daemon integration tests: a real etcd + kube-apiserver (and kube-controller-manager
// when a test asks for controllers), the real kube-scheduler-cpp binary started with a config, and kubectl
// helpers to create objects and read back what the scheduler wrote.

#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/harness/control_plane.h"
#include "test/integration/harness/objects.h"
#include "test/integration/harness/process.h"

namespace ks::integration {

using json = nlohmann::json;

inline constexpr const char* kBinary = KS_SCHEDULER_BINARY;
inline constexpr const char* kSchedulerName = "kube-scheduler-cpp";

// Prometheus text: the value of the sample `name` whose labels include all of `labels`; nullopt if absent.
inline std::optional<double> metricValue(const std::string& text, const std::string& name,
                                  const std::map<std::string, std::string>& labels) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t nameEnd = line.find_first_of("{ ");
    if (nameEnd == std::string::npos || line.substr(0, nameEnd) != name) continue;
    std::map<std::string, std::string> got;
    size_t pos = nameEnd;
    if (line[pos] == '{') {
      size_t close = line.find('}', pos);
      std::string body = line.substr(pos + 1, close - pos - 1);
      size_t i = 0;
      while (i < body.size()) {
        size_t eq = body.find('=', i);
        size_t q1 = body.find('"', eq);
        size_t q2 = body.find('"', q1 + 1);
        got[body.substr(i, eq - i)] = body.substr(q1 + 1, q2 - q1 - 1);
        i = q2 + 1;
        if (i < body.size() && body[i] == ',') ++i;
      }
      pos = close + 1;
    }
    bool match = true;
    for (const auto& [k, v] : labels) match = match && got.count(k) && got[k] == v;
    if (match) return std::stod(line.substr(pos));
  }
  return std::nullopt;
}

inline json nodeJson(const std::string& name, const std::map<std::string, std::string>& labels = {}) {
  json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata", {{"name", name}, {"labels", json::object()}}},
               {"status",
                {{"capacity", {{"cpu", "32"}, {"memory", "64Gi"}, {"pods", "110"}}},
                 {"allocatable", {{"cpu", "32"}, {"memory", "64Gi"}, {"pods", "110"}}}}}};
  node["metadata"]["labels"]["kubernetes.io/hostname"] = name;
  for (const auto& [k, v] : labels) node["metadata"]["labels"][k] = v;
  return node;
}

inline json podJson(const std::string& ns, const std::string& name,
             const std::string& schedulerName = kSchedulerName,
             const std::map<std::string, std::string>& nodeSelector = {}) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"spec",
               {{"schedulerName", schedulerName},
                {"containers",
                 {{{"name", "c"},
                   {"image", "registry.k8s.io/pause:3.10"},
                   {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "16Mi"}}}}}}}}}}};
  if (!nodeSelector.empty()) pod["spec"]["nodeSelector"] = nodeSelector;
  return pod;
}

class DaemonTest : public ::testing::Test {
 protected:
  // What the control plane runs besides etcd and kube-apiserver (e.g. kube-controller-manager's
  // controllers); a test fixture overrides it.
  virtual ControlPlaneOptions controlPlaneOptions() const { return {}; }

  void SetUp() override {
    auto started = ControlPlane::start(controlPlaneOptions());
    ASSERT_TRUE(started.ok()) << started.error().message();
    cp_ = std::move(started).value();
    char tmpl[] = "/tmp/ks-daemon-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override {
    daemons_.clear();
    if (HasFailure()) {
      std::fprintf(stderr, "daemon logs kept in %s\n", dir_.c_str());
    } else {
      std::filesystem::remove_all(dir_);
    }
  }

  // Writes the scheduler config and starts a daemon with `flags`; returns it and its HTTPS port.
  Process& startDaemon(std::vector<std::string> flags, uint16_t* port = nullptr, const std::string& extra = "",
                       const std::string& profileExtra = "") {
    return startDaemonWithConfig(schedulerConfig(cp_->kubeconfigPath(), extra, profileExtra), std::move(flags),
                                 port);
  }

  // Starts a daemon with the configuration file `configYaml` and `flags`.
  Process& startDaemonWithConfig(const std::string& configYaml, std::vector<std::string> flags,
                                 uint16_t* port = nullptr) {
    const std::string cfgPath = dir_ + "/config-" + std::to_string(daemons_.size()) + ".yaml";
    std::ofstream(cfgPath) << configYaml;
    const uint16_t p = freePort();
    if (port != nullptr) *port = p;
    std::vector<std::string> args{"--config=" + cfgPath, "--bind-address=127.0.0.1",
                                  "--secure-port=" + std::to_string(p), "-v=2"};
    // /metrics and /configz need an authorized user, as upstream's: unless the test configures
    // authentication itself, trust client certificates of the harness CA (the admin certificate is in
    // system:masters, always allowed; httpsGet below presents it), without looking anything up.
    const bool ownAuthn = std::any_of(flags.begin(), flags.end(), [](const std::string& f) {
      return f.rfind("--authentication-", 0) == 0 || f.rfind("--client-ca-file", 0) == 0;
    });
    if (!ownAuthn) {
      args.push_back("--client-ca-file=" + cp_->caFile());
      args.push_back("--authentication-skip-lookup=true");
    }
    args.insert(args.end(), flags.begin(), flags.end());
    const std::string logPath = dir_ + "/daemon-" + std::to_string(daemons_.size()) + ".log";
    args.insert(args.begin(), kBinary);
    daemons_.push_back(std::make_unique<Process>(args, logPath));
    return *daemons_.back();
  }

  // GET over HTTPS as the harness admin (client certificate, group system:masters). Inside the tests this
  // hides the free function, so endpoint checks pass the daemon's authorization.
  std::optional<std::pair<int, std::string>> httpsGet(uint16_t port, const std::string& path) const {
    return ks::integration::httpsGet(port, path, {"--cert", cp_->clientCertFile(), "--key", cp_->clientKeyFile()});
  }

  void kubectlOk(const std::vector<std::string>& args, const std::string& input = "") {
    auto r = input.empty() ? cp_->kubectl(args) : cp_->kubectl(args, input);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  void createNodes(int n, const std::string& prefix = "node-") {
    std::vector<json> nodes;
    for (int i = 0; i < n; ++i) nodes.push_back(nodeJson(prefix + std::to_string(i)));
    kubectlOk({"create", "-f", "-"}, listOf(nodes).dump());
  }

  std::string nodeNameOf(const std::string& ns, const std::string& pod) {
    auto r = cp_->kubectl({"get", "pod", "-n", ns, pod, "-o", "jsonpath={.spec.nodeName}"});
    return r.ok() ? *r : "";
  }

  // name -> nodeName of every pod in `ns`.
  std::map<std::string, std::string> podNodes(const std::string& ns) {
    std::map<std::string, std::string> out;
    auto r = cp_->kubectl({"get", "pods", "-n", ns, "-o", "json"});
    if (!r.ok()) return out;
    const json list = json::parse(*r);  // a named value: a temporary's subobject would dangle in the loop
    for (const auto& p : list["items"]) {
      out[p["metadata"]["name"].get<std::string>()] = p["spec"].value("nodeName", "");
    }
    return out;
  }

  int boundCount(const std::string& ns) {
    int n = 0;
    for (const auto& [name, node] : podNodes(ns)) n += node.empty() ? 0 : 1;
    return n;
  }

  json events(const std::string& ns, const std::string& fieldSelector) {
    auto r = cp_->kubectl({"get", "events", "-n", ns, "--field-selector", fieldSelector, "-o", "json"});
    return r.ok() ? json::parse(*r)["items"] : json::array();
  }

  std::string leaseHolder(const std::string& name = "kube-scheduler-cpp") {
    auto r =
        cp_->kubectl({"get", "lease", "-n", "kube-system", name, "-o", "jsonpath={.spec.holderIdentity}"});
    return r.ok() ? *r : "<error>";
  }

  std::unique_ptr<ControlPlane> cp_;
  std::string dir_;
  std::vector<std::unique_ptr<Process>> daemons_;
};

// For volume tests: kube-controller-manager runs the PV binder (claims bind as in a cluster), and the
// tests' objects go in namespace "t".
class PvBinderDaemonTest : public DaemonTest {
 protected:
  ControlPlaneOptions controlPlaneOptions() const override {
    ControlPlaneOptions o;
    o.controllers = {"persistentvolume-binder-controller"};
    return o;
  }

  void SetUp() override {
    DaemonTest::SetUp();
    if (HasFatalFailure()) return;
    kubectlOk({"create", "namespace", "t"});
  }

  // Waits until the PV binder has made `pv` Available (only then is it a candidate for a claim), then stops
  // kube-controller-manager, so that no controller finishes a binding the scheduler started.
  void stopControllerOnceAvailable(const std::string& pv) {
    ASSERT_TRUE(waitFor(
        [&] {
          auto phase = cp_->kubectl({"get", "pv", pv, "-o", "jsonpath={.status.phase}"});
          return phase.ok() && *phase == "Available";
        },
        std::chrono::seconds(30)));
    ASSERT_TRUE(cp_->stopControllerManager().ok());
  }
};

inline bool ready(uint16_t port) {
  auto r = httpsGet(port, "/readyz");
  return r && r->first == 200;
}

}  // namespace ks::integration
