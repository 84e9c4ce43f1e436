#pragma once
// The data pipeline, as libtorch's torch::data: datasets (MNIST), transforms (Normalize, Stack,
// Lambda), samplers, make_data_loader, and DevicePrefetcher (a locus extension).
#include "locus/data/dataloader.h"
#include "locus/data/dataset.h"
#include "locus/data/example.h"
#include "locus/data/mnist.h"
#include "locus/data/prefetcher.h"
#include "locus/data/samplers.h"
#include "locus/data/transforms.h"
