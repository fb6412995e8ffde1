// Views, aliases and in-place results must fit their source's window, and
// every tile its space's capacity: InitMemRef refuses an oversized one with
// a diagnostic naming the statement and the sizes. The table below covers
// every op of the registry whose tile result lands in a source buffer; a new
// such op fails the coverage check until it has a row.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pypto_support.hpp"
#include "storage_kernel_gen.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

struct VbRow {
  std::string op;
  std::string call;    ///< the call, with sources defined by the preamble
  std::string result;  ///< the result's correct annotation
  std::string space;   ///< the result's space
  std::string soc;
  std::string setup;  ///< lines defining extra sources (before the result line)
  VbRow(std::string o, std::string c, std::string r, std::string sp, std::string so = "a2a3",
        std::string se = "")
      : op(std::move(o)),
        call(std::move(c)),
        result(std::move(r)),
        space(std::move(sp)),
        soc(std::move(so)),
        setup(std::move(se)) {}
};

// Sources: t, u [16, 16] FP32 Vec; half [8, 16] FP32 Vec; idx [16, 16] INT32 Vec;
// acc [16, 16] FP32 Acc; l Left, r Right, ls LeftScale, rs RightScale [16, 16] BF16 / FP8E4M3FN.
const std::string vb_preamble =
    "@function(type=InCore)\n"
    "def main(x: Tensor[[64, 64], FP32], h: Tensor[[64, 64], BF16], o: Out[Tensor[[64, 64], FP32]]) -> "
    "Tensor[[64, 64], FP32]:\n"
    "    t: Tile[[16, 16], FP32, Vec] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n"
    "    u: Tile[[16, 16], FP32, Vec] = tile.load(x, [16, 0], [16, 16], target_memory=Vec)\n"
    "    half: Tile[[8, 16], FP32, Vec] = tile.load(x, [32, 0], [8, 16], target_memory=Vec)\n"
    "    idx: Tile[[16, 16], INT32, Vec] = tile.create([16, 16], dtype=INT32, target_memory=Vec)\n"
    "    acc: Tile[[16, 16], FP32, Acc] = tile.create([16, 16], dtype=FP32, target_memory=Acc)\n"
    "    m: Tile[[16, 16], BF16, Mat] = tile.load(h, [0, 0], [16, 16], target_memory=Mat)\n"
    "    l: Tile[[16, 16], BF16, Left] = tile.move(m, target_memory=Left)\n"
    "    r: Tile[[16, 16], BF16, Right] = tile.move(m, target_memory=Right)\n";
/// The line of `res: ... = call`.
unsigned vb_result_line(const VbRow& row) {
  return 11 + static_cast<unsigned>(std::count(row.setup.begin(), row.setup.end(), '\n'));
}

const std::vector<VbRow>& vb_rows() {
  static const std::vector<VbRow> v = {
      {"tile.slice", "tile.slice(t, [8, 16], [0, 0])", "[8, 16], FP32", "Vec"},
      {"tile.reshape", "tile.reshape(t, [8, 32])", "[8, 32], FP32", "Vec"},
      {"tile.reinterpret_view", "tile.reinterpret_view(t, [16, 32], dtype=FP16)", "[16, 32], FP16", "Vec"},
      {"tile.transpose_view", "tile.transpose_view(t)", "[16, 16], FP32", "Vec"},
      {"tile.set_validshape", "tile.set_validshape(t, 8, 8)", "[16, 16], FP32", "Vec"},
      {"tile.assemble", "tile.assemble(t, half, [8, 0])", "[16, 16], FP32", "Vec"},
      {"tile.tget_scale_addr", "tile.tget_scale_addr(t, u)", "[16, 16], FP32", "Vec"},
      {"tile.fillpad_inplace", "tile.fillpad_inplace(t)", "[16, 16], FP32", "Vec"},
      {"tile.scatter", "tile.scatter(t, u, idx)", "[16, 16], FP32", "Vec"},
      {"tile.scatter_mask", "tile.scatter_mask(t, u)", "[16, 16], FP32", "Vec"},
      {"tile.scatter_update", "tile.scatter_update(t, idx, u)", "[16, 16], FP32", "Vec"},
      {"tile.gather_row", "tile.gather_row(t, u, 0, 0, [16, 16])", "[16, 16], FP32", "Vec"},
      {"tile.matmul_acc", "tile.matmul_acc(acc, l, r)", "[16, 16], FP32", "Acc"},
      {"tile.gemv_acc", "tile.gemv_acc(acc, l, r)", "[16, 16], FP32", "Acc"},
      {"tile.batch_matmul_acc", "tile.batch_matmul_acc(acc, l, r)", "[16, 16], FP32", "Acc"},
      {"tile.matmul_mx_acc", "tile.matmul_mx_acc(acc, l, ls, r, rs)", "[16, 16], FP32", "Acc", "a5",
       "    ls: Tile[[16, 16], BF16, LeftScale] = tile.move(m, target_memory=LeftScale)\n"
       "    rs: Tile[[16, 16], BF16, RightScale] = tile.move(m, target_memory=RightScale)\n"},
  };
  return v;
}

std::string vb_kernel(const VbRow& row, const std::string& result) {
  return vb_preamble + row.setup + "    res: Tile[" + result + ", " + row.space + "] = " + row.call +
         "\n    return o\n";
}

/// InitMemRef alone on a program whose spaces are written out.
CompileResult vb_init_only(const std::string& text, const std::string& soc = "a2a3") {
  CompileOptions o;
  o.soc = *soc_by_name(soc);
  o.passes = {Stage::init};
  return compile_source(text, "view.pto", o);
}

const Diagnostic* vb_first_error(const CompileResult& r) {
  for (const auto& d : r.diagnostics)
    if (d.severity == Severity::error) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("view bounds: the table covers every op whose tile result lands in a source buffer") {
  std::set<std::string> in_registry, in_table;
  for (const OpSpec* s : default_registry().ops())
    if (s->result == ResultKind::tile && s->lands_in_source()) in_registry.insert(s->name);
  for (const auto& r : vb_rows()) in_table.insert(r.op);
  CHECK(in_table == in_registry);
}

TEST_CASE("view bounds: each view and in-place op, correctly typed, passes InitMemRef") {
  for (const auto& row : vb_rows()) {
    INFO(row.op);
    const CompileResult r = vb_init_only(vb_kernel(row, row.result), row.soc);
    INFO(test::dump(r.diagnostics));
    CHECK(r.ok());
  }
}

TEST_CASE(
    "view bounds: a result larger than its source's window is refused, naming the statement and sizes") {
  for (const auto& row : vb_rows()) {
    INFO(row.op);
    const std::string big = row.space == "Acc" ? "[64, 64], FP32" : "[32, 32], FP32";
    const CompileResult r = vb_init_only(vb_kernel(row, big), row.soc);
    const Diagnostic* e = vb_first_error(r);
    REQUIRE(e);
    INFO(e->message);
    CHECK(e->code == "view-exceeds-source");
    REQUIRE(e->location);
    CHECK(e->location->file == "view.pto");
    CHECK(e->location->line == vb_result_line(row));
    CHECK(e->location->column == 5);
    CHECK(e->message.find("'res' = " + row.op + "(") != std::string::npos);
    CHECK(e->message.find(row.space == "Acc" ? "16384 bytes" : "4096 bytes") != std::string::npos);
    CHECK(r.exit_code() == 2);
  }
}

TEST_CASE("view bounds: in-place and view results obey the shape rules of a fresh tile") {
  for (const auto& row : vb_rows()) {
    INFO(row.op);
    const CompileResult r = vb_init_only(vb_kernel(row, "[0, 16], FP32"), row.soc);
    const Diagnostic* e = vb_first_error(r);
    REQUIRE(e);
    INFO(e->message);
    CHECK(e->code == "non-positive-shape");
    CHECK(e->location->line == vb_result_line(row));
  }
  // The out-of-place form says the same.
  const CompileResult fresh =
      vb_init_only(vb_preamble + "    res: Tile[[0, 16], FP32, Vec] = tile.fillpad(t)\n    return o\n");
  REQUIRE(vb_first_error(fresh));
  CHECK(vb_first_error(fresh)->code == "non-positive-shape");
}

TEST_CASE("view bounds: a slice window must stay inside its source") {
  const CompileResult r = vb_init_only(
      vb_preamble + "    res: Tile[[8, 16], FP32, Vec] = tile.slice(t, [8, 16], [12, 0])\n    return o\n");
  const Diagnostic* e = vb_first_error(r);
  REQUIRE(e);
  INFO(e->message);
  CHECK(e->code == "view-outside-source");
  CHECK(e->location->line == 11);
  CHECK(e->message.find("byte 768") != std::string::npos);
  CHECK(e->message.find("1024-byte window of 't'") != std::string::npos);
  // An alias annotated larger than its source is a view too.
  const CompileResult alias =
      vb_init_only(vb_preamble + "    res: Tile[[32, 32], FP32, Vec] = t\n    return o\n");
  REQUIRE(vb_first_error(alias));
  CHECK(vb_first_error(alias)->code == "view-exceeds-source");
  CHECK(vb_first_error(alias)->message.find("'res' = t:") != std::string::npos);
}

TEST_CASE("view bounds: the reproducers, through the whole pipeline under every planner") {
  const std::string head =
      "@function(type=InCore)\n"
      "def main(x: Tensor[[64, 64], FP32], o: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n"
      "    src: Tile[[64, 64], FP32] = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n";
  const std::string tail = "    out: Tensor[[64, 64], FP32] = tile.store(upd, [0, 0], o)\n    return out\n";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"    upd = tile.reshape(src, [128, 128])\n", "65536 bytes"},
      {"    upd = tile.reinterpret_view(src, [128, 128])\n", "65536 bytes"},
      {"    upd: Tile[[1000, 1000], FP32] = tile.fillpad_inplace(src)\n", "4000000 bytes"},
      {"    upd: Tile[[0, 64], FP32] = tile.fillpad_inplace(src)\n", "positive shape"},
  };
  for (Planner planner : {Planner::pypto, Planner::dsa_rp, Planner::ptoas})
    for (const auto& [line, size] : bad) {
      INFO(line << " under " << to_string(planner));
      CompileOptions o;
      o.planner = planner;
      const CompileResult r = compile_source(head + line + tail, "repro.pto", o);
      const Diagnostic* e = vb_first_error(r);
      REQUIRE(e);
      INFO(e->message);
      CHECK(r.exit_code() == 2);
      CHECK(e->location->line == 4);
      CHECK(e->message.find(size) != std::string::npos);
      if (size != "positive shape") CHECK(e->message.find("16384-byte window") != std::string::npos);
    }
}

TEST_CASE("view bounds: a tile larger than its whole space is a capacity error, also under ptoas") {
  const std::string text =
      "@function(type=InCore)\n"
      "def main(x: Tensor[[512, 512], FP32], o: Out[Tensor[[512, 512], FP32]]) -> Tensor[[512, 512], FP32]:\n"
      "    big: Tile[[256, 256], FP32] = tile.load(x, [0, 0], [256, 256], target_memory=Vec)\n"
      "    out: Tensor[[512, 512], FP32] = tile.store(big, [0, 0], o)\n"
      "    return out\n";
  for (Planner planner : {Planner::pypto, Planner::dsa_rp, Planner::ptoas}) {
    INFO(to_string(planner));
    CompileOptions o;
    o.planner = planner;
    const CompileResult r = compile_source(text, "cap.pto", o);
    const Diagnostic* e = vb_first_error(r);
    REQUIRE(e);
    INFO(e->message);
    CHECK(e->code == "capacity");
    CHECK(r.exit_code() == 1);
    CHECK(e->message.find("Vec buffer usage (262144 bytes) exceeds platform limit (188416 bytes)") !=
          std::string::npos);
    CHECK(e->message.find("'big'") != std::string::npos);
  }
  // No backend, no capacity.
  CompileOptions none;
  none.soc = soc_none();
  CHECK(compile_source(text, "cap.pto", none).ok());
}

TEST_CASE("view bounds: the random storage kernels exercise the class of view and in-place ops") {
  std::set<std::string> seen;
  const std::vector<std::string> ops = {
      "tile.slice",          "tile.reshape",         "tile.reinterpret_view", "tile.transpose_view",
      "tile.set_validshape", "tile.assemble",        "tile.fillpad_inplace",  "tile.scatter_mask",
      "tile.gather_row",     "tile.tget_scale_addr", "tile.matmul_acc"};
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const std::string text = test::StorageKernelGen(seed).make();
    for (const auto& op : ops)
      if (text.find(op + "(") != std::string::npos) seen.insert(op);
  }
  for (const auto& op : ops) {
    INFO(op);
    CHECK(seen.contains(op));
  }
}
