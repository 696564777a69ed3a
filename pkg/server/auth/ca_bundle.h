#pragma once
// Client CA bundles: parsing a PEM bundle once into a verifier (upstream dynamiccertificates'
// caBundleAndVerifier) and checking a client's certificate chain against it for client authentication
// (x509.Certificate.Verify with ExtKeyUsageClientAuth). Dynamic<T> holds the current value of something
// a refresher replaces (a rotated CA, the request-header settings from the ConfigMap).

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ks::server::auth {

// What the authenticators need from a verified leaf certificate.
struct CertificateInfo {
  std::string commonName;
  std::vector<std::string> organizations;
  std::string sha256Hex;  // of the DER
  std::string serialNumber;  // decimal, for log messages
};

// Parses a DER certificate.
Result<CertificateInfo> parseCertificate(std::string_view der);

class CABundle {
 public:
  // Parses every certificate of `pem` ("" or no certificate is an error, naming `origin`).
  static Result<std::shared_ptr<const CABundle>> parse(std::string_view pem, std::string_view origin);
  ~CABundle();
  CABundle(const CABundle&) = delete;
  CABundle& operator=(const CABundle&) = delete;

  // Verifies `chain` (DER, leaf first, the rest untrusted intermediates) for client authentication.
  // The error reads as Go's x509 errors ("x509: certificate signed by unknown authority", ...).
  VoidResult verify(const std::vector<std::string>& chain) const;

  const std::string& pem() const { return pem_; }

 private:
  CABundle() = default;
  std::string pem_;
  void* store_ = nullptr;  // X509_STORE*, kept out of this header
};

// The current value of something refreshed in the background. Thread-safe.
template <typename T>
class Dynamic {
 public:
  std::shared_ptr<const T> get() const {
    std::lock_guard lock(mu_);
    return value_;
  }
  void set(std::shared_ptr<const T> v) {
    std::lock_guard lock(mu_);
    value_ = std::move(v);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const T> value_;  // guarded by mu_
};

using DynamicCA = Dynamic<CABundle>;

}  // namespace ks::server::auth
