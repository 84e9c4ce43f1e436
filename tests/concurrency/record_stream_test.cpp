// Tensor::record_stream (PyTorch's Tensor.record_stream) and the caching allocator's cross-stream
// reuse while a copy is in flight: a block read by a copy on a side stream is not handed out again
// before that stream's work is done, the stream is kept alive until then, and 8 threads doing the
// same at once leave the statistics where they were.
#include <optional>
#include <stdexcept>

#include "concurrency/stress.h"
#include "testing.h"

using namespace locus;

namespace record_stream_test {

namespace {

class RecordStream : public testing::TestWithParam<Device> {};

constexpr int64_t kFloats = int64_t{1} << 20;  // 4 MiB: a large-pool block in a segment of its own

// Queues work on the current stream so that what follows on it is still pending for a while.
void keep_busy(Device d) {
  Tensor a = ones({256, 256}, TensorOptions().device(d));
  for (int i = 0; i < 6; ++i) a = a.matmul(a) / 256;
}

TEST_P(RecordStream, BlockReadOnAnotherStreamIsNotReusedBeforeThatStreamIsDone) {
  const Device d = GetParam();
  const auto opt = TensorOptions().device(d).dtype(kFloat);
  const stress::Snapshot before = stress::settled(d);
  {
    Stream side = Stream::create(d);
    Tensor x = arange(kFloats, opt);  // on the default stream
    synchronize(d);
    void* px = x.data_ptr();
    Tensor z;
    {
      StreamGuard g(side);
      keep_busy(d);
      z = x.clone();  // a copy reading x, queued on the side stream behind the busy work
    }
    Event done;
    done.record(side);
    x.record_stream(side);
    x = Tensor();  // freed while the side stream may still read it

    Tensor w = empty({kFloats}, opt);  // same size, default stream
    const bool reused = w.data_ptr() == px;
    if (reused) EXPECT_TRUE(done.query()) << "x's block was handed out before the side stream finished reading it";
    w.fill_(-1);  // would overwrite x's values under the copy if the block were reused early
    {
      StreamGuard g(side);
      EXPECT_TRUE(z.equal(arange(kFloats, opt))) << "the copy on the side stream saw x's values";
    }
    side.synchronize();
    if (!d.is_cpu()) {  // once the side stream is done, the block is the allocator's to hand out again
      if (reused) w = Tensor();
      Tensor v = empty({kFloats}, opt);
      EXPECT_EQ(v.data_ptr(), px);
    }
  }
  stress::expect_same(before, stress::settled(d));
}

TEST_P(RecordStream, TheRecordedStreamOutlivesItsLastHandle) {
  const Device d = GetParam();
  const stress::Snapshot before = stress::settled(d);
  {
    Tensor x = ones({kFloats}, TensorOptions().device(d));
    {
      Stream side = Stream::create(d);
      StreamGuard g(side);
      Tensor y = x * 3;  // x read on the side stream
      x.record_stream(side);
      x.record_stream(side);  // twice: recorded once
      x.record_stream(Stream::default_stream(d));  // x's own stream: nothing to do
    }                // the last Stream handle of `side` is gone here ...
    x = Tensor();    // ... and the free still records its event on it (ASan: no use after free)
  }
  stress::expect_same(before, stress::settled(d));
}

TEST_P(RecordStream, EightThreadsCopyingAcrossStreams) {
  const Device d = GetParam();
  const auto opt = TensorOptions().device(d).dtype(kFloat);
  const stress::Snapshot before = stress::settled(d);
  {
    std::vector<Stream> streams;
    for (int t = 0; t < 8; ++t) streams.push_back(Stream::create(d));
    stress::run_threads(8, [&](int t, int64_t r) {
      const int64_t n = (int64_t{1} << 16) + 128 * ((t + r) % 5);
      Tensor src = full({n}, static_cast<double>(t + 1), opt);  // default stream
      Tensor dst;
      {
        Event filled;  // the thread's stream waits for src's fill on the default stream
        filled.record(Stream::default_stream(d));
        filled.block(streams[t]);
        StreamGuard g(streams[t]);
        dst = src * 1;  // read on the thread's stream
        src.record_stream(streams[t]);
      }
      src = Tensor();
      Tensor junk = full({n}, -7.0, opt);  // default stream: may reuse src's block only when safe
      StreamGuard g(streams[t]);
      if (dst.sum().item<double>() != static_cast<double>(t + 1) * static_cast<double>(n))
        throw std::runtime_error("a copy read a block that was handed out again too early");
    });
  }
  stress::expect_same(before, stress::settled(d));
}

TEST_P(RecordStream, Errors) {
  const Device d = GetParam();
  EXPECT_THROW_MSG(Tensor().record_stream(Stream::default_stream(d)), Error,
                   "[record_stream] the tensor is undefined. Call it on a tensor that holds memory.");
  std::vector<Device> devices = all_devices();
  for (const Device& other : devices) {
    if (other == d) continue;
    Tensor x = ones({4}, TensorOptions().device(d));
    EXPECT_THROW_MSG(x.record_stream(Stream::default_stream(other)), DeviceMismatchError,
                     "[record_stream] the stream is on " + other.str() + " but the tensor is on " + d.str() +
                         ". Record a stream of the tensor's own device.");
  }
}

LOCUS_INSTANTIATE_DEVICES(RecordStream);

}  // namespace

}  // namespace record_stream_test
