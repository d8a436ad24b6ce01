// The sessions of a family's places merged for an answer's labels (see family_fit.hpp).
#include <optional>
#include <string>

#include <fmt/format.h>

#include "decide/family_fit.hpp"

namespace ecocompute::decide {
namespace {

// The places' sessions merged in id order from each place's own order (Location::session_order).
std::vector<std::string_view> merge(const std::vector<const Location*>& places) {
  struct Cursor {
    const Location* place;
    std::vector<std::uint32_t> own_order;  // for a place built without its order
    std::size_t next = 0;
    [[nodiscard]] const std::vector<std::uint32_t>& order() const { return place->session_order.empty() ? own_order : place->session_order; }
    [[nodiscard]] bool done() const { return next >= order().size(); }
    [[nodiscard]] std::string_view id() const { return place->sessions[order()[next]]; }
  };
  std::vector<Cursor> cursors;
  for (const Location* l : places) {
    cursors.push_back(Cursor{l, l->session_order.empty() ? session_order(l->sessions) : std::vector<std::uint32_t>{}});
  }
  std::vector<std::string_view> merged;
  for (;;) {
    std::optional<std::string_view> smallest;
    for (const Cursor& c : cursors) {
      if (!c.done() && (!smallest || c.id() < *smallest)) smallest = c.id();
    }
    if (!smallest) break;
    for (Cursor& c : cursors) {
      while (!c.done() && c.id() == *smallest) ++c.next;
    }
    merged.push_back(*smallest);
  }
  return merged;
}

}  // namespace

std::shared_ptr<const std::vector<std::string_view>> FamilyFit::merged_sessions(const std::vector<const Location*>& places) const {
  // Kept by the places' positions in this family; places of another family are merged each time.
  const std::vector<Location>& own = locations();
  std::string key;
  for (const Location* l : places) {
    if (own.empty() || l < own.data() || l >= own.data() + own.size()) return std::make_shared<const std::vector<std::string_view>>(merge(places));
    fmt::format_to(std::back_inserter(key), "{},", l - own.data());
  }
  return merged_sessions_.get(key, [&] { return std::make_shared<const std::vector<std::string_view>>(merge(places)); });
}

}  // namespace ecocompute::decide
