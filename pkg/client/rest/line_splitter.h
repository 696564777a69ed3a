#pragma once
// Splits a byte stream that arrives in arbitrary chunks into '\n'-terminated lines (the framing of
// the API server's JSON watch stream). Holds at most one partial line.

#include <cstddef>
#include <string>
#include <string_view>

namespace ks::client::rest {

class LineSplitter {
 public:
  // Appends `data`; calls onLine(std::string&&) for each completed line, without the '\n' (and a
  // trailing '\r'); empty lines are skipped.
  template <typename F>
  void feed(std::string_view data, F&& onLine) {
    while (!data.empty()) {
      const size_t nl = data.find('\n');
      if (nl == std::string_view::npos) {
        partial_.append(data);
        return;
      }
      partial_.append(data.substr(0, nl));
      data.remove_prefix(nl + 1);
      emit(onLine);
    }
  }

  // End of stream: the unterminated rest, if any, becomes the last line.
  template <typename F>
  void finish(F&& onLine) {
    emit(onLine);
  }

  size_t partialSize() const { return partial_.size(); }

 private:
  template <typename F>
  void emit(F& onLine) {
    if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
    if (partial_.empty()) return;
    std::string line;
    line.swap(partial_);
    onLine(std::move(line));
  }

  std::string partial_;
};

}  // namespace ks::client::rest
