#include "pkg/app/logging.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ansicolor_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "pkg/api/field.h"
#include "pkg/api/quantity.h"
#include "pkg/util/go_duration.h"

namespace ks::app {
namespace {

std::atomic<int> gVerbosity{0};

spdlog::level::level_enum levelFor(int v) {
  if (v >= 4) return spdlog::level::trace;
  if (v >= 2) return spdlog::level::debug;
  return spdlog::level::info;
}

// The klog verbosity a line of this level stands for ("v" in JSON).
int verbosityOf(spdlog::level::level_enum level) {
  if (level == spdlog::level::trace) return 4;
  if (level == spdlog::level::debug) return 2;
  return 0;
}

bool isError(spdlog::level::level_enum level) {
  return level == spdlog::level::err || level == spdlog::level::critical;
}

std::string_view basename(const char* file) {
  std::string_view f(file);
  auto slash = f.rfind('/');
  return slash == std::string_view::npos ? f : f.substr(slash + 1);
}

// klog's header: "Lmmdd hh:mm:ss.uuuuuu threadid file:line] ".
class KlogTextFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    char letter = 'I';
    if (msg.level == spdlog::level::warn) letter = 'W';
    if (isError(msg.level)) letter = 'E';
    const auto since = msg.time.time_since_epoch();
    const std::time_t secs = std::chrono::duration_cast<std::chrono::seconds>(since).count();
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(since).count() % 1000000;
    std::tm tm{};
    ::localtime_r(&secs, &tm);
    std::string caller = "???:1";  // klog's text when the caller is unknown
    if (!msg.source.empty()) caller = std::string(basename(msg.source.filename)) + ":" + std::to_string(msg.source.line);
    char head[96];
    const int n = std::snprintf(head, sizeof(head), "%c%02d%02d %02d:%02d:%02d.%06lld %7zu %s] ", letter,
                                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                                static_cast<long long>(micros), msg.thread_id, caller.c_str());
    if (n > 0) dest.append(head, head + std::min<size_t>(static_cast<size_t>(n), sizeof(head) - 1));
    dest.append(msg.payload.begin(), msg.payload.end());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<KlogTextFormatter>(); }
};

// component-base/logs/json: {"ts":<ms since the epoch>,"caller":"dir/file:line","msg":"...","v":N}.
class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const double ts =
        std::chrono::duration_cast<std::chrono::nanoseconds>(msg.time.time_since_epoch()).count() / 1e6;
    nlohmann::ordered_json line;
    line["ts"] = ts;
    if (!msg.source.empty()) {
      line["caller"] = std::string(basename(msg.source.filename)) + ":" + std::to_string(msg.source.line);
    }
    line["msg"] = std::string(msg.payload.data(), msg.payload.size());
    if (!isError(msg.level)) line["v"] = verbosityOf(msg.level);
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    dest.append(text.data(), text.data() + text.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

Error forbidden(const std::string& path, const std::string& detail) {
  return Error(path + ": Forbidden: " + detail);
}

}  // namespace

Result<std::vector<VModuleEntry>> parseVModule(std::string_view text) {
  std::vector<VModuleEntry> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    std::string pat(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (pat.empty()) continue;
    const size_t eq = pat.find('=');
    if (eq == std::string::npos || pat.find('=', eq + 1) != std::string::npos || eq == 0 || eq + 1 == pat.size()) {
      return Error("\"" + pat + "\" does not have the pattern=N format");
    }
    const std::string level = pat.substr(eq + 1);
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(level.c_str(), &end, 10);
    if (end != level.c_str() + level.size() || !std::isdigit(static_cast<unsigned char>(level[0]))) {
      return Error("parsing verbosity in \"" + pat + "\": strconv.ParseUint: parsing \"" + level +
                   "\": invalid syntax");
    }
    if (errno == ERANGE || v > 0x7fffffffULL) {
      return Error("parsing verbosity in \"" + pat + "\": strconv.ParseUint: parsing \"" + level +
                   "\": value out of range");
    }
    out.push_back({pat.substr(0, eq), static_cast<int>(v)});
  }
  return out;
}

Result<uint64_t> parseQuantity(std::string_view text) {
  auto q = api::Quantity::parse(text);
  if (!q.ok()) return q.error();
  // Negative sizes disable buffering (upstream's would be a non-zero, meaningless size).
  return static_cast<uint64_t>(std::max<int64_t>(0, q->value()));
}

VoidResult validateLogging(const LoggingOptions& o, const features::FeatureGate& gates) {
  std::vector<std::string> errs;
  if (o.flushFrequency.count() <= 0) {
    errs.push_back("flushFrequency: Invalid value: " + api::field::jsonValue(formatGoDuration(o.flushFrequency)) +
                   ": Must be greater than zero");
  }
  if (o.format != "text" && o.format != "json") {
    errs.push_back("format: Invalid value: \"" + o.format + "\": Unsupported log format");
  } else if (o.format == "json" && !gates.enabled("LoggingBetaOptions")) {
    errs.push_back(forbidden("format", "Log format json is disabled, see LoggingBetaOptions feature").message());
  }
  if (!o.vmodule.empty() && o.format != "text") {
    errs.push_back(forbidden("vmodule", "Only supported for text log format").message());
  }
  const bool alpha = gates.enabled("LoggingAlphaOptions");
  const std::string disabled = "Feature LoggingAlphaOptions is disabled";
  if (o.textSplitStream && !alpha) errs.push_back(forbidden("options.text.splitStream", disabled).message());
  if (o.textInfoBufferSize != 0 && !alpha) {
    errs.push_back(forbidden("options.text.infoBufferSize", disabled).message());
  }
  if (o.jsonSplitStream && !alpha) errs.push_back(forbidden("options.json.splitStream", disabled).message());
  if (o.jsonInfoBufferSize != 0 && !alpha) {
    errs.push_back(forbidden("options.json.infoBufferSize", disabled).message());
  }
  if (errs.empty()) return {};
  return Error(api::aggregateMessages(errs));
}

std::unique_ptr<spdlog::formatter> newKlogTextFormatter() { return std::make_unique<KlogTextFormatter>(); }
std::unique_ptr<spdlog::formatter> newJsonFormatter() { return std::make_unique<JsonFormatter>(); }

void setupLogging(const LoggingOptions& o) {
  const bool json = o.format == "json";
  const bool split = json ? o.jsonSplitStream : o.textSplitStream;
  const uint64_t buffer = json ? o.jsonInfoBufferSize : o.textInfoBufferSize;
  std::vector<spdlog::sink_ptr> sinks;
  if (split) {
    // Errors to stderr, everything else to stdout (optionally fully buffered, flushed by the flusher).
    if (buffer != 0) std::setvbuf(stdout, nullptr, _IOFBF, static_cast<size_t>(buffer));
    auto err = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    err->set_level(spdlog::level::err);
    // The info stream takes the levels below error only.
    class BelowError final : public spdlog::sinks::stdout_sink_mt {
     protected:
      void log(const spdlog::details::log_msg& msg) override {
        if (msg.level < spdlog::level::err) spdlog::sinks::stdout_sink_mt::log(msg);
      }
    };
    sinks.push_back(std::make_shared<BelowError>());
    sinks.push_back(err);
  } else if (json) {
    sinks.push_back(std::make_shared<spdlog::sinks::stdout_sink_mt>());  // upstream: JSON goes to stdout
  } else {
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());  // klog writes to stderr
  }
  auto logger = std::make_shared<spdlog::logger>("kube-scheduler-cpp", sinks.begin(), sinks.end());
  logger->set_formatter(json ? newJsonFormatter() : newKlogTextFormatter());
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  setVerbosity(o.verbosity);
  // spdlog's periodic flusher counts whole seconds: a sub-second frequency flushes every second.
  spdlog::flush_every(std::max(std::chrono::seconds(1), std::chrono::ceil<std::chrono::seconds>(o.flushFrequency)));
}

int verbosity() { return gVerbosity.load(); }

void setVerbosity(int v) {
  gVerbosity.store(v);
  spdlog::set_level(levelFor(v));
}

}  // namespace ks::app
