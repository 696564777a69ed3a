#include "test/perf/support/load.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "pkg/util/version.h"
#include "test/perf/support/perf_support.h"

namespace ks::perf {

using json = nlohmann::json;

namespace {
std::mutex logMu;
std::string logDriver = "perf";  // guarded by logMu
}  // namespace

void setLogDriver(std::string driver) {
  std::lock_guard lock(logMu);
  logDriver = std::move(driver);
}

void log(const std::string& line) {
  static const auto start = Clock::now();
  std::lock_guard lock(logMu);
  std::printf("[%s %7.1fs] %s\n", logDriver.c_str(), seconds(Clock::now() - start), line.c_str());
  std::fflush(stdout);
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

bool parseFlags(int argc, char** argv, const char* driver, const char* usage,
                const std::function<bool(const std::string& name, const std::string& value)>& handle) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    if (name == "--help" || name == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (!handle(name, eq == std::string::npos ? "" : a.substr(eq + 1))) {
      std::fprintf(stderr, "%s: bad flag %s\n%s", driver, a.c_str(), usage);
      return false;
    }
  }
  return true;
}

json nodeJson(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status",
           {{"capacity", {{"pods", "110"}, {"cpu", "4"}, {"memory", "32Gi"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}},
            {"phase", "Running"}}}};
}

json podJson(const std::string& ns, const std::string& name, const std::string& labelKey,
             const std::string& labelValue, const std::string& schedulerName, const std::string& nodeName) {
  const json resources = {{"cpu", "100m"}, {"memory", "500Mi"}};
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{labelKey, labelValue}}}}},
              {"spec",
               {{"schedulerName", schedulerName},
                {"terminationGracePeriodSeconds", 0},
                {"containers",
                 {{{"name", "pause"},
                   {"image", "registry.k8s.io/pause:3.10.2"},
                   {"ports", {{{"containerPort", 80}}}},
                   {"resources", {{"limits", resources}, {"requests", resources}}}}}}}}};
  if (!nodeName.empty()) pod["spec"]["nodeName"] = nodeName;
  return pod;
}

std::string upstreamTitle() {
  return "upstream kube-scheduler " + std::string(kUpstreamVersion);
}

Result<Setup> setUp(const std::string& out, const std::string& builtOurs) {
  std::filesystem::create_directories(out);
  auto bin = integration::ControlPlane::binDir();
  if (!bin.ok()) return Error("control plane binaries: " + bin.error().message());
  Setup s;
  s.upstreamBinary = *bin + "/kube-scheduler";
  const char* ours = std::getenv("KS_E2E_OUR_BINARY");
  s.ourBinary = ours != nullptr && *ours != '\0' ? ours : builtOurs;
  log("starting etcd + kube-apiserver");
  auto cp = integration::ControlPlane::start();
  if (!cp.ok()) return Error("control plane: " + cp.error().message());
  s.controlPlane = std::move(cp).value();
  return s;
}

bool call(integration::ApiClient& api, const std::string& method, const std::string& path, const json& body,
          int want) {
  for (int attempt = 1; attempt <= 10; ++attempt) {
    auto r = api.request(method, path, &body);
    if (r.ok() && (r->status == want || (attempt > 1 && want == 201 && r->status == 409))) return true;
    if (r.ok() && r->status != 429 && r->status < 500) {
      log(method + " " + path + ": HTTP " + std::to_string(r->status) + " " + r->body.dump().substr(0, 300));
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100 * attempt));
  }
  log(method + " " + path + ": gave up after 10 attempts");
  return false;
}

bool parallel(const std::string& kubeconfig, int n, int threads,
              const std::function<bool(integration::ApiClient&, int)>& work) {
  std::atomic<int> next{0};
  std::atomic<bool> ok{true};
  std::vector<std::jthread> pool;
  for (int t = 0; t < std::min(threads, std::max(n, 1)); ++t) {
    pool.emplace_back([&] {
      auto api = integration::ApiClient::create(kubeconfig);
      if (!api.ok()) {
        log("connection: " + api.error().message());
        ok = false;
        return;
      }
      for (int i = next++; i < n && ok; i = next++) {
        if (!work(**api, i)) ok = false;
      }
    });
  }
  pool.clear();
  return ok;
}

ResultsTable::ResultsTable(std::string caption, const std::vector<std::string>& columns)
    : text_(std::move(caption)) {
  text_ += "\n\n|  |";
  for (const auto& c : columns) text_ += " " + c + " |";
  text_ += "\n|---|";
  for (size_t i = 0; i < columns.size(); ++i) text_ += "---|";
  text_ += '\n';
}

void ResultsTable::row(const std::string& label, const std::vector<std::string>& cells) {
  text_ += "| " + label + " |";
  for (const auto& c : cells) text_ += " " + c + " |";
  text_ += '\n';
}

void ResultsTable::write(const std::string& out) const {
  std::fputs(("\n" + text_).c_str(), stdout);
  std::ofstream(out + "/results.md") << text_;
}

CpuSampler::CpuSampler(pid_t pid) : pid_(pid) {
  thread_ = std::jthread([this](std::stop_token stop) {
    while (!stop.stop_requested()) {
      if (auto s = procStats(pid_)) {
        std::lock_guard lock(mu_);
        samples_.emplace_back(Clock::now(), s->cpuSeconds);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
}

CpuSampler::~CpuSampler() {
  thread_.request_stop();
  thread_.join();
}

double CpuSampler::at(Clock::time_point t) const {
  std::lock_guard lock(mu_);
  double v = 0;
  for (const auto& [when, cpu] : samples_) {
    if (when > t) break;
    v = cpu;
  }
  return v;
}

}  // namespace ks::perf
