// Why the occupancy tree keeps its own RangeUnion instead of
// boost::icl::interval_set (the rule: hand-write a structure only where a
// benchmark shows the library one is the bottleneck, and keep the benchmark).
//
// The workload mirrors a greedy pass: many small sets (tree nodes), each
// receiving touching or overlapping ranges (placed buffers merge into a few
// runs), and queries "first range that ends after x, then walk forward".
#include <benchmark/benchmark.h>

#include <boost/icl/interval_set.hpp>
#include <random>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/paired_shuffle.hpp"
#include "pto_mem/algorithms/dsa_rp/range_union.hpp"

namespace {

using pto_mem::Addr;
using pto_mem::AddrRange;

struct Op {
  std::uint32_t set;
  AddrRange range;  // add this range, then query at range.begin
};

/// 200k operations over 4096 sets; ranges are packed low (as placed buffers
/// are), so most adds touch or overlap an existing run.
const std::vector<Op>& workload() {
  static const std::vector<Op> ops = [] {
    std::mt19937_64 g(7);
    std::vector<Op> out;
    for (int k = 0; k < 200000; ++k) {
      const Addr begin = pto_mem::uniform_below(g, 1u << 20) & ~Addr{31};
      const Addr size = 32 * (1 + pto_mem::uniform_below(g, 64));
      out.push_back({static_cast<std::uint32_t>(pto_mem::uniform_below(g, 4096)), {begin, begin + size}});
    }
    return out;
  }();
  return ops;
}

void BM_RangeUnion(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<pto_mem::dsa::RangeUnion> sets(4096);
    Addr checksum = 0;
    for (const auto& op : workload()) {
      auto& s = sets[op.set];
      const std::size_t k = s.first_ending_after(op.range.begin);
      if (k < s.size()) checksum += s[k].end;
      s.add(op.range);
    }
    benchmark::DoNotOptimize(checksum);
  }
}
BENCHMARK(BM_RangeUnion)->Unit(benchmark::kMillisecond);

void BM_IclIntervalSet(benchmark::State& state) {
  using Set = boost::icl::interval_set<Addr>;  // joining: touching ranges fuse, like RangeUnion
  for (auto _ : state) {
    std::vector<Set> sets(4096);
    Addr checksum = 0;
    for (const auto& op : workload()) {
      auto& s = sets[op.set];
      // lower_bound of [x, x+1): the first interval not entirely before x,
      // i.e. the first one that ends after x.
      const auto first =
          s.lower_bound(boost::icl::interval<Addr>::right_open(op.range.begin, op.range.begin + 1));
      if (first != s.end()) checksum += boost::icl::upper(*first);
      s.add(boost::icl::interval<Addr>::right_open(op.range.begin, op.range.end));
    }
    benchmark::DoNotOptimize(checksum);
  }
}
BENCHMARK(BM_IclIntervalSet)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
