// Fuzzes the YAML -> JSON conversion the config loader, the kubeconfig parser and the simulator use
// (pkg/api/json/yaml.h). Every document that converts is printed back as YAML with jsonToYaml, which
// promises output that converts back to the same JSON; input that is JSON is printed as YAML the same way.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/api/json/yaml.h"
#include "test/fuzz/fuzz_check.h"

namespace {

std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto docs = ks::api::yamlToJson(text);
  if (docs.ok()) {
    for (const auto& doc : *docs) {
      const std::string yaml = ks::api::jsonToYaml(doc);
      auto back = ks::api::yamlToJson(yaml);
      if (!back.ok())
        ks::fuzz::checkFailed("yamlToJson(jsonToYaml(doc)) ok", __FILE__, __LINE__, yaml,
                              back.error().message());
      // A null document is dropped ("null" reads as an empty document), everything else comes back.
      if (doc.is_null()) continue;
      FUZZ_CHECK(back->size() == 1);
      if ((*back)[0] != doc)
        ks::fuzz::checkFailed("round trip equal", __FILE__, __LINE__, dump(doc), dump((*back)[0]));
    }
  } else {
    FUZZ_CHECK(!docs.error().message().empty());
  }
  // JSON (valid UTF-8, any string content, as API objects hold) printed as YAML converts back the same.
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_discarded() && !json.is_null()) {
    const std::string yaml = ks::api::jsonToYaml(json);
    auto back = ks::api::yamlToJson(yaml);
    if (!back.ok()) {
      ks::fuzz::checkFailed("yamlToJson(jsonToYaml(json)) ok", __FILE__, __LINE__, yaml,
                            back.error().message());
    }
    FUZZ_CHECK(back->size() == 1);
    if ((*back)[0] != json)
      ks::fuzz::checkFailed("JSON round trip equal", __FILE__, __LINE__, dump(json), dump((*back)[0]));
  }
  (void)ks::api::parseJsonOrYaml(text);
  return 0;
}
