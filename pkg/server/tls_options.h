#pragma once
// --tls-min-version and --tls-cipher-suites, as upstream's cliflag.TLSVersion / cliflag.TLSCipherSuites:
// Go's names (crypto/tls, IANA spelling) mapped to OpenSSL's. Upstream accepts both the preferred and the
// insecure suites Go implements (the help lists them apart) and rejects anything else; so do we. The TLS 1.3
// names are accepted but, as in Go, have no effect: TLS 1.3 suites are not configurable.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ks::server {

// "VersionTLS10".."VersionTLS13" -> OpenSSL's protocol version (TLS1_VERSION..TLS1_3_VERSION); "" is the
// default, TLS 1.2. Otherwise: unknown tls version "<name>".
Result<int> tlsVersion(std::string_view name);

// The OpenSSL cipher list for `names` (in order; TLS 1.3 names skipped). An unknown name:
// "Cipher suite <name> not supported or doesn't exist" -- also for the RC4 and 3DES suites, which Go still
// implements but Debian's OpenSSL 3 leaves out. Empty `names` gives "" (OpenSSL's defaults).
Result<std::string> tlsCipherList(const std::vector<std::string>& names);

// --tls-curve-preferences (Go crypto/tls CurveIDs) -> an OpenSSL groups list, as upstream's
// cliflag.TLSCurvePreferences: "" for none; errors "curve preference N is out of range (must be 1-65535)",
// "duplicate curve preference N", "curve preference N is not supported by the current Go version" (ids Go
// 1.26, which builds kube-scheduler v1.37.2, does not name). Go names 23 P-256, 24 P-384, 25 P-521,
// 29 X25519 and the hybrids 4587 SecP256r1MLKEM768, 4588 X25519MLKEM768, 4589 SecP384r1MLKEM1024, which
// need OpenSSL 3.5: with an older one they are refused ("... is not supported by OpenSSL 3.0.x"). The list
// is in Go's own preference order: as upstream says, the order given is ignored.
Result<std::string> tlsCurveGroups(const std::vector<int32_t>& curveIds);

// For --help, sorted as upstream prints them.
std::vector<std::string> preferredTlsCipherNames();
std::vector<std::string> insecureTlsCipherNames();
std::vector<std::string> tlsPossibleVersions();

}  // namespace ks::server
