// A Server report (measure-endpoint) is stored with its concurrency as the row's batch size, and one
// sweep's levels are distinct rows.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "report/energy_report.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

report::EnergyReport golden_server_report() {
  auto r = report::read_energy_report(fs::path(ECOCOMPUTE_SOURCE_DIR) /
                                      "tests/golden/energy/energy-Q8_0-c4-server.json");
  EXPECT_TRUE(r) << r.error().describe();
  return r.value_or(report::EnergyReport{});
}

TEST(DatasetStoreServer, ConcurrencyBecomesTheRowsBatchAndLevelsAreDistinctRows) {
  const report::EnergyReport c4 = golden_server_report();
  ASSERT_EQ(c4.workload.concurrency, 4);
  report::EnergyReport c16 = c4;
  c16.workload.concurrency = 16;
  auto store = DatasetStore::open_in_memory();
  ASSERT_TRUE(store) << store.error().describe();
  for (const report::EnergyReport* r : {&c4, static_cast<const report::EnergyReport*>(&c16)}) {
    auto batch = import_energy_report(*r, "sweep");
    ASSERT_TRUE(batch) << batch.error().describe();
    ASSERT_EQ(batch->rows.size(), 1u);
    EXPECT_EQ(batch->rows[0].batch_size, *r->workload.concurrency);
    EXPECT_NE(batch->rows[0].row_key.find("|c" + std::to_string(*r->workload.concurrency)), std::string::npos);
    EXPECT_EQ(batch->rows[0].engine, "openai-endpoint");
    auto summary = store->import(*batch);
    ASSERT_TRUE(summary) << summary.error().describe();
    EXPECT_EQ(summary->rows_added, 1);
  }
}

TEST(DatasetStoreServer, AServerReportWithoutParamsIsRefusedNamingTheField) {
  report::EnergyReport r = golden_server_report();
  r.workload.params_b.reset();
  auto batch = import_energy_report(r, "sweep/energy-Q8_0-c4.json");
  ASSERT_FALSE(batch);
  EXPECT_NE(batch.error().message().find("params_b"), std::string::npos) << batch.error().message();
}

}  // namespace
}  // namespace ecocompute::data
