#pragma once
// /flagz and /statusz, as k8s.io/apiserver v0.37.2's pkg/server/flagz and pkg/server/statusz, which
// kube-scheduler v1.37.2 installs on its secure mux when the ComponentFlagz / ComponentStatusz gates are on
// (Beta, on by default there).
//
// Output, as upstream:
//   - text/plain (no Accept header, "*/*", "text/*", "text/plain"): a header line "<component> flagz" or
//     "<component> statusz" and a "not machine parseable" warning, then "name<d>value" lines sorted by name
//     (/flagz) or the Started / Up / Go version / Binary version / Emulation version / Paths lines (/statusz,
//     HTML-escaped). <d> is one of ":", ": ", "=", " ", picked at random (per request for /statusz; /flagz
//     caches its first text answer, separator included).
//   - structured: Accept "application/json" or "application/yaml" with the parameters
//     ";g=config.k8s.io;v=v1beta1;as=Flagz" (or v1alpha1, answered with a deprecation Warning header; or
//     as=Statusz). The Content-Type echoes g, v and as. JSON is Go's encoding/json (compact with a trailing
//     newline; indented for ?pretty=true, ";pretty=1" or a curl/Wget/Mozilla/5.0 User-Agent); YAML is
//     sigs.k8s.io/yaml's (go-yaml v2 styles, keys sorted, 80-column folding).
//   - with ZpageOptions::cbor (CBORServingAndStorage), application/cbor likewise: apimachinery's CBOR (self-
//     described, strings as byte strings).
//   - anything else (application/json without the parameters, unknown kinds or versions, text/html): 406 with
//     a metav1.Status "only the following media types are accepted: application/json, application/yaml,
//     text/plain[, application/cbor]", encoded by the same negotiation rules as upstream's ErrorNegotiated
//     (JSON, YAML or CBOR when the Accept header allows them, else indented JSON).
// Accept parsing and ordering are munnerz/goautoneg's (q values, then specificity).
//
// Upstream's handlers also observe apiserver_request_total, which kube-scheduler never registers, so its
// /metrics shows nothing of them; nor does this.

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/server/server.h"

namespace ks::server {

// The text output's delimiters, as upstream.
inline constexpr std::string_view kZpageDelimiters[] = {":", ": ", "=", " "};

struct ZpageOptions {
  // "kube-scheduler": the text header's first word and the structured objects' metadata.name.
  std::string componentName;
  // API versions answered with a "299 - ... deprecated" Warning header (upstream: v1alpha1).
  std::set<std::string> deprecatedVersions{"v1alpha1"};
  // Index into kZpageDelimiters; nullptr picks one at random, as upstream's rand.Intn.
  std::function<size_t()> pickDelimiter;
  // Offer application/cbor too (upstream: the CBORServingAndStorage gate).
  bool cbor = false;
};

// upstream flagz.Reader: every flag's name and current value (what pflag's Value.String() prints; a flag
// annotated "classified" reads "CLASSIFIED"). Called per structured request and for the first text one.
using FlagReader = std::function<std::map<std::string, std::string>()>;

// The /flagz handler.
Handler flagzHandler(ZpageOptions options, FlagReader reader);

// What /statusz reports (upstream's statusz registry).
struct StatuszInfo {
  // The process start, whole seconds (upstream: process start time from /proc).
  std::chrono::system_clock::time_point startTime;
  std::string goVersion;
  std::string binaryVersion;
  std::string emulationVersion;  // "" leaves it out (text line empty, JSON field omitted)
  // The mux's listed paths (Server::listedPaths()); reported by first segment, see aggregatePaths.
  std::vector<std::string> listedPaths;
  // Time source for the uptime; nullptr means system_clock::now.
  std::function<std::chrono::system_clock::time_point()> now;
};

// The /statusz handler.
Handler statuszHandler(ZpageOptions options, StatuszInfo info);

// upstream aggregatePaths: the distinct first segments ("/livez/ping" -> "/livez"), sorted, without
// /api, /apis, /openid, /openapi and /.well-known.
std::vector<std::string> aggregatePaths(const std::vector<std::string>& listedPaths);

// upstream statusz uptime text: "1 hr 02 min 03 sec".
std::string uptimeText(std::chrono::seconds up);

// One clause of an Accept header, as munnerz/goautoneg parses it.
struct AcceptClause {
  std::string type;
  std::string subType;
  double q = 1.0;
  std::map<std::string, std::string> params;
};
// goautoneg.ParseAccept: clauses split on ',' and ';', malformed ones dropped, sorted by q then
// specificity with Go's sort.Sort.
std::vector<AcceptClause> parseAccept(std::string_view header);

// sigs.k8s.io/yaml's rendering of one string as a block mapping value starting at `column`, continuation
// lines indented by `indent` (exposed for tests).
std::string yamlScalarForTest(std::string_view s, size_t column, size_t indent);

}  // namespace ks::server
