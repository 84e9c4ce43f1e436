// DeviceCopier: destinations are allocated on the compute stream (so the caching allocator
// orders their reuse by that stream), the side stream first waits for the compute work queued so
// far (a recycled block may still be read by it), then copies; the compute stream waits on the
// copy's event when the batch is handed out.
#include "locus/data/prefetcher.h"

#include "locus/factory.h"

namespace locus::data::detail {

DeviceCopier::DeviceCopier(Device device) : device_(device) {
  if (!device_.is_cpu()) side_ = Stream::create(device_);
}

DeviceCopier::InFlight DeviceCopier::enqueue(const Example<>& host) {
  InFlight f;
  if (!side_) {
    f.batch = Example<>(host.data.to(device_), host.target.to(device_));
    return f;
  }
  Stream compute = Stream::current(device_);
  Tensor data = empty(host.data.sizes(), TensorOptions(device_).dtype(host.data.scalar_type()));
  Tensor target = empty(host.target.sizes(), TensorOptions(device_).dtype(host.target.scalar_type()));
  Event ordered;
  ordered.record(compute);
  ordered.block(*side_);
  {
    StreamGuard guard(*side_);
    data.copy_(host.data, /*non_blocking=*/true);
    target.copy_(host.target, /*non_blocking=*/true);
    f.ready.record(*side_);
  }
  f.batch = Example<>(std::move(data), std::move(target));
  return f;
}

void DeviceCopier::hand_over(const InFlight& b) const {
  if (side_) b.ready.block(Stream::current(device_));
}

}  // namespace locus::data::detail
