// The smallest valid scenario file, shared by the scenario-file suites.
#pragma once

namespace railyard::scenariotest {

/// The smallest valid file: the 128-GPU sample job (tp 8, pp 4, dp 4).
inline constexpr const char *kMinimal = R"({
  "format_version": 1,
  "fabric": {"servers": 16, "gpus_per_server": 8},
  "parallel": {"tp": 8, "pp": 4, "dp": 4}
})";

} // namespace railyard::scenariotest
