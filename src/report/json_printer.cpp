// JsonPrinter and JsonlPrinter: typed values (numbers, booleans, null), samples as arrays.
#include <cmath>

#include "report/printer.hpp"
#include "util/json.hpp"

namespace ecocompute::report {
namespace {

OrderedJson to_json(const Value& value) {
  struct Visitor {
    OrderedJson operator()(std::monostate) const { return nullptr; }
    OrderedJson operator()(const std::string& s) const { return s; }
    OrderedJson operator()(std::int64_t i) const { return i; }
    OrderedJson operator()(double d) const { return std::isfinite(d) ? OrderedJson(d) : OrderedJson(nullptr); }
    OrderedJson operator()(bool b) const { return b; }
    OrderedJson operator()(const std::vector<double>& v) const { return v; }
  };
  return std::visit(Visitor{}, value);
}

OrderedJson to_json(const Record& record) {
  OrderedJson object = OrderedJson::object();
  for (const Field& field : record.fields()) object[field.column.name] = to_json(field.value);
  return object;
}

}  // namespace

void JsonPrinter::do_begin() { out() << "[\n"; }

void JsonPrinter::do_write(const Record& record) {
  if (!first_) out() << ",\n";
  first_ = false;
  out() << to_json(record).dump(2);
}

void JsonPrinter::do_end() { out() << (first_ ? "]\n" : "\n]\n"); }

void JsonlPrinter::do_write(const Record& record) { out() << to_json(record).dump() << '\n'; }

}  // namespace ecocompute::report
