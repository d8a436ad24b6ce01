// Tests of the records and printers: golden output per format, the multiplexer, call order, and the
// human table's choice of columns.
#include "report/printer.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "golden_reports.hpp"
#include "report/bench_record.hpp"
#include "report/energy_report.hpp"
#include "support/golden.hpp"

namespace ecocompute::report {
namespace {

using ecocompute::testing::expect_golden;

std::vector<Record> sample_records() {
  std::vector<Record> records;
  for (const EnergyReport& report : testing::golden_reports(true)) records.push_back(bench_record(report));
  return records;
}

PrintContext sample_print_context() {
  return PrintContext{bench_columns(), "ecocompute-energy/1.2", "80fb11ac73e66d89eae2c6a91d8a77428fa733ed+PR-22566.diff"};
}

std::string print(OutputFormat format, const std::vector<Record>& records) {
  std::ostringstream out;
  auto printer = make_printer(format, out);
  printer->begin(sample_print_context());
  for (const Record& r : records) printer->write(r);
  printer->end();
  return out.str();
}

TEST(Printer, EveryFormatMatchesItsGoldenFile) {
  const auto records = sample_records();
  for (OutputFormat f : {OutputFormat::md, OutputFormat::csv, OutputFormat::json, OutputFormat::jsonl, OutputFormat::sql}) {
    expect_golden(std::string("printers/bench.") + std::string(to_string(f)), print(f, records));
  }
}

TEST(Printer, PrintBenchRecordsTakesTheContextFromTheReports) {
  std::ostringstream out;
  MarkdownPrinter printer(out);
  print_bench_records(printer, testing::golden_reports(true));
  EXPECT_EQ(out.str(), print(OutputFormat::md, sample_records()));
}

TEST(Printer, RecordHoldsHandComputedValues) {
  const Record q4 = sample_records()[2];
  // Decode windows of 10 s with 10 iterations: 1 s = 1e9 ns per iteration; 2560 tokens / 10 s = 256 t/s.
  EXPECT_EQ(std::get<std::int64_t>(q4.find("avg_ns")->value), 1000000000);
  EXPECT_EQ(std::get<std::int64_t>(q4.find("stddev_ns")->value), 0);
  EXPECT_DOUBLE_EQ(*q4.number("avg_ts"), 256.0);
  EXPECT_DOUBLE_EQ(*q4.number("energy_per_token_mj"), 820.46875);
  EXPECT_NEAR(*q4.number("vs_fp16_energy_pct"), -30.0, 1e-9);
  EXPECT_DOUBLE_EQ(*q4.number("kld"), 0.02);
  EXPECT_EQ(std::get<std::string>(q4.find("model_type")->value), "llama 0.004B Q4_K_M");
  EXPECT_TRUE(is_null(q4.find("build_number")->value));  // unknown, never guessed
  const auto& samples = std::get<std::vector<double>>(q4.find("samples_energy_per_token_mj")->value);
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_DOUBLE_EQ(samples[1], 852.1875);  // 2181.6 J / 2560 tokens
}

TEST(Printer, RecordFromPublished11FileFillsWhatItHas) {
  const Record r = bench_record(testing::published_1_1_report());
  EXPECT_DOUBLE_EQ(*r.number("energy_per_token_mj"), 1827.749);
  EXPECT_DOUBLE_EQ(*r.number("vs_fp16_energy_pct"), 31.12);
  EXPECT_TRUE(is_null(r.find("kld")->value));
  EXPECT_TRUE(is_null(r.find("avg_ts")->value));
  EXPECT_EQ(std::get<std::string>(r.find("model_type")->value), "0.5B NF4");
}

TEST(Printer, MultiplexerWritesTheSameAsEachPrinter) {
  const auto records = sample_records();
  std::ostringstream csv;
  std::ostringstream sql;
  MultiPrinter multi;
  multi.add(make_printer(OutputFormat::csv, csv));
  multi.add(make_printer(OutputFormat::sql, sql));
  multi.begin(sample_print_context());
  for (const Record& r : records) multi.write(r);
  multi.end();
  EXPECT_EQ(csv.str(), print(OutputFormat::csv, records));
  EXPECT_EQ(sql.str(), print(OutputFormat::sql, records));
}

TEST(Printer, CallOrderIsChecked) {
  std::ostringstream out;
  CsvPrinter printer(out);
  const Record r = sample_records()[0];
  EXPECT_THROW(printer.write(r), InvariantError);
  EXPECT_THROW(printer.end(), InvariantError);
  printer.begin(sample_print_context());
  EXPECT_THROW(printer.begin(sample_print_context()), InvariantError);
  Record other;
  other.add(Column{"x", "", ValueType::integer, "", false, -1}, std::int64_t{1});
  EXPECT_THROW(printer.write(other), InvariantError);
  printer.end();
}

TEST(Printer, MarkdownShowsKeyColumnsAndThoseThatVary) {
  std::ostringstream out;
  MarkdownPrinter printer(out);
  const std::vector<Column> columns = {Column{"model_type", "", ValueType::text, "model", true, -1},
                                       Column{"n_batch", "", ValueType::integer, "", false, -1},
                                       Column{"n_threads", "", ValueType::integer, "threads", false, -1},
                                       Column{"avg_ts", "", ValueType::real, "t/s", true, 2}};
  printer.begin(PrintContext{columns, "", ""});
  for (std::int64_t threads : {8, 16}) {
    Record r;
    r.add(columns[0], std::string("llama Q8_0"));
    r.add(columns[1], std::int64_t{2048});  // same in every row: hidden
    r.add(columns[2], threads);             // varies: shown
    r.add(columns[3], 100.0 + static_cast<double>(threads));
    printer.write(r);
  }
  printer.end();
  EXPECT_EQ(out.str(),
            "| model      | threads |    t/s |\n"
            "| ---------- | ------: | -----: |\n"
            "| llama Q8_0 |       8 | 108.00 |\n"
            "| llama Q8_0 |      16 | 116.00 |\n");
}

TEST(Printer, CsvAndSqlEscapeQuotes) {
  const std::vector<Column> columns = {Column{"name", "", ValueType::text, "", false, -1},
                                       Column{"value", "", ValueType::real, "", false, -1}};
  Record r;
  r.add(columns[0], std::string("a \"b\" 'c'"));
  r.add(columns[1], Value{});
  std::ostringstream csv;
  CsvPrinter c(csv);
  c.begin({columns, "", ""});
  c.write(r);
  c.end();
  EXPECT_EQ(csv.str(), "name,value\n\"a \"\"b\"\" 'c'\",\"\"\n");
  std::ostringstream sql;
  SqlPrinter s(sql);
  s.begin({columns, "", ""});
  s.write(r);
  s.end();
  EXPECT_NE(sql.str().find("VALUES ('a \"b\" ''c''', NULL);"), std::string::npos) << sql.str();
}

TEST(Printer, OutputFormatNames) {
  EXPECT_EQ(*parse_output_format("jsonl"), OutputFormat::jsonl);
  auto bad = parse_output_format("xml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("xml"), std::string::npos);
}

TEST(Record, RefusesDuplicatesAndWrongTypes) {
  Record r;
  const Column c{"x", "", ValueType::integer, "", false, -1};
  r.add(c, std::int64_t{1});
  EXPECT_THROW(r.add(c, std::int64_t{2}), InvariantError);
  EXPECT_THROW(r.add(Column{"y", "", ValueType::integer, "", false, -1}, 1.5), InvariantError);
  EXPECT_EQ(format_value(Value{std::vector<double>{1.5, 2.0}}), "1.5;2");
  EXPECT_EQ(format_value(Value{0.1}), "0.1");
}

}  // namespace
}  // namespace ecocompute::report
