#include "pkg/server/tls_options.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace ks::server {
namespace {

struct Suite {
  std::string_view openssl;  // "" for TLS 1.3 suites (not configurable)
  bool insecure;
};

// Go's tls.CipherSuites() + tls.InsecureCipherSuites() (Go 1.24, which builds kube-scheduler v1.34), plus
// the two legacy CHACHA20 names cliflag keeps.
const std::map<std::string_view, Suite>& suites() {
  static const std::map<std::string_view, Suite> kSuites = {
      {"TLS_AES_128_GCM_SHA256", {"", false}},
      {"TLS_AES_256_GCM_SHA384", {"", false}},
      {"TLS_CHACHA20_POLY1305_SHA256", {"", false}},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", {"ECDHE-ECDSA-AES128-SHA", false}},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", {"ECDHE-ECDSA-AES128-GCM-SHA256", false}},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", {"ECDHE-ECDSA-AES256-SHA", false}},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", {"ECDHE-ECDSA-AES256-GCM-SHA384", false}},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", {"ECDHE-ECDSA-CHACHA20-POLY1305", false}},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", {"ECDHE-ECDSA-CHACHA20-POLY1305", false}},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", {"ECDHE-RSA-AES128-SHA", false}},
      {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", {"ECDHE-RSA-AES128-GCM-SHA256", false}},
      {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", {"ECDHE-RSA-AES256-SHA", false}},
      {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", {"ECDHE-RSA-AES256-GCM-SHA384", false}},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", {"ECDHE-RSA-CHACHA20-POLY1305", false}},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", {"ECDHE-RSA-CHACHA20-POLY1305", false}},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", {"ECDHE-ECDSA-AES128-SHA256", true}},
      {"TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", {"ECDHE-ECDSA-RC4-SHA", true}},
      {"TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", {"ECDHE-RSA-DES-CBC3-SHA", true}},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", {"ECDHE-RSA-AES128-SHA256", true}},
      {"TLS_ECDHE_RSA_WITH_RC4_128_SHA", {"ECDHE-RSA-RC4-SHA", true}},
      {"TLS_RSA_WITH_3DES_EDE_CBC_SHA", {"DES-CBC3-SHA", true}},
      {"TLS_RSA_WITH_AES_128_CBC_SHA", {"AES128-SHA", true}},
      {"TLS_RSA_WITH_AES_128_CBC_SHA256", {"AES128-SHA256", true}},
      {"TLS_RSA_WITH_AES_128_GCM_SHA256", {"AES128-GCM-SHA256", true}},
      {"TLS_RSA_WITH_AES_256_CBC_SHA", {"AES256-SHA", true}},
      {"TLS_RSA_WITH_AES_256_GCM_SHA384", {"AES256-GCM-SHA384", true}},
      {"TLS_RSA_WITH_RC4_128_SHA", {"RC4-SHA", true}},
  };
  return kSuites;
}

// Whether this OpenSSL offers `cipher` (builds leave out RC4 and 3DES, which Go still implements).
bool opensslHas(std::string_view cipher) {
  SSL_CTX* probe = SSL_CTX_new(TLS_server_method());
  if (probe == nullptr) return false;
  SSL_CTX_set_security_level(probe, 0);
  const bool ok = SSL_CTX_set_cipher_list(probe, std::string(cipher).c_str()) == 1;
  ERR_clear_error();
  SSL_CTX_free(probe);
  return ok;
}

}  // namespace

Result<int> tlsVersion(std::string_view name) {
  if (name.empty()) return TLS1_2_VERSION;
  if (name == "VersionTLS10") return TLS1_VERSION;
  if (name == "VersionTLS11") return TLS1_1_VERSION;
  if (name == "VersionTLS12") return TLS1_2_VERSION;
  if (name == "VersionTLS13") return TLS1_3_VERSION;
  return Error("unknown tls version \"" + std::string(name) + "\"");
}

Result<std::string> tlsCipherList(const std::vector<std::string>& names) {
  std::string out;
  std::vector<std::string_view> seen;
  for (const auto& name : names) {
    auto it = suites().find(name);
    // Go's text; also for the names Go knows and this OpenSSL does not offer.
    if (it == suites().end() || (!it->second.openssl.empty() && !opensslHas(it->second.openssl))) {
      return Error("Cipher suite " + name + " not supported or doesn't exist");
    }
    std::string_view o = it->second.openssl;
    if (o.empty() || std::find(seen.begin(), seen.end(), o) != seen.end()) continue;
    seen.push_back(o);
    if (!out.empty()) out += ":";
    out += o;
  }
  // Only TLS 1.3 names: nothing to restrict below 1.3, but an empty list would mean "defaults"; Go then
  // offers no TLS <= 1.2 suite at all, so neither do we ("-ALL" leaves TLS 1.3 suites, set separately).
  if (out.empty() && !names.empty()) out = "-ALL";
  return out;
}

std::vector<std::string> preferredTlsCipherNames() {
  std::vector<std::string> out;
  for (const auto& [name, s] : suites())
    if (!s.insecure) out.emplace_back(name);
  return out;
}

std::vector<std::string> insecureTlsCipherNames() {
  std::vector<std::string> out;
  for (const auto& [name, s] : suites())
    if (s.insecure) out.emplace_back(name);
  return out;
}

Result<std::string> tlsCurveGroups(const std::vector<int32_t>& curveIds) {
  // Go's CurveIDs with the OpenSSL group names, in Go's preference order (hybrids first).
  static constexpr std::pair<int32_t, std::string_view> kCurves[] = {
      {4588, "X25519MLKEM768"},
      {4587, "SecP256r1MLKEM768"},
      {4589, "SecP384r1MLKEM1024"},
      {29, "X25519"},
      {23, "P-256"},
      {24, "P-384"},
      {25, "P-521"},
  };
  std::set<int32_t> seen;
  for (int32_t id : curveIds) {
    const std::string n = std::to_string(id);
    if (id <= 0 || id > 65535) return Error("curve preference " + n + " is out of range (must be 1-65535)");
    if (!seen.insert(id).second) return Error("duplicate curve preference " + n);
    auto known =
        std::find_if(std::begin(kCurves), std::end(kCurves), [id](const auto& c) { return c.first == id; });
    if (known == std::end(kCurves))
      return Error("curve preference " + n + " is not supported by the current Go version");
  }
  std::string groups;
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> probe(SSL_CTX_new(TLS_server_method()), &SSL_CTX_free);
  for (const auto& [id, name] : kCurves) {
    if (seen.count(id) == 0) continue;
    const std::string group(name);
    if (!probe || SSL_CTX_set1_groups_list(probe.get(), group.c_str()) != 1) {
      ERR_clear_error();
      return Error("curve preference " + std::to_string(id) + " (" + group + ") is not supported by " +
                   OpenSSL_version(OPENSSL_VERSION));
    }
    groups += (groups.empty() ? "" : ":") + group;
  }
  return groups;
}

std::vector<std::string> tlsPossibleVersions() {
  return {"VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"};
}

}  // namespace ks::server
