// IDX reader (plain or gzip through zlib's gz* functions, which read both) and the MNIST dataset.
// IDX: bytes 0-1 zero, byte 2 the element type (0x08 = unsigned byte), byte 3 the rank, then one
// big-endian uint32 per dimension, then the elements in row-major order.
#include "data/idx.h"
#include "locus/data/mnist.h"

#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

#include "locus/error.h"
#include "locus/factory.h"

namespace locus::data::datasets {

struct MNIST::FloatImages {
  std::once_flag once;
  Tensor images;
};

namespace detail {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("[MNIST] " + path + ": " + what);
}

std::vector<unsigned char> read_all(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) fail(path, std::string("cannot open: ") + std::strerror(errno) + ".");
  std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(f, gzclose);
  gzbuffer(f, 1 << 17);
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  for (;;) {
    int n = gzread(f, chunk, sizeof(chunk));
    if (n < 0) {
      int code = 0;
      const char* msg = gzerror(f, &code);
      fail(path, std::string("corrupt or truncated gzip data (") + msg + "). Download the file again.");
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  int code = 0;
  const char* msg = gzerror(f, &code);
  if (code != Z_OK && code != Z_STREAM_END)
    fail(path, std::string("corrupt or truncated gzip data (") + msg + "). Download the file again.");
  return bytes;
}

}  // namespace

Tensor read_idx(const std::string& path, int expected_dims) {
  std::vector<unsigned char> b = read_all(path);
  if (b.size() < 4) fail(path, "truncated: " + std::to_string(b.size()) + " bytes, shorter than the 4-byte IDX header.");
  if (b[0] != 0 || b[1] != 0)
    fail(path, "not an IDX file: the magic number must start with two zero bytes, found " +
                   std::to_string(b[0]) + " " + std::to_string(b[1]) + ".");
  if (b[2] != 0x08)
    fail(path, "unsupported IDX element type " + std::to_string(b[2]) + ": expected 8 (unsigned byte).");
  if (b[3] != expected_dims)
    fail(path, "IDX rank " + std::to_string(b[3]) + ", expected " + std::to_string(expected_dims) + ".");
  size_t header = 4 + 4 * static_cast<size_t>(expected_dims);
  if (b.size() < header)
    fail(path, "truncated: " + std::to_string(b.size()) + " bytes, shorter than its " + std::to_string(header) +
                   "-byte IDX header.");
  std::vector<int64_t> sizes;
  uint64_t count = 1;
  for (int d = 0; d < expected_dims; ++d) {
    const unsigned char* p = b.data() + 4 + 4 * d;
    uint64_t n = (uint64_t(p[0]) << 24) | (uint64_t(p[1]) << 16) | (uint64_t(p[2]) << 8) | uint64_t(p[3]);
    sizes.push_back(static_cast<int64_t>(n));
    count *= n;
    if (count > (uint64_t(1) << 40)) fail(path, "implausible IDX dimensions (more than 2^40 elements).");
  }
  uint64_t have = b.size() - header;
  if (have < count)
    fail(path, "truncated: the header promises " + std::to_string(count) + " bytes of data, the file has " +
                   std::to_string(have) + ".");
  if (have > count)
    fail(path, "corrupt: " + std::to_string(have - count) + " bytes after the " + std::to_string(count) +
                   " bytes of data the header promises.");
  if (count == 0) return empty(sizes, kByte);
  // The tensor wraps the bytes just read instead of a copy from the cpu allocator (which would
  // have doubled them while copying, and kept a block that size in its cache once MNIST drops
  // them; docs/benchmarks.md, "Peak memory"). The vector goes when the last tensor using it does.
  auto bytes = std::make_shared<std::vector<unsigned char>>(std::move(b));
  return from_blob(bytes->data() + header, sizes, [bytes](void*) {}, kByte);
}

}  // namespace detail

namespace {

std::string find_file(const std::string& root, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path plain = fs::path(root) / name, gz = fs::path(root) / (name + ".gz");
  std::error_code ec;
  if (fs::exists(plain, ec)) return plain.string();
  if (fs::exists(gz, ec)) return gz.string();
  throw Error("[MNIST] neither " + plain.string() + " nor " + gz.string() +
              " exists. Pass the directory holding the IDX files (Fashion-MNIST: install Debian's "
              "dataset-fashion-mnist, which puts them in " + std::string(kFashionMNISTRoot) + ").");
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode) : train_(mode == Mode::kTrain) {
  std::string prefix = train_ ? "train" : "t10k";
  std::string ipath = find_file(root, prefix + "-images-idx3-ubyte");
  std::string lpath = find_file(root, prefix + "-labels-idx1-ubyte");
  Tensor images = detail::read_idx(ipath, 3);
  Tensor labels = detail::read_idx(lpath, 1);
  if (images.size(0) != labels.size(0))
    throw Error("[MNIST] " + ipath + " holds " + std::to_string(images.size(0)) + " images but " + lpath +
                " holds " + std::to_string(labels.size(0)) + " labels: the two files must be of one split.");
  const uint8_t* lp = labels.data_ptr<uint8_t>();
  for (int64_t i = 0; i < labels.numel(); ++i)
    if (lp[i] > 9)
      throw Error("[MNIST] " + lpath + ": corrupt: label " + std::to_string(i) + " is " + std::to_string(lp[i]) +
                  ", expected 0..9.");
  bytes_ = images;
  targets_ = labels.to(kLong);
  images_ = std::make_shared<FloatImages>();
}

// Pixels as float32 in [0, 1], as libtorch's MNIST holds them: the same operations (convert, then
// divide by 255) on the whole set or on a gathered batch, so both give the same bits.
static Tensor to_unit_float(const Tensor& bytes) { return bytes.to(kFloat).div_(255.0).unsqueeze(1); }

const Tensor& MNIST::images() const {
  std::call_once(images_->once, [&] { images_->images = to_unit_float(bytes_).contiguous(); });
  return images_->images;
}

Example<> MNIST::get(size_t index) {
  LOCUS_CHECK(index < static_cast<size_t>(bytes_.size(0)),
              "[MNIST] index " + std::to_string(index) + " is out of range for " +
                  std::to_string(bytes_.size(0)) + " examples.");
  int64_t i = static_cast<int64_t>(index);
  return {images()[i], targets_[i]};
}

Example<> MNIST::gather(const std::vector<size_t>& indices) const {
  const auto n = static_cast<size_t>(bytes_.size(0));
  Tensor idx = locus::empty({static_cast<int64_t>(indices.size())}, kLong);
  int64_t* at = idx.data_ptr<int64_t>();
  for (size_t k = 0; k < indices.size(); ++k) {
    LOCUS_CHECK(indices[k] < n, "[MNIST] index " + std::to_string(indices[k]) + " is out of range for " +
                                    std::to_string(n) + " examples.");
    at[k] = static_cast<int64_t>(indices[k]);
  }
  // from the bytes: a quarter of the float rows' traffic (a batch's rows are scattered over 47 MB
  // instead of 188 MB, and read from memory)
  return {to_unit_float(bytes_.index_select(0, idx)), targets_.index_select(0, idx)};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(bytes_.size(0)); }

}  // namespace locus::data::datasets
