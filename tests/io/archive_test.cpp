// libtorch's tensor archives: torch::save/load of tensors and lists, OutputArchive/InputArchive.
#include "test_paths.h"
#include <unistd.h>

#include <sstream>

#include <sys/stat.h>

#include "testing.h"

using namespace locus;

namespace archive_test {

namespace {

std::string tmp_path(const std::string& name) {
  std::string dir = std::string(LOCUS_BINARY_DIR) + "/io-test-tmp";
  ::mkdir(dir.c_str(), 0755);
  return dir + "/" + std::to_string(::getpid()) + "-archive-" + name;
}

class Archive : public ::testing::TestWithParam<Device> {};

TEST_P(Archive, TensorRoundTripsAndLoadsWhereSaved) {
  Device d = GetParam();
  Tensor t = arange(0, 6, TensorOptions().dtype(kFloat).device(d)).reshape({2, 3});
  std::string path = tmp_path("t-" + device_test_name({GetParam(), 0}) + ".pt");
  save(t, path);
  Tensor u;  // undefined: assigned the loaded tensor, on the saved device
  load(u, path);
  EXPECT_EQ(u.device(), d);
  EXPECT_EQ(u.sizes(), t.sizes());
  EXPECT_EQ(values(u), values(t));
  // into a defined tensor on cpu: it takes the loaded data, device included (libtorch's set_data)
  Tensor v = zeros({5}, kDouble).requires_grad_();
  Tensor alias = v;
  load(v, path);
  EXPECT_EQ(alias.device(), d);
  EXPECT_EQ(alias.scalar_type(), kFloat);
  EXPECT_EQ(values(alias), values(t));
  EXPECT_TRUE(alias.requires_grad());
  // an explicit device maps it
  Tensor w;
  load(w, path, Device(kCPU));
  EXPECT_TRUE(w.is_cpu());
  EXPECT_EQ(values(w), values(t));
  ::unlink(path.c_str());
}

TEST_P(Archive, VectorAndArchiveRoundTrip) {
  Device d = GetParam();
  auto o = TensorOptions().device(d);
  std::vector<Tensor> vs{ones({2}, o), full({3}, 2.5, o), arange(0, 4, o.dtype(kLong))};
  std::string path = tmp_path("v-" + device_test_name({GetParam(), 0}) + ".safetensors");
  save(vs, path);
  std::vector<Tensor> back;
  load(back, path);
  ASSERT_EQ(back.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back[i].device(), d);
    EXPECT_EQ(back[i].scalar_type(), vs[i].scalar_type());
    EXPECT_EQ(values(back[i]), values(vs[i]));
  }

  serialize::OutputArchive inner;
  inner.write("bias", full({2}, 7.0, o));
  serialize::OutputArchive ar;
  ar.write("weight", ones({2, 2}, o));
  ar.write("running_mean", zeros({2}, o), /*is_buffer=*/true);
  ar.write("fc", inner);
  std::string apath = tmp_path("a-" + device_test_name({GetParam(), 0}) + ".pt");
  ar.save_to(apath);
  serialize::InputArchive in;
  in.load_from(apath);
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"weight", "running_mean", "fc.bias"}));
  Tensor w, rm, missing;
  in.read("weight", w);
  in.read("running_mean", rm, /*is_buffer=*/true);
  EXPECT_EQ(values(w), std::vector<double>(4, 1.0));
  EXPECT_EQ(w.device(), d);
  EXPECT_FALSE(in.try_read("nope", missing));
  EXPECT_FALSE(missing.defined());
  serialize::InputArchive fc;
  in.read("fc", fc);
  Tensor b;
  fc.read("bias", b);
  EXPECT_EQ(values(b), (std::vector<double>{7.0, 7.0}));
  ::unlink(path.c_str());
  ::unlink(apath.c_str());
}

LOCUS_INSTANTIATE_DEVICES(Archive);

// libtorch's stream forms: torch::save(value, ostream) / torch::load(value, istream) for tensors,
// lists, modules and optimizers, OutputArchive::save_to(ostream), InputArchive::load_from(istream)
// and load_from(data, size); the bytes are PyTorch's zip format, as save(value, "x.pt") writes.
TEST_P(Archive, StreamsRoundTrip) {
  Device d = GetParam();
  Tensor t = arange(0, 6, TensorOptions().dtype(kFloat).device(d)).reshape({2, 3});
  std::stringstream ss;
  save(t, ss);
  EXPECT_EQ(ss.str().substr(0, 2), "PK");  // a zip file
  Tensor u;
  load(u, ss);
  EXPECT_EQ(u.device(), d);
  EXPECT_EQ(values(u), values(t));
  std::stringstream two;  // a list, loaded onto cpu
  save(std::vector<Tensor>{t, t * 2}, two);
  std::vector<Tensor> back;
  load(back, two, Device(kCPU));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_TRUE(back[1].is_cpu());
  EXPECT_EQ(values(back[1]), values(t * 2));

  nn::Linear a(3, 2), b(3, 2);
  a->to(d), b->to(d);
  std::stringstream ms;
  save(a, ms);
  load(b, ms);
  EXPECT_TRUE(equal(a->weight, b->weight));
  optim::Adam opt(a->parameters());
  a(ones({1, 3}, TensorOptions().device(d))).sum().backward();
  opt.step();
  std::stringstream os;
  save(opt, os);
  optim::Adam opt2(b->parameters());
  load(opt2, os);
  EXPECT_EQ(opt2.state().size(), 2u);

  serialize::OutputArchive ar;
  ar.write("w", t);
  std::ostringstream out;
  ar.save_to(out);
  const std::string bytes = out.str();
  serialize::InputArchive in;
  in.load_from(bytes.data(), bytes.size());
  Tensor w;
  in.read("w", w);
  EXPECT_EQ(values(w), values(t));
  std::istringstream is(bytes);
  serialize::InputArchive in2;
  in2.load_from(is, Device(kCPU));
  EXPECT_EQ(in2.keys(), std::vector<std::string>{"w"});
  EXPECT_THROW_MSG(in2.read("x", w), CheckpointError, "[InputArchive::read] no tensor 'x' in '<stream>'; it holds: w.");
}

TEST(ArchiveErrors, Streams) {
  Tensor t;
  std::stringstream empty;
  EXPECT_THROW_MSG(load(t, empty), CheckpointError, "[load] the stream is empty (nothing left to read)");
  std::stringstream junk("not a checkpoint at all");
  EXPECT_THROW_MSG(load(t, junk), CheckpointError, "not a checkpoint locus recognises");
  serialize::InputArchive in;
  EXPECT_THROW_MSG(in.load_from(nullptr, 4), CheckpointError, "[InputArchive::load_from] data is null with size 4.");
}

TEST(ArchiveErrors, MissingFileAndKey) {
  Tensor t;
  EXPECT_THROW_MSG(load(t, "/nonexistent/t.pt"), CheckpointError,
                   "[checkpoint] cannot open '/nonexistent/t.pt': No such file or directory.");
  std::string path = tmp_path("keys.pt");
  serialize::OutputArchive ar;
  ar.write("a", ones({1}));
  ar.write("b", ones({1}));
  ar.save_to(path);
  serialize::InputArchive in;
  in.load_from(path);
  EXPECT_THROW_MSG(in.read("c", t), CheckpointError,
                   "[InputArchive::read] no tensor 'c' in '" + path + "'; it holds: a, b.");
  serialize::InputArchive nested;
  EXPECT_THROW_MSG(in.read("sub", nested), CheckpointError,
                   "[InputArchive::read] no archive 'sub' (no key starts with 'sub.') in '" + path + "'; it holds: a, b.");
  EXPECT_THROW_MSG(ar.write("u", Tensor()), Error,
                   "[OutputArchive::write] the tensor for key 'u' is undefined; write defined tensors only.");
  ::unlink(path.c_str());
}

}  // namespace

}  // namespace archive_test
