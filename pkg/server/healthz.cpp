#include "pkg/server/healthz.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <utility>

namespace ks::server {

HealthCheck pingCheck() {
  return {"ping", [] { return VoidResult(); }};
}

HealthCheck handlerSyncCheck(std::function<bool()> synced) {
  return {"sched-handler-sync", [synced = std::move(synced)]() -> VoidResult {
            if (synced && synced()) return {};
            return Error("waiting for handlers to sync");
          }};
}

HealthCheck shutdownCheck(std::function<bool()> shuttingDown) {
  return {"shutdown", [shuttingDown = std::move(shuttingDown)]() -> VoidResult {
            if (shuttingDown && shuttingDown()) return Error("process is shutting down");
            return {};
          }};
}

HealthCheck leaderElectionCheck(std::function<bool()> isLeader,
                                std::function<std::chrono::steady_clock::time_point()> lastRenewed,
                                std::chrono::milliseconds leaseDuration, std::chrono::milliseconds tolerance,
                                std::function<std::chrono::steady_clock::time_point()> now) {
  if (!now) now = [] { return std::chrono::steady_clock::now(); };
  return {"leaderElection", [=]() -> VoidResult {
            if (!isLeader || !isLeader()) return {};
            if (now() - lastRenewed() > leaseDuration + tolerance) {
              return Error("failed election to renew leadership on lease");
            }
            return {};
          }};
}

namespace {

std::string quoted(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ",";
    out += "\"" + n + "\"";
  }
  return out;
}

VoidResult runCheck(const HealthCheck& check) {
  try {
    return check.check ? check.check() : VoidResult();
  } catch (const std::exception& e) {
    return Error(std::string("check threw: ") + e.what());
  }
}

}  // namespace

Response serveHealth(std::string_view name, const std::vector<HealthCheck>& checks, const Request& req,
                     const HealthcheckObserver& observer) {
  std::vector<std::string> excludedList = req.queryValues("exclude");
  std::set<std::string> excluded(excludedList.begin(), excludedList.end());
  std::string individual;
  std::string failedLog;
  std::vector<std::string> failed;
  for (const auto& check : checks) {
    if (excluded.erase(check.name) > 0) {
      individual += "[+]" + check.name + " excluded: ok\n";
      continue;
    }
    VoidResult r = runCheck(check);
    if (observer) observer(check.name, name, r.ok());
    if (!r) {
      individual += "[-]" + check.name + " failed: reason withheld\n";
      failedLog += "[-]" + check.name + " failed: " + r.error().message() + "\n";
      failed.push_back(check.name);
    } else {
      individual += "[+]" + check.name + " ok\n";
    }
  }
  if (!excluded.empty()) {
    individual += "warn: some health checks cannot be excluded: no matches for " + quoted(excluded) + "\n";
    spdlog::warn("cannot exclude some health checks, no health checks are installed matching {}",
                 quoted(excluded));
  }
  if (!failed.empty()) {
    std::string names;
    for (const auto& f : failed) names += (names.empty() ? "" : ",") + f;
    spdlog::debug("{} check failed: {}\n{}", names, name, failedLog);
    return Response::error(500, individual + std::string(name) + " check failed");
  }
  Response resp;
  resp.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (!req.hasQuery("verbose")) {
    resp.body = "ok";
    return resp;
  }
  resp.body = individual + std::string(name) + " check passed\n";
  return resp;
}

void installHealthChecks(Server& server, const std::string& path, std::vector<HealthCheck> checks,
                         HealthcheckObserver observer) {
  if (checks.empty()) checks.push_back(pingCheck());
  std::string name = path.substr(path.find_first_not_of('/'));
  name = name.substr(0, name.find('/'));
  for (const auto& check : checks) {
    server.handle(path + "/" + check.name, [check](const Request&) {
      VoidResult r = runCheck(check);
      if (!r) return Response::error(500, "internal server error: " + r.error().message());
      Response resp;
      resp.body = "ok";
      return resp;
    });
  }
  server.handle(path, [name, checks = std::move(checks), observer = std::move(observer)](const Request& req) {
    return serveHealth(name, checks, req, observer);
  });
}

void installSchedulerEndpoints(Server& server, SchedulerEndpointsOptions options) {
  std::vector<HealthCheck> healthz;
  std::vector<HealthCheck> readyz;
  if (options.leaderElection) {
    healthz.push_back(*options.leaderElection);
    readyz.push_back(*options.leaderElection);
  }
  readyz.push_back(shutdownCheck(options.shuttingDown));
  readyz.push_back(handlerSyncCheck(options.handlersSynced));
  installHealthChecks(server, "/healthz", std::move(healthz), options.healthcheckObserver);
  installHealthChecks(server, "/livez", {}, options.healthcheckObserver);
  installHealthChecks(server, "/readyz", std::move(readyz), options.healthcheckObserver);

  // Prometheus text exposition of `scrape()`.
  auto metricsText = [](std::function<std::string()> scrape) {
    return [scrape = std::move(scrape)](const Request&) {
      Response resp;
      resp.contentType = "text/plain; version=0.0.4; charset=utf-8";
      resp.body = scrape();
      return resp;
    };
  };
  if (options.metrics) server.handle("/metrics", metricsText(std::move(options.metrics)));
  if (options.resourceMetrics) server.handle("/metrics/resources", metricsText(std::move(options.resourceMetrics)));
  if (options.slisMetrics) server.handle("/metrics/slis", metricsText(std::move(options.slisMetrics)));
  if (options.configzJson) {
    server.handle("/configz", [configz = std::move(options.configzJson)](const Request&) {
      Response resp;
      resp.contentType = "application/json";
      resp.headers.emplace_back("X-Content-Type-Options", "nosniff");
      resp.body = "{\"componentconfig\":" + configz() + "}";
      return resp;
    });
  }
  if (options.verbositySetter) {
    auto index = [](const Request&) {
      Response resp;
      resp.contentType = "text/html; charset=utf-8";
      resp.body =
          "<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\n"
          "flags:<br>\n<table>\n<tr>v<br>\n</table>\n<br>\nfull flags configurable<br>\n</body>\n</html>\n";
      return resp;
    };
    // Unlisted, as upstream's routes.DebugFlags: /statusz does not report /debug.
    server.handleUnlisted("/debug/flags", index);
    server.handleUnlisted("/debug/flags/", index);
    auto putVerbosity = [setter = std::move(options.verbositySetter)](const Request& req) {
      // upstream StringFlagPutHandler + GlogSetter: text/plain answers ending in "\n".
      auto plain = [](int status, std::string text) {
        Response resp;
        resp.status = status;
        resp.contentType = "text/plain";
        resp.headers.emplace_back("X-Content-Type-Options", "nosniff");
        resp.body = std::move(text) + "\n";
        return resp;
      };
      if (req.method != "PUT") return plain(406, "unsupported http method");
      const std::string& body = req.body;
      bool digits = !body.empty() && body.size() <= 10;
      for (char c : body) digits = digits && c >= '0' && c <= '9';
      if (!digits) return plain(400, "strconv.ParseUint: parsing \"" + body + "\": invalid syntax");
      const unsigned long long v = std::stoull(body);
      if (v > 0xffffffffULL) return plain(400, "strconv.ParseUint: parsing \"" + body + "\": value out of range");
      if (v > 0x7fffffffULL) {
        return plain(400, "failed set klog.logging.verbosity " + body + ": strconv.ParseInt: parsing \"" + body +
                              "\": value out of range");
      }
      setter(static_cast<int>(v));
      return plain(200, "successfully set klog.logging.verbosity to " + body);
    };
    server.handleUnlisted("/debug/flags/v", std::move(putVerbosity));
  }
  ZpageOptions zpage;
  zpage.componentName = std::string(kSchedulerComponentName);
  zpage.cbor = options.zpagesCbor;
  if (options.flagz) server.handle("/flagz", flagzHandler(zpage, std::move(options.flagz)));
  if (options.statusz) {
    options.statusz->listedPaths = server.listedPaths();
    server.handle("/statusz", statuszHandler(zpage, std::move(*options.statusz)));
  }
}

}  // namespace ks::server
