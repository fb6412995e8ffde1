// The SVG memory map at scale: many arenas and one crowded arena are drawn
// whole -- a panel per arena, a rectangle per placed buffer -- and each
// panel tells a given capacity from one the problem left open exactly as
// always_fitting_capacity does.
#include <doctest/doctest.h>

#include <string>

#include "pto_mem/io/svg.hpp"
#include "pto_mem/planner.hpp"

using namespace pto_mem;

namespace svg_scale_test {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace svg_scale_test

TEST_CASE("svg: 2,000 arenas and a 60,000-buffer arena, every panel and every buffer drawn") {
  using svg_scale_test::count;
  Problem p;
  Placement pl;
  const std::size_t arenas = 2000, per = 10, crowded = 60000;
  for (std::size_t a = 0; a <= arenas; ++a) {
    Arena arena{static_cast<std::int64_t>(a), "ar" + std::to_string(a), 0, {}};
    if (a % 2 == 0) arena.reserved.push_back({0, 64});
    p.arenas.push_back(arena);
    const std::size_t n = a == arenas ? crowded : per;
    for (std::size_t i = 0; i < n; ++i) {
      const Tick t = static_cast<Tick>(i % 97);
      p.buffers.push_back({"b" + std::to_string(a) + "_" + std::to_string(i),
                           32 * (1 + i % 5),
                           32,
                           static_cast<std::int64_t>(a),
                           {t, t + 1 + static_cast<Tick>(i % 7)}});
      pl.offsets.push_back(i % 13 == 12 ? std::nullopt : std::optional<Addr>(64 + 160 * (i % 11)));
    }
  }
  // Odd arenas get a real capacity; even ones exactly the open one.
  for (std::size_t a = 0; a <= arenas; ++a)
    p.arenas[a].capacity = a % 2 == 1 ? 4096 : always_fitting_capacity(p, static_cast<std::int64_t>(a));
  const std::string svg = svg_memory_map(p, pl);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(count(svg, "<g class=\"arena\"") == arenas + 1);
  std::size_t placed = 0;
  for (const auto& o : pl.offsets) placed += o.has_value() ? 1 : 0;
  CHECK(count(svg, "<rect class=\"b c") == placed);
  CHECK(count(svg, "no capacity given") == arenas / 2 + 1);  // the even arenas, the crowded one included
  CHECK(count(svg, ">capacity 4,096 B, ") == arenas / 2);
  CHECK(svg.find(std::to_string(crowded) + " buffers: outlines, labels and tooltips left out") !=
        std::string::npos);
  std::size_t unplaced = 0;
  for (std::size_t i = 0; i < crowded; ++i) unplaced += i % 13 == 12 ? 1 : 0;
  CHECK(svg.find(std::to_string(unplaced) + " buffers have no offset and are not drawn") !=
        std::string::npos);
}
