#include "pkg/server/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <spdlog/spdlog.h>

#include "pkg/api/labels.h"
#include "pkg/server/http_request.h"
#include "pkg/util/strings.h"

namespace ks::server {

namespace {

struct SslCtxDeleter {
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
};
struct PkeyDeleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Deleter {
  void operator()(X509* p) const { X509_free(p); }
};
struct BioDeleter {
  void operator()(BIO* p) const { BIO_free(p); }
};
struct BnDeleter {
  void operator()(BIGNUM* p) const { BN_free(p); }
};
struct X509StackDeleter {
  void operator()(STACK_OF(X509) * p) const { sk_X509_pop_free(p, X509_free); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyDeleter>;
using X509Ptr = std::unique_ptr<X509, X509Deleter>;
using BioPtr = std::unique_ptr<BIO, BioDeleter>;
using BnPtr = std::unique_ptr<BIGNUM, BnDeleter>;
using X509StackPtr = std::unique_ptr<STACK_OF(X509), X509StackDeleter>;

// The OpenSSL error queue as text (and cleared).
std::string sslError(std::string_view what) {
  std::string msg(what);
  unsigned long e = 0;
  bool first = true;
  while ((e = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    msg += first ? ": " : "; ";
    msg += buf;
    first = false;
  }
  return msg;
}

std::string errnoText(int err) {
  char buf[256];
  return std::string(strerror_r(err, buf, sizeof(buf)));
}

// As Go's *PathError text: "open /x: no such file or directory".
std::string pathError(std::string_view op, const std::string& path, int err) {
  std::string text = errnoText(err);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return std::string(op) + " " + path + ": " + text;
}

bool isIp(const std::string& s) {
  in6_addr a6{};
  in_addr a4{};
  return inet_pton(AF_INET, s.c_str(), &a4) == 1 || inet_pton(AF_INET6, s.c_str(), &a6) == 1;
}

// Host names / IPs we are willing to put into the SAN config string.
bool isSafeName(const std::string& s) {
  return !s.empty() && s.size() < 254 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' || c == '*';
  });
}

std::string bioToString(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(pathError("open", path, errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// os.WriteFile: created with `mode` (less the umask), truncated when it exists.
VoidResult writeFile(const std::string& path, const std::string& data, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return Error(pathError("open", path, errno));
  std::string_view rest = data;
  while (!rest.empty()) {
    ssize_t w = ::write(fd, rest.data(), rest.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int err = errno;
      ::close(fd);
      return Error(pathError("write", path, err));
    }
    rest.remove_prefix(static_cast<size_t>(w));
  }
  if (::close(fd) != 0) return Error(pathError("close", path, errno));
  return {};
}

// os.MkdirAll(dir, 0755).
VoidResult makeDirectories(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || std::filesystem::is_directory(dir, ec)) return {};
  std::string built;
  size_t pos = 0;
  while (pos <= dir.size()) {
    size_t slash = dir.find('/', pos);
    if (slash == std::string::npos) slash = dir.size();
    built = dir.substr(0, slash);
    pos = slash + 1;
    if (built.empty() || std::filesystem::is_directory(built, ec)) continue;
    if (::mkdir(built.c_str(), 0755) != 0 && errno != EEXIST) return Error(pathError("mkdir", built, errno));
  }
  return {};
}

bool canReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return static_cast<bool>(in);
}

// A certificate (with the chain after it) and its key, as tls.X509KeyPair checks them.
struct CertKeyPair {
  X509Ptr cert;
  PkeyPtr key;
  X509StackPtr chain;
};

Result<CertKeyPair> parseCertKeyPair(const std::string& certPem, const std::string& keyPem) {
  CertKeyPair out;
  BioPtr certBio(BIO_new_mem_buf(certPem.data(), static_cast<int>(certPem.size())));
  out.cert.reset(PEM_read_bio_X509(certBio.get(), nullptr, nullptr, nullptr));
  if (!out.cert) {
    ERR_clear_error();
    return Error("tls: failed to find any PEM data in certificate input");
  }
  out.chain.reset(sk_X509_new_null());
  while (X509* next = PEM_read_bio_X509(certBio.get(), nullptr, nullptr, nullptr)) {
    sk_X509_push(out.chain.get(), next);
  }
  ERR_clear_error();  // the end of the PEM input
  BioPtr keyBio(BIO_new_mem_buf(keyPem.data(), static_cast<int>(keyPem.size())));
  out.key.reset(PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, nullptr));
  if (!out.key) {
    ERR_clear_error();
    return Error("tls: failed to find any PEM data in key input");
  }
  if (X509_check_private_key(out.cert.get(), out.key.get()) != 1) {
    ERR_clear_error();
    return Error("tls: private key does not match public key");
  }
  return out;
}

// upstream getCertificateNames: the CN when it is a DNS name (not an IP), then the DNS SANs. IP SANs are
// left out: SNI never carries an IP.
std::vector<std::string> certificateNames(X509* cert) {
  std::vector<std::string> names;
  X509_NAME* subject = X509_get_subject_name(cert);
  int idx = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (idx >= 0) {
    const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, idx));
    std::string cn(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                   static_cast<size_t>(ASN1_STRING_length(data)));
    std::string_view domain = cn;
    if (domain.rfind("*.", 0) == 0) domain.remove_prefix(2);
    if (!isIp(cn) && (cn == "*" || api::isDNS1123Subdomain(domain).empty())) names.push_back(cn);
  }
  auto* sans = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; sans != nullptr && i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(sans, i);
    if (gn->type != GEN_DNS) continue;
    names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(gn->d.dNSName)),
                       static_cast<size_t>(ASN1_STRING_length(gn->d.dNSName)));
  }
  GENERAL_NAMES_free(sans);
  return names;
}

// The local address of `fd` as Go prints an IP (IPv4-mapped IPv6 as IPv4); empty when unknown.
std::string localIp(int fd) {
  sockaddr_storage local{};
  socklen_t len = sizeof(local);
  if (fd < 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return {};
  char buf[INET6_ADDRSTRLEN] = {};
  if (local.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&local)->sin_addr, buf, sizeof(buf));
  } else if (local.ss_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
      inet_ntop(AF_INET, &a.s6_addr[12], buf, sizeof(buf));
    } else {
      inet_ntop(AF_INET6, &a, buf, sizeof(buf));
    }
  }
  return buf;
}

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Request Entity Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

// One accepted connection, plain or TLS, with blocking I/O bounded by socket timeouts.
class Connection {
 public:
  Connection(int fd, SSL_CTX* ctx) : fd_(fd) {
    if (ctx != nullptr) ssl_ = SSL_new(ctx);
  }
  ~Connection() {
    if (ssl_ != nullptr) SSL_free(ssl_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool handshake() {
    if (ssl_ == nullptr) return true;
    if (SSL_set_fd(ssl_, fd_) != 1) return false;
    bool ok = SSL_accept(ssl_) == 1;
    if (!ok) ERR_clear_error();
    return ok;
  }

  // The client's certificate chain (DER, leaf first), as Go's tls.ConnectionState.PeerCertificates.
  std::vector<std::string> peerCertificates() const {
    std::vector<std::string> out;
    if (ssl_ == nullptr) return out;
    auto der = [](X509* cert) {
      unsigned char* buf = nullptr;
      int n = i2d_X509(cert, &buf);
      std::string s;
      if (n > 0) s.assign(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
      OPENSSL_free(buf);
      return s;
    };
    X509* leaf = SSL_get0_peer_certificate(ssl_);
    if (leaf == nullptr) return out;
    out.push_back(der(leaf));
    // On the server side the chain excludes the leaf.
    STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl_);
    for (int i = 0; chain != nullptr && i < sk_X509_num(chain); ++i) {
      X509* c = sk_X509_value(chain, i);
      if (X509_cmp(c, leaf) == 0) continue;
      out.push_back(der(c));
    }
    return out;
  }

  // Bytes read (>0), or 0 on EOF / error / timeout.
  size_t read(char* buf, size_t n) {
    if (ssl_ != nullptr) {
      size_t got = 0;
      if (SSL_read_ex(ssl_, buf, n, &got) != 1) {
        ERR_clear_error();
        return 0;
      }
      return got;
    }
    for (;;) {
      ssize_t r = ::recv(fd_, buf, n, 0);
      if (r < 0 && errno == EINTR) continue;
      return r > 0 ? static_cast<size_t>(r) : 0;
    }
  }

  bool writeAll(std::string_view data) {
    while (!data.empty()) {
      if (ssl_ != nullptr) {
        size_t written = 0;
        if (SSL_write_ex(ssl_, data.data(), data.size(), &written) != 1) {
          ERR_clear_error();
          return false;
        }
        data.remove_prefix(written);
      } else {
        ssize_t w = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        data.remove_prefix(static_cast<size_t>(w));
      }
    }
    return true;
  }

  void shutdown() {
    if (ssl_ != nullptr) {
      SSL_shutdown(ssl_);
      ERR_clear_error();
    }
  }

 private:
  int fd_;
  SSL* ssl_ = nullptr;
};

std::string serialize(const Response& resp, bool includeBody) {
  std::string out =
      "HTTP/1.1 " + std::to_string(resp.status) + " " + std::string(reasonPhrase(resp.status)) + "\r\n";
  if (!resp.contentType.empty()) out += "Content-Type: " + resp.contentType + "\r\n";
  for (const auto& [k, v] : resp.headers) out += k + ": " + v + "\r\n";
  out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n";
  out += "Connection: close\r\n\r\n";
  if (includeBody) out += resp.body;
  return out;
}

}  // namespace

bool Request::hasQuery(std::string_view key) const {
  return std::any_of(query.begin(), query.end(), [&](const auto& kv) { return kv.first == key; });
}

std::vector<std::string> Request::queryValues(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : query) {
    if (k == key) out.push_back(v);
  }
  return out;
}

Response Response::error(int status, std::string message) {
  Response r;
  r.status = status;
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.body = std::move(message);
  r.body += "\n";
  return r;
}

Result<CertKeyPem> generateSelfSignedCertKey(std::string_view host,
                                             const std::vector<std::string>& alternateNames) {
  PkeyPtr key(EVP_RSA_gen(2048));
  if (!key) return Error(sslError("generating RSA key"));
  X509Ptr cert(X509_new());
  if (!cert) return Error(sslError("allocating certificate"));
  X509_set_version(cert.get(), 2);

  BnPtr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    return Error(sslError("setting serial number"));
  }
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  if (X509_set_pubkey(cert.get(), key.get()) != 1) return Error(sslError("setting public key"));

  std::string cn = std::string(host) + "@" + std::to_string(std::time(nullptr));
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0) != 1 ||
      X509_set_issuer_name(cert.get(), name) != 1) {
    return Error(sslError("setting subject"));
  }

  std::set<std::string> seen;
  std::string san;
  auto addName = [&](const std::string& n) {
    if (!isSafeName(n) || !seen.insert(n).second) return;
    if (!san.empty()) san += ",";
    san += (isIp(n) ? "IP:" : "DNS:") + n;
  };
  addName("localhost");
  addName("127.0.0.1");
  if (!host.empty()) addName(std::string(host));
  for (const auto& n : alternateNames) addName(n);

  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  const std::pair<int, std::string> exts[] = {
      {NID_basic_constraints, "critical,CA:TRUE"},
      {NID_key_usage, "critical,digitalSignature,keyEncipherment,keyCertSign"},
      {NID_ext_key_usage, "serverAuth"},
      {NID_subject_key_identifier, "hash"},
      {NID_subject_alt_name, san},
  };
  for (const auto& [nid, value] : exts) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) return Error(sslError("building certificate extension " + value));
    int ok = X509_add_ext(cert.get(), ext, -1);
    X509_EXTENSION_free(ext);
    if (ok != 1) return Error(sslError("adding certificate extension"));
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return Error(sslError("signing certificate"));

  BioPtr certBio(BIO_new(BIO_s_mem()));
  BioPtr keyBio(BIO_new(BIO_s_mem()));
  if (!certBio || !keyBio || PEM_write_bio_X509(certBio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(keyBio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return Error(sslError("encoding certificate"));
  }
  return CertKeyPem{bioToString(certBio.get()), bioToString(keyBio.get())};
}

struct Server::Impl {
  ServerOptions options;
  SslCtxPtr ssl;
  std::string certPem;
  // --tls-sni-cert-key: the pairs, and the server names (lower-case lookups) they answer for. Immutable
  // once set up; read by the handshake's servername callback on connection threads.
  std::vector<CertKeyPair> sniCerts;
  std::map<std::string, const CertKeyPair*, std::less<>> sniByName;
  int listenFd = -1;
  int wakeRead = -1;
  int wakeWrite = -1;
  uint16_t port = 0;
  std::map<std::string, Handler, std::less<>> routes;
  std::set<std::string> listed;
  Filter filter;
  std::vector<std::pair<std::string, std::string>> defaultHeaders;

  std::thread acceptor;
  std::mutex mu;
  std::condition_variable idle;
  std::set<int> activeFds;  // guarded by mu
  bool stopping = false;    // guarded by mu
  bool started = false;
  // Connection threads are joined, never detached: a thread still unwinding after stop() returned could
  // outlive the Impl (and its SSL_CTX) it serves. A finished thread parks itself in `finished` until the
  // acceptor or stop() joins it.
  uint64_t nextConnection = 0;                   // guarded by mu
  std::map<uint64_t, std::thread> connections;  // guarded by mu
  std::vector<std::thread> finished;            // guarded by mu

  ~Impl() {
    if (listenFd >= 0) ::close(listenFd);
    if (wakeRead >= 0) ::close(wakeRead);
    if (wakeWrite >= 0) ::close(wakeWrite);
  }

  VoidResult setUpTls() {
    ssl.reset(SSL_CTX_new(TLS_server_method()));
    if (!ssl) return Error(sslError("creating TLS context"));
    SSL_CTX_set_min_proto_version(ssl.get(),
                                  options.minTlsVersion == 0 ? TLS1_2_VERSION : options.minTlsVersion);
    if (options.minTlsVersion != 0 && options.minTlsVersion < TLS1_2_VERSION) {
      // OpenSSL 3's default security level 1 refuses TLS 1.0/1.1 (SHA-1 signatures); Go accepts them when
      // asked to, so do we.
      SSL_CTX_set_security_level(ssl.get(), 0);
    }
    if (!options.cipherList.empty() && SSL_CTX_set_cipher_list(ssl.get(), options.cipherList.c_str()) != 1) {
      return Error(sslError("setting --tls-cipher-suites"));
    }
    if (!options.groupsList.empty() && SSL_CTX_set1_groups_list(ssl.get(), options.groupsList.c_str()) != 1) {
      return Error(sslError("setting --tls-curve-preferences"));
    }
    SSL_CTX_set_mode(ssl.get(), SSL_MODE_AUTO_RETRY);
    // Request (never require) a client certificate, as Go's tls.RequestClientCert: the handshake accepts
    // any certificate and the authentication filter verifies it against the current client CAs.
    if (options.requestClientCertificates) {
      SSL_CTX_set_verify(ssl.get(), SSL_VERIFY_PEER, [](int, X509_STORE_CTX*) { return 1; });
    }
    static const unsigned char kSessionContext[] = "kube-scheduler-cpp";
    SSL_CTX_set_session_id_context(ssl.get(), kSessionContext, sizeof(kSessionContext) - 1);
    if (options.certFile.empty() != options.keyFile.empty()) {
      return Error("--tls-cert-file and --tls-private-key-file must be given together");
    }
    if (options.certFile.empty() && !options.certDirectory.empty()) {
      if (auto r = selfSignedInCertDirectory(); !r)
        return r.error().wrap("error creating self-signed certificates");
    }
    if (!options.certFile.empty()) {
      auto pem = readFile(options.certFile);
      if (!pem) return pem.error().wrap("loading --tls-cert-file");
      certPem = std::move(*pem);
      if (SSL_CTX_use_certificate_chain_file(ssl.get(), options.certFile.c_str()) != 1) {
        return Error(sslError("loading --tls-cert-file " + options.certFile));
      }
      if (SSL_CTX_use_PrivateKey_file(ssl.get(), options.keyFile.c_str(), SSL_FILETYPE_PEM) != 1) {
        return Error(sslError("loading --tls-private-key-file " + options.keyFile));
      }
    } else {
      auto generated = generateSelfSigned();
      if (!generated) return generated.error().wrap("generating self-signed certificate");
      certPem = generated->certPem;
      auto pair = parseCertKeyPair(generated->certPem, generated->keyPem);
      if (!pair) return pair.error().wrap("installing self-signed certificate");
      if (SSL_CTX_use_certificate(ssl.get(), pair->cert.get()) != 1 ||
          SSL_CTX_use_PrivateKey(ssl.get(), pair->key.get()) != 1) {
        return Error(sslError("installing self-signed certificate"));
      }
    }
    if (SSL_CTX_check_private_key(ssl.get()) != 1) return Error(sslError("certificate and key do not match"));
    return setUpSni();
  }

  Result<CertKeyPem> generateSelfSigned() const {
    std::string host =
        options.bindAddress == "0.0.0.0" || options.bindAddress == "::" ? "" : options.bindAddress;
    return generateSelfSignedCertKey(host.empty() ? "localhost" : host, options.alternateNames);
  }

  // upstream MaybeDefaultWithSelfSignedCerts with a certificate directory: points certFile / keyFile at
  // <dir>/<pair>.crt|.key, generating and writing the pair unless both can be read.
  VoidResult selfSignedInCertDirectory() {
    const std::string dir = options.certDirectory;
    auto join = [&](const std::string& file) {
      return (std::filesystem::path(dir) / file).lexically_normal().string();
    };
    options.certFile = join(options.pairName + ".crt");
    options.keyFile = join(options.pairName + ".key");
    const bool certReadable = canReadFile(options.certFile);
    const bool keyReadable = canReadFile(options.keyFile);
    if (certReadable && keyReadable) return {};
    if (certReadable != keyReadable) {
      return Error("error reading " + (certReadable ? options.keyFile : options.certFile) +
                   ", certificate and key must be supplied as a pair");
    }
    auto generated = generateSelfSigned();
    if (!generated) return generated.error().wrap("unable to generate self signed cert");
    for (const auto& [path, pem, mode] : {std::tuple{options.certFile, generated->certPem, mode_t{0644}},
                                          std::tuple{options.keyFile, generated->keyPem, mode_t{0600}}}) {
      if (auto r = makeDirectories(std::filesystem::path(path).parent_path().string()); !r) return r;
      if (auto r = writeFile(path, pem, mode); !r) return r;
    }
    spdlog::info("Generated self-signed cert ({}, {})", options.certFile, options.keyFile);
    return {};
  }

  // upstream BuildNamedCertificates: earlier pairs win over later ones, explicit names over names taken
  // from a certificate.
  VoidResult setUpSni() {
    if (options.sniCertKeys.empty()) return {};
    sniCerts.reserve(options.sniCertKeys.size());
    for (const SniCertKey& sni : options.sniCertKeys) {
      auto certText = readFile(sni.certFile);
      if (!certText) return certText.error().wrap("failed to load SNI cert and key");
      auto keyText = readFile(sni.keyFile);
      if (!keyText) return keyText.error().wrap("failed to load SNI cert and key");
      if (certText->empty() || keyText->empty()) {
        return Error(
            "failed to load SNI cert and key: missing content for serving cert \"sni-serving-cert::" +
            sni.certFile + "::" + sni.keyFile + "\"");
      }
      auto pair = parseCertKeyPair(*certText, *keyText);
      if (!pair) return pair.error().wrap("failed to load SNI cert and key");
      sniCerts.push_back(std::move(pair).value());
    }
    std::map<std::string, const CertKeyPair*, std::less<>> explicitNames;
    for (size_t i = sniCerts.size(); i-- > 0;) {
      const std::vector<std::string>& names = options.sniCertKeys[i].names;
      for (const auto& name : names) explicitNames[name] = &sniCerts[i];
      if (names.empty()) {
        for (const auto& name : certificateNames(sniCerts[i].cert.get())) sniByName[name] = &sniCerts[i];
      }
    }
    for (const auto& [name, pair] : explicitNames) sniByName[name] = pair;
    SSL_CTX_set_tlsext_servername_callback(ssl.get(), &Impl::selectSniCertificate);
    SSL_CTX_set_tlsext_servername_arg(ssl.get(), this);
    return {};
  }

  // Go's Config.getCertificate over NameToCertificate: the lower-cased name, then the name with its first
  // label replaced by "*"; without a server name, the connection's local IP (upstream GetConfigForClient).
  const CertKeyPair* sniCertificateFor(const char* serverName, int fd) const {
    if (serverName == nullptr || *serverName == '\0') {
      auto it = sniByName.find(localIp(fd));
      return it == sniByName.end() ? nullptr : it->second;
    }
    const std::string name = asciiLower(serverName);
    if (auto it = sniByName.find(name); it != sniByName.end()) return it->second;
    const size_t dot = name.find('.');
    const std::string wildcard = "*" + (dot == std::string::npos ? std::string() : name.substr(dot));
    auto it = sniByName.find(wildcard);
    return it == sniByName.end() ? nullptr : it->second;
  }

  static int selectSniCertificate(SSL* ssl, int* /*alert*/, void* arg) {
    const auto* self = static_cast<const Impl*>(arg);
    const CertKeyPair* pair =
        self->sniCertificateFor(SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name), SSL_get_fd(ssl));
    if (pair != nullptr && SSL_use_cert_and_key(ssl, pair->cert.get(), pair->key.get(), pair->chain.get(),
                                                /*override=*/1) != 1) {
      ERR_clear_error();
      return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    return SSL_TLSEXT_ERR_OK;
  }

  VoidResult listen() {
    std::string address = options.bindAddress.empty() ? "0.0.0.0" : options.bindAddress;
    std::string where = address + ":" + std::to_string(options.port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* res = nullptr;
    int rc = getaddrinfo(address.c_str(), std::to_string(options.port).c_str(), &hints, &res);
    if (rc != 0) return Error("listen on " + where + ": invalid bind address: " + gai_strerror(rc));
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, &freeaddrinfo);
    int fd = ::socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0) return Error("listen on " + where + ": " + errnoText(errno));
    listenFd = fd;
    int one = 1;
    // Go's net.Listen sets SO_REUSEADDR on every Unix listener, whatever --permit-address-sharing says.
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (options.permitPortSharing && ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
      spdlog::warn("failed to set SO_REUSEPORT on socket: {}", errnoText(errno));  // as upstream: not fatal
    }
    if (::bind(fd, res->ai_addr, res->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
      return Error("listen on " + where + ": " + errnoText(errno));
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
      return Error("listen on " + where + ": " + errnoText(errno));
    }
    port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                       : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC | O_NONBLOCK) != 0)
      return Error("creating wake pipe: " + errnoText(errno));
    wakeRead = pipeFds[0];
    wakeWrite = pipeFds[1];
    return {};
  }

  void acceptLoop() {
    for (;;) {
      joinFinished();
      pollfd fds[2] = {{listenFd, POLLIN, 0}, {wakeRead, POLLIN, 0}};
      int n = ::poll(fds, 2, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      if ((fds[0].revents & POLLIN) == 0) continue;
      int fd = ::accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;  // EMFILE, ECONNABORTED...: keep serving
      std::lock_guard lock(mu);
      if (stopping || connections.size() >= static_cast<size_t>(options.maxConnections)) {
        ::close(fd);
        continue;
      }
      uint64_t id = nextConnection++;
      try {
        // The thread takes mu only when it ends, so starting it under the lock cannot deadlock, and its
        // entry exists before it can look for it.
        connections.emplace(id, std::thread([this, fd, id] { serveConnection(fd, id); }));
      } catch (const std::exception&) {
        ::close(fd);
        continue;
      }
      activeFds.insert(fd);
    }
  }

  void joinFinished() {
    std::vector<std::thread> done;
    {
      std::lock_guard lock(mu);
      done.swap(finished);
    }
    for (auto& t : done) t.join();
  }

  void serveConnection(int fd, uint64_t id) {
    // A peer that resets the connection must not kill the process with SIGPIPE: OpenSSL writes with
    // write(2), so block the (thread-directed) signal on this thread; the write fails with EPIPE instead.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);

    auto ms = options.ioTimeout.count();
    timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    {
      Connection conn(fd, ssl.get());
      if (conn.handshake()) serveRequest(conn);
    }
    std::lock_guard lock(mu);
    activeFds.erase(fd);
    ::close(fd);
    auto self = connections.find(id);
    finished.push_back(std::move(self->second));
    connections.erase(self);
    idle.notify_all();
  }

  void serveRequest(Connection& conn) {
    std::vector<std::string> peerCertificates = conn.peerCertificates();
    RequestRead in = readRequest([&](char* buf, size_t cap) { return conn.read(buf, cap); });
    if (in.rejection) reply(conn, in.method, *in.rejection);
    if (!in.request) return;
    Request& req = *in.request;
    req.peerCertificates = std::move(peerCertificates);
    Response resp = dispatch(req);
    for (const auto& [name, value] : defaultHeaders) {
      const std::string key = asciiLower(name);
      bool present = key == "content-type" && !resp.contentType.empty();
      for (const auto& [k, v] : resp.headers) present = present || asciiLower(k) == key;
      if (!present) resp.headers.emplace_back(name, value);
    }
    reply(conn, req.method, resp);
  }

  Response dispatch(const Request& req) const {
    try {
      if (filter) {
        if (auto answered = filter(req)) return std::move(*answered);
      }
      auto it = routes.find(req.path);
      if (it == routes.end()) return Response::error(404, "404 page not found");
      return it->second(req);
    } catch (const std::exception& e) {
      return Response::error(500, std::string("internal server error: ") + e.what());
    } catch (...) {
      return Response::error(500, "internal server error");
    }
  }

  static void reply(Connection& conn, std::string_view method, const Response& resp) {
    if (conn.writeAll(serialize(resp, method != "HEAD"))) conn.shutdown();
  }

  void stop() {
    {
      std::lock_guard lock(mu);
      if (stopping) return;
      stopping = true;
    }
    if (wakeWrite >= 0) {
      char c = 1;
      [[maybe_unused]] ssize_t w = ::write(wakeWrite, &c, 1);
    }
    if (acceptor.joinable()) acceptor.join();
    {
      std::unique_lock lock(mu);
      for (int fd : activeFds) ::shutdown(fd, SHUT_RDWR);
      idle.wait(lock, [&] { return connections.empty(); });
    }
    joinFinished();
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  stop();
}

Result<std::unique_ptr<Server>> Server::create(ServerOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  if (impl->options.maxConnections < 1) impl->options.maxConnections = 1;
  if (impl->options.tls) {
    if (auto r = impl->setUpTls(); !r) return r.error();
  }
  if (auto r = impl->listen(); !r) return r.error();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

void Server::handle(std::string path, Handler handler) {
  impl_->listed.insert(path);
  impl_->routes[std::move(path)] = std::move(handler);
}

void Server::handleUnlisted(std::string path, Handler handler) {
  impl_->listed.erase(path);
  impl_->routes[std::move(path)] = std::move(handler);
}

std::vector<std::string> Server::listedPaths() const {
  return {impl_->listed.begin(), impl_->listed.end()};
}

void Server::setFilter(Filter filter) {
  impl_->filter = std::move(filter);
}

void Server::addDefaultHeader(std::string name, std::string value) {
  impl_->defaultHeaders.emplace_back(std::move(name), std::move(value));
}

void Server::start() {
  if (impl_->started) return;
  impl_->started = true;
  impl_->acceptor = std::thread([impl = impl_.get()] { impl->acceptLoop(); });
}

void Server::stop() {
  impl_->stop();
}

uint16_t Server::port() const {
  return impl_->port;
}

const std::string& Server::certificatePem() const {
  return impl_->certPem;
}

}  // namespace ks::server
