// The basis of a predicted figure: where the asked place stands against the measured ones. The
// number itself is the model's, continuous in size and batch; the basis says what kind of
// evidence it rests on, from the worst part up:
//   measured      a session measured this format at this size and batch on this GPU model
//   interpolated  the size and batch lie inside the ranges measured for this format in this regime
//   extrapolated  outside them
//   borrowed      not measured on this GPU model (another of the architecture), or not on this
//                 architecture (another one's, shrunk by the spread between architectures)
//   modelled      the format was never measured in this batch regime on the architecture: the
//                 regime's effect comes from the engine's other formats or, without any, from the
//                 spread of regime effects of other engines; or, beyond the baseline context, the
//                 format's context effect was never measured in the batch group (context_group)
// Beyond the baseline context the basis is also judged against the format's places measured at a
// context in the asked batch group: measured at the asked context itself, else read between them
// (size, batch and context inside their ranges) or beyond them, whichever is worse with the
// short-context judgement.
#pragma once

#include <string>
#include <vector>

#include "data/basis.hpp"
#include "decide/family_fit.hpp"
#include "decide/interval_calibration.hpp"

namespace ecocompute::decide {

/// What the basis found, with the measured places it rests on.
struct PlaceBasis {
  data::Basis basis = data::Basis::unavailable;
  data::Basis place_kind = data::Basis::unavailable;  ///< measured / interpolated / extrapolated / modelled, before borrowing
  bool other_architecture = false;
  bool other_gpu = false;
  bool regime_unmeasured = false;
  std::vector<const Location*> same_place;   ///< locations measured exactly at the asked place
  std::vector<const Location*> format_places;  ///< the format's locations the basis was judged on
  double size_min = 0, size_max = 0;         ///< their size range (params_b)
  int batch_min = 0, batch_max = 0;
  bool context_unmeasured = false;            ///< beyond the baseline context, none of the format's places in the batch group
  std::vector<const Location*> context_places;  ///< the format's places beyond the baseline context in the asked batch group
  int context_max = 0;                        ///< their longest context
  Extent extent = Extent::card;               ///< what the asked place lacks against the format's measured places
  /// The format's measured size nearest the asked one (ln params_b, among the places `extent` is judged
  /// on) and |ln N − that|: 0 when the asked size was measured.
  double nearest_log_size = 0, size_distance = 0;
  double nearest_params_b = 0;  ///< that size as measured (params_b)
};

/// The basis of the asked point against a family's measured locations.
PlaceBasis place_basis(const ModelPoint& asked, const FamilyFit& family);

}  // namespace ecocompute::decide
