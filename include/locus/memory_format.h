#pragma once
// How a 4-D or 5-D tensor's elements are laid out in memory, as libtorch's c10::MemoryFormat.
//
// locus tensors are strided, so a channels-last tensor is an NCHW tensor whose strides put the
// channel innermost (strides {H*W*C, 1, W*C, C}); every op accepts it as any strided tensor.
// `t.contiguous(MemoryFormat::ChannelsLast)` makes one, `t.is_contiguous(MemoryFormat::ChannelsLast)`
// tests for one, `t.suggest_memory_format()` names the layout a tensor has.
#include <cstdint>
#include <iosfwd>

namespace locus {

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

/// "Contiguous", "Preserve", "ChannelsLast" or "ChannelsLast3d", as libtorch prints them.
const char* toString(MemoryFormat f);
std::ostream& operator<<(std::ostream& os, MemoryFormat f);

}  // namespace locus
