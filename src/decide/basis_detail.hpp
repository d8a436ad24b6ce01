// How much a prediction says of its figures' bases: everything an answer shows (labels, sessions,
// GPUs), or their kinds alone (measured, interpolated …), which is all a grid needs to rank many
// configurations of which it shows a few. The figures are the same either way.
#pragma once

namespace ecocompute::decide {

enum class BasisDetail { full, kind_only };

}  // namespace ecocompute::decide
