// Decode speed of the API codecs: a large pod list and node list, as JSON and as protobuf, decoded by the
// streaming list decoders the informers use (JsonListDecoder / ProtoListDecoder, finishShared). The lists are
// built in memory from the recorded apiserver fixtures of test/api/proto/testdata, replicated round-robin.
// Reports wall and CPU nanoseconds per object (the decoders share long lists with one helper thread, so CPU
// is the steadier figure). Timings are reported, never asserted.
//
//   ./decode_bench [--pods 100000] [--nodes 5000] [--rounds 3]

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/json/codec.h"
#include "pkg/api/proto/codec.h"
#include "pkg/api/proto/wire.h"

namespace {

using ks::api::Node;
using ks::api::Pod;
namespace proto = ks::api::proto;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fields of one message with the given number (bytes values).
std::vector<std::string_view> fieldsOf(std::string_view msg, uint32_t number) {
  std::vector<std::string_view> out;
  proto::Reader r(msg);
  proto::Field f;
  while (r.next(f)) {
    if (f.number == number && f.type == proto::WireType::kBytes) out.push_back(f.bytes);
  }
  return out;
}

// runtime.Unknown {typeMeta = 1, raw = 2, ...} after the 4-byte magic.
std::string_view envelopeRaw(std::string_view body) {
  auto raw = fieldsOf(body.substr(4), 2);
  return raw.empty() ? std::string_view{} : raw.front();
}

struct Inputs {
  std::string json;
  std::string proto;
};

// `names` are fixture stems (pod, pod_affinity, ...); `listStem` gives the protobuf list envelope's typeMeta.
Inputs buildList(const std::string& dir, const std::vector<std::string>& names, const std::string& listStem,
                 std::string_view listKind, size_t count) {
  std::vector<std::string> jsonItems;
  std::vector<std::string> protoBodies;
  for (const auto& n : names) {
    jsonItems.push_back(readFile(dir + "/" + n + ".json"));
    protoBodies.push_back(readFile(dir + "/" + n + ".pb"));
  }
  Inputs in;
  in.json.reserve(count * (jsonItems.front().size() + 1) + 100);
  in.json.append(R"({"kind":")").append(listKind);
  in.json.append(R"(","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[)");
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) in.json.push_back(',');
    in.json.append(jsonItems[i % jsonItems.size()]);
  }
  in.json.append("]}");

  const std::string listBody = readFile(dir + "/" + listStem + ".list.pb");
  const auto typeMeta = fieldsOf(std::string_view(listBody).substr(4), 1);
  const auto listMeta = fieldsOf(envelopeRaw(listBody), 1);
  proto::Writer list;
  if (!listMeta.empty()) list.bytes(1, listMeta.front());
  for (size_t i = 0; i < count; ++i) list.bytes(2, envelopeRaw(protoBodies[i % protoBodies.size()]));
  proto::Writer envelope;
  if (!typeMeta.empty()) envelope.bytes(1, typeMeta.front());
  envelope.bytes(2, list.data());
  in.proto = std::string("k8s\0", 4) + envelope.take();
  return in;
}

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

template <typename T, template <typename> class Decoder>
void run(const char* label, const std::string& body, size_t count, int rounds) {
  constexpr size_t kChunk = 64 * 1024;
  double bestWall = 1e30;
  double bestCpu = 1e30;
  for (int r = 0; r < rounds; ++r) {
    std::vector<std::shared_ptr<const T>> items;
    const auto start = std::chrono::steady_clock::now();
    const double cpu0 = cpuSeconds();
    Decoder<T> d;
    for (size_t pos = 0; pos < body.size(); pos += kChunk) {
      if (auto fed = d.feed(std::string_view(body).substr(pos, kChunk)); !fed) {
        std::fprintf(stderr, "%s: %s\n", label, fed.error().message().c_str());
        std::exit(1);
      }
    }
    if (auto meta = d.finishShared(items); !meta || items.size() != count) {
      std::fprintf(stderr, "%s: decode failed or %zu items\n", label, items.size());
      std::exit(1);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = cpuSeconds() - cpu0;
    bestWall = std::min(bestWall, wall);
    bestCpu = std::min(bestCpu, cpu);
  }
  std::printf("%-12s %8zu objects  %8.0f ns/object wall  %8.0f ns/object cpu  (best of %d)\n", label, count,
              bestWall * 1e9 / static_cast<double>(count), bestCpu * 1e9 / static_cast<double>(count), rounds);
}

}  // namespace

int main(int argc, char** argv) {
  size_t pods = 100000;
  size_t nodes = 5000;
  int rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view arg = argv[i];
    if (arg == "--pods") {
      pods = std::strtoul(argv[i + 1], nullptr, 10);
    } else if (arg == "--nodes") {
      nodes = std::strtoul(argv[i + 1], nullptr, 10);
    } else if (arg == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: %s [--pods N] [--nodes N] [--rounds N]\n", argv[0]);
      return 2;
    }
  }
  const std::string dir = KS_DECODE_BENCH_TESTDATA;
  const Inputs podIn = buildList(dir, {"pod", "pod_affinity", "pod_volumes", "pod_declared_features"}, "pod",
                                 "PodList", pods);
  const Inputs nodeIn = buildList(dir, {"node", "node_declared_features"}, "node", "NodeList", nodes);
  std::printf("pod list: %zu MB JSON, %zu MB protobuf; node list: %zu MB JSON, %zu MB protobuf\n",
              podIn.json.size() >> 20, podIn.proto.size() >> 20, nodeIn.json.size() >> 20,
              nodeIn.proto.size() >> 20);
  run<Pod, ks::api::JsonListDecoder>("pods json", podIn.json, pods, rounds);
  run<Pod, ks::api::ProtoListDecoder>("pods proto", podIn.proto, pods, rounds);
  run<Node, ks::api::JsonListDecoder>("nodes json", nodeIn.json, nodes, rounds);
  run<Node, ks::api::ProtoListDecoder>("nodes proto", nodeIn.proto, nodes, rounds);
  return 0;
}
