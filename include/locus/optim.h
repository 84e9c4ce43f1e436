#pragma once
// locus::optim: SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS and learning-rate schedulers (libtorch's torch::optim).
#include "locus/optim/adagrad.h"
#include "locus/optim/adam.h"
#include "locus/optim/lbfgs.h"
#include "locus/optim/optimizer.h"
#include "locus/optim/rmsprop.h"
#include "locus/optim/schedulers.h"
#include "locus/optim/sgd.h"
