// The perfect-packing generator the exact-search suites share: a capacity x
// horizon rectangle cut at random into buffers, so the optimum peak is the
// capacity by construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/core/problem.hpp"

namespace pto_mem::test {

/// Cuts [0, capacity) x [0, horizon) into up to `pieces` rectangles (an
/// address cut or a time cut, chosen at random; address cuts fall on
/// multiples of `grain`); each rectangle is a buffer of alignment `grain` in
/// arena 0 ("puzzle", of the given capacity).
inline Problem guillotine_puzzle(std::mt19937_64& rng, Addr capacity, Tick horizon, std::size_t pieces,
                                 Addr grain = 1) {
  struct Rect {
    Addr a0, a1;
    Tick t0, t1;
  };
  std::vector<Rect> rs{{0, capacity, 0, horizon}};
  for (std::size_t tries = 0; rs.size() < pieces && tries < 100 * pieces; ++tries) {
    const std::size_t k = rng() % rs.size();
    const Rect r = rs[k];
    if (rng() % 2 == 0 && r.a1 - r.a0 >= 2 * grain) {
      const Addr c = r.a0 + grain * (1 + rng() % ((r.a1 - r.a0) / grain - 1));
      rs[k] = {r.a0, c, r.t0, r.t1};
      rs.push_back({c, r.a1, r.t0, r.t1});
    } else if (r.t1 - r.t0 >= 2) {
      const Tick c = r.t0 + 1 + static_cast<Tick>(rng() % static_cast<std::uint64_t>(r.t1 - r.t0 - 1));
      rs[k] = {r.a0, r.a1, r.t0, c};
      rs.push_back({r.a0, r.a1, c, r.t1});
    }
  }
  Problem p;
  p.arenas.push_back({0, "puzzle", capacity, {}});
  for (std::size_t i = 0; i < rs.size(); ++i)
    p.buffers.push_back({std::to_string(i), rs[i].a1 - rs[i].a0, grain, 0, {rs[i].t0, rs[i].t1}});
  return p;
}

}  // namespace pto_mem::test
