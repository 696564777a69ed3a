#include "pkg/scheduler/extender/http_extender.h"

#include <fstream>
#include <sstream>

#include "pkg/client/rest/http_transport.h"
#include "pkg/client/rest/tls.h"

namespace ks::extender {

namespace {

using framework::NodeInfoPtr;
using framework::Victims;

// A TLS input as client-go's loadTLSFiles reads it: the inline data, else the file's content.
Result<std::string> dataOrFile(const std::string& data, const std::string& file) {
  if (!data.empty() || file.empty()) return data;
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error("open " + file + ": no such file or directory");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool hasManagedResources(const std::vector<api::Container>& containers,
                         const std::set<std::string, std::less<>>& managed) {
  for (const auto& c : containers) {
    for (const auto& [name, q] : c.resources.requests) {
      if (managed.count(name) != 0) return true;
    }
    for (const auto& [name, q] : c.resources.limits) {
      if (managed.count(name) != 0) return true;
    }
  }
  return false;
}

}  // namespace

std::string_view callErrorName(CallError e) {
  switch (e) {
    case CallError::None:
      return "";
    case CallError::Transport:
      return "transport";
    case CallError::Timeout:
      return "timeout";
    case CallError::HttpStatus:
      return "http_status";
    case CallError::Decode:
      return "decode";
    case CallError::Response:
      return "response";
  }
  return "";
}

Result<std::unique_ptr<HTTPExtender>> HTTPExtender::create(const config::Extender& cfg, CallObserver observer) {
  std::unique_ptr<HTTPExtender> h(new HTTPExtender());
  h->urlPrefix_ = cfg.urlPrefix;
  h->filterVerb_ = cfg.filterVerb;
  h->preemptVerb_ = cfg.preemptVerb;
  h->prioritizeVerb_ = cfg.prioritizeVerb;
  h->bindVerb_ = cfg.bindVerb;
  h->weight_ = cfg.weight;
  h->nodeCacheCapable_ = cfg.nodeCacheCapable;
  h->ignorable_ = cfg.ignorable;
  for (const auto& r : cfg.managedResources) h->managedResources_.insert(r.name);
  if (cfg.httpTimeout.count() != 0) h->timeout_ = cfg.httpTimeout;
  h->observer_ = std::move(observer);

  // Upstream makeTransport: the TLS config's fields, and with enableHTTPS but no CA, no verification.
  config::ExtenderTLSConfig tls = cfg.tlsConfig.value_or(config::ExtenderTLSConfig{});
  auto ca = dataOrFile(tls.caData, tls.caFile);
  if (!ca.ok()) return ca.error();
  auto cert = dataOrFile(tls.certData, tls.certFile);
  if (!cert.ok()) return cert.error();
  auto key = dataOrFile(tls.keyData, tls.keyFile);
  if (!key.ok()) return key.error();
  bool insecure = tls.insecure;
  if (cfg.enableHTTPS && ca->empty()) insecure = true;
  if (insecure && !ca->empty()) {
    return Error("specifying a root certificates file with the insecure flag is not allowed");
  }
  client::rest::HttpTransport::Options options;
  options.server = cfg.urlPrefix;
  options.insecureSkipTlsVerify = insecure;
  options.serverName = tls.serverName;
  options.idleTimeout = h->timeout_;
  options.dialTimeout = h->timeout_;
  if (!ca->empty() || !cert->empty() || !key->empty()) {
    auto material = client::rest::TlsMaterial::fromPem(*ca, *cert, *key);
    if (!material.ok()) return material.error();
    options.tls = std::move(material).value();
  }
  auto transport = client::rest::HttpTransport::create(std::move(options));
  if (!transport.ok()) return transport.error();
  h->transport_ = std::move(transport).value();
  return h;
}

HTTPExtender::~HTTPExtender() = default;

Result<std::string> HTTPExtender::send(const std::string& verb, const std::string& body, CallError& error) {
  std::string_view prefix(urlPrefix_);
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  const std::string url = std::string(prefix) + "/" + verb;
  const std::string target = "/" + verb;
  client::rest::HttpRequest req;
  req.method = "POST";
  req.target = target;
  req.body = &body;
  req.contentType = "application/json";
  req.totalTimeout = timeout_;  // as upstream's http.Client{Timeout}: dial to the body's last byte
  int32_t status = 0;
  bool headArrived = false;
  std::string response;
  auto r = transport_->roundTrip(
      req,
      [&](const client::rest::HttpHead& head) {
        headArrived = true;
        status = head.status;
      },
      [&](std::string_view chunk) {
        if (status != 200) return false;  // upstream reads no body but a 200's
        response.append(chunk);
        return true;
      });
  // Upstream returns on a status other than 200 as soon as the head is in, whatever the body would do.
  if (headArrived && status != 200) {
    error = CallError::HttpStatus;
    return Error("failed " + verb + " with extender at URL " + url + ", code " + std::to_string(status));
  }
  if (!r.ok()) {
    if (r.error().timedOut) {
      error = CallError::Timeout;
      // Go's net/http: Client.Do fails (wrapped in a url.Error) until the head is in; after it, reading
      // the body fails and the JSON decoder returns that error as it is.
      if (headArrived) {
        return Error("context deadline exceeded (Client.Timeout or context cancellation while reading body)");
      }
      return Error("Post \"" + url +
                   "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
    }
    error = CallError::Transport;
    return Error("Post \"" + url + "\": " + r.error().message);
  }
  return response;
}

template <typename T>
Result<T> HTTPExtender::call(const std::string& verb, const std::string& body,
                             Result<T> (*decode)(std::string_view), std::string_view metricVerb) {
  const auto start = std::chrono::steady_clock::now();
  CallError error = CallError::None;
  auto report = [&] {
    if (observer_)
      observer_(metricVerb, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                error);
  };
  auto response = send(verb, body, error);
  if (!response.ok()) {
    report();
    return response.error();
  }
  auto decoded = decode(*response);
  if (!decoded.ok()) error = CallError::Decode;
  report();
  return decoded;
}

bool HTTPExtender::isInterested(const api::Pod& pod) const {
  if (managedResources_.empty()) return true;
  return hasManagedResources(pod.spec.containers, managedResources_) ||
         hasManagedResources(pod.spec.initContainers, managedResources_);
}

Result<framework::ExtenderFilterResult> HTTPExtender::filter(const api::Pod& pod,
                                                             const std::vector<NodeInfoPtr>& nodes) {
  framework::ExtenderFilterResult out;
  if (filterVerb_.empty()) {
    out.nodes = nodes;
    return out;
  }
  auto result = call<ExtenderFilterResult>(filterVerb_, encodeExtenderArgs(pod, nodes, nodeCacheCapable_),
                                           &decodeFilterResult, "filter");
  if (!result.ok()) return result.error();
  if (!result->error.empty()) {
    if (observer_) observer_("filter", 0, CallError::Response);
    return Error(result->error);
  }
  if (nodeCacheCapable_ && result->nodeNames) {
    std::map<std::string_view, const NodeInfoPtr*> byName;
    for (const auto& n : nodes) byName.emplace(n->nodeName(), &n);
    out.nodes.reserve(result->nodeNames->size());
    for (const auto& name : *result->nodeNames) {
      auto it = byName.find(name);
      if (it == byName.end()) {
        if (observer_) observer_("filter", 0, CallError::Response);
        return Error("extender \"" + urlPrefix_ + "\" claims a filtered node \"" + name +
                     "\" which is not found in the input node list");
      }
      out.nodes.push_back(*it->second);
    }
  } else if (result->nodes) {
    // As upstream: the nodes the extender returned, in new NodeInfos that hold no pods.
    out.nodes.reserve(result->nodes->size());
    for (auto& node : *result->nodes) {
      auto ni = std::make_shared<framework::NodeInfo>();
      ni->setNode(std::make_shared<const api::Node>(std::move(node)));
      out.nodes.push_back(std::move(ni));
    }
  }
  out.failedNodes = std::move(result->failedNodes);
  out.failedAndUnresolvableNodes = std::move(result->failedAndUnresolvableNodes);
  return out;
}

Result<framework::ExtenderScores> HTTPExtender::prioritize(const api::Pod& pod,
                                                           const std::vector<NodeInfoPtr>& nodes) {
  framework::ExtenderScores out;
  if (prioritizeVerb_.empty()) {
    for (const auto& n : nodes) out.priorities.push_back({n->nodeName(), 0});
    return out;
  }
  auto result = call<framework::HostPriorityList>(
      prioritizeVerb_, encodeExtenderArgs(pod, nodes, nodeCacheCapable_), &decodeHostPriorityList, "prioritize");
  if (!result.ok()) return result.error();
  out.priorities = std::move(result).value();
  out.weight = weight_;
  return out;
}

Result<void> HTTPExtender::bind(const framework::ExtenderBinding& binding) {
  // Never called on a non-binder: the scheduler asks isBinder() first.
  if (!isBinder()) return Error("unexpected empty bindVerb in extender");
  auto result = call<std::string>(bindVerb_, encodeBindingArgs(binding), &decodeBindingResult, "bind");
  if (!result.ok()) return result.error();
  if (!result->empty()) {
    if (observer_) observer_("bind", 0, CallError::Response);
    return Error(*result);
  }
  return {};
}

Result<std::map<std::string, Victims>> HTTPExtender::processPreemption(
    const api::Pod& pod, const std::map<std::string, Victims>& nodeNameToVictims,
    const framework::NodeInfoLister& nodeInfos) {
  if (!supportsPreemption()) {
    return Error("preempt verb is not defined for extender " + urlPrefix_ + " but run into ProcessPreemption");
  }
  std::map<std::string, MetaVictims> meta;
  if (nodeCacheCapable_) meta = convertToMetaVictims(nodeNameToVictims);
  auto result = call<std::map<std::string, MetaVictims>>(
      preemptVerb_, encodePreemptionArgs(pod, nodeNameToVictims, nodeCacheCapable_ ? &meta : nullptr),
      &decodePreemptionResult, "preempt");
  if (!result.ok()) return result.error();
  auto victims = convertToVictims(*result, nodeInfos);
  if (!victims.ok() && observer_) observer_("preempt", 0, CallError::Response);
  return victims;
}

std::map<std::string, MetaVictims> HTTPExtender::convertToMetaVictims(
    const std::map<std::string, Victims>& nodeNameToVictims) {
  std::map<std::string, MetaVictims> out;
  for (const auto& [node, victims] : nodeNameToVictims) {
    MetaVictims& mv = out[node];
    mv.numPDBViolations = victims.numPDBViolations;
    for (const auto& p : victims.pods) mv.pods.push_back(MetaPod{p->pod().metadata.uid});
  }
  return out;
}

Result<std::map<std::string, Victims>> HTTPExtender::convertToVictims(
    const std::map<std::string, MetaVictims>& nodeNameToMetaVictims,
    const framework::NodeInfoLister& nodeInfos) const {
  std::map<std::string, Victims> out;
  for (const auto& [nodeName, meta] : nodeNameToMetaVictims) {
    auto nodeInfo = nodeInfos.get(nodeName);
    if (!nodeInfo.ok()) return nodeInfo.error();
    Victims victims;
    victims.numPDBViolations = meta.numPDBViolations;
    for (const auto& metaPod : meta.pods) {
      framework::PodInfoPtr found;
      for (const auto& p : (*nodeInfo)->pods()) {
        if (p->pod().metadata.uid == metaPod.uid) {
          found = p;
          break;
        }
      }
      if (!found) {
        // Go prints the *MetaPod as &{UID}.
        return Error("extender: " + urlPrefix_ + " claims to preempt pod (UID: &{" + metaPod.uid +
                     "}) on node: " + (*nodeInfo)->nodeName() + ", but the pod is not found on that node");
      }
      victims.pods.push_back(std::move(found));
    }
    out[nodeName] = std::move(victims);
  }
  return out;
}

}  // namespace ks::extender
