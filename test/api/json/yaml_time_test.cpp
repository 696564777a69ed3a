// RFC 3339 times, YAML -> JSON scalar resolution and errors, JSON -> YAML printing.

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "test/api/json/test_util.h"

namespace ks::api {
namespace {

using nlohmann::json;

TEST(Time, FormatsSecondsAndMicros) {
  Time t = parseTime("2024-05-02T08:15:31.123456789Z").value();
  EXPECT_EQ(formatTime(t), "2024-05-02T08:15:31Z");
  EXPECT_EQ(formatMicroTime(t), "2024-05-02T08:15:31.123456Z");
  EXPECT_EQ(formatTime(Time{}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(formatMicroTime(Time{}), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(formatTime(parseTime("1969-12-31T23:59:59.5Z").value()), "1969-12-31T23:59:59Z");
}

TEST(Time, ParsesOffsetsAndFractions) {
  EXPECT_EQ(parseTime("2024-05-02T10:15:31+02:00").value(), parseTime("2024-05-02T08:15:31Z").value());
  EXPECT_EQ(parseTime("2024-05-01T23:45:00-08:30").value(), parseTime("2024-05-02T08:15:00Z").value());
  EXPECT_EQ(formatMicroTime(parseTime("2024-05-02T08:15:31.5Z").value()), "2024-05-02T08:15:31.500000Z");
  EXPECT_EQ(formatMicroTime(parseTime("2024-02-29T00:00:00,25Z").value()), "2024-02-29T00:00:00.250000Z");
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(
                parseTime("2024-05-02T08:15:31Z").value().time_since_epoch())
                .count(),
            1714637731);
}

TEST(Time, RejectsMalformed) {
  struct Case {
    const char* in;
    const char* err;
  } cases[] = {
      {"", R"(parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006")"},
      {"2024-05-02", R"(parsing time "2024-05-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T")"},
      {"2024-05-02T08:15:31",
       R"(parsing time "2024-05-02T08:15:31" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00")"},
      {"2024-05-02T08:15:31Zjunk", R"(parsing time "2024-05-02T08:15:31Zjunk": extra text: "junk")"},
      {"2023-02-29T00:00:00Z", R"(parsing time "2023-02-29T00:00:00Z": day out of range)"},
      {"2024-05-02T24:00:00Z", R"(parsing time "2024-05-02T24:00:00Z": hour out of range)"},
      {"2024-05-02T08:60:00Z", R"(parsing time "2024-05-02T08:60:00Z": minute out of range)"},
      {"2024-05-02T08:15:60Z", R"(parsing time "2024-05-02T08:15:60Z": second out of range)"},
      {"9999-12-31T23:59:59Z", R"(parsing time "9999-12-31T23:59:59Z": year out of range)"},
      {"2024-05-02T08:15:31+0200",
       R"(parsing time "2024-05-02T08:15:31+0200" as "2006-01-02T15:04:05Z07:00": cannot parse "+0200" as "Z07:00")"},
  };
  for (const auto& c : cases) {
    auto r = parseTime(c.in);
    ASSERT_FALSE(r.ok()) << c.in;
    EXPECT_EQ(r.error().message(), c.err);
  }
}

TEST(Yaml, ResolvesPlainScalarsLikeGoYamlV2) {
  auto docs = yamlToJson(R"(
t: true
f: False
yes_: yes
off_: off
nul: null
tilde: ~
empty:
int: 42
neg: -17
hex: 0x1F
oct: 0o17
oldOct: 0755
bin: 0b101
under: 1_000
big: 18446744073709551615
tooBig: 18446744073709551616
float: 1.5
exp: 1e3
dot: .5
ver: 1.10
str: hello world
date: 2024-05-02
qtrue: "true"
q1: '1'
qnull: "null"
tagged: !!str 123
taggedFloat: !!float 3
bigFloat: 1e21
ip: 10.0.0.1
cpu: 500m
mem: 1Gi
block: |
  line1
  line2
n: YAML 1.1 bool key
)");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  ASSERT_EQ(docs->size(), 1u);
  const json& d = (*docs)[0];
  EXPECT_EQ(d["t"], true);
  EXPECT_EQ(d["f"], false);
  EXPECT_EQ(d["yes_"], true);
  EXPECT_EQ(d["off_"], false);
  EXPECT_TRUE(d["nul"].is_null());
  EXPECT_TRUE(d["tilde"].is_null());
  EXPECT_TRUE(d["empty"].is_null());
  EXPECT_EQ(d["int"], 42);
  EXPECT_TRUE(d["int"].is_number_integer());
  EXPECT_EQ(d["neg"], -17);
  EXPECT_EQ(d["hex"], 31);
  EXPECT_EQ(d["oct"], 15);
  EXPECT_EQ(d["oldOct"], 493);
  EXPECT_EQ(d["bin"], 5);
  EXPECT_EQ(d["under"], 1000);
  EXPECT_EQ(d["big"].get<uint64_t>(), 18446744073709551615ULL);
  EXPECT_TRUE(d["tooBig"].is_number_float());
  EXPECT_EQ(d["float"], 1.5);
  EXPECT_TRUE(d["exp"].is_number_integer());  // Go prints float64(1000) as 1000
  EXPECT_EQ(d["exp"], 1000);
  EXPECT_EQ(d["dot"], 0.5);
  EXPECT_EQ(d["ver"], 1.1);
  EXPECT_EQ(d["str"], "hello world");
  EXPECT_EQ(d["date"], "2024-05-02");
  EXPECT_EQ(d["qtrue"], "true");
  EXPECT_EQ(d["q1"], "1");
  EXPECT_EQ(d["qnull"], "null");
  EXPECT_EQ(d["tagged"], "123");
  EXPECT_EQ(d["taggedFloat"], 3);
  EXPECT_TRUE(d["bigFloat"].is_number_float());
  EXPECT_EQ(d["bigFloat"], 1e21);
  EXPECT_EQ(d["ip"], "10.0.0.1");
  EXPECT_EQ(d["cpu"], "500m");
  EXPECT_EQ(d["mem"], "1Gi");
  EXPECT_EQ(d["block"], "line1\nline2\n");
  EXPECT_EQ(d["false"], "YAML 1.1 bool key");  // go-yaml v2 resolves the key n as false
}

TEST(Yaml, KeysMergeAndMultipleDocuments) {
  auto docs = yamlToJson(R"(---
# comment only document follows
---
base: &base
  cpu: 100m
  memory: 1Gi
pod:
  <<: *base
  memory: 2Gi
1: one
true: yes
---
- a
- b: [1, "2", {c: d}]
...
---
)");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  ASSERT_EQ(docs->size(), 2u);
  const json& d = (*docs)[0];
  EXPECT_EQ(d["pod"]["cpu"], "100m");
  EXPECT_EQ(d["pod"]["memory"], "2Gi");  // explicit key wins over the merge
  EXPECT_EQ(d["1"], "one");
  EXPECT_EQ(d["true"], true);
  EXPECT_EQ((*docs)[1], json::parse(R"(["a",{"b":[1,"2",{"c":"d"}]}])"));
}

TEST(Yaml, ErrorsCarryLineAndColumn) {
  struct Case {
    const char* in;
    const char* err;
  } cases[] = {
      {"a: b\n  c: d: e\n", "yaml: line 2, column 4: illegal map value"},
      {"a: [1, 2\nb: 3\n", "yaml: line 2, column 2: end of sequence flow not found"},
      {"a: b\n- c\n", "yaml: line 2, column 1: end of map not found"},
      {"a: *nope\n", "yaml: line 1, column 4: the referenced anchor is not defined"},
      {"x: .inf\n", "yaml: line 1, column 4: unsupported value .inf (not representable in JSON)"},
      {"x: !!int abc\n", "yaml: line 1, column 4: cannot decode !!str `abc` as a !!int"},
      {"? [a, b]\n: c\n", "yaml: line 1, column 3: unsupported map key (not a scalar)"},
  };
  for (const auto& c : cases) {
    auto r = yamlToJson(c.in);
    ASSERT_FALSE(r.ok()) << c.in;
    EXPECT_EQ(r.error().message(), c.err) << c.in;
  }
}

TEST(Yaml, SurvivesHostileInput) {
  // Self-referencing alias, billion laughs, deep nesting: errors, not crashes or hangs.
  EXPECT_FALSE(yamlToJson("a: &x [*x]\n").ok());
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c, ++prev) {
    laughs += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", *" : "*") + prev;
    laughs += "]\n";
  }
  auto r = yamlToJson(laughs);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("too many nodes"), std::string::npos) << r.error().message();
  EXPECT_FALSE(yamlToJson(std::string(5000, '[')).ok());
  auto deep = parseJsonOrYaml(std::string(200000, '[') + std::string(200000, ']'));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message(), "invalid JSON: exceeded max depth of 1000");
  auto fine = parseJsonOrYaml(std::string(500, '[') + std::string(500, ']'));
  ASSERT_TRUE(fine.ok());
  EXPECT_NE(jsonToYaml((*fine)[0]).find("- - - -"), std::string::npos);
}

// Found by test/fuzz/yaml_fuzz (corpus/yaml_fuzz/crash-*): a ',' where a block node should start made
// yaml-cpp's LoadAll report empty documents forever (jbeder/yaml-cpp#1040), until memory ran out.
TEST(Yaml, CommaAtBlockLevelIsAnErrorNotAHang) {
  for (const char* in : {",", ",-r6", " ,", "---\n,", "a: 1\n---\n,", "&x ,", "- a\n,"}) {
    auto r = yamlToJson(in);
    ASSERT_FALSE(r.ok()) << in;
    EXPECT_NE(r.error().message().find("did not find expected node content"), std::string::npos)
        << r.error().message();
  }
  auto r = yamlToJson(",");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "yaml: line 1, column 1: did not find expected node content");
  // Empty documents in a stream are still fine.
  auto docs = yamlToJson("a: 1\n---\n---\nb: 2\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  EXPECT_EQ(docs->size(), 2u);
}

// Found by test/fuzz/yaml_fuzz and scheduler_config_fuzz: bytes that are not UTF-8 reached JSON strings,
// and serializing those threw (a crash of the config loader). go-yaml rejects them while reading.
TEST(Yaml, RejectsWhatGoYamlsReaderRejects) {
  const std::pair<std::string, std::string> cases[] = {
      {"a: \x97", "yaml: invalid leading UTF-8 octet"},
      {"a: \xd0-", "yaml: invalid trailing UTF-8 octet"},
      {"a: \xe2\x82", "yaml: incomplete UTF-8 octet sequence"},
      {"a: \xc0\xaf", "yaml: invalid length of a UTF-8 sequence"},
      {"a: \xed\xa0\x80", "yaml: invalid Unicode character"},
      {"a: \xf4\x90\x80\x80", "yaml: invalid Unicode character"},
      {std::string("a: b\0", 5), "yaml: control characters are not allowed"},
      {"a: \x01", "yaml: control characters are not allowed"},
      {"a: \xef\xbf\xbe", "yaml: control characters are not allowed"},  // U+FFFE
  };
  for (const auto& [in, want] : cases) {
    auto r = yamlToJson(in);
    ASSERT_FALSE(r.ok()) << in;
    EXPECT_EQ(r.error().message(), want);
    EXPECT_FALSE(parseJsonOrYaml(in).ok());
  }
  auto ok = yamlToJson("a: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\r\nb:\t1\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_EQ((*ok)[0]["a"], "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

// Strings from the API may hold characters a YAML reader refuses raw (DEL, C1 controls, U+FFFE/U+FFFF);
// jsonToYaml escapes them so its output still converts back (checked by test/fuzz/yaml_fuzz).
TEST(Yaml, PrintsUnreadableCharactersEscaped) {
  const json j = {{"s",
                   "a\x7f"
                   "b\xc2\x80"
                   "c\xc2\x85"
                   "d\xef\xbf\xbe"
                   "e\xef\xbf\xbf"
                   "\x01 \xc3\xa9"}};
  const std::string yaml = jsonToYaml(j);
  EXPECT_EQ(yaml, "s: \"a\\u007fb\\u0080c\\u0085d\\ufffee\\uffff\\u0001 \xc3\xa9\"\n");
  auto back = yamlToJson(yaml);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ((*back)[0], j);
}

// Found by yaml_fuzz: YAML limits implicit keys to 1024 characters, so a long key printed as "key: value"
// did not read back ("illegal map value"). Keys over 128 characters are explicit, as go-yaml prints them.
TEST(Yaml, PrintsLongKeysAsExplicitKeys) {
  const std::string longKey(1500, 'k');
  const json j = {{longKey, nullptr},
                  {"list", {{{longKey + " # a: b", {1, 2}}}}},
                  {"nested", {{std::string(129, 'n'), {{"a", "b"}}}}}};
  const std::string yaml = jsonToYaml(j);
  EXPECT_NE(yaml.find("? " + longKey + "\n: null\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("  ? " + std::string(129, 'n') + "\n  :\n    a: b\n"), std::string::npos) << yaml;
  auto back = yamlToJson(yaml);
  ASSERT_TRUE(back.ok()) << back.error().message() << "\n" << yaml;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0], j) << yaml;
  EXPECT_EQ(jsonToYaml(json{{std::string(128, 's'), 1}}), std::string(128, 's') + ": 1\n");
}

// Found by yaml_fuzz: yaml-cpp decodes "\N" and "\_" to Latin-1 bytes; go-yaml gives U+0085 and U+00A0.
TEST(Yaml, NextLineAndNoBreakSpaceEscapesAreUtf8) {
  auto docs = yamlToJson("a: \"x\\Ny\\_z\\x85\"\nb: \"\\N\"\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  EXPECT_EQ((*docs)[0]["a"], "x\xc2\x85y\xc2\xa0z\xc2\x85");
  EXPECT_EQ((*docs)[0]["b"], "\xc2\x85");
  auto back = yamlToJson(jsonToYaml((*docs)[0]));
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ((*back)[0], (*docs)[0]);
}

TEST(Yaml, PrintsBlockStyleThatReparses) {
  json j = json::parse(R"({
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "parallelism": 16,
    "percentageOfNodesToScore": 0,
    "podInitialBackoffSeconds": 1.5,
    "enabled": true,
    "nothing": null,
    "profiles": [
      {"schedulerName": "default-scheduler",
       "plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 2}], "disabled": []}},
       "pluginConfig": []}
    ],
    "tricky": ["true", "1.0", "", "null", "a: b", "- x", "#c", " pad", "yes", "0x10", "multi\nline", "plain text", "500m"],
    "nested": [[1, 2], []],
    "emptyObj": {}
  })");
  std::string yaml = jsonToYaml(j);
  EXPECT_NE(yaml.find("kind: KubeSchedulerConfiguration\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("profiles:\n- pluginConfig: []\n  plugins:\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("  - name: NodeResourcesFit\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- \"true\"\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- \"1.0\"\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- \"yes\"\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- plain text\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- 500m\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("emptyObj: {}\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("nothing: null\n"), std::string::npos) << yaml;
  auto back = yamlToJson(yaml);
  ASSERT_TRUE(back.ok()) << back.error().message() << "\n" << yaml;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0], j) << yaml;
  EXPECT_EQ(jsonToYaml(json("scalar")), "scalar\n");
  // Found by yaml_fuzz: "..." at the start of a line ends the document.
  EXPECT_EQ(jsonToYaml(json("...")), "\"...\"\n");
  EXPECT_EQ(jsonToYaml(json{{"k", "... x"}}), "k: \"... x\"\n");
  EXPECT_EQ(yamlToJson(jsonToYaml(json("...")))->at(0), "...");
  EXPECT_EQ(jsonToYaml(json::object()), "{}\n");
}

TEST(Yaml, ParseJsonOrYaml) {
  auto list =
      parseJsonOrYaml(R"({"apiVersion":"v1","kind":"List","items":[{"kind":"Pod"},{"kind":"Node"}]})");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0]["kind"], "List");

  auto yaml = parseJsonOrYaml("kind: Pod\n---\nkind: Node\n");
  ASSERT_TRUE(yaml.ok());
  ASSERT_EQ(yaml->size(), 2u);
  EXPECT_EQ((*yaml)[1]["kind"], "Node");

  auto flow = parseJsonOrYaml("{kind: Pod, metadata: {name: p}}");
  ASSERT_TRUE(flow.ok());
  EXPECT_EQ((*flow)[0]["metadata"]["name"], "p");

  auto badJson = parseJsonOrYaml(R"({"kind": "Pod",)");
  ASSERT_FALSE(badJson.ok());
  EXPECT_EQ(badJson.error().message().rfind("invalid JSON: parse error at line 1", 0), 0u)
      << badJson.error().message();

  auto badYaml = parseJsonOrYaml("kind: Pod\n  x: y: z\n");
  ASSERT_FALSE(badYaml.ok());
  EXPECT_EQ(badYaml.error().message().rfind("yaml: line 2, column", 0), 0u) << badYaml.error().message();

  auto empty = parseJsonOrYaml("  \n# nothing\n");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(Yaml, YamlFixturesDecodeLikeJson) {
  // A YAML object and the same object as JSON decode equal (quoted "0"/"true" stay strings).
  auto y = parseJsonOrYaml(testing::readTestdata("node.yaml"));
  ASSERT_TRUE(y.ok());
  const json& node = (*y)[0];
  EXPECT_EQ(node["metadata"]["annotations"]["node.alpha.kubernetes.io/ttl"], "0");
  EXPECT_EQ(node["status"]["capacity"]["cpu"], "4");
  EXPECT_EQ(node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"], 10250);
  auto viaJson = decodeJson<Node>(node.dump());
  auto viaNlohmann = fromJson<Node>(node);
  ASSERT_TRUE(viaJson.ok());
  ASSERT_TRUE(viaNlohmann.ok());
  EXPECT_EQ(*viaJson, *viaNlohmann);

  // YAML numbers feed integer and quantity fields as they would through sigs.k8s.io/yaml.
  auto pod = parseJsonOrYaml(
      "spec:\n  priority: 1e3\n  containers:\n  - name: c\n    resources:\n"
      "      requests: {cpu: 0.5, memory: 1e9}\n");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  auto decoded = fromJson<Pod>((*pod)[0]);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message();
  EXPECT_EQ(decoded->spec.priority, std::optional<int32_t>(1000));
  EXPECT_EQ(decoded->spec.containers[0].resources.requests.at("cpu").milliValue(), 500);
  EXPECT_EQ(decoded->spec.containers[0].resources.requests.at("memory").value(), 1000000000);
  auto frac = parseJsonOrYaml("spec:\n  priority: 1.5\n");
  ASSERT_TRUE(frac.ok());
  auto bad = fromJson<Pod>((*frac)[0]);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "spec.priority: expected an integer, got number 1.5");
}

}  // namespace
}  // namespace ks::api
