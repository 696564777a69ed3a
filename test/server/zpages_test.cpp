// /flagz and /statusz: upstream k8s.io/apiserver v0.37.2 flagz_test.go (TestHandleFlagz, TestCache) and
// statusz_test.go (TestHandleStatusz) tables, plus the exact bodies and headers upstream kube-scheduler
// v1.37.2 answers (recorded from the real binary).
#include "pkg/server/zpages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ks::server {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::system_clock;

constexpr std::string_view kWarning =
    "Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees "
    "and is for debugging purposes only.\n";

Request get(std::string accept, std::string userAgent = "Go-http-client/1.1", std::string rawQuery = "") {
  Request req;
  req.method = "GET";
  req.path = "/";
  if (!accept.empty()) req.headers.emplace_back("accept", std::move(accept));
  req.headers.emplace_back("user-agent", std::move(userAgent));
  req.rawQuery = rawQuery;
  if (!rawQuery.empty()) {
    const auto eq = rawQuery.find('=');
    req.query.emplace_back(rawQuery.substr(0, eq), eq == std::string::npos ? "" : rawQuery.substr(eq + 1));
  }
  return req;
}

std::optional<std::string> header(const Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return std::nullopt;
}

// The status, body and Content-Type, and the deprecation Warning header when `wantWarning`.
void expectResponse(const Response& r, const std::string& page, int wantStatus, const std::string& wantBody,
                    const std::string& wantContentType, bool wantWarning) {
  EXPECT_EQ(r.status, wantStatus);
  EXPECT_EQ(r.body, wantBody);
  EXPECT_EQ(r.contentType, wantContentType);
  auto warning = header(r, "Warning");
  if (!wantWarning) {
    EXPECT_FALSE(warning.has_value()) << *warning;
    return;
  }
  ASSERT_TRUE(warning.has_value());
  EXPECT_EQ(*warning,
            "299 - \"This version of the " + page + " endpoint is deprecated. Please use a newer version.\"");
}

ZpageOptions testServer() {
  ZpageOptions o;
  o.componentName = "test-server";
  o.pickDelimiter = [] { return size_t{0}; };  // upstream's tests set delimiters = {":"}
  return o;
}

// ---- flagz ----

struct FlagzCase {
  std::string name;
  std::string accept;
  int wantStatus;
  std::string wantBody;  // exact
  std::string wantContentType;
  bool wantWarning = false;
};

const std::string kFlagzText = "\ntest-server flagz\n" + std::string(kWarning) + "test-flag:test-value\n";
const std::string kFlagzV1beta1 =
    R"({"kind":"Flagz","apiVersion":"config.k8s.io/v1beta1","metadata":{"name":"test-server"},)"
    R"("flags":{"test-flag":"test-value"}})"
    "\n";
const std::string kNotAcceptableRaw =
    "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n"
    "  \"message\": \"only the following media types are accepted: application/json, application/yaml, "
    "text/plain\",\n  \"reason\": \"NotAcceptable\",\n  \"code\": 406\n}";

TEST(Flagz, HandleFlagzTable) {
  const std::vector<FlagzCase> cases = {
      {"valid request for text/plain", "text/plain", 200, kFlagzText, "text/plain; charset=utf-8"},
      {"valid request for application/json", "application/json;v=v1beta1;g=config.k8s.io;as=Flagz", 200,
       kFlagzV1beta1, "application/json;g=config.k8s.io;v=v1beta1;as=Flagz"},
      {"deprecated version request", "application/json;v=v1alpha1;g=config.k8s.io;as=Flagz", 200,
       R"({"kind":"Flagz","apiVersion":"config.k8s.io/v1alpha1","metadata":{"name":"test-server"},)"
       R"("flags":{"test-flag":"test-value"}})"
       "\n",
       "application/json;g=config.k8s.io;v=v1alpha1;as=Flagz", true},
      {"valid request for application/yaml", "application/yaml;v=v1beta1;g=config.k8s.io;as=Flagz", 200,
       "apiVersion: config.k8s.io/v1beta1\nflags:\n  test-flag: test-value\nkind: Flagz\nmetadata:\n"
       "  name: test-server\n",
       "application/yaml;g=config.k8s.io;v=v1beta1;as=Flagz"},
      // Upstream serves CBOR under the alpha gate CBORServingAndStorage, which kube-scheduler-cpp refuses;
      // without it upstream answers 406 too.
      {"application/cbor is not offered", "application/cbor;v=v1beta1;g=config.k8s.io;as=Flagz", 406,
       kNotAcceptableRaw, "application/json"},
      {"no accept header falls back to text/plain", "", 200, kFlagzText, "text/plain; charset=utf-8"},
      {"wildcard accept header falls back to text/plain", "*/*", 200, kFlagzText,
       "text/plain; charset=utf-8"},
      {"bad json header falls back to text/plain with wildcard",
       "application/json;v=foo;g=config.k8s.io;as=Flagz,*/*", 200, kFlagzText, "text/plain; charset=utf-8"},
      {"unsupported accept header", "application/xml", 406, kNotAcceptableRaw, "application/json"},
      // The Status is then negotiated without the kind restriction: plain application/json is fine for it.
      {"unsupported application/json without params", "application/json", 406,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following )"
       R"(media types are accepted: application/json, application/yaml, text/plain","reason":"NotAcceptable",)"
       R"("code":406})"
       "\n",
       "application/json"},
      {"unsupported application/json with missing params", "application/json;v=v1beta1;g=config.k8s.io", 406,
       kNotAcceptableRaw, "application/json"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Handler h = flagzHandler(testServer(), [] {
      return std::map<std::string, std::string>{{"test-flag", "test-value"}};
    });
    const Response r = h(get(tc.accept));
    expectResponse(r, "flagz", tc.wantStatus, tc.wantBody, tc.wantContentType, tc.wantWarning);
  }
}

// upstream TestCache: the first text answer is kept, even when the flags change afterwards.
TEST(Flagz, CachesTheFirstTextAnswer) {
  std::map<std::string, std::string> flags = {{"test-flag", "test-value"}};
  size_t pick = 0;
  ZpageOptions o = testServer();
  o.pickDelimiter = [&pick] { return pick; };
  Handler h = flagzHandler(o, [&flags] { return flags; });
  const std::string first = h(get("text/plain")).body;
  EXPECT_EQ(first, kFlagzText);
  flags["new-flag"] = "new-value";
  pick = 2;
  EXPECT_EQ(h(get("text/plain")).body, first);
  // Structured answers read the flags again.
  EXPECT_THAT(h(get("application/json;v=v1beta1;g=config.k8s.io;as=Flagz")).body,
              HasSubstr("\"new-flag\":\"new-value\""));
}

TEST(Flagz, DelimitersAndOrder) {
  for (size_t i = 0; i < 4; ++i) {
    ZpageOptions o = testServer();
    o.pickDelimiter = [i] { return i; };
    Handler h = flagzHandler(o, [] { return std::map<std::string, std::string>{{"b", "2"}, {"a", ""}}; });
    const std::string d(kZpageDelimiters[i]);
    EXPECT_EQ(h(get("")).body, "\ntest-server flagz\n" + std::string(kWarning) + "a" + d + "\nb" + d + "2\n");
  }
}

// Recorded from kube-scheduler v1.37.2 (flags abridged): curl's User-Agent pretty-prints, YAML quotes like
// go-yaml v2 ('[]' single-quoted, "" and "false" double-quoted).
TEST(Flagz, MatchesUpstreamEncodings) {
  ZpageOptions o;
  o.componentName = "kube-scheduler";
  Handler h = flagzHandler(o, [] {
    return std::map<std::string, std::string>{{"allow-metric-labels", "[]"},
                                              {"authentication-skip-lookup", "false"},
                                              {"bind-address", "127.0.0.1"},
                                              {"cert-dir", ""},
                                              {"kube-api-qps", "50"},
                                              {"leader-elect-lease-duration", "15s"},
                                              {"requestheader-extra-headers-prefix", "[x-remote-extra-]"}};
  });
  const Response yaml = h(get("application/yaml;v=v1beta1;g=config.k8s.io;as=Flagz"));
  EXPECT_EQ(yaml.body,
            "apiVersion: config.k8s.io/v1beta1\n"
            "flags:\n"
            "  allow-metric-labels: '[]'\n"
            "  authentication-skip-lookup: \"false\"\n"
            "  bind-address: 127.0.0.1\n"
            "  cert-dir: \"\"\n"
            "  kube-api-qps: \"50\"\n"
            "  leader-elect-lease-duration: 15s\n"
            "  requestheader-extra-headers-prefix: '[x-remote-extra-]'\n"
            "kind: Flagz\n"
            "metadata:\n"
            "  name: kube-scheduler\n");
  const Response pretty = h(get("application/json;v=v1beta1;g=config.k8s.io;as=Flagz", "curl/8.5.0"));
  EXPECT_THAT(pretty.body, ::testing::StartsWith(
                               "{\n  \"kind\": \"Flagz\",\n  \"apiVersion\": \"config.k8s.io/v1beta1\",\n"
                               "  \"metadata\": {\n    \"name\": \"kube-scheduler\"\n  },\n"
                               "  \"flags\": {\n    \"allow-metric-labels\": \"[]\",\n"));
  EXPECT_THAT(pretty.body, ::testing::EndsWith("\"[x-remote-extra-]\"\n  }\n}"));
  // ?pretty=true and ;pretty=1 too; ?pretty=false wins over curl.
  EXPECT_EQ(h(get("application/json;v=v1beta1;g=config.k8s.io;as=Flagz", "x", "pretty=true")).body,
            pretty.body);
  EXPECT_EQ(h(get("application/json;v=v1beta1;g=config.k8s.io;as=Flagz;pretty=1")).body, pretty.body);
  EXPECT_THAT(h(get("application/json;v=v1beta1;g=config.k8s.io;as=Flagz", "curl/8", "pretty=false")).body,
              ::testing::EndsWith("}}\n"));
}

TEST(Flagz, JsonEscapesAsGo) {
  Handler h = flagzHandler(testServer(), [] {
    return std::map<std::string, std::string>{{"f", std::string("<a&b>\"\\\n\x01\xff\xe2\x80\xa8")}};
  });
  EXPECT_THAT(h(get("application/json;v=v1beta1;g=config.k8s.io;as=Flagz")).body,
              HasSubstr(R"("f":"\u003ca\u0026b\u003e\"\\\n\u0001\ufffd\u2028")"));
}

// ---- statusz ----

struct StatuszFixture {
  Clock::time_point start = Clock::time_point(std::chrono::seconds(1764337535));  // 2025-11-28T13:45:35Z
  Clock::time_point now = start + std::chrono::seconds(3 * 3600 + 61);

  StatuszInfo info(std::string emulation = "1.30") const {
    StatuszInfo i;
    i.startTime = start;
    i.goVersion = "1.21";
    i.binaryVersion = "1.31";
    i.emulationVersion = std::move(emulation);
    i.listedPaths = {"/livez/poststarthook/peer-discovery-cache-sync", "/livez/post", "/readyz/informer-sync",
                     "/readyz/log", "/readyz/ping"};
    i.now = [n = now] { return n; };
    return i;
  }
};

std::string unixDateLocal(Clock::time_point t) {
  const std::time_t tt = Clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[64];
  return std::string(buf, std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Z %Y", &tm));
}

std::string statuszText(const StatuszFixture& f, bool emulation) {
  return "\ntest-server statusz\n" + std::string(kWarning) + "\nStarted: " + unixDateLocal(f.start) +
         "\nUp: 3 hr 01 min 01 sec\nGo version: 1.21\nBinary version: 1.31\n" +
         (emulation ? "Emulation version: 1.30" : "") + "\nPaths: /livez /readyz\n";
}

std::string statuszJson(std::string_view version) {
  return R"({"kind":"Statusz","apiVersion":"config.k8s.io/)" + std::string(version) +
         R"(","metadata":{"name":"test-server"},"startTime":"2025-11-28T13:45:35Z","uptimeSeconds":10861,)"
         R"("goVersion":"1.21","binaryVersion":"1.31","emulationVersion":"1.30","paths":["/livez","/readyz"]})"
         "\n";
}

TEST(Statusz, HandleStatuszTable) {
  const StatuszFixture f;
  struct Case {
    std::string name;
    std::string accept;
    bool emulation = true;
    int wantStatus;
    std::string wantBody;
    std::string wantContentType;
    bool wantWarning = false;
  };
  const std::vector<Case> cases = {
      {"valid request for text/plain", "text/plain", true, 200, statuszText(f, true),
       "text/plain; charset=utf-8"},
      {"valid request for application/json", "application/json;v=v1beta1;g=config.k8s.io;as=Statusz", true,
       200, statuszJson("v1beta1"), "application/json;g=config.k8s.io;v=v1beta1;as=Statusz"},
      {"no accept header", "", true, 200, statuszText(f, true), "text/plain; charset=utf-8"},
      {"invalid accept header", "application/xml", true, 406, kNotAcceptableRaw, "application/json"},
      {"missing emulation version", "text/plain", false, 200, statuszText(f, false),
       "text/plain; charset=utf-8"},
      {"application/json without params", "application/json", true, 406,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following )"
       R"(media types are accepted: application/json, application/yaml, text/plain","reason":"NotAcceptable",)"
       R"("code":406})"
       "\n",
       "application/json"},
      {"application/json with missing as", "application/json;v=v1beta1;g=config.k8s.io", true, 406,
       kNotAcceptableRaw, "application/json"},
      {"wildcard accept header", "*/*", true, 200, statuszText(f, true), "text/plain; charset=utf-8"},
      {"bad json header fall back wildcard", "application/json;v=foo;g=config.k8s.io;as=Statusz,*/*", true,
       200, statuszText(f, true), "text/plain; charset=utf-8"},
      {"deprecated v1alpha1 request", "application/json;v=v1alpha1;g=config.k8s.io;as=Statusz", true, 200,
       statuszJson("v1alpha1"), "application/json;g=config.k8s.io;v=v1alpha1;as=Statusz", true},
      {"valid request for application/yaml", "application/yaml;v=v1beta1;g=config.k8s.io;as=Statusz", true,
       200,
       "apiVersion: config.k8s.io/v1beta1\nbinaryVersion: \"1.31\"\nemulationVersion: \"1.30\"\ngoVersion: "
       "\"1.21\"\nkind: Statusz\nmetadata:\n  name: test-server\npaths:\n- /livez\n- /readyz\nstartTime: "
       "\"2025-11-28T13:45:35Z\"\nuptimeSeconds: 10861\n",
       "application/yaml;g=config.k8s.io;v=v1beta1;as=Statusz"},
      {"application/cbor is not offered", "application/cbor;v=v1beta1;g=config.k8s.io;as=Statusz", true, 406,
       kNotAcceptableRaw, "application/json"},
      // A Flagz kind is not a Statusz.
      {"flagz kind", "application/json;v=v1beta1;g=config.k8s.io;as=Flagz", true, 406, kNotAcceptableRaw,
       "application/json"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Handler h = statuszHandler(testServer(), f.info(tc.emulation ? "1.30" : ""));
    const Response r = h(get(tc.accept));
    expectResponse(r, "statusz", tc.wantStatus, tc.wantBody, tc.wantContentType, tc.wantWarning);
  }
}

// Recorded from kube-scheduler v1.37.2: with the " " delimiter the value follows two spaces; the text is
// HTML-escaped; no paths leave an empty line.
TEST(Statusz, TextLayout) {
  StatuszFixture f;
  ZpageOptions o = testServer();
  o.pickDelimiter = [] { return size_t{3}; };
  StatuszInfo i = f.info();
  i.goVersion = "gcc <12> & 'x'";
  i.listedPaths.clear();
  const Response r = statuszHandler(o, i)(get("text/*"));
  EXPECT_EQ(r.body,
            "\ntest-server statusz\n" + std::string(kWarning) + "\nStarted  " + unixDateLocal(f.start) +
                "\nUp  3 hr 01 min 01 sec\nGo version  gcc &lt;12&gt; &amp; &#39;x&#39;\nBinary version  "
                "1.31\nEmulation version  1.30\n\n");
  // No paths: JSON null, as upstream's nil slice; no emulation version: the field is omitted.
  i.emulationVersion.clear();
  EXPECT_THAT(statuszHandler(o, i)(get("application/json;v=v1beta1;g=config.k8s.io;as=Statusz")).body,
              HasSubstr(R"("binaryVersion":"1.31","paths":null})"));
}

TEST(Statusz, UptimeNeverNegativeInJson) {
  StatuszFixture f;
  f.now = f.start - std::chrono::seconds(5);
  EXPECT_THAT(
      statuszHandler(testServer(), f.info())(get("application/json;v=v1beta1;g=config.k8s.io;as=Statusz"))
          .body,
      HasSubstr(R"("uptimeSeconds":0,)"));
}

TEST(Statusz, AggregatePaths) {
  EXPECT_EQ(aggregatePaths({"/metrics/slis", "/healthz/ping", "/metrics", "/api/v1", "/apis", "/openapi/v2",
                            "/.well-known/x", "/openid", "/", "", "x/y", "/configz"}),
            (std::vector<std::string>{"/configz", "/healthz", "/metrics", "/y"}));
  EXPECT_TRUE(aggregatePaths({}).empty());
}

TEST(Statusz, UptimeText) {
  EXPECT_EQ(uptimeText(std::chrono::seconds(5)), "0 hr 00 min 05 sec");
  EXPECT_EQ(uptimeText(std::chrono::seconds(100 * 3600 + 59 * 60 + 1)), "100 hr 59 min 01 sec");
}

// ---- negotiation and encodings shared by both ----

TEST(Zpages, ParseAcceptAsGoautoneg) {
  auto c = parseAccept("text/*;q=0.5, application/json;v=v1;g=x ;as=Flagz, bad, */*;q=0.1, a/b/c, *");
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].type, "application");
  EXPECT_EQ(c[0].subType, "json");
  EXPECT_EQ(c[0].params, (std::map<std::string, std::string>{{"v", "v1"}, {"g", "x"}, {"as", "Flagz"}}));
  EXPECT_EQ(c[1].type, "*");  // "*" alone is */* with q=1
  EXPECT_EQ(c[1].subType, "*");
  EXPECT_EQ(c[2].subType, "*");
  EXPECT_DOUBLE_EQ(c[2].q, 0.5);
  EXPECT_DOUBLE_EQ(c[3].q, static_cast<double>(0.1f));
  // A bad q is 0; parameters without '=' or with two are dropped.
  auto d = parseAccept("text/plain;q=x;a;b=c=d;e = f ");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_DOUBLE_EQ(d[0].q, 0.0);
  EXPECT_EQ(d[0].params, (std::map<std::string, std::string>{{"e", "f"}}));
}

TEST(Zpages, QualityOrdersTheClauses) {
  Handler h = flagzHandler(testServer(), [] { return std::map<std::string, std::string>{{"a", "b"}}; });
  // text/plain preferred over a valid structured type with a lower q.
  EXPECT_EQ(h(get("application/json;v=v1beta1;g=config.k8s.io;as=Flagz;q=0.5,text/plain")).contentType,
            "text/plain; charset=utf-8");
  EXPECT_EQ(h(get("text/plain;q=0.4,application/yaml;v=v1beta1;g=config.k8s.io;as=Flagz")).contentType,
            "application/yaml;g=config.k8s.io;v=v1beta1;as=Flagz");
  // application/* with the parameters picks JSON, the first structured type.
  EXPECT_EQ(h(get("application/*;v=v1beta1;g=config.k8s.io;as=Flagz")).contentType,
            "application/json;g=config.k8s.io;v=v1beta1;as=Flagz");
  // stream and sv parameters are refused for the zpages.
  EXPECT_EQ(h(get("application/json;v=v1beta1;g=config.k8s.io;as=Flagz;stream=watch")).status, 406);
  EXPECT_EQ(h(get("text/plain;sv=v1")).status, 406);
  // Unknown parameters are ignored.
  EXPECT_EQ(h(get("text/plain;charset=utf-8")).status, 200);
}

// Recorded from kube-scheduler v1.37.2: the 406 in YAML when the Accept header allows it, folded at 80
// columns as go-yaml does.
TEST(Zpages, NotAcceptableAsYaml) {
  Handler h = statuszHandler(testServer(), StatuszFixture().info());
  const Response r = h(get("application/yaml"));
  EXPECT_EQ(r.status, 406);
  EXPECT_EQ(r.contentType, "application/yaml");
  EXPECT_EQ(
      r.body,
      "apiVersion: v1\ncode: 406\nkind: Status\nmessage: 'only the following media types are accepted: "
      "application/json, application/yaml,\n  text/plain'\nmetadata: {}\nreason: NotAcceptable\nstatus: "
      "Failure\n");
}

// With CBORServingAndStorage (upstream's tables run with it on): application/cbor as apimachinery writes it.
// Bytes as kube-scheduler v1.37.2 wrote them (its struct fields start at a random one; this is the unrotated
// order).
std::string cborText(std::string_view s) {
  std::string out(1, static_cast<char>(0x40 + s.size()));  // a byte string shorter than 24
  return out + std::string(s);
}

TEST(Zpages, CborWithTheGate) {
  ZpageOptions o = testServer();
  o.cbor = true;
  Handler flagz = flagzHandler(o, [] {
    return std::map<std::string, std::string>{{"test-flag", "test-value"}};
  });
  const Response r = flagz(get("application/cbor;v=v1beta1;g=config.k8s.io;as=Flagz"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.contentType, "application/cbor;g=config.k8s.io;v=v1beta1;as=Flagz");
  EXPECT_EQ(r.body, "\xD9\xD9\xF7\xA4" + cborText("kind") + cborText("Flagz") + cborText("apiVersion") +
                        cborText("config.k8s.io/v1beta1") + cborText("metadata") + "\xA1" + cborText("name") +
                        cborText("test-server") + cborText("flags") + "\xA1" + cborText("test-flag") +
                        cborText("test-value"));
  // Statusz: integers, null for no paths, no emulationVersion (8 fields).
  StatuszInfo i = StatuszFixture().info("");
  i.listedPaths.clear();
  const Response st = statuszHandler(o, i)(get("application/cbor;v=v1alpha1;g=config.k8s.io;as=Statusz"));
  EXPECT_EQ(st.status, 200);
  expectResponse(st, "statusz", 200,
                 "\xD9\xD9\xF7\xA8" + cborText("kind") + cborText("Statusz") + cborText("apiVersion") +
                     cborText("config.k8s.io/v1alpha1") + cborText("metadata") + "\xA1" + cborText("name") +
                     cborText("test-server") + cborText("startTime") + cborText("2025-11-28T13:45:35Z") +
                     cborText("uptimeSeconds") + "\x19\x2A\x6D" + cborText("goVersion") + cborText("1.21") +
                     cborText("binaryVersion") + cborText("1.31") + cborText("paths") + "\xF6",
                 "application/cbor;g=config.k8s.io;v=v1alpha1;as=Statusz", true);
  // The 406 names CBOR and is written in CBOR when the Accept header allows it (recorded from upstream).
  const Response bad = flagz(get("application/cbor"));
  EXPECT_EQ(bad.status, 406);
  EXPECT_EQ(bad.contentType, "application/cbor");
  const std::string message =
      "only the following media types are accepted: application/json, application/yaml, text/plain, "
      "application/cbor";
  EXPECT_EQ(bad.body, "\xD9\xD9\xF7\xA7" + cborText("kind") + cborText("Status") + cborText("apiVersion") +
                          cborText("v1") + cborText("metadata") + "\xA0" + cborText("status") +
                          cborText("Failure") + cborText("message") + "\x58" +
                          std::string(1, static_cast<char>(message.size())) + message + cborText("reason") +
                          cborText("NotAcceptable") + cborText("code") + "\x19\x01\x96");
  EXPECT_THAT(flagz(get("application/xml")).body, HasSubstr("text/plain, application/cbor\""));
}

// sigs.k8s.io/yaml v1.6.0 (go-yaml v2.4.3) marshalling {"k": <string>}: the value after "k: " (recorded with
// Go 1.26). A literal block's final line break is the line's own.
TEST(Zpages, YamlScalarsAsGoYaml) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plain", "plain"},
      {"", "\"\""},
      {"true", "\"true\""},
      {"no", "\"no\""},
      {"ON", "\"ON\""},
      {"~", "\"~\""},
      {"null", "\"null\""},
      {"12", "\"12\""},
      {"0x1F", "\"0x1F\""},
      {"-3", "\"-3\""},
      {"1_000", "\"1_000\""},
      {"1.5", "\"1.5\""},
      {".5", "\".5\""},
      {"1e3", "\"1e3\""},
      {"0b101", "\"0b101\""},
      {"1:20", "\"1:20\""},
      {"2026-11-28", "\"2026-11-28\""},
      {"2026-11-28T13:45:35Z", "\"2026-11-28T13:45:35Z\""},
      {"2026-1-2 3:04:05", "\"2026-1-2 3:04:05\""},
      {".inf", "\".inf\""},
      {"<<", "<<"},
      {"[a]", "'[a]'"},
      {"{}", "'{}'"},
      {"*x", "'*x'"},
      {"&x", "'&x'"},
      {"!x", "'!x'"},
      {"|x", "'|x'"},
      {">x", "'>x'"},
      {"'x", "'''x'"},
      {"%x", "'%x'"},
      {"@x", "'@x'"},
      {"`x", "'`x'"},
      {"#x", "'#x'"},
      {",x", "',x'"},
      {"a: b", "'a: b'"},
      {"a #b", "'a #b'"},
      {"x:", "'x:'"},
      {" lead", "' lead'"},
      {"trail ", "'trail '"},
      {"- x", "'- x'"},
      {"---x", "'---x'"},
      {"...x", "'...x'"},
      {"-x", "-x"},
      {"a:b", "a:b"},
      {"a#b", "a#b"},
      {"1.37.2", "1.37.2"},
      {"5m0s", "5m0s"},
      {"x-remote-extra-", "x-remote-extra-"},
      {"kube=1.37", "kube=1.37"},
      {"foo=2,bar=3", "foo=2,bar=3"},
      {"?x", "?x"},
      {":x", ":x"},
      {"it's", "it's"},
      {"'quoted'", "'''quoted'''"},
      {"a'b: c", "'a''b: c'"},
      {"tab\there", "\"tab\\there\""},
      {"a\"b\\c\x01""", "\"a\\\"b\\\\c\\x01\""},
      {"a\nb", "|-\n  a\n  b"},
      {"a\n\nb\n", "|\n  a\n\n  b"},
      {"a\n\n", "|+\n  a\n"},
      {" a\nb", "|2-\n   a\n  b"},
      {"a \nb", "\"a \\nb\""},
      {"line1\nline2 with words\n", "|\n  line1\n  line2 with words"},
      {"aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff ggggggggg hhhhhhhhh iii jjj", "aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff ggggggggg hhhhhhhhh\n  iii jjj"},
      {"only the following media types are accepted: application/json, application/yaml, text/plain", "'only the following media types are accepted: application/json, application/yaml,\n  text/plain'"},
      {"x: aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff ggggggggg hhhhhhhhh iii jjj", "'x: aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff ggggggggg hhhhhhhhh\n  iii jjj'"},
      {"\"aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff ggggggggg hhhhhhhhh iii jjj\t", "\"\\\"aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff ggggggggg hhhhhhhhh\n  iii jjj\\t\""},
      {"aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff ggggggggg hhhhhhhh  double  space", "aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff ggggggggg hhhhhhhh  double  space"},
      {"0o17", "\"0o17\""},
      {"017", "\"017\""},
      {"09", "\"09\""},
      {"+5", "\"+5\""},
      {"-", "'-'"},
      {"+", "+"},
      {".", "."},
      {"..", ".."},
      {"1.", "\"1.\""},
      {"1e", "1e"},
      {"-.5", "\"-.5\""},
      {"0.0", "\"0.0\""},
      {"1__2", "\"1__2\""},
      {"_1", "_1"},
      {"1_", "\"1_\""},
      {"00", "\"00\""},
      {"0x", "0x"},
      {"0b", "0b"},
      {"1.5e+3", "\"1.5e+3\""},
      {"3.", "\"3.\""},
      {"Y", "\"Y\""},
      {"yes", "\"yes\""},
      {"Off", "\"Off\""},
      {"\xC3""\xA9""", "\xC3""\xA9"""},
      {"\xE2""\x82""\xAC""uro", "\xE2""\x82""\xAC""uro"},
      {"a\xC2""\xA0""b", "a\xC2""\xA0""b"},
      {"\xEF""\xBB""\xBF""bom", "\"\\uFEFF\\x62\\x6F\\x6D\""},
      {"[x-remote-extra-]", "'[x-remote-extra-]'"},
      {"/healthz", "/healthz"},
      {"a,b", "a,b"},
      {"a=b", "a=b"},
      {"@", "'@'"},
      {"x y", "x y"},
      {"x  y", "x  y"},
      {" ", "' '"},
      {"  ", "'  '"},
      {":", "':'"},
      {"-", "'-'"},
      {"?", "'?'"},
      {"#", "'#'"},
      {"a:", "'a:'"},
      {"a: ", "'a: '"},
      {"http://x:80/", "http://x:80/"},
      {"1e999", "1e999"},
      {".5e999", ".5e999"},
      {"1e-999", "\"1e-999\""},
      {".1e-999", "\".1e-999\""},
      {"-1e400", "-1e400"},
  };
  for (const auto& [in, want] : cases) {
    std::string got = yamlScalarForTest(in, 3, 2);
    if (!got.empty() && got.back() == '\n') got.pop_back();
    EXPECT_EQ(got, want) << in;
  }
}

// Upstream's flagz handler itself (k8s.io/apiserver v0.37.2 under net/http/httptest), without and with
// CBORServingAndStorage, for 157 Accept header / User-Agent / query combinations: the same status,
// Content-Type, Warning and body (CBOR bodies aside: upstream starts them at a random field).
TEST(Zpages, NegotiationAsUpstreamFlagz) {
  std::ifstream in(KS_ZPAGES_NEGOTIATION_CASES);
  ASSERT_TRUE(in) << KS_ZPAGES_NEGOTIATION_CASES;
  const nlohmann::json data = nlohmann::json::parse(in);
  for (const auto& run : data["runs"]) {
    ZpageOptions o = testServer();
    o.cbor = run["cbor"].get<bool>();
    const size_t delimiter = run["delimiter"].get<size_t>();
    o.pickDelimiter = [delimiter] { return delimiter; };
    Handler h = flagzHandler(o, [] { return std::map<std::string, std::string>{{"a", "b c"}, {"x", "[]"}}; });
    for (const auto& c : run["cases"]) {
      std::string query = c["query"].get<std::string>();
      if (!query.empty()) query.erase(0, 1);  // "?"
      Request req = get("", c["userAgent"].get<std::string>(), query);
      const std::string accept = c["accept"].get<std::string>();
      if (!accept.empty()) req.headers.emplace_back("accept", accept);
      SCOPED_TRACE("cbor=" + std::to_string(o.cbor) + " Accept: " + accept + " UA: " + c["userAgent"].get<std::string>() +
                   " query: " + query);
      const Response r = h(req);
      EXPECT_EQ(r.status, c["status"].get<int>());
      EXPECT_EQ(r.contentType, c["contentType"].get<std::string>());
      EXPECT_EQ(header(r, "Warning").value_or(""), c["warning"].get<std::string>());
      if (!c["body"].is_null()) {
        EXPECT_EQ(r.body, c["body"].get<std::string>());
      }
    }
  }
}

}  // namespace
}  // namespace ks::server
