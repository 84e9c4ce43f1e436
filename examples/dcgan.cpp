// The DCGAN of libtorch's own tutorial ("Using the PyTorch C++ Frontend"), as a libtorch user
// brings it: written against torch::, built through the one-line migration header. A generator of
// transposed convolutions and a discriminator of convolutions train against each other on
// (Fashion-)MNIST; the models and both optimizers are checkpointed with torch::save and restored
// with torch::load, and the restored pair must continue exactly as the originals.
//   example_dcgan [device] [--batches N] [--data DIR]
//     (defaults: best_device(), 3 batches, /usr/share/datasets/fashion-mnist)
#include <locus/torch.h>  // namespace torch = locus, TORCH_MODULE, ...

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

// The tutorial's constants (its kNumberOfEpochs is 30; here a number of batches).
const int64_t kNoiseSize = 100;
const int64_t kBatchSize = 64;
const int64_t kLogInterval = 1;

static void check(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "CHECK FAILED: " << what << "\n";
    std::exit(1);
  }
}

// The tutorial's generator, word for word but for the names of the namespace.
struct DCGANGeneratorImpl : torch::nn::Module {
  DCGANGeneratorImpl(int kNoiseSize)
      : conv1(torch::nn::ConvTranspose2dOptions(kNoiseSize, 256, 4).bias(false)),
        batch_norm1(256),
        conv2(torch::nn::ConvTranspose2dOptions(256, 128, 3).stride(2).padding(1).bias(false)),
        batch_norm2(128),
        conv3(torch::nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1).bias(false)),
        batch_norm3(64),
        conv4(torch::nn::ConvTranspose2dOptions(64, 1, 4).stride(2).padding(1).bias(false)) {
    // register_module() is needed if we want to use the parameters() method later on
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));  // 1x1 -> 4x4
    x = torch::relu(batch_norm2(conv2(x)));  // -> 7x7
    x = torch::relu(batch_norm3(conv3(x)));  // -> 14x14
    x = torch::tanh(conv4(x));               // -> 28x28
    return x;
  }

  torch::nn::ConvTranspose2d conv1, conv2, conv3, conv4;
  torch::nn::BatchNorm2d batch_norm1, batch_norm2, batch_norm3;
};
TORCH_MODULE(DCGANGenerator);

static torch::nn::Sequential make_discriminator() {
  return torch::nn::Sequential(
      // Layer 1
      torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 64, 4).stride(2).padding(1).bias(false)),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 2
      torch::nn::Conv2d(torch::nn::Conv2dOptions(64, 128, 4).stride(2).padding(1).bias(false)),
      torch::nn::BatchNorm2d(128),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 3
      torch::nn::Conv2d(torch::nn::Conv2dOptions(128, 256, 4).stride(2).padding(1).bias(false)),
      torch::nn::BatchNorm2d(256),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 4
      torch::nn::Conv2d(torch::nn::Conv2dOptions(256, 1, 3).stride(1).padding(0).bias(false)),
      torch::nn::Sigmoid());
}

static torch::optim::Adam make_optimizer(const std::vector<torch::Tensor>& parameters) {
  return torch::optim::Adam(parameters, torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));
}

static int run(int argc, char** argv) {
  std::string data = "/usr/share/datasets/fashion-mnist";
  int64_t batches = 3;
  torch::Device device = torch::best_device();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--batches" && i + 1 < argc) batches = std::atoll(argv[++i]);
    else if (a == "--data" && i + 1 < argc) data = argv[++i];
    else device = torch::Device(a);
  }
  device = torch::resolve_device(device);
  torch::manual_seed(1);
  const auto dir = std::filesystem::temp_directory_path() / ("locus_dcgan_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto at = [&](const std::string& name) { return (dir / name).string(); };

  DCGANGenerator generator(kNoiseSize);
  generator->to(device);
  torch::nn::Sequential discriminator = make_discriminator();
  discriminator->to(device);

  // The tutorial's data pipeline: images scaled to [-1, 1], stacked into batches.
  auto dataset = torch::data::datasets::MNIST(data)
                     .map(torch::data::transforms::Normalize<>(0.5, 0.5))
                     .map(torch::data::transforms::Stack<>());
  const int64_t batches_per_epoch = std::ceil(dataset.size().value() / static_cast<double>(kBatchSize));
  auto data_loader = torch::data::make_data_loader(std::move(dataset),
                                                   torch::data::DataLoaderOptions().batch_size(kBatchSize).workers(2));

  torch::optim::Adam generator_optimizer = make_optimizer(generator->parameters());
  torch::optim::Adam discriminator_optimizer = make_optimizer(discriminator->parameters());

  int64_t batch_index = 0;
  float last_d = 0, last_g = 0;
  for (torch::data::Example<>& batch : *data_loader) {
    // Train discriminator with real images.
    discriminator->zero_grad();
    torch::Tensor real_images = batch.data.to(device);
    torch::Tensor real_labels = torch::empty(batch.data.size(0), device).uniform_(0.8, 1.0);
    torch::Tensor real_output = discriminator->forward(real_images).reshape(real_labels.sizes());
    torch::Tensor d_loss_real = torch::binary_cross_entropy(real_output, real_labels);
    d_loss_real.backward();

    // Train discriminator with fake images.
    torch::Tensor noise = torch::randn({batch.data.size(0), kNoiseSize, 1, 1}, device);
    torch::Tensor fake_images = generator->forward(noise);
    torch::Tensor fake_labels = torch::zeros(batch.data.size(0), device);
    torch::Tensor fake_output = discriminator->forward(fake_images.detach()).reshape(fake_labels.sizes());
    torch::Tensor d_loss_fake = torch::binary_cross_entropy(fake_output, fake_labels);
    d_loss_fake.backward();

    torch::Tensor d_loss = d_loss_real + d_loss_fake;
    discriminator_optimizer.step();

    // Train generator.
    generator->zero_grad();
    fake_labels.fill_(1);
    fake_output = discriminator->forward(fake_images).reshape(fake_labels.sizes());
    torch::Tensor g_loss = torch::binary_cross_entropy(fake_output, fake_labels);
    g_loss.backward();
    generator_optimizer.step();

    ++batch_index;
    last_d = d_loss.item<float>();
    last_g = g_loss.item<float>();
    if (batch_index % kLogInterval == 0)
      std::printf("[%3lld/%3lld] D_loss: %.4f | G_loss: %.4f\n", static_cast<long long>(batch_index),
                  static_cast<long long>(batches_per_epoch), last_d, last_g);
    if (batch_index >= batches) break;
  }
  check(batch_index == batches, "trained the batches asked for");
  check(std::isfinite(last_d) && std::isfinite(last_g), "the losses are finite");
  std::cout << "trained " << batch_index << " batches on " << device << ": D_loss " << last_d << ", G_loss " << last_g
            << "\n";

  // The tutorial's checkpoints: both models, both optimizers, and a sample of generated images.
  torch::save(generator, at("generator-checkpoint.pt"));
  torch::save(generator_optimizer, at("generator-optimizer-checkpoint.pt"));
  torch::save(discriminator, at("discriminator-checkpoint.pt"));
  torch::save(discriminator_optimizer, at("discriminator-optimizer-checkpoint.pt"));
  torch::Tensor samples = generator->forward(torch::randn({10, kNoiseSize, 1, 1}, device));
  check(samples.sizes() == torch::IntArrayRef({10, 1, 28, 28}), "the generator makes 28x28 images");
  torch::save((samples + 1.0) / 2.0, at(torch::str("dcgan-sample-", 1, ".pt")));

  // The tutorial's kRestoreFromCheckpoint, into fresh models and optimizers (made on another
  // seed, so nothing matches until the checkpoints are loaded).
  torch::manual_seed(2);
  DCGANGenerator restored(kNoiseSize);
  restored->to(device);
  torch::nn::Sequential restored_discriminator = make_discriminator();
  restored_discriminator->to(device);
  torch::optim::Adam restored_optimizer = make_optimizer(restored->parameters());
  torch::optim::Adam restored_discriminator_optimizer = make_optimizer(restored_discriminator->parameters());
  torch::load(restored, at("generator-checkpoint.pt"));
  torch::load(restored_optimizer, at("generator-optimizer-checkpoint.pt"));
  torch::load(restored_discriminator, at("discriminator-checkpoint.pt"));
  torch::load(restored_discriminator_optimizer, at("discriminator-optimizer-checkpoint.pt"));

  // One more generator step on each pair from the same noise: equal parameters after it need
  // equal weights, running statistics and Adam moments (a fresh optimizer's first step differs).
  torch::Tensor noise = torch::randn({8, kNoiseSize, 1, 1}, device);
  auto generator_step = [&](DCGANGenerator& g, torch::nn::Sequential& d, torch::optim::Adam& opt) {
    g->zero_grad();
    torch::Tensor out = d->forward(g->forward(noise)).reshape({8});
    torch::binary_cross_entropy(out, torch::ones({8}, device)).backward();
    opt.step();
  };
  generator_step(generator, discriminator, generator_optimizer);
  generator_step(restored, restored_discriminator, restored_optimizer);
  bool same = true;
  const auto a = generator->parameters(), b = restored->parameters();
  for (size_t k = 0; k < a.size(); ++k) same = same && torch::equal(a[k].cpu(), b[k].cpu());
  check(same, "the restored generator and optimizer continue as the originals");
  std::cout << "restored from torch::save checkpoints, one more step: same parameters: " << std::boolalpha << same
            << "\n";
  std::filesystem::remove_all(dir);
  std::cout << "dcgan: all checks passed\n";
  return 0;
}

// A device that is not here (`example_dcgan cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_dcgan: " << e.what() << "\n";
    return 1;
  }
}
