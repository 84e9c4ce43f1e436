// The IDX reader and MNIST: real Fashion-MNIST when installed, and files the test writes itself
// (plain, gzip, corrupt, truncated) so that every error path is exercised.
#include "locus/data/mnist.h"

#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "locus/data.h"
#include "locus/memory.h"
#include "testing.h"

namespace fs = std::filesystem;

namespace mnist_test {

using locus::data::datasets::MNIST;

namespace {

std::vector<unsigned char> idx_bytes(std::vector<uint32_t> dims, const std::vector<unsigned char>& data,
                                     unsigned char type = 0x08) {
  std::vector<unsigned char> b = {0, 0, type, static_cast<unsigned char>(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(d >> s));
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

void write_plain(const fs::path& p, const std::vector<unsigned char>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

void write_gz(const fs::path& p, const std::vector<unsigned char>& b) {
  gzFile f = gzopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, b.data(), static_cast<unsigned>(b.size()));
  gzclose(f);
}

}  // namespace

// outside the anonymous namespace: the TEST_F classes derive from it (-Wsubobject-linkage)
class MnistFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("locus_mnist_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    // 3 images of 2x2 and their labels
    images = idx_bytes({3, 2, 2}, {0, 255, 51, 102, 1, 2, 3, 4, 255, 255, 0, 0});
    labels = idx_bytes({3}, {7, 0, 9});
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
  std::vector<unsigned char> images, labels;
};

TEST_F(MnistFiles, ReadsPlainFiles) {
  write_plain(dir / "train-images-idx3-ubyte", images);
  write_plain(dir / "train-labels-idx1-ubyte", labels);
  MNIST m(dir.string(), MNIST::Mode::kTrain);
  ASSERT_EQ(m.size().value(), 3u);
  EXPECT_TRUE(m.is_train());
  EXPECT_EQ(m.images().sizes(), locus::IntArrayRef({3, 1, 2, 2}));
  EXPECT_EQ(m.images().scalar_type(), locus::kFloat);
  EXPECT_EQ(m.targets().scalar_type(), locus::kLong);
  auto e = m.get(0);
  EXPECT_EQ(e.data.sizes(), locus::IntArrayRef({1, 2, 2}));
  std::vector<double> v = values(e.data);
  EXPECT_FLOAT_EQ(v[0], 0.0);
  EXPECT_FLOAT_EQ(v[1], 1.0);
  EXPECT_FLOAT_EQ(v[2], 0.2);
  EXPECT_FLOAT_EQ(v[3], 0.4);
  EXPECT_EQ(values(m.targets()), (std::vector<double>{7, 0, 9}));
  EXPECT_THROW_MSG(m.get(3), locus::Error, "[MNIST] index 3 is out of range for 3 examples.");
}

TEST_F(MnistFiles, ReadsGzipFilesOfTheTestSplit) {
  write_gz(dir / "t10k-images-idx3-ubyte.gz", images);
  write_gz(dir / "t10k-labels-idx1-ubyte.gz", labels);
  MNIST m(dir.string(), MNIST::Mode::kTest);
  EXPECT_FALSE(m.is_train());
  EXPECT_EQ(m.size().value(), 3u);
  EXPECT_EQ(values(m.get(2).target), std::vector<double>{9});
  EXPECT_FLOAT_EQ(values(m.get(2).data)[0], 1.0);
}

TEST_F(MnistFiles, MissingFileNamesBothCandidates) {
  EXPECT_THROW_MSG(MNIST(dir.string()), locus::Error,
                   "[MNIST] neither " + (dir / "train-images-idx3-ubyte").string() + " nor " +
                       (dir / "train-images-idx3-ubyte.gz").string() + " exists.");
}

TEST_F(MnistFiles, CorruptOrTruncatedFilesNameTheFileAndTheProblem) {
  fs::path ip = dir / "train-images-idx3-ubyte", lp = dir / "train-labels-idx1-ubyte";
  write_plain(lp, labels);
  struct Case {
    std::vector<unsigned char> bytes;
    std::string message;
  };
  std::vector<unsigned char> truncated(images.begin(), images.end() - 5);
  std::vector<unsigned char> trailing = images;
  trailing.push_back(1);
  std::vector<Case> cases = {
      {{0, 0}, "truncated: 2 bytes, shorter than the 4-byte IDX header."},
      {{0, 0, 8, 3, 0, 0}, "truncated: 6 bytes, shorter than its 16-byte IDX header."},
      {idx_bytes({3, 2, 2}, {}, 0x08), "truncated: the header promises 12 bytes of data, the file has 0."},
      {truncated, "truncated: the header promises 12 bytes of data, the file has 7."},
      {trailing, "corrupt: 1 bytes after the 12 bytes of data the header promises."},
      {{1, 2, 8, 3}, "not an IDX file: the magic number must start with two zero bytes, found 1 2."},
      {idx_bytes({3, 2, 2}, std::vector<unsigned char>(12), 0x0D), "unsupported IDX element type 13"},
      {idx_bytes({3, 4}, std::vector<unsigned char>(12)), "IDX rank 2, expected 3."},
  };
  for (const Case& c : cases) {
    write_plain(ip, c.bytes);
    EXPECT_THROW_MSG(MNIST(dir.string()), locus::Error, "[MNIST] " + ip.string() + ": " + c.message);
  }
  // The same through gzip, and a gzip stream cut short.
  fs::remove(ip);
  fs::path gz = dir / "train-images-idx3-ubyte.gz";
  write_gz(gz, truncated);
  EXPECT_THROW_MSG(MNIST(dir.string()), locus::Error, "[MNIST] " + gz.string() + ": truncated: the header promises");
  write_gz(gz, images);
  std::vector<unsigned char> whole;
  {
    std::ifstream f(gz, std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(f), {});
  }
  write_plain(gz, std::vector<unsigned char>(whole.begin(), whole.end() - 10));
  EXPECT_THROW_MSG(MNIST(dir.string()), locus::Error, "[MNIST] " + gz.string() + ": corrupt or truncated gzip data");
}

TEST_F(MnistFiles, MismatchedCountsAndBadLabels) {
  write_plain(dir / "train-images-idx3-ubyte", images);
  write_plain(dir / "train-labels-idx1-ubyte", idx_bytes({2}, {1, 2}));
  EXPECT_THROW_MSG(MNIST(dir.string()), locus::Error, "holds 3 images but ");
  write_plain(dir / "train-labels-idx1-ubyte", idx_bytes({3}, {1, 12, 2}));
  EXPECT_THROW_MSG(MNIST(dir.string()), locus::Error, "corrupt: label 1 is 12, expected 0..9.");
}

TEST(FashionMnist, FoundAtTheDebianPathByDefault) {
  // make test installs the dataset (scripts/install-deps): its absence is a broken set-up, not a skip
  ASSERT_TRUE(fs::exists(locus::data::datasets::kFashionMNISTRoot))
      << "dataset-fashion-mnist is not installed at " << locus::data::datasets::kFashionMNISTRoot
      << "; scripts/install-deps installs it (make test runs it)";
  MNIST test(MNIST::Mode::kTest);
  ASSERT_EQ(test.size().value(), 10000u);
  EXPECT_EQ(test.images().sizes(), locus::IntArrayRef({10000, 1, 28, 28}));
  EXPECT_EQ(values(test.targets().narrow(0, 0, 5)), (std::vector<double>{9, 2, 1, 1, 6}));
  EXPECT_GE(test.images().min().item<float>(), 0.0f);
  EXPECT_LE(test.images().max().item<float>(), 1.0f);
  // Every class holds 1,000 test images.
  for (int c = 0; c < 10; ++c) EXPECT_EQ(test.targets().eq(c).sum().item<int64_t>(), 1000);
}

// Reading a split leaves nothing in the cpu allocator's cache: the file's bytes are not copied into
// an allocator block that would stay cached, unused, once converted to float (mnist.cpp, read_idx).
TEST(FashionMnist, LoadingLeavesNoCachedBlocks) {
  const locus::Device cpu("cpu");
  auto cached = [&] { return locus::memory_reserved(cpu) - locus::memory_allocated(cpu); };
  const int64_t before = cached();
  MNIST train(MNIST::Mode::kTrain);
  EXPECT_EQ(train.images().sizes(), locus::IntArrayRef({60000, 1, 28, 28}));
  EXPECT_EQ(values(train.targets().narrow(0, 0, 3)), (std::vector<double>{9, 0, 0}));
  EXPECT_EQ(cached(), before);
}

// MNIST keeps the file's bytes; the float images [N, 1, 28, 28] (188 MB for the train split) are
// made on the first call to images() or get(), once, shared by copies (map() copies the dataset),
// and never for batches, which gather from the bytes.
TEST(FashionMnist, FloatImagesAreMadeOnceAndOnlyWhenAsked) {
  const locus::Device cpu("cpu");
  const int64_t before = locus::memory_allocated(cpu);
  MNIST train(MNIST::Mode::kTrain);
  const int64_t floats = int64_t{60000} * 28 * 28 * 4;
  EXPECT_LT(locus::memory_allocated(cpu) - before, floats / 100);  // the labels as int64 only
  auto pipeline = train.map(locus::data::transforms::Normalize<>(0.0, 1.0)).map(locus::data::transforms::Stack<>());
  locus::Tensor batch = pipeline.get_batch({5, 59999}).data;
  EXPECT_LT(locus::memory_allocated(cpu) - before, floats / 100);
  MNIST copy = train;
  std::vector<std::thread> threads;
  std::vector<const void*> seen(4);
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { seen[t] = copy.images().data_ptr(); });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(seen[t], seen[0]) << "thread " << t;
  EXPECT_EQ(train.images().data_ptr(), seen[0]);  // the copy made them for both
  EXPECT_GE(locus::memory_allocated(cpu) - before, floats);
  EXPECT_LT(locus::memory_allocated(cpu) - before, floats + floats / 100);
  EXPECT_TRUE(batch.equal(locus::stack({train.images()[5], train.images()[59999]})));
}

TEST(FashionMnist, BatchedPipelineEqualsThePerExampleOne) {
  // mnist.map(Normalize).map(Stack) gathers and normalises a batch at once (mnist.h): the same
  // tensors as get() per example, Normalize per example, then Stack
  using namespace locus::data;
  MNIST train(MNIST::Mode::kTrain);
  auto pipeline = train.map(transforms::Normalize<>(0.2860, 0.3530)).map(transforms::Stack<>());
  std::vector<size_t> idx = {59999, 0, 17, 17, 31337};
  Example<> got = pipeline.get_batch(idx);
  std::vector<Example<>> each;
  transforms::Normalize<> norm(0.2860, 0.3530);
  for (size_t i : idx) {
    Example<> e = train.get(i);
    each.push_back({norm(e.data), e.target});
  }
  Example<> want = transforms::Stack<>().apply_batch(each);
  EXPECT_EQ(got.data.sizes(), locus::IntArrayRef({5, 1, 28, 28}));
  EXPECT_EQ(got.data.scalar_type(), locus::kFloat);
  EXPECT_TRUE(got.data.equal(want.data));
  EXPECT_EQ(got.target.scalar_type(), locus::kLong);
  EXPECT_EQ(values(got.target), values(want.target));
  EXPECT_THROW_MSG(pipeline.get_batch({1, 60000}), locus::Error, "[MNIST] index 60000 is out of range for 60000 examples.");
  // Normalize(0, 1) (locus-train --no-normalize) is skipped in the batch: the same pixels, a fresh
  // tensor (writing to it leaves the dataset as it was)
  auto plain = train.map(transforms::Normalize<>(0.0, 1.0)).map(transforms::Stack<>());
  Example<> raw = plain.get_batch(idx);
  EXPECT_TRUE(raw.data.equal(locus::stack({train.get(59999).data, train.get(0).data, train.get(17).data,
                                            train.get(17).data, train.get(31337).data})));
  const double first = train.get(59999).data.flatten()[400].item<double>();
  raw.data.fill_(7.0);
  EXPECT_EQ(train.get(59999).data.flatten()[400].item<double>(), first);
  // and through the loader, shuffled by seed, as locus-train runs it
  auto loader = make_data_loader(std::move(pipeline), DataLoaderOptions().batch_size(64).seed(3));
  int64_t n = 0;
  for (auto& b : *loader) {
    EXPECT_EQ(b.data.size(0), b.target.size(0));
    n += b.data.size(0);
  }
  EXPECT_EQ(n, 60000);
}

TEST(Transforms, NormalizeStackAndLambda) {
  using namespace locus::data;
  transforms::Normalize<> norm(0.5, 0.25);
  locus::Tensor x = locus::tensor({0.0, 0.5, 1.0}, locus::kFloat).reshape({1, 1, 3});
  EXPECT_EQ(values(norm(x)), (std::vector<double>{-2, 0, 2}));
  transforms::Normalize<> per_channel({0.0, 1.0}, {1.0, 2.0});
  locus::Tensor y = locus::ones({2, 1, 2});
  EXPECT_EQ(values(per_channel(y)), (std::vector<double>{1, 1, 0, 0}));
  // the identity: every mean 0 (not -0.0, which would turn -0.0 into +0.0) and every stddev 1
  EXPECT_TRUE(transforms::Normalize<>(0.0, 1.0).is_identity());
  EXPECT_TRUE(transforms::Normalize<>({0.0, 0.0}, {1.0, 1.0}).is_identity());
  EXPECT_FALSE(transforms::Normalize<>(-0.0, 1.0).is_identity());
  EXPECT_FALSE(transforms::Normalize<>(0.0, 2.0).is_identity());
  EXPECT_FALSE(per_channel.is_identity());
  EXPECT_FALSE(norm.is_identity());
  locus::Tensor z = locus::tensor({-0.0, 0.0, -1.5}, locus::kFloat);
  locus::Tensor zn = transforms::Normalize<>(0.0, 1.0)(z).flatten();  // what the skip stands for, sign of zero too
  EXPECT_TRUE(std::signbit(zn[0].item<float>()));
  EXPECT_FALSE(std::signbit(zn[1].item<float>()));
  EXPECT_EQ(values(zn), values(z));
  EXPECT_THROW_MSG(transforms::Normalize<>({0.1, 0.2}, {1.0}), locus::Error,
                   "[Normalize] mean and stddev must be non-empty and of one length: got 2 and 1.");
  EXPECT_THROW_MSG(transforms::Normalize<>(0.1, 0.0), locus::Error, "[Normalize] stddev must be positive");

  std::vector<Example<>> batch = {{locus::zeros({2}), locus::tensor(int64_t{3})},
                                  {locus::ones({2}), locus::tensor(int64_t{4})}};
  transforms::Lambda<Example<>> plus_one([](Example<> e) { return Example<>(e.data + 1, e.target); });
  batch = plus_one.apply_batch(batch);
  Example<> stacked = transforms::Stack<>().apply_batch(batch);
  EXPECT_EQ(stacked.data.sizes(), locus::IntArrayRef({2, 2}));
  EXPECT_EQ(values(stacked.data), (std::vector<double>{1, 1, 2, 2}));
  EXPECT_EQ(values(stacked.target), (std::vector<double>{3, 4}));
  transforms::TensorLambda<> twice([](locus::Tensor t) { return t * 2; });
  EXPECT_EQ(values(twice.apply(batch[1]).data), (std::vector<double>{4, 4}));
}

}  // namespace mnist_test
