// libtorch's tensor archives: torch::save/load of tensors and lists, OutputArchive/InputArchive.
#include "test_paths.h"
#include <unistd.h>

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
