#include "pkg/client/rest/config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "pkg/api/json/yaml.h"

namespace ks::client::rest {

using nlohmann::json;

Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error("cannot read \"" + path + "\": " + std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error("cannot read \"" + path + "\": read error");
  return ss.str();
}

namespace {

constexpr std::string_view kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int b64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

Result<std::string> base64Decode(std::string_view in) {
  std::string out;
  out.reserve(in.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  size_t padding = 0;
  for (char c : in) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return Error("illegal base64 data: data after padding");
    const int v = b64Value(c);
    if (v < 0) return Error(std::string("illegal base64 data: unexpected character '") + c + "'");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (bits >= 6 || padding > 2) return Error("illegal base64 data: truncated input");
  return out;
}

std::string base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v =
        (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint32_t(uint8_t(in[i + 2]));
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  if (i + 1 == in.size()) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8);
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

namespace {

// Walks the kubeconfig document; every error carries "<origin>: <field path>: ".
class KubeconfigReader {
 public:
  KubeconfigReader(const json& doc, std::string baseDir, std::string origin)
      : doc_(doc), baseDir_(std::move(baseDir)), origin_(std::move(origin)) {}

  Result<RestConfig> read(const std::string& contextOverride) {
    if (!doc_.is_object()) return fail("", "expected a mapping at the top level");
    std::string contextName = contextOverride;
    if (contextName.empty()) {
      auto cc = optString(doc_, "current-context", "current-context");
      if (!cc.ok()) return cc.error();
      contextName = *cc;
      if (contextName.empty()) return fail("current-context", "not set and no context was given");
    }
    auto ctx = findNamed("contexts", "context", contextName);
    if (!ctx.ok()) return ctx.error();
    const std::string ctxPath = "contexts[\"" + contextName + "\"].context";
    const json& context = *ctx.value();

    auto clusterName = optString(context, "cluster", ctxPath + ".cluster");
    if (!clusterName.ok()) return clusterName.error();
    if (clusterName->empty()) return fail(ctxPath + ".cluster", "missing");
    auto userName = optString(context, "user", ctxPath + ".user");
    if (!userName.ok()) return userName.error();
    auto ns = optString(context, "namespace", ctxPath + ".namespace");
    if (!ns.ok()) return ns.error();

    RestConfig config;
    config.namespace_ = *ns;
    if (auto r = readCluster(*clusterName, config); !r.ok()) return r.error();
    if (!userName->empty()) {
      if (auto r = readUser(*userName, config); !r.ok()) return r.error();
    }
    return config;
  }

 private:
  Error fail(const std::string& field, const std::string& what) const {
    return Error(origin_ + ": " + (field.empty() ? what : field + ": " + what));
  }

  Result<std::string> optString(const json& obj, const char* key, const std::string& field) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::string();
    if (!it->is_string()) return fail(field, "expected a string");
    return it->get<std::string>();
  }

  Result<bool> optBool(const json& obj, const char* key, const std::string& field) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return false;
    if (it->is_boolean()) return it->get<bool>();
    if (it->is_string()) {
      const auto s = it->get<std::string>();
      if (s == "true") return true;
      if (s == "false") return false;
    }
    return fail(field, "expected true or false");
  }

  // The `inner` object of the entry named `name` in the list `listKey`.
  Result<const json*> findNamed(const char* listKey, const char* inner, const std::string& name) const {
    auto it = doc_.find(listKey);
    if (it == doc_.end() || it->is_null()) {
      return fail(listKey, std::string(inner) + " \"" + name + "\" not found (no " + listKey + ")");
    }
    if (!it->is_array()) return fail(listKey, "expected a list");
    for (size_t i = 0; i < it->size(); ++i) {
      const json& entry = (*it)[i];
      const std::string field = std::string(listKey) + "[" + std::to_string(i) + "]";
      if (!entry.is_object()) return fail(field, "expected a mapping");
      auto n = entry.find("name");
      if (n == entry.end() || !n->is_string() || n->get<std::string>() != name) continue;
      auto body = entry.find(inner);
      if (body == entry.end() || body->is_null()) {
        return fail(std::string(listKey) + "[\"" + name + "\"]." + inner, "missing");
      }
      if (!body->is_object())
        return fail(std::string(listKey) + "[\"" + name + "\"]." + inner, "expected a mapping");
      return &*body;
    }
    return fail(listKey, std::string(inner) + " \"" + name + "\" not found");
  }

  std::string resolve(const std::string& p) const {
    if (p.empty() || p.front() == '/' || baseDir_.empty()) return p;
    return (std::filesystem::path(baseDir_) / p).lexically_normal().string();
  }

  // `<key>-data` (base64) or `<key>` (a file): the PEM bytes, "" when neither is set.
  Result<std::string> dataOrFile(const json& obj, const std::string& path, const char* fileKey,
                                 const std::string& dataKey) const {
    auto data = optString(obj, dataKey.c_str(), path + "." + dataKey);
    if (!data.ok()) return data.error();
    if (!data->empty()) {
      auto decoded = base64Decode(*data);
      if (!decoded.ok()) return fail(path + "." + dataKey, decoded.error().message());
      return std::move(decoded).value();
    }
    auto file = optString(obj, fileKey, path + "." + fileKey);
    if (!file.ok()) return file.error();
    if (file->empty()) return std::string();
    auto text = readFile(resolve(*file));
    if (!text.ok()) return fail(path + "." + fileKey, text.error().message());
    return std::move(text).value();
  }

  Result<void> readCluster(const std::string& name, RestConfig& config) const {
    auto c = findNamed("clusters", "cluster", name);
    if (!c.ok()) return c.error();
    const json& cluster = *c.value();
    const std::string path = "clusters[\"" + name + "\"].cluster";
    auto server = optString(cluster, "server", path + ".server");
    if (!server.ok()) return server.error();
    if (server->empty()) return fail(path + ".server", "missing");
    if (server->rfind("https://", 0) != 0 && server->rfind("http://", 0) != 0) {
      return fail(path + ".server", "\"" + *server + "\" is not an http(s) URL");
    }
    while (server->size() > 8 && server->back() == '/') server->pop_back();
    config.server = *server;
    auto insecure = optBool(cluster, "insecure-skip-tls-verify", path + ".insecure-skip-tls-verify");
    if (!insecure.ok()) return insecure.error();
    config.insecureSkipTlsVerify = *insecure;
    auto ca = dataOrFile(cluster, path, "certificate-authority", "certificate-authority-data");
    if (!ca.ok()) return ca.error();
    config.caPem = std::move(ca).value();
    if (config.insecureSkipTlsVerify && !config.caPem.empty()) {
      return fail(path, "specifying a root certificates file with the insecure flag is not allowed");
    }
    if (cluster.contains("proxy-url")) return fail(path + ".proxy-url", "proxies are not supported");
    return {};
  }

  Result<void> readUser(const std::string& name, RestConfig& config) const {
    auto u = findNamed("users", "user", name);
    if (!u.ok()) return u.error();
    const json& user = *u.value();
    const std::string path = "users[\"" + name + "\"].user";
    if (user.contains("exec") && !user["exec"].is_null()) {
      return fail(path + ".exec", "exec credential plugins are not supported");
    }
    if (user.contains("auth-provider") && !user["auth-provider"].is_null()) {
      return fail(path + ".auth-provider", "auth provider plugins are not supported");
    }
    auto cert = dataOrFile(user, path, "client-certificate", "client-certificate-data");
    if (!cert.ok()) return cert.error();
    auto key = dataOrFile(user, path, "client-key", "client-key-data");
    if (!key.ok()) return key.error();
    if (cert->empty() != key->empty()) {
      return fail(path, cert->empty() ? "client-key given without client-certificate"
                                      : "client-certificate given without client-key");
    }
    config.clientCertPem = std::move(cert).value();
    config.clientKeyPem = std::move(key).value();

    auto token = optString(user, "token", path + ".token");
    if (!token.ok()) return token.error();
    config.bearerToken = *token;
    auto tokenFile = optString(user, "tokenFile", path + ".tokenFile");
    if (!tokenFile.ok()) return tokenFile.error();
    if (!tokenFile->empty()) {
      config.bearerTokenFile = resolve(*tokenFile);
      // Fail early on a token file that cannot be read, as clientcmd does.
      auto text = readFile(config.bearerTokenFile);
      if (!text.ok()) return fail(path + ".tokenFile", text.error().message());
    }
    auto username = optString(user, "username", path + ".username");
    if (!username.ok()) return username.error();
    auto password = optString(user, "password", path + ".password");
    if (!password.ok()) return password.error();
    config.username = *username;
    config.password = *password;
    return {};
  }

  const json& doc_;
  std::string baseDir_;
  std::string origin_;
};

}  // namespace

Result<RestConfig> parseKubeconfig(std::string_view yaml, const std::string& baseDir,
                                   const std::string& origin, const std::string& context) {
  auto docs = api::yamlToJson(yaml);
  if (!docs.ok()) return docs.error().wrap(origin);
  if (docs->empty() || docs->front().is_null()) {
    return Error(origin + ": no configuration has been provided");
  }
  return KubeconfigReader(docs->front(), baseDir, origin).read(context);
}

Result<RestConfig> loadKubeconfig(const std::string& path, const std::string& context) {
  auto text = readFile(path);
  if (!text.ok()) return Error("kubeconfig: " + text.error().message());
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parseKubeconfig(*text, dir, path, context);
}

Result<RestConfig> restConfigFor(const ClientConnection& connection, const std::string& master) {
  RestConfig rc;
  if (!connection.kubeconfig.empty()) {
    auto loaded = loadKubeconfig(connection.kubeconfig);
    if (!loaded.ok()) return loaded.error().wrap("loading kubeconfig");
    rc = std::move(loaded).value();
  } else if (master.empty()) {
    spdlog::warn(
        "Neither --kubeconfig nor --master was specified. Using the inClusterConfig. This might not work.");
    auto inCluster = inClusterConfig();
    if (!inCluster.ok()) {
      return Error(
          "invalid configuration: no configuration has been provided (set clientConnection.kubeconfig "
          "in --config, --kubeconfig, or --master; in-cluster config: " +
          inCluster.error().message() + ")");
    }
    rc = std::move(inCluster).value();
  }
  if (!master.empty()) rc.server = master;
  rc.qps = connection.qps;
  rc.burst = connection.burst;
  rc.contentType = connection.contentType;
  rc.acceptContentTypes = connection.acceptContentTypes;
  rc.disableCompression = true;
  return rc;
}

Result<RestConfig> inClusterConfig(const InClusterOptions& options) {
  auto env = [&](const std::string& name) -> std::string {
    if (options.getenv) return options.getenv(name).value_or("");
    const char* v = std::getenv(name.c_str());
    return v ? v : "";
  };
  const std::string host = env("KUBERNETES_SERVICE_HOST");
  const std::string port = env("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return Error(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT must be defined");
  }
  RestConfig config;
  const bool ipv6 = host.find(':') != std::string::npos;
  config.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  auto token = readFile(options.tokenFile);
  if (!token.ok()) return Error("in-cluster config: service account token: " + token.error().message());
  config.bearerTokenFile = options.tokenFile;
  auto ca = readFile(options.caFile);
  if (!ca.ok()) return Error("in-cluster config: service account CA: " + ca.error().message());
  config.caPem = std::move(ca).value();
  if (auto ns = readFile(options.namespaceFile); ns.ok()) {
    std::string n = *ns;
    while (!n.empty() && (n.back() == '\n' || n.back() == ' ')) n.pop_back();
    config.namespace_ = n;
  }
  return config;
}

}  // namespace ks::client::rest
