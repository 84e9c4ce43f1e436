#pragma once
// NumPy .npy files for single tensors (numpy.save / numpy.load). Reads format versions 1.0-3.0,
// C or Fortran order, either byte order, dtypes float32/64, float16, int64/32/16, int8, uint8,
// bool (uint16/32/64 and complex are refused naming the conversion); writes version 1.0, C
// order, little-endian (bfloat16 has no NumPy dtype: convert first). locus::save(dict, "x.npy")
// writes a dict of one tensor the same way.
#include <string>

#include "locus/serialize.h"
#include "locus/tensor.h"

namespace locus {

/// Writes `tensor` (any device, any layout) atomically as an .npy file.
void save_npy(const Tensor& tensor, const std::string& path);
/// Reads an .npy file onto the device map_location names (default: cpu). Throws CheckpointError
/// "[npy] <path>: ..." on a malformed file.
Tensor load_npy(const std::string& path, const MapLocation& map_location = {});

}  // namespace locus
