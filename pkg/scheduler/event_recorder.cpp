#include "pkg/scheduler/event_recorder.h"

#include <algorithm>

namespace ks::scheduler {

ApiEventRecorder::ApiEventRecorder(client::EventWriter& writer, EventRecorderOptions options)
    : writer_(writer),
      options_(std::move(options)),
      tokens_(options_.burst),
      lastRefill_(std::chrono::steady_clock::now()),
      thread_([this](std::stop_token stop) { loop(stop); }) {}

ApiEventRecorder::~ApiEventRecorder() {
  thread_.request_stop();
  cond_.notify_all();
}

void ApiEventRecorder::eventf(const api::ObjectReference& regarding, const api::ObjectReference* related,
                              std::string_view type, std::string_view reason, std::string_view action,
                              std::string note) {
  Pending p;
  api::Event& e = p.event;
  e.metadata.namespace_ = regarding.namespace_.empty() ? "default" : regarding.namespace_;
  // Unique per occurrence, as client-go names events: <object>.<hex timestamp>.
  auto now = std::chrono::system_clock::now();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx",
                static_cast<unsigned long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count()));
  e.metadata.name = regarding.name + suffix;
  e.eventTime = now;
  e.reportingController = options_.reportingController;
  e.reportingInstance = options_.reportingInstance;
  e.action = std::string(action);
  e.reason = std::string(reason);
  e.type = std::string(type);
  e.regarding = regarding;
  if (related) e.related = *related;
  e.note = std::move(note);
  p.key = regarding.uid + "\x1f" + e.type + "\x1f" + e.reason + "\x1f" + e.action + "\x1f" + e.note;

  std::lock_guard lock(mu_);
  if (queue_.size() >= options_.maxQueued) {
    ++dropped_;
    return;
  }
  queue_.push_back(std::move(p));
  cond_.notify_one();
}

void ApiEventRecorder::flush() {
  std::unique_lock lock(mu_);
  drained_.wait(lock, [&] { return queue_.empty() && !writing_; });
}

uint64_t ApiEventRecorder::droppedForTest() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

bool ApiEventRecorder::takeToken(std::chrono::steady_clock::time_point now) {
  std::chrono::duration<double> elapsed = now - lastRefill_;
  lastRefill_ = now;
  tokens_ = std::min<double>(options_.burst, tokens_ + elapsed.count() * options_.qps);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

void ApiEventRecorder::write(Pending p) {
  const auto now = std::chrono::steady_clock::now();
  // Forget old series.
  for (auto it = seen_.begin(); it != seen_.end();) {
    it = now - it->second.first > options_.seriesWindow ? seen_.erase(it) : std::next(it);
  }
  if (auto it = seen_.find(p.key); it != seen_.end()) {
    Seen& s = it->second;
    s.count++;
    api::EventSeries series{s.count, p.event.eventTime};
    // Series updates are cheap and carry the aggregation; they are not rate limited by the bucket.
    (void)writer_.updateEventSeries(s.namespace_, s.name, series);
    return;
  }
  if (!takeToken(now)) {
    std::lock_guard lock(mu_);
    ++dropped_;
    return;
  }
  auto created = writer_.createEvent(p.event);
  if (created.ok()) {
    seen_[p.key] = Seen{created->metadata.namespace_, created->metadata.name, 1, now};
  }
}

void ApiEventRecorder::loop(std::stop_token stop) {
  for (;;) {
    Pending p;
    {
      std::unique_lock lock(mu_);
      writing_ = false;
      if (queue_.empty()) drained_.notify_all();
      cond_.wait(lock, stop, [&] { return !queue_.empty(); });
      if (queue_.empty()) return;  // stopped
      p = std::move(queue_.front());
      queue_.pop_front();
      writing_ = true;
    }
    write(std::move(p));
  }
}

}  // namespace ks::scheduler
