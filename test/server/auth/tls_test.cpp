// The secure port's TLS side of authentication: the server requests (never requires) a client certificate
// and hands the chain to the filter; --tls-min-version and --tls-cipher-suites.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <gtest/gtest.h>

#include <atomic>
#include <optional>

#include "pkg/server/auth/ca_bundle.h"
#include "pkg/server/server.h"
#include "pkg/server/tls_options.h"
#include "test/server/auth/test_certs.h"

namespace ks::server {
namespace {

using auth::testing::makeCa;
using auth::testing::makeCert;
using auth::testing::TestCert;

struct ClientOptions {
  const TestCert* cert = nullptr;
  const TestCert* intermediate = nullptr;
  int maxVersion = 0;
  std::string ciphers;  // TLS <= 1.2 cipher list
};

// One GET over TLS; the status line's code, or nullopt when the handshake fails.
std::optional<int> tlsGet(uint16_t port, const ClientOptions& o) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  if (o.maxVersion != 0) {
    SSL_CTX_set_max_proto_version(ctx, o.maxVersion);
    if (o.maxVersion < TLS1_2_VERSION) SSL_CTX_set_security_level(ctx, 0);
  }
  if (!o.ciphers.empty()) SSL_CTX_set_cipher_list(ctx, o.ciphers.c_str());
  if (o.cert != nullptr) {
    SSL_CTX_use_certificate(ctx, o.cert->cert.get());
    SSL_CTX_use_PrivateKey(ctx, o.cert->key.get());
    if (o.intermediate != nullptr) {
      X509_up_ref(o.intermediate->cert.get());
      SSL_CTX_add_extra_chain_cert(ctx, o.intermediate->cert.get());
    }
  }
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  std::optional<int> status;
  SSL* ssl = SSL_new(ctx);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) == 1) {
      const std::string req = "GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n";
      SSL_write(ssl, req.data(), static_cast<int>(req.size()));
      std::string raw;
      char buf[4096];
      int n = 0;
      while ((n = SSL_read(ssl, buf, sizeof(buf))) > 0) raw.append(buf, static_cast<size_t>(n));
      if (raw.size() > 12) status = std::atoi(raw.c_str() + 9);
    }
  }
  ERR_clear_error();
  SSL_free(ssl);
  ::close(fd);
  SSL_CTX_free(ctx);
  return status;
}

class TlsServerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Server> start(ServerOptions o = {}) {
    o.bindAddress = "127.0.0.1";
    o.port = 0;
    auto created = Server::create(std::move(o));
    EXPECT_TRUE(created.ok()) << (created.ok() ? "" : created.error().message());
    if (!created.ok()) return nullptr;
    auto srv = std::move(created).value();
    srv->handle("/x", [](const Request&) { return Response{}; });
    // The filter sees the chain: 200 with a chain verified against ca_, 401 otherwise.
    srv->setFilter([this](const Request& req) -> std::optional<Response> {
      chainLength_ = static_cast<int>(req.peerCertificates.size());
      if (req.peerCertificates.empty()) return Response::error(401, "no certificate");
      auto bundle = auth::CABundle::parse(ca_.certPem, "test");
      if (!bundle.ok() || !(*bundle)->verify(req.peerCertificates).ok()) return Response::error(401, "bad");
      return std::nullopt;
    });
    srv->start();
    return srv;
  }

  TestCert ca_ = makeCa("client-ca");
  std::atomic<int> chainLength_{-1};
};

TEST_F(TlsServerTest, RequestsButDoesNotRequireClientCertificates) {
  auto srv = start();
  ASSERT_TRUE(srv);
  EXPECT_EQ(tlsGet(srv->port(), {}), 401);
  EXPECT_EQ(chainLength_, 0);
  auto client = makeCert("alice", {"system:masters"}, &ca_);
  ClientOptions o;
  o.cert = &client;
  EXPECT_EQ(tlsGet(srv->port(), o), 200);
  EXPECT_EQ(chainLength_, 1);
  // A certificate from an unknown CA still completes the handshake: the filter decides.
  auto other = makeCa("other");
  auto stranger = makeCert("mallory", {}, &other);
  o.cert = &stranger;
  EXPECT_EQ(tlsGet(srv->port(), o), 401);
  // The intermediates the client sends reach the filter after the leaf.
  auto inter = makeCert("intermediate", {}, &ca_, /*ca=*/true);
  auto leaf = makeCert("bob", {}, &inter);
  o.cert = &leaf;
  o.intermediate = &inter;
  EXPECT_EQ(tlsGet(srv->port(), o), 200);
  EXPECT_EQ(chainLength_, 2);
}

TEST_F(TlsServerTest, WithoutClientCaNoCertificateIsAskedFor) {
  ServerOptions opts;
  opts.requestClientCertificates = false;
  auto srv = start(opts);
  ASSERT_TRUE(srv);
  auto client = makeCert("alice", {}, &ca_);
  ClientOptions o;
  o.cert = &client;
  EXPECT_EQ(tlsGet(srv->port(), o), 401);  // the client was not asked, so it sent nothing
  EXPECT_EQ(chainLength_, 0);
}

TEST_F(TlsServerTest, MinVersionDefaultsToTls12) {
  auto srv = start();
  ASSERT_TRUE(srv);
  ClientOptions o;
  o.maxVersion = TLS1_1_VERSION;
  EXPECT_FALSE(tlsGet(srv->port(), o));
  o.maxVersion = TLS1_2_VERSION;
  EXPECT_EQ(tlsGet(srv->port(), o), 401);
}

TEST_F(TlsServerTest, MinVersionTls13) {
  ServerOptions opts;
  opts.minTlsVersion = tlsVersion("VersionTLS13").value();
  auto srv = start(opts);
  ASSERT_TRUE(srv);
  ClientOptions o;
  o.maxVersion = TLS1_2_VERSION;
  EXPECT_FALSE(tlsGet(srv->port(), o));
  o.maxVersion = TLS1_3_VERSION;
  EXPECT_EQ(tlsGet(srv->port(), o), 401);
}

TEST_F(TlsServerTest, CipherSuitesApplyToTls12) {
  ServerOptions opts;
  opts.cipherList = tlsCipherList({"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"}).value();
  EXPECT_EQ(opts.cipherList, "ECDHE-RSA-AES128-GCM-SHA256");
  auto srv = start(opts);
  ASSERT_TRUE(srv);
  ClientOptions o;
  o.maxVersion = TLS1_2_VERSION;
  o.ciphers = "ECDHE-RSA-AES256-GCM-SHA384";
  EXPECT_FALSE(tlsGet(srv->port(), o));
  o.ciphers = "ECDHE-RSA-AES128-GCM-SHA256";
  EXPECT_EQ(tlsGet(srv->port(), o), 401);
  // TLS 1.3 suites are not restricted (as in Go).
  ClientOptions tls13;
  tls13.maxVersion = TLS1_3_VERSION;
  EXPECT_EQ(tlsGet(srv->port(), tls13), 401);
}

TEST(TlsOptions, Versions) {
  EXPECT_EQ(tlsVersion("").value(), TLS1_2_VERSION);
  EXPECT_EQ(tlsVersion("VersionTLS10").value(), TLS1_VERSION);
  EXPECT_EQ(tlsVersion("VersionTLS11").value(), TLS1_1_VERSION);
  EXPECT_EQ(tlsVersion("VersionTLS12").value(), TLS1_2_VERSION);
  EXPECT_EQ(tlsVersion("VersionTLS13").value(), TLS1_3_VERSION);
  EXPECT_EQ(tlsVersion("TLS13").error().message(), "unknown tls version \"TLS13\"");
  EXPECT_EQ(tlsVersion("versiontls12").error().message(), "unknown tls version \"versiontls12\"");
}

TEST(TlsOptions, CipherSuites) {
  EXPECT_EQ(tlsCipherList({}).value(), "");
  EXPECT_EQ(tlsCipherList({"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
                           "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"})
                .value(),
            "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305");
  // Insecure suites are accepted, as cliflag.TLSCipherSuites does.
  EXPECT_EQ(tlsCipherList({"TLS_RSA_WITH_AES_128_GCM_SHA256"}).value(), "AES128-GCM-SHA256");
  EXPECT_EQ(tlsCipherList({"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"}).error().message(),
            "Cipher suite ECDHE-RSA-AES128-GCM-SHA256 not supported or doesn't exist");
  EXPECT_EQ(tlsCipherList({"TLS_AES_128_GCM_SHA256"}).value(), "-ALL");
  // Names Go knows that this OpenSSL leaves out are refused at start rather than ignored.
  EXPECT_EQ(tlsCipherList({"TLS_RSA_WITH_RC4_128_SHA"}).error().message(),
            "Cipher suite TLS_RSA_WITH_RC4_128_SHA not supported or doesn't exist");
  // Every name maps to a suite OpenSSL knows (else the server would fail to start).
  for (const auto& names : {preferredTlsCipherNames(), insecureTlsCipherNames()}) {
    for (const auto& n : names) {
      auto mapped = tlsCipherList({n});
      if (!mapped.ok()) {
        EXPECT_TRUE(n.find("RC4") != std::string::npos || n.find("3DES") != std::string::npos) << n;
        continue;
      }
      const std::string list = *mapped;
      if (list == "-ALL") continue;
      SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
      SSL_CTX_set_security_level(ctx, 0);
      EXPECT_EQ(SSL_CTX_set_cipher_list(ctx, list.c_str()), 1) << n << " -> " << list;
      ERR_clear_error();
      SSL_CTX_free(ctx);
    }
  }
  EXPECT_EQ(preferredTlsCipherNames().size(), 15u);
  EXPECT_EQ(insecureTlsCipherNames().size(), 12u);
}

}  // namespace
}  // namespace ks::server
