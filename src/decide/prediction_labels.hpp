// The words of a prediction's bases: what each figure rests on, where and by which sessions.
#pragma once

#include <string>

#include "data/basis.hpp"
#include "decide/evidence.hpp"
#include "decide/place_basis.hpp"

namespace ecocompute::decide {

struct Query;

/// The basis of a figure (`what`: "ΔE", "F16 energy") at `point`, from its place against the family.
data::FigureBasis describe_basis(const FamilyFit& family, const PlaceBasis& b, const ModelPoint& point, const Query& q,
                                 const Evidence& evidence, const std::string& what);

/// The kind alone of describe_basis's basis (no label, sessions or GPUs): what ranking a grid needs.
data::Basis basis_kind(const PlaceBasis& b, const ModelPoint& point);

/// The architectures that answer: the asked one, or those measured when it was not.
std::string used_architectures(const FamilyFit& family, const PlaceBasis& b, const ModelPoint& point, const std::string& asked_arch);

/// The worse of two figures' bases, with both their sessions.
data::FigureBasis worse_figure(const data::FigureBasis& a, const data::FigureBasis& b);

}  // namespace ecocompute::decide
