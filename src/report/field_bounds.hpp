// The range a figure of energy.json must lie in, as the field table (energy_fields.hpp) declares it
// per field. The 1.2 schema's minimum/maximum and the upload check both come from these, so a bound
// is stated once.
#pragma once

#include <limits>
#include <optional>
#include <string>

namespace ecocompute::report {

/// A closed, open or half-open interval; an infinite end is unbounded. A spread (mean, CI) has no range
/// of its own: its figures take the range of the figure they describe (`parent`), or that range's
/// largest magnitude with either sign for the ends of an interval (`parent_signed`).
struct FieldBounds {
  enum class Of { self, parent, parent_signed };

  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  bool low_open = false;
  bool high_open = false;
  Of of = Of::self;

  /// The range a parent-relative bound takes under `parent` (none when there is no parent range).
  [[nodiscard]] std::optional<FieldBounds> under(const std::optional<FieldBounds>& parent) const;
  [[nodiscard]] bool contains(double value) const noexcept;
  /// "[0, 1e+07]", "(0, 100000]", "[0, inf)".
  [[nodiscard]] std::string text() const;
};

/// The ranges the table uses; a figure no real run can leave.
namespace bounds {
inline constexpr FieldBounds count{0, 1e12};
inline constexpr FieldBounds mj_per_token{0, 1e7};
/// Net of the idle baseline: negative when the idle draw exceeds the phase's.
inline constexpr FieldBounds net_mj_per_token{-1e7, 1e7};
inline constexpr FieldBounds joules{0, 1e9};
inline constexpr FieldBounds watts{0, 1e5};
inline constexpr FieldBounds seconds{0, 1e7};
inline constexpr FieldBounds tokens_per_s{0, 1e9};
/// A change against a baseline: a figure can fall by at most all of it.
inline constexpr FieldBounds change_pct{-100, 1e6};
inline constexpr FieldBounds signed_pct{-1e6, 1e6};
inline constexpr FieldBounds share_pct{0, 100};
inline constexpr FieldBounds non_negative{0, 1e6};
inline constexpr FieldBounds unbounded_non_negative{0};
inline constexpr FieldBounds perplexity{1, 1e9};
inline constexpr FieldBounds in_parent{.of = FieldBounds::Of::parent};
inline constexpr FieldBounds in_parent_signed{.of = FieldBounds::Of::parent_signed};
}  // namespace bounds

}  // namespace ecocompute::report
