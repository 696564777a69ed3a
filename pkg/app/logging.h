#pragma once
// The daemon's logs as upstream's "Logs flags" make them (k8s.io/component-base/logs/api/v1 and klog):
//
//   --logging-format=text  klog's header: "I1124 17:21:03.123456   12345 file.cc:123] message" (level letter
//                          I/W/E, month and day, time with microseconds, thread id right-aligned in 7, the
//                          caller when the call site passed one, else klog's "???:1"), to stderr;
//   --logging-format=json  component-base's zap encoder: {"ts":<unix milliseconds, float>,"caller":"file:line",
//                          "msg":"...","v":0} ("v" on non-error lines), to stdout;
//   --log-{text,json}-split-stream  errors to stderr, the rest to stdout (LoggingAlphaOptions);
//   --log-{text,json}-info-buffer-size  stdout fully buffered with that size when split (LoggingAlphaOptions);
//   --log-flush-frequency  how often buffered lines are flushed (a background flusher);
//   -v                     klog verbosity: 0-1 info, 2-3 debug, 4+ trace (settable at run time through PUT
//                          /debug/flags/v when profiling is enabled);
//   --vmodule              validated with klog's syntax; see docs/running.md for its effect here.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/formatter.h>

#include "pkg/features/features.h"
#include "pkg/util/result.h"

namespace ks::app {

struct VModuleEntry {
  std::string pattern;
  int level = 0;
  bool operator==(const VModuleEntry&) const = default;
};

struct LoggingOptions {
  std::string format = "text";  // --logging-format
  int verbosity = 0;            // -v
  std::vector<VModuleEntry> vmodule;
  std::chrono::nanoseconds flushFrequency{std::chrono::seconds(5)};  // validated > 0 (validateLogging)
  bool textSplitStream = false;
  uint64_t textInfoBufferSize = 0;
  bool jsonSplitStream = false;
  uint64_t jsonInfoBufferSize = 0;
  // The buffer sizes as resource.Quantity prints the values given ("1Ki", "2048", "1e3"), for /flagz.
  std::string textInfoBufferSizeText = "0";
  std::string jsonInfoBufferSizeText = "0";
};

// klog's --vmodule syntax "pattern=N,...": errors as klog's ("\"x\" does not have the pattern=N format",
// "parsing verbosity in \"a=b\": strconv.ParseUint: parsing \"b\": invalid syntax").
Result<std::vector<VModuleEntry>> parseVModule(std::string_view text);

// resource.ParseQuantity for the buffer sizes: "512", "1K", "2Ki", "3M", "1e3"; errors as upstream.
Result<uint64_t> parseQuantity(std::string_view text);

// upstream logsapi.ValidateAndApply's checks: the format ("format: Invalid value: \"xml\": Unsupported log
// format"), json needing LoggingBetaOptions, the alpha options needing LoggingAlphaOptions, vmodule only
// with text.
VoidResult validateLogging(const LoggingOptions& options, const features::FeatureGate& gates);

// The line formatters (exposed for tests).
std::unique_ptr<spdlog::formatter> newKlogTextFormatter();
std::unique_ptr<spdlog::formatter> newJsonFormatter();

// Replaces spdlog's default logger with one in the chosen format and streams, sets the verbosity and starts
// the periodic flush. Call once, before other threads log.
void setupLogging(const LoggingOptions& options);

// The current klog verbosity, and setting it at run time (spdlog's level follows).
int verbosity();
void setVerbosity(int v);

}  // namespace ks::app
