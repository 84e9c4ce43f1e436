#pragma once
// DevicePrefetcher (a locus extension): wraps a loader whose batches are Example<> and yields
// the same batches on `device`, copied ahead of time:
//   for (auto& batch : data::DevicePrefetcher(*loader, device)) { model->forward(batch.data) ... }
// Up to `depth` batches are in flight. Each is copied with non_blocking on a side stream (truly
// asynchronous when the loader pins its batches), and the compute stream (the device's current
// stream) waits on that copy's event, without blocking the host, when the batch is handed out.
// On cpu the batches pass through unchanged.
#include <cstddef>
#include <deque>
#include <optional>
#include <utility>

#include "locus/data/example.h"
#include "locus/device.h"
#include "locus/stream.h"

namespace locus::data {
namespace detail {

/// The copy engine behind DevicePrefetcher.
class DeviceCopier {
 public:
  explicit DeviceCopier(Device device);
  struct InFlight {
    Example<> batch;  // on the device (its contents valid once `ready` has completed)
    Event ready;      // recorded on the side stream after the copies
  };
  /// Starts copying `host` to the device on the side stream.
  InFlight enqueue(const Example<>& host);
  /// Makes the device's current stream wait for `b`'s copies.
  void hand_over(const InFlight& b) const;
  Device device() const noexcept { return device_; }

 private:
  Device device_;
  std::optional<Stream> side_;
};

}  // namespace detail

template <typename Loader>
class DevicePrefetcher {
  using LoaderIterator = decltype(std::declval<Loader&>().begin());

 public:
  DevicePrefetcher(Loader& loader, Device device, size_t depth = 2)
      : loader_(&loader), copier_(device), depth_(depth < 1 ? 1 : depth) {}
  DevicePrefetcher(const DevicePrefetcher&) = delete;
  DevicePrefetcher& operator=(const DevicePrefetcher&) = delete;
  /// Waits for copies still in flight (their destinations are about to be freed).
  ~DevicePrefetcher() { drain(); }

  class Iterator {
   public:
    Iterator() = default;
    explicit Iterator(DevicePrefetcher* p) : p_(p) {
      if (!p_->start()) p_ = nullptr;
    }
    Example<>& operator*() { return p_->queue_.front().batch; }
    Example<>* operator->() { return &p_->queue_.front().batch; }
    Iterator& operator++() {
      if (!p_->advance()) p_ = nullptr;
      return *this;
    }
    bool operator==(const Iterator& o) const { return p_ == o.p_; }
    bool operator!=(const Iterator& o) const { return p_ != o.p_; }

   private:
    DevicePrefetcher* p_ = nullptr;
  };

  /// Starts an epoch of the wrapped loader.
  Iterator begin() { return Iterator(this); }
  Iterator end() { return Iterator(); }
  Device device() const noexcept { return copier_.device(); }

 private:
  void drain() {
    for (auto& f : queue_) f.ready.synchronize();
    queue_.clear();
  }
  bool start() {
    drain();
    it_.emplace(loader_->begin());
    fill();
    if (queue_.empty()) return false;
    copier_.hand_over(queue_.front());
    return true;
  }
  bool advance() {
    queue_.pop_front();
    fill();
    if (queue_.empty()) return false;
    copier_.hand_over(queue_.front());
    return true;
  }
  void fill() {
    while (queue_.size() < depth_ && *it_ != loader_->end()) {
      queue_.push_back(copier_.enqueue(**it_));
      ++*it_;
    }
  }

  Loader* loader_;
  detail::DeviceCopier copier_;
  size_t depth_;
  std::optional<LoaderIterator> it_;
  std::deque<detail::DeviceCopier::InFlight> queue_;
};

}  // namespace locus::data
