#pragma once
// Internal loading entry points of src/io/serialize.cpp.
//
// Loading an optimizer's state from what a file or archive holds: locus's own entries
// (Optimizer::state_dict()'s "state.<i>.<name>", "param_groups.<g>.lr") or libtorch's optimizer
// archive (its torch::save(optimizer) / Optimizer::save(archive): state keyed by the writer's
// parameter addresses, matched by position, group by group; src/io/serialize.cpp).
#include <string>
#include <utility>
#include <vector>

#include "locus/serialize.h"

namespace locus::io {

/// load(path, map_location), and the file's non-tensor values into `metadata`, from one parse of
/// the file (InputArchive::load_from).
StateDict load_with_metadata(const std::string& path, const MapLocation& map_location,
                             std::vector<std::pair<std::string, std::string>>* metadata);

/// `tensors` and `metadata` as a checkpoint or archive holds them; `where` starts the errors'
/// messages ("[load] path"). `among_others`: the entries may sit beside other tensors (a model's,
/// in one archive), so only the optimizer's keys are taken. Throws CheckpointError (or
/// load_state_dict's Error) with the optimizer unchanged when they do not fit it.
void load_optimizer_state(optim::Optimizer& optimizer, const StateDict& tensors,
                          const std::vector<std::pair<std::string, std::string>>& metadata, const std::string& where,
                          bool among_others);

}  // namespace locus::io
