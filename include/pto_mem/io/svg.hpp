// An SVG memory map of a placement: one panel per arena over one time axis
// shared by every panel, y = address (0 at the bottom), a rectangle per
// buffer, reserved windows hatched, capacity / peak / bound lines with a
// legend, and a title with the figures that matter. Two bounds under two
// names: the max-load bound (a sweep) and, when the caller passes it, the
// bound a search proved. A capacity the file did not give (always_fitting_
// capacity) is never drawn as if it were real. Deterministic: the same input gives the same bytes. Large
// maps stay light (no outlines, labels or tooltips) but every placed buffer
// is drawn, and the caption says what was left out.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/io/arena_label.hpp"
#include "pto_mem/io/atomic_file.hpp"
#include "pto_mem/io/id_text.hpp"

#if PTO_MEM_IO_DEFINE  // what the drawing needs; with PTO_MEM_IO_COMPILED it is in the library
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#endif

namespace pto_mem {

struct SvgOptions {
  double width = 1200;              ///< pixels
  double panel_height = 440;        ///< pixels per arena, title and axes included
  std::size_t detail_limit = 5000;  ///< above this many buffers in an arena: no outlines, labels or tooltips
  /// Per arena, the bound a search proved (PlanResult::lower_bound); empty:
  /// only the max-load bound is drawn.
  std::vector<Addr> proved_bound;
};

/// The SVG text. Buffers without an offset are not drawn (the caption
/// counts them).
[[nodiscard]] PTO_MEM_IO_INLINE std::string svg_memory_map(const Problem& p, const Placement& pl,
                                                           const SvgOptions& opt = {});

/// Writes the memory map to `path` atomically; returns the errors (empty on success).
[[nodiscard]] PTO_MEM_IO_INLINE Diagnostics write_svg_file(const std::filesystem::path& path,
                                                           const Problem& p, const Placement& pl,
                                                           const SvgOptions& opt = {});

#if PTO_MEM_IO_DEFINE
namespace detail::svg {

inline constexpr double left = 78, right = 180, top = 52, bottom = 56;
inline constexpr std::array<const char*, 10> palette{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                                     "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/// Fixed-point with at most two decimals, locale independent.
inline std::string num(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 2);
  if (ec != std::errc{}) return "0";
  std::string s(buf, end);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

/// Fixed-point with three decimals (ratios such as peak/bound), locale independent.
inline std::string num3(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
  if (ec != std::errc{}) return "0.000";
  return std::string(buf, end);
}

/// "1 buffer", "2 buffers".
inline std::string count_of(std::size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

/// 1234567 -> "1,234,567".
inline std::string grouped(std::uint64_t v) {
  std::string d = std::to_string(v), out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i > 0 && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

/// Axis labels: 250000 -> "250k", 1572864 -> "1.57M".
inline std::string compact(std::int64_t v) {
  if (v < 0) return "-" + compact(-v);
  const std::uint64_t u = static_cast<std::uint64_t>(v);
  constexpr std::array<std::pair<std::uint64_t, char>, 4> units{
      {{1000000000000ull, 'T'}, {1000000000ull, 'G'}, {1000000ull, 'M'}, {1000ull, 'k'}}};
  if (u < 10000) return std::to_string(u);
  for (auto [unit, suffix] : units) {
    if (u < unit) continue;
    std::string s = std::to_string(u / unit);
    const std::uint64_t hundredths = (u % unit) * 100 / unit;
    if (hundredths != 0) {
      s += '.';
      s += static_cast<char>('0' + hundredths / 10);
      if (hundredths % 10 != 0) s += static_cast<char>('0' + hundredths % 10);
    }
    return s + suffix;
  }
  return std::to_string(u);
}

/// XML escapes of io/id_text.hpp: lossless for every name the readers accept.
inline std::string escape(std::string_view s) { return xml_escape(s); }

/// The smallest step of the form {1, 2, 5} x 10^k giving at most `target` ticks over `span`.
inline std::uint64_t tick_step(std::uint64_t span, std::uint64_t target) {
  std::uint64_t mag = 1;
  while (true) {
    for (std::uint64_t m : {1ull, 2ull, 5ull}) {
      const std::uint64_t step = m * mag;
      if (span / step <= target) return step;
    }
    if (mag > max_addr / 10) return max_addr;
    mag *= 10;
  }
}

inline std::uint32_t colour_of(std::string_view id) {
  std::uint32_t h = 2166136261u;  // FNV-1a: stable across runs and platforms
  for (char c : id) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h % palette.size();
}

}  // namespace detail::svg

PTO_MEM_IO_INLINE std::string svg_memory_map(const Problem& p, const Placement& pl, const SvgOptions& opt) {
  using namespace detail::svg;
  const ProblemIndex index(p);
  const auto labels = arena_labels(p);
  const auto loads = arena_loads(p);
  const Objective objective = evaluate_objective(p, pl);
  const std::size_t na = p.arenas.size();
  const std::vector<Addr> unbounded = always_fitting_capacities(p);
  const double W = std::max(opt.width, left + right + 100);
  const double H = std::max(opt.panel_height, top + bottom + 60);
  const double total_h = H * static_cast<double>(std::max<std::size_t>(na, 1)) + (na > 0 ? 22 : 0);

  std::vector<std::vector<std::size_t>> members(na);
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (auto k = index.arena(p.buffers[i].arena)) members[*k].push_back(i);
  auto offset = [&](std::size_t i) { return i < pl.offsets.size() ? pl.offsets[i] : std::nullopt; };

  // One time axis for every panel: the lifetimes of all arenas, so that a
  // program point sits at the same x in each panel.
  Tick t0 = 0, t1 = 1;
  {
    bool first = true;
    for (const auto& m : members)
      for (std::size_t i : m) {
        const auto& l = p.buffers[i].lifetime;
        t0 = first ? l.begin : std::min(t0, l.begin);
        t1 = first ? l.end : std::max(t1, l.end);
        first = false;
      }
    if (t1 <= t0) t1 = t0 + 1;
  }
  const double legend_h = na > 0 ? 22 : 0;

  std::string s;
  s.reserve(4096 + p.buffers.size() * 80);
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(W) + "\" height=\"" + num(total_h) +
       "\" viewBox=\"0 0 " + num(W) + " " + num(total_h) + "\" font-family=\"sans-serif\">\n";
  s +=
      "<style>\n"
      ".title{font-size:14px;font-weight:bold} .sub{font-size:12px;fill:#333} "
      ".note{font-size:11px;fill:#555}\n"
      ".tick{font-size:10px;fill:#333} .axis{stroke:#333;stroke-width:1} .grid{stroke:#ddd;stroke-width:.5}\n"
      ".lbl{font-size:10px;text-anchor:middle;fill:#111} .b{fill-opacity:.85}\n"
      ".outlined .b{stroke:#222;stroke-width:.5}\n"
      ".cap{stroke:#000;stroke-width:1.5} .peak{stroke:#d62728;stroke-width:1.5;stroke-dasharray:6 3}\n"
      ".lb{stroke:#1f4e9c;stroke-width:1.2;stroke-dasharray:2 2} "
      ".pb{stroke:#2ca02c;stroke-width:1.2;stroke-dasharray:8 2 2 2}\n"
      ".res{fill:url(#hatch);stroke:#777;stroke-width:.5}\n";
  for (std::size_t c = 0; c < palette.size(); ++c)
    s += ".c" + std::to_string(c) + "{fill:" + palette[c] + "} ";
  s += "\n</style>\n";
  s += "<defs><pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
       "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f2f2f2\"/>"
       "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" stroke-width=\"2\"/></pattern></defs>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  if (na == 0) s += "<text class=\"title\" x=\"" + num(left) + "\" y=\"30\">no arenas</text>\n";
  bool any_proved = false;  // a proved bound above the max-load bound somewhere: it gets its own line
  for (std::size_t k = 0; k < na && k < opt.proved_bound.size(); ++k)
    any_proved = any_proved || opt.proved_bound[k] > loads[k].lower_bound;
  if (na > 0) {
    // The legend, once for every panel: what each line and fill means.
    struct Entry {
      std::string swatch, text;
    };
    std::vector<Entry> entries = {
        {"<line class=\"cap swatch\" x1=\"0\" y1=\"6\" x2=\"22\" y2=\"6\"/>", "capacity"},
        {"<line class=\"peak swatch\" x1=\"0\" y1=\"6\" x2=\"22\" y2=\"6\"/>", "peak"},
        {"<line class=\"lb swatch\" x1=\"0\" y1=\"6\" x2=\"22\" y2=\"6\"/>", "max-load bound"}};
    if (any_proved)
      entries.push_back({"<line class=\"pb swatch\" x1=\"0\" y1=\"6\" x2=\"22\" y2=\"6\"/>", "proved bound"});
    entries.push_back(
        {"<rect class=\"res swatch\" x=\"0\" y=\"0\" width=\"22\" height=\"12\"/>", "reserved window"});
    entries.push_back(
        {"<rect class=\"c0 swatch\" fill-opacity=\".85\" x=\"0\" y=\"0\" width=\"22\" height=\"12\"/>",
         "buffer (x: live, y: bytes)"});
    s += "<g class=\"legend\">\n";
    double x = left;
    for (const auto& e : entries) {
      s += "<g transform=\"translate(" + num(x) + " 6)\">" + e.swatch +
           "<text class=\"note\" x=\"28\" y=\"10\">" + e.text + "</text></g>\n";
      x += 40 + 6.2 * static_cast<double>(e.text.size());
    }
    s += "</g>\n";
  }

  for (std::size_t k = 0; k < na; ++k) {
    const Arena& arena = p.arenas[k];
    const double y0 = legend_h + H * static_cast<double>(k);
    const double px0 = left, px1 = W - right, py0 = y0 + top, py1 = y0 + H - bottom;
    const Addr peak = k < objective.peak_by_arena.size() ? objective.peak_by_arena[k] : 0;
    const Addr lb = loads[k].lower_bound;  // the max-load bound
    const Addr proved = k < opt.proved_bound.size() ? std::max(opt.proved_bound[k], lb) : lb;
    const Addr bound = proved;  // peak/bound is against the strongest bound known
    std::vector<std::string> notes;

    // Address axis: up to the capacity when it is at most twice the peak,
    // else up to the peak (a capacity far above would squash every buffer
    // into a thin band). A capacity the problem did not give is not drawn.
    const bool real_capacity = arena.capacity != unbounded[k];
    Addr ytop = std::max<Addr>({peak, proved, 1});
    const bool show_capacity = real_capacity && arena.capacity / 2 <= ytop;
    if (show_capacity)
      ytop = std::max(ytop, arena.capacity);
    else if (real_capacity)
      notes.push_back("capacity " + grouped(arena.capacity) +
                      " B is far above the peak and not drawn to scale");
    const double tspan = static_cast<double>(t1 - t0);
    auto X = [&](Tick t) { return px0 + static_cast<double>(t - t0) / tspan * (px1 - px0); };
    auto Y = [&](Addr a) {
      return py1 - static_cast<double>(std::min(a, ytop)) / static_cast<double>(ytop) * (py1 - py0);
    };

    // Title.
    std::string title =
        escape(labels[k]) + ": peak " + grouped(peak) + " B, max-load bound " + grouped(lb) + " B";
    if (proved > lb) title += ", proved bound " + grouped(proved) + " B";
    if (bound > 0)
      title += " (peak/bound " + num3(static_cast<double>(peak) / static_cast<double>(bound)) + ")";
    s += "<g class=\"arena\" id=\"arena-" + std::to_string(k) + "\">\n";
    s += "<text class=\"title\" x=\"" + num(px0) + "\" y=\"" + num(y0 + 20) + "\">" + title + "</text>\n";
    s += "<text class=\"sub\" x=\"" + num(px0) + "\" y=\"" + num(y0 + 38) + "\">" +
         (real_capacity ? "capacity " + grouped(arena.capacity) + " B" : std::string("no capacity given")) +
         ", " + count_of(members[k].size(), "buffer") + ", " + std::to_string(loads[k].max_live) +
         " live at most</text>\n";

    // Grid and axes.
    const std::uint64_t ystep = tick_step(ytop, 8);
    for (std::uint64_t a = 0; a <= ytop; a += ystep) {
      s += "<line class=\"grid\" x1=\"" + num(px0) + "\" y1=\"" + num(Y(a)) + "\" x2=\"" + num(px1) +
           "\" y2=\"" + num(Y(a)) + "\"/><text class=\"tick\" x=\"" + num(px0 - 6) + "\" y=\"" +
           num(Y(a) + 3.5) + "\" text-anchor=\"end\">" + compact(static_cast<std::int64_t>(a)) + "</text>\n";
      if (a > ytop - ystep) break;
    }
    const auto tstep = static_cast<Tick>(tick_step(static_cast<std::uint64_t>(t1 - t0), 10));
    // The first multiple of the step at or after t0 (t0 >= 0 in a valid problem).
    const Tick first_tick = t0 % tstep == 0 ? t0 : t0 - t0 % tstep + (t0 > 0 ? tstep : 0);
    for (Tick t = first_tick; t <= t1; t += tstep) {
      s += "<line class=\"axis\" x1=\"" + num(X(t)) + "\" y1=\"" + num(py1) + "\" x2=\"" + num(X(t)) +
           "\" y2=\"" + num(py1 + 4) + "\"/><text class=\"tick\" x=\"" + num(X(t)) + "\" y=\"" +
           num(py1 + 15) + "\" text-anchor=\"middle\">" + compact(t) + "</text>\n";
      if (t > t1 - tstep) break;
    }
    s += "<line class=\"axis\" x1=\"" + num(px0) + "\" y1=\"" + num(py1) + "\" x2=\"" + num(px1) +
         "\" y2=\"" + num(py1) + "\"/><line class=\"axis\" x1=\"" + num(px0) + "\" y1=\"" + num(py0) +
         "\" x2=\"" + num(px0) + "\" y2=\"" + num(py1) + "\"/>\n";
    s += "<text class=\"tick\" x=\"" + num((px0 + px1) / 2) + "\" y=\"" + num(py1 + 30) +
         "\" text-anchor=\"middle\">time (program point)</text>\n";
    s += "<text class=\"tick\" transform=\"translate(" + num(16) + " " + num((py0 + py1) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">address (bytes)</text>\n";

    // Reserved windows, hatched over the whole time range.
    for (const auto& r : arena.reserved) {
      if (r.empty()) continue;
      s += "<rect class=\"res\" x=\"" + num(px0) + "\" y=\"" + num(Y(r.end)) + "\" width=\"" +
           num(px1 - px0) + "\" height=\"" + num(std::max(Y(r.begin) - Y(r.end), 0.5)) +
           "\"><title>reserved [" + std::to_string(r.begin) + ", " + std::to_string(r.end) +
           ")</title></rect>\n";
    }

    // Buffers.
    const bool detailed = members[k].size() <= opt.detail_limit;
    std::size_t unplaced = 0, above = 0;
    std::string text_labels;
    s += detailed ? "<g class=\"buffers outlined\">\n" : "<g class=\"buffers\">\n";
    for (std::size_t i : members[k]) {
      const auto off = offset(i);
      if (!off) {
        ++unplaced;
        continue;
      }
      const auto& b = p.buffers[i];
      const std::string label = buffer_label(p, static_cast<BufferId>(i));
      const Addr end = checked_add(*off, b.size).value_or(max_addr);
      if (end > ytop) ++above;
      const double x = X(b.lifetime.begin), w = std::max(X(b.lifetime.end) - x, 0.5);
      const double y = Y(end), h = std::max(Y(std::min(*off, ytop)) - y, 0.5);
      s += "<rect class=\"b c" + std::to_string(colour_of(label)) + "\" x=\"" + num(x) + "\" y=\"" + num(y) +
           "\" width=\"" + num(w) + "\" height=\"" + num(h) + "\"";
      if (detailed) {
        s += "><title>" + escape(label) + ": bytes [" + std::to_string(*off) + ", " + std::to_string(end) +
             "), live [" + std::to_string(b.lifetime.begin) + ", " + std::to_string(b.lifetime.end) +
             "), size " + std::to_string(b.size) + "</title></rect>\n";
        if (w >= 6.0 * static_cast<double>(label.size()) + 4 && h >= 12)
          text_labels += "<text class=\"lbl\" x=\"" + num(x + w / 2) + "\" y=\"" + num(y + h / 2 + 3.5) +
                         "\">" + escape(label) + "</text>\n";
      } else {
        s += "/>\n";
      }
    }
    s += "</g>\n";
    s += text_labels;
    if (!detailed)
      notes.push_back(count_of(members[k].size(), "buffer") +
                      ": outlines, labels and tooltips left out (more than " +
                      std::to_string(opt.detail_limit) + "); every placed buffer is drawn");
    if (unplaced > 0)
      notes.push_back(count_of(unplaced, "buffer") + (unplaced == 1 ? " has no offset and is not drawn"
                                                                    : " have no offset and are not drawn"));
    if (above > 0)
      notes.push_back(count_of(above, "buffer") + (above == 1
                                                       ? " ends above the chart and is clipped at its top"
                                                       : " end above the chart and are clipped at its top"));

    // Capacity, peak and lower-bound lines, labelled in the right margin
    // (labels pushed apart when the lines are close).
    struct Mark {
      double y;
      std::string cls, text;
    };
    std::vector<Mark> marks;
    if (show_capacity) marks.push_back({Y(arena.capacity), "cap", "capacity " + grouped(arena.capacity)});
    if (peak == lb) {
      marks.push_back({Y(peak), "peak", "peak = max-load bound " + grouped(peak)});
    } else if (peak == proved) {
      marks.push_back({Y(peak), "peak", "peak = proved bound " + grouped(peak)});
      marks.push_back({Y(lb), "lb", "max-load bound " + grouped(lb)});
    } else {
      marks.push_back({Y(peak), "peak", "peak " + grouped(peak)});
      marks.push_back({Y(lb), "lb", "max-load bound " + grouped(lb)});
      if (proved > lb) marks.push_back({Y(proved), "pb", "proved bound " + grouped(proved)});
    }
    for (const auto& m : marks)
      s += "<line class=\"" + m.cls + "\" x1=\"" + num(px0) + "\" y1=\"" + num(m.y) + "\" x2=\"" + num(px1) +
           "\" y2=\"" + num(m.y) + "\"/>\n";
    std::sort(marks.begin(), marks.end(),
              [](const Mark& a, const Mark& b) { return a.y < b.y || (a.y == b.y && a.cls < b.cls); });
    double last = -1e9;
    for (auto& m : marks) {
      const double ty = std::max(m.y + 4, last + 13);
      last = ty;
      s += "<text class=\"note\" x=\"" + num(px1 + 6) + "\" y=\"" + num(ty) + "\">" + escape(m.text) +
           "</text>\n";
    }

    std::string caption;
    for (const auto& n : notes) caption += (caption.empty() ? "" : "; ") + n;
    if (!caption.empty())
      s += "<text class=\"note\" x=\"" + num(px0) + "\" y=\"" + num(py1 + 46) + "\">" + escape(caption) +
           "</text>\n";
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

PTO_MEM_IO_INLINE Diagnostics write_svg_file(const std::filesystem::path& path, const Problem& p,
                                             const Placement& pl, const SvgOptions& opt) {
  if (auto bad = write_file_atomically(path, svg_memory_map(p, pl, opt))) return {*bad};
  return {};
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
