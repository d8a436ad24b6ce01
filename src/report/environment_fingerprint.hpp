// The environment fingerprint: one hash that differs whenever anything that can move energy per token
// differs (GPU, VBIOS, drivers, power limit, ECC, engine and tool commits, host), so sessions with
// different fingerprints are never pooled.
#pragma once

#include <string>

#include "report/energy_report.hpp"
#include "util/json.hpp"

namespace ecocompute::report {

/// Returns the sha256 hex of the canonical JSON of `environment`'s fields other than "fingerprint":
/// keys sorted, no whitespace, nulls kept (an unreadable field is part of the identity too).
[[nodiscard]] std::string environment_fingerprint(const OrderedJson& environment);

/// Returns the fingerprint of a typed environment section (its `fingerprint` field is ignored).
[[nodiscard]] std::string environment_fingerprint(const Environment& environment);

}  // namespace ecocompute::report
