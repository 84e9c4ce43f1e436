#pragma once
// The precompiled header of every test binary (tests/CMakeLists.txt): gtest and locus.h are most
// of what a test file's compiler parses. Only what nearly every test file includes anyway.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "locus/locus.h"
