#include "pkg/scheduler/event_recorder.h"

#include <algorithm>

namespace ks::scheduler {

ApiEventRecorder::ApiEventRecorder(client::EventWriter& writer, EventRecorderOptions options)
    : writer_(writer), options_(std::move(options)) {
  threads_.reserve(static_cast<size_t>(std::max(1, options_.writers)));
  for (int i = 0; i < std::max(1, options_.writers); ++i) {
    threads_.emplace_back([this](std::stop_token stop) { loop(stop); });
  }
}

ApiEventRecorder::~ApiEventRecorder() {
  for (auto& t : threads_) t.request_stop();
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
  drained_.wait(lock, [&] { return queue_.empty() && writing_ == 0; });
}

uint64_t ApiEventRecorder::droppedForTest() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void ApiEventRecorder::forgetOldSeries(std::chrono::steady_clock::time_point now) {
  while (!seenOrder_.empty() && now - seenOrder_.front().first > options_.seriesWindow) {
    auto [first, key] = std::move(seenOrder_.front());
    seenOrder_.pop_front();
    auto it = seen_.find(key);
    // A key seen again after it was forgotten started a new series, with an entry of its own here.
    if (it == seen_.end() || it->second.first != first) continue;
    if (it->second.busy) {
      seenOrder_.emplace_back(now, std::move(key));  // its writer still uses it; forget it later
      it->second.first = now;
      continue;
    }
    seen_.erase(it);
  }
}

void ApiEventRecorder::write(Pending p) {
  const auto now = std::chrono::steady_clock::now();
  std::unique_lock lock(seenMu_);
  forgetOldSeries(now);
  auto [it, isNew] = seen_.try_emplace(p.key);
  Seen& s = it->second;  // stays valid: entries are erased only when not busy
  if (isNew) {
    s.namespace_ = p.event.metadata.namespace_;
    s.name = p.event.metadata.name;
    s.first = now;
    s.busy = true;
    seenOrder_.emplace_back(now, p.key);
    lock.unlock();
    // On failure the key stays, as client-go's cache keeps it: repeats update a series that may not
    // exist, and fail the same way.
    (void)writer_.createEvent(p.event);
    lock.lock();
    s.written = 1;
  } else {
    s.count++;
    s.lastObserved = p.event.eventTime;
    if (s.busy) return;  // its writer sends the new count
    s.busy = true;
  }
  while (s.written != s.count) {
    const int32_t count = s.count;
    const api::EventSeries series{count, s.lastObserved};
    const std::string ns = s.namespace_, name = s.name;
    lock.unlock();
    (void)writer_.updateEventSeries(ns, name, series);
    lock.lock();
    s.written = count;
  }
  s.busy = false;
}

void ApiEventRecorder::loop(std::stop_token stop) {
  for (;;) {
    Pending p;
    {
      std::unique_lock lock(mu_);
      cond_.wait(lock, stop, [&] { return !queue_.empty(); });
      if (queue_.empty()) return;  // stopped
      p = std::move(queue_.front());
      queue_.pop_front();
      ++writing_;
    }
    write(std::move(p));
    std::lock_guard lock(mu_);
    if (--writing_ == 0 && queue_.empty()) drained_.notify_all();
  }
}

}  // namespace ks::scheduler
