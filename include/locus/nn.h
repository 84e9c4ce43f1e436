#pragma once
// locus::nn: modules, layers, functional and init (libtorch's torch::nn).
#include "locus/nn/functional.h"
#include "locus/nn/init.h"
#include "locus/nn/module.h"
#include "locus/nn/modules/activation.h"
#include "locus/nn/modules/container.h"
#include "locus/nn/modules/conv.h"
#include "locus/nn/modules/linear.h"
#include "locus/nn/modules/loss.h"
#include "locus/nn/modules/normalization.h"
#include "locus/nn/ordered_dict.h"
#include "locus/nn/utils.h"
