// pto_mem._pto_mem: the problem model, the file formats, the validator, the
// lower bound and the SVG memory map. The planner (plan.cpp) and the
// tile-memory passes (compile.cpp) are bound in their own translation units.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/dsa_schema.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/json_problem_reader.hpp"
#include "pto_mem/io/svg.hpp"

namespace pto_mem::python {

namespace {

std::string quote_name(const std::string& name) { return "'" + name + "'"; }

/// `list[k]`, the way a Python user indexes the problem's lists.
std::string list_entry(const char* list, std::size_t k) {
  return std::string(list) + "[" + std::to_string(k) + "]";
}

}  // namespace

BuiltProblem build_problem(const PyProblem& p) {
  BuiltProblem built;
  ProblemFile& f = built.file;
  Problem& out = f.problem;
  Diagnostics& bad = built.names;
  auto err = [&](std::string m) { bad.push_back(error(std::move(m))); };
  out.buffers.reserve(p.buffers->size());
  for (const auto& b : *p.buffers) out.buffers.push_back(*b);

  // Each name to its buffer, built once. `repeated` lists every buffer of a
  // name more than one buffer has (rare: only then is it filled).
  std::unordered_map<std::string_view, BufferId> index;
  std::unordered_map<std::string_view, std::vector<BufferId>> repeated;
  index.reserve(out.buffers.size());
  for (std::size_t i = 0; i < out.buffers.size(); ++i) {
    const std::string& name = out.buffers[i].name;
    const auto id = static_cast<BufferId>(i);
    if (name.empty()) {
      err(list_entry("buffers", i) + " has an empty name; give every buffer a name of its own");
      continue;
    }
    const auto [it, fresh] = index.emplace(name, id);
    if (fresh) continue;
    auto& all = repeated[name];
    if (all.empty()) all.push_back(it->second);
    all.push_back(id);
    err(list_entry("buffers", i) + " is named " + quote_name(name) + ", as " +
        list_entry("buffers", it->second) + " is; give every buffer a name of its own");
  }
  // The buffer `name` stands for in `what`, or an error naming both.
  auto resolve = [&](const std::string& name, auto&& what) -> std::optional<BufferId> {
    const auto it = index.find(name);
    if (it == index.end()) {
      err(what() + " names unknown buffer " + quote_name(name) +
          "; no buffer in problem.buffers has that name");
      return std::nullopt;
    }
    if (const auto r = repeated.find(name); r != repeated.end()) {
      std::string which;
      for (std::size_t k = 0; k < r->second.size(); ++k)
        which += (k == 0                      ? ""
                  : k + 1 == r->second.size() ? " and "
                                              : ", ") +
                 list_entry("buffers", r->second[k]);
      err(what() + " names " + quote_name(name) + ", which " + std::to_string(r->second.size()) +
          " buffers are named (" + which + "); rename all but one");
      return std::nullopt;
    }
    return it->second;
  };
  auto pair_text = [](const std::string& a, const std::string& b) {
    return " (" + quote_name(a) + ", " + quote_name(b) + ")";
  };

  // The constraints, in the order the validator checks them.
  std::vector<Separation> separations;
  separations.reserve(p.separations->size());
  for (std::size_t k = 0; k < p.separations->size(); ++k) {
    const auto& s = *(*p.separations)[k];
    auto what = [&] { return list_entry("separations", k) + pair_text(s.a, s.b); };
    const auto a = resolve(s.a, what), b = resolve(s.b, what);
    if (a && b) separations.push_back(Separation{*a, *b, s.reasons});
  }
  std::vector<Penalty> penalties;
  penalties.reserve(p.penalties->size());
  for (std::size_t k = 0; k < p.penalties->size(); ++k) {
    const auto& x = *(*p.penalties)[k];
    auto what = [&] { return list_entry("penalties", k) + pair_text(x.a, x.b); };
    const auto a = resolve(x.a, what), b = resolve(x.b, what);
    if (a && b) penalties.push_back(Penalty{*a, *b, x.weight});
  }
  std::vector<MustAliasGroup> groups;
  groups.reserve(p.must_alias->size());
  for (std::size_t k = 0; k < p.must_alias->size(); ++k) {
    MustAliasGroup g;
    for (const auto& m : (*p.must_alias)[k]->members)
      if (auto id = resolve(m.buffer, [&] { return list_entry("must_alias", k); }))
        g.members.push_back(AliasMember{*id, m.offset});
    groups.push_back(std::move(g));
  }
  std::vector<DeclaredAllocation> declared;
  declared.reserve(p.declared->size());
  for (std::size_t k = 0; k < p.declared->size(); ++k) {
    const auto& d = *(*p.declared)[k];
    DeclaredAllocation out_d{0, d.slots, d.slot_size, {}};
    if (auto id = resolve(d.buffer, [&] { return list_entry("declared", k); })) out_d.buffer = *id;
    for (const auto& bind : d.bindings)
      if (auto id = resolve(bind.buffer, [&] {
            return list_entry("declared", k) + " (" + quote_name(d.buffer) + "): a binding";
          }))
        out_d.bindings.push_back(SlotBinding{*id, bind.slot});
    declared.push_back(std::move(out_d));
  }
  std::vector<Exclusion> exclusions;
  exclusions.reserve(p.exclusions->size());
  for (std::size_t k = 0; k < p.exclusions->size(); ++k) {
    const auto& x = *(*p.exclusions)[k];
    auto what = [&] { return list_entry("exclusions", k) + pair_text(x.a, x.b); };
    const auto a = resolve(x.a, what), b = resolve(x.b, what);
    if (a && b) exclusions.push_back(Exclusion{*a, *b});
  }
  std::optional<std::vector<Conflict>> graph;
  if (p.conflict_graph) {
    graph.emplace();
    graph->reserve(p.conflict_graph->size());
    for (std::size_t k = 0; k < p.conflict_graph->size(); ++k) {
      const auto& c = *(*p.conflict_graph)[k];
      auto what = [&] { return list_entry("conflict_graph", k) + pair_text(c.a, c.b); };
      const auto a = resolve(c.a, what), b = resolve(c.b, what);
      if (a && b) graph->push_back(Conflict{*a, *b});
    }
  }
  if (bad.empty()) {  // only a problem whose every name resolved gets its constraints
    out.exclusions = std::move(exclusions);
    out.conflict_graph = std::move(graph);
    out.separations = std::move(separations);
    out.penalties = std::move(penalties);
    out.must_alias = std::move(groups);
    out.declared = std::move(declared);
  }

  for (const auto& a : *p.arenas) {
    out.arenas.push_back(Arena{a->id, a->name, a->capacity.value_or(0), a->reserved});
    f.no_capacity.push_back(!a->capacity.has_value());
  }
  // After every arena and buffer is in: the capacity depends on them all.
  if (std::find(f.no_capacity.begin(), f.no_capacity.end(), true) != f.no_capacity.end()) {
    const auto fitting = always_fitting_capacities(out);
    for (std::size_t k = 0; k < out.arenas.size(); ++k)
      if (f.no_capacity[k]) out.arenas[k].capacity = fitting[k];
  }
  return built;
}

ProblemFile to_problem(const PyProblem& p) {
  BuiltProblem built = build_problem(p);
  raise_if_errors(built.names);
  return std::move(built.file);
}

PyProblem from_problem(Problem p, const std::vector<bool>& no_capacity) {
  PyProblem out;
  const auto fitting = always_fitting_capacities(p);
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    Arena& a = p.arenas[k];
    const bool none = (k < no_capacity.size() && no_capacity[k]) || a.capacity == fitting[k];
    out.arenas->push_back(std::make_shared<ArenaItem>(
        ArenaItem{a.id, std::move(a.name), none ? std::nullopt : std::optional<Addr>(a.capacity),
                  std::move(a.reserved)}));
  }
  // Python names every buffer: one without a name gets its label.
  auto label = [&](BufferId b) { return buffer_label(p, b); };
  for (const auto& g : p.must_alias) {
    auto item = std::make_shared<MustAliasItem>();
    for (const auto& m : g.members) item->members.push_back(AliasMemberItem{label(m.buffer), m.offset});
    out.must_alias->push_back(std::move(item));
  }
  for (const auto& s : p.separations)
    out.separations->push_back(
        std::make_shared<SeparationItem>(SeparationItem{label(s.a), label(s.b), s.reasons}));
  for (const auto& x : p.penalties)
    out.penalties->push_back(std::make_shared<PenaltyItem>(PenaltyItem{label(x.a), label(x.b), x.weight}));
  for (const auto& d : p.declared) {
    auto item = std::make_shared<DeclaredItem>(DeclaredItem{label(d.buffer), d.slots, d.slot_size, {}});
    for (const auto& bind : d.bindings)
      item->bindings.push_back(SlotBindingItem{label(bind.buffer), bind.slot});
    out.declared->push_back(std::move(item));
  }
  for (const auto& x : p.exclusions)
    out.exclusions->push_back(std::make_shared<ExclusionItem>(ExclusionItem{label(x.a), label(x.b)}));
  if (p.conflict_graph) {
    out.conflict_graph = std::make_shared<Items<ConflictItem>>();
    out.conflict_graph->reserve(p.conflict_graph->size());
    for (const auto& c : *p.conflict_graph)
      out.conflict_graph->push_back(std::make_shared<ConflictItem>(ConflictItem{label(c.a), label(c.b)}));
  }
  out.buffers->reserve(p.buffers.size());
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    BufferSpec& b = p.buffers[i];
    if (b.name.empty()) b.name = label(static_cast<BufferId>(i));
    out.buffers->push_back(std::make_shared<BufferSpec>(std::move(b)));
  }
  return out;
}

std::int64_t to_int64(Addr v) {
  if (v > static_cast<Addr>(std::numeric_limits<std::int64_t>::max()))
    throw py::value_error("offset " + std::to_string(v) + " does not fit a NumPy int64 (at most 2**63 - 1)");
  return static_cast<std::int64_t>(v);
}

namespace {

/// A buffer name from Python: a str, or an int written in decimal.
std::string buffer_name_from(py::handle h, const char* what) {
  if (py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) return py::str(h).cast<std::string>();
  throw py::type_error(std::string(what) + " must be a str or an int, not " + type_name(h));
}

std::string name_from(py::handle h, const char* what) {
  if (!py::isinstance<py::str>(h))
    throw py::type_error(std::string(what) + " must be a str, not " + type_name(h));
  return h.cast<std::string>();
}

/// A (begin, end) pair of any two-element sequence.
std::pair<py::object, py::object> pair_from(py::handle h, const std::string& what) {
  if (!py::isinstance<py::sequence>(h) || py::isinstance<py::str>(h))
    throw py::type_error(what + " must be a pair (begin, end), not " + type_name(h));
  auto s = py::reinterpret_borrow<py::sequence>(h);
  if (s.size() != 2)
    throw py::value_error(what + " must be a pair (begin, end), not " + std::to_string(s.size()) + " values");
  return {s[0], s[1]};
}

Interval lifetime_from(py::handle h) {
  auto [b, e] = pair_from(h, "lifetime");
  return Interval{integer_from<Tick>(b, "lifetime begin"), integer_from<Tick>(e, "lifetime end")};
}

/// A buffer's live intervals: any iterable of (begin, end) pairs; each
/// error names the entry (`live[1]`) and the bad value.
std::vector<Interval> live_from(py::handle items) {
  std::vector<Interval> out;
  if (items.is_none()) return out;
  if (py::isinstance<py::str>(items) || !py::hasattr(items, "__iter__"))
    throw py::type_error("live must be a list of (begin, end) pairs, not " + type_name(items));
  std::size_t k = 0;
  for (py::handle h : py::iter(items)) {
    const std::string what = "live[" + std::to_string(k++) + "]";
    auto [b, e] = pair_from(h, what);
    out.push_back(Interval{integer_from<Tick>(b, what + " begin"), integer_from<Tick>(e, what + " end")});
  }
  return out;
}

/// A pin: None, an offset (a shared pin) or a Pin.
std::optional<Pin> pin_from(py::handle h) {
  if (h.is_none()) return std::nullopt;
  if (py::isinstance<Pin>(h)) return h.cast<Pin>();
  if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
    throw py::type_error("pin must be an int offset, a pto_mem.Pin or None, not " + type_name(h));
  return Pin{addr_from(h, "pin"), false};
}

/// Candidate arenas: any iterable of arena ids, most preferred first.
std::vector<std::int64_t> candidates_from(py::handle items) {
  std::vector<std::int64_t> out;
  if (items.is_none()) return out;
  if (py::isinstance<py::str>(items) || !py::hasattr(items, "__iter__"))
    throw py::type_error("candidate_arenas must be a list of arena ids, not " + type_name(items));
  std::size_t k = 0;
  for (py::handle h : py::iter(items))
    out.push_back(integer_from<std::int64_t>(h, "candidate_arenas[" + std::to_string(k++) + "]"));
  return out;
}

py::list intervals_list(const std::vector<Interval>& v) {
  py::list out;
  for (const auto& i : v) out.append(py::make_tuple(i.begin, i.end));
  return out;
}

std::string pin_text(const Pin& p) {
  return "Pin(" + std::to_string(p.offset) + (p.exclusive ? ", exclusive=True)" : ")");
}

std::vector<AddrRange> ranges_from(py::handle items) {
  std::vector<AddrRange> out;
  for (py::handle h : py::iter(items)) {
    auto [b, e] = pair_from(h, "a reserved window");
    out.push_back(
        AddrRange{addr_from(b, "a reserved window's begin"), addr_from(e, "a reserved window's end")});
  }
  return out;
}

std::vector<AliasMemberItem> members_from(py::handle items) {
  std::vector<AliasMemberItem> out;
  for (py::handle h : py::iter(items)) {
    if (py::isinstance<AliasMemberItem>(h))
      out.push_back(h.cast<AliasMemberItem>());
    else if (py::isinstance<py::tuple>(h)) {
      auto t = h.cast<py::tuple>();
      if (t.size() != 2) throw py::value_error("a must-alias member tuple is (buffer name, offset)");
      out.push_back(AliasMemberItem{buffer_name_from(t[0], "a member's buffer"), addr_from(t[1], "offset")});
    } else {
      out.push_back(AliasMemberItem{buffer_name_from(h, "a member's buffer"), 0});
    }
  }
  return out;
}

std::vector<SlotBindingItem> bindings_from(py::handle items) {
  std::vector<SlotBindingItem> out;
  for (py::handle h : py::iter(items)) {
    if (!py::isinstance<SlotBindingItem>(h))
      throw py::type_error("bindings must be SlotBinding objects, not " + type_name(h));
    out.push_back(h.cast<SlotBindingItem>());
  }
  return out;
}

std::optional<std::uint32_t> slot_from(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return integer_from<std::uint32_t>(h, "slot");
}

std::string quoted(const std::string& s) { return py::repr(py::str(s)).cast<std::string>(); }

/// Raises InputError when the problem uses a structure (live intervals,
/// pins, candidate arenas, exclusions, a conflict graph) that `format` has
/// no field for: writing the file would drop it silently.
void refuse_structure(const Problem& p, const char* format) {
  std::string what;
  if (!p.exclusions.empty())
    what = "problem.exclusions";
  else if (p.conflict_graph)
    what = "problem.conflict_graph";
  for (std::size_t i = 0; i < p.buffers.size() && what.empty(); ++i) {
    const BufferSpec& b = p.buffers[i];
    const char* field = !b.live.empty()               ? "live"
                        : b.pin                       ? "pin"
                        : !b.candidate_arenas.empty() ? "candidate_arenas"
                                                      : nullptr;
    if (field) what = "buffers[" + std::to_string(i) + "] (" + quote_name(b.name) + ")." + field;
  }
  if (what.empty()) return;
  const std::string m = std::string("the ") + format + " format has no field for " + what +
                        " yet; writing the problem would drop it. Plan and validate the problem from Python, "
                        "or remove the structure before writing it";
  raise_error("InputError", m, Diagnostics{error(m)});
}

ProblemFile read_or_raise(ReadResult r) {
  raise_if_errors(r.diagnostics);
  if (!r.file) raise_error("InputError", "the file holds no problem", r.diagnostics);
  return std::move(*r.file);
}

CsvOptions csv_options(const py::object& capacity) {
  CsvOptions o;
  if (!capacity.is_none()) o.capacity = addr_from(capacity, "capacity", 1);  // as --capacity
  return o;
}

bool is_json_path(const std::filesystem::path& path) {
  auto ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".json";
}

py::list offsets_list(const Placement& pl) {
  py::list out;
  for (const auto& o : pl.offsets) {
    if (o)
      out.append(to_int(*o));
    else
      out.append(py::none());
  }
  return out;
}

// ---- the problem's lists -----------------------------------------------------

/// The element `h` as T (shared: the list holds that very object), or
/// TypeError naming the list's element type.
template <class T>
std::shared_ptr<T> element_from(py::handle h, const char* element) {
  if (h.is_none() || !py::isinstance<T>(h))
    throw py::type_error(std::string("this list holds pto_mem.") + element + " objects, not " + type_name(h));
  return h.cast<std::shared_ptr<T>>();
}

template <class T>
std::shared_ptr<Items<T>> items_from(py::handle iterable, const char* element) {
  auto out = std::make_shared<Items<T>>();
  if (iterable.is_none()) return out;
  if (py::isinstance<ItemList<T>>(iterable)) {
    *out = *iterable.cast<const ItemList<T>&>().items;  // the same elements, a new list
    return out;
  }
  for (py::handle h : py::iter(iterable)) out->push_back(element_from<T>(h, element));
  return out;
}

/// A position in a list of n elements (negative counts from the end), or IndexError.
std::size_t position(py::handle index, std::size_t n) {
  const auto i = integer_from<std::int64_t>(index, "a list index");
  const std::int64_t k = i < 0 ? i + static_cast<std::int64_t>(n) : i;
  if (k < 0 || k >= static_cast<std::int64_t>(n)) throw py::index_error("list index out of range");
  return static_cast<std::size_t>(k);
}

/// The positions a slice selects, in order.
std::vector<std::size_t> slice_positions(const py::slice& s, std::size_t n, std::size_t& start,
                                         std::size_t& stop, std::ptrdiff_t& step) {
  std::size_t length = 0;
  py::ssize_t b = 0, e = 0, st = 0;
  Py_ssize_t len = 0;
  if (PySlice_GetIndicesEx(s.ptr(), static_cast<Py_ssize_t>(n), &b, &e, &st, &len) != 0)
    throw py::error_already_set();
  length = static_cast<std::size_t>(len);
  std::vector<std::size_t> out;
  out.reserve(length);
  for (std::size_t k = 0; k < length; ++k)
    out.push_back(static_cast<std::size_t>(b + static_cast<py::ssize_t>(k) * st));
  start = static_cast<std::size_t>(b);
  stop = static_cast<std::size_t>(std::max<py::ssize_t>(e, b));
  step = st;
  return out;
}

/// Binds ItemList<T> as a Python mutable sequence with the methods of a
/// Python list. Elements are shared objects (see model.hpp); `==`, `in`,
/// index, count and remove compare them by identity, as a list of objects
/// without value equality does.
template <class T>
void bind_list(py::module_& m, const char* name, const char* element) {
  using L = ItemList<T>;
  auto elements = [](const L& l) -> py::list {
    py::list out;
    for (const auto& x : *l.items) out.append(py::cast(x));
    return out;
  };
  auto find = [](const L& l, py::handle x) -> std::optional<std::size_t> {
    if (!py::isinstance<T>(x)) return std::nullopt;
    const T* want = x.cast<const T*>();
    for (std::size_t i = 0; i < l.items->size(); ++i)
      if ((*l.items)[i].get() == want) return i;
    return std::nullopt;
  };
  std::string doc =
      std::string("The problem's list of ") + element +
      " objects: a live view with the methods of a Python list. Its elements are shared objects: "
      "`x = lst[0]` stays that element whatever happens to the list.";
  py::class_<L>(m, name, doc.c_str())
      .def("__len__", [](const L& l) { return l.items->size(); })
      .def("__bool__", [](const L& l) { return !l.items->empty(); })
      .def("__getitem__",
           [elements](const L& l, py::handle index) -> py::object {
             if (py::isinstance<py::slice>(index)) {
               std::size_t a = 0, b = 0;
               std::ptrdiff_t st = 1;
               py::list out;
               for (auto k : slice_positions(index.cast<py::slice>(), l.items->size(), a, b, st))
                 out.append(py::cast((*l.items)[k]));
               return out;
             }
             return py::cast((*l.items)[position(index, l.items->size())]);
           })
      .def("__setitem__",
           [element](L& l, py::handle index, py::handle value) {
             if (!py::isinstance<py::slice>(index)) {
               auto x = element_from<T>(value, element);
               (*l.items)[position(index, l.items->size())] = std::move(x);
               return;
             }
             Items<T> incoming = *items_from<T>(value, element);  // all checked before anything changes
             std::size_t a = 0, b = 0;
             std::ptrdiff_t st = 1;
             const auto ks = slice_positions(index.cast<py::slice>(), l.items->size(), a, b, st);
             if (st == 1) {
               Items<T>& v = *l.items;
               v.erase(v.begin() + static_cast<std::ptrdiff_t>(a),
                       v.begin() + static_cast<std::ptrdiff_t>(b));
               v.insert(v.begin() + static_cast<std::ptrdiff_t>(a), incoming.begin(), incoming.end());
               return;
             }
             if (ks.size() != incoming.size())
               throw py::value_error("attempt to assign sequence of size " + std::to_string(incoming.size()) +
                                     " to extended slice of size " + std::to_string(ks.size()));
             for (std::size_t j = 0; j < ks.size(); ++j) (*l.items)[ks[j]] = incoming[j];
           })
      .def("__delitem__",
           [](L& l, py::handle index) {
             Items<T>& v = *l.items;
             if (!py::isinstance<py::slice>(index)) {
               v.erase(v.begin() + static_cast<std::ptrdiff_t>(position(index, v.size())));
               return;
             }
             std::size_t a = 0, b = 0;
             std::ptrdiff_t st = 1;
             const auto ks = slice_positions(index.cast<py::slice>(), v.size(), a, b, st);
             std::vector<bool> gone(v.size(), false);
             for (auto k : ks) gone[k] = true;
             Items<T> kept;
             kept.reserve(v.size() - ks.size());
             for (std::size_t k = 0; k < v.size(); ++k)
               if (!gone[k]) kept.push_back(std::move(v[k]));
             v = std::move(kept);
           })
      .def("__iter__", [elements](const L& l) { return py::iter(elements(l)); })  // a snapshot
      .def("__reversed__",
           [elements](const L& l) {
             py::list out = elements(l);
             out.attr("reverse")();
             return py::iter(out);
           })
      .def("__contains__", [find](const L& l, py::handle x) { return find(l, x).has_value(); })
      .def("__eq__",
           [elements](const L& l, py::handle other) -> py::object {
             if (py::isinstance<L>(other))
               return py::bool_(elements(l).equal(elements(other.cast<const L&>())));
             if (py::isinstance<py::list>(other)) return py::bool_(elements(l).equal(other));
             return py::reinterpret_borrow<py::object>(Py_NotImplemented);
           })
      .def("__repr__", [elements](const L& l) { return std::string(py::repr(elements(l))); })
      .def(
          "append", [element](L& l, py::handle x) { l.items->push_back(element_from<T>(x, element)); },
          py::arg("x"), "Append the object (the list then holds that very object).")
      .def(
          "extend",
          [element](L& l, py::handle xs) {
            Items<T> incoming = *items_from<T>(xs, element);
            l.items->insert(l.items->end(), incoming.begin(), incoming.end());
          },
          py::arg("iterable"))
      .def("__iadd__",
           [element](L& l, py::handle xs) {
             Items<T> incoming = *items_from<T>(xs, element);
             l.items->insert(l.items->end(), incoming.begin(), incoming.end());
             return l;
           })
      .def(
          "insert",
          [element](L& l, py::handle index, py::handle x) {
            auto e = element_from<T>(x, element);
            const auto n = static_cast<std::int64_t>(l.items->size());
            std::int64_t i = integer_from<std::int64_t>(index, "a list index");
            if (i < 0) i = std::max<std::int64_t>(0, i + n);
            i = std::min(i, n);
            l.items->insert(l.items->begin() + i, std::move(e));
          },
          py::arg("index"), py::arg("x"))
      .def(
          "pop",
          [](L& l, py::object index) {
            if (l.items->empty()) throw py::index_error("pop from empty list");
            const std::size_t k = index.is_none() ? l.items->size() - 1 : position(index, l.items->size());
            std::shared_ptr<T> x = (*l.items)[k];
            l.items->erase(l.items->begin() + static_cast<std::ptrdiff_t>(k));
            return x;
          },
          py::arg("index") = py::none())
      .def(
          "remove",
          [find](L& l, py::handle x) {
            auto k = find(l, x);
            if (!k) throw py::value_error("list.remove(x): x not in list");
            l.items->erase(l.items->begin() + static_cast<std::ptrdiff_t>(*k));
          },
          py::arg("x"))
      .def(
          "index",
          [find](const L& l, py::handle x) {
            auto k = find(l, x);
            if (!k) throw py::value_error("the object is not in the list");
            return *k;
          },
          py::arg("x"))
      .def(
          "count",
          [](const L& l, py::handle x) {
            if (!py::isinstance<T>(x)) return std::size_t{0};
            const T* want = x.cast<const T*>();
            return static_cast<std::size_t>(std::count_if(l.items->begin(), l.items->end(),
                                                          [&](const auto& e) { return e.get() == want; }));
          },
          py::arg("x"))
      .def("clear", [](L& l) { l.items->clear(); })
      .def("copy", elements, "A plain Python list of the same elements.")
      .def("reverse", [](L& l) { std::reverse(l.items->begin(), l.items->end()); })
      .def(
          "sort",
          [elements](L& l, py::object key, bool reverse) {
            py::list tmp = elements(l);
            tmp.attr("sort")(py::arg("key") = key, py::arg("reverse") = reverse);
            Items<T> sorted;
            for (py::handle h : tmp) sorted.push_back(py::cast<std::shared_ptr<T>>(h));
            *l.items = std::move(sorted);
          },
          py::kw_only(), py::arg("key") = py::none(), py::arg("reverse") = false);
}

/// A property of a problem's list: reading gives the live view, assigning
/// any iterable of elements replaces the list (type-checked first).
template <class T>
void list_property(py::class_<PyProblem>& cls, const char* name, std::shared_ptr<Items<T>> PyProblem::*member,
                   const char* element) {
  cls.def_property(
      name, [member](const PyProblem& p) { return ItemList<T>{p.*member}; },
      [member, element](PyProblem& p, py::handle items) { p.*member = items_from<T>(items, element); });
}

/// A deep copy: new element objects with the same values.
template <class T>
std::shared_ptr<Items<T>> deep(const std::shared_ptr<Items<T>>& in) {
  auto out = std::make_shared<Items<T>>();
  out->reserve(in->size());
  for (const auto& x : *in) out->push_back(std::make_shared<T>(*x));
  return out;
}

PyProblem deep_copy(const PyProblem& p) {
  PyProblem q;
  q.arenas = deep(p.arenas);
  q.buffers = deep(p.buffers);
  q.must_alias = deep(p.must_alias);
  q.separations = deep(p.separations);
  q.penalties = deep(p.penalties);
  q.declared = deep(p.declared);
  q.exclusions = deep(p.exclusions);
  if (p.conflict_graph) q.conflict_graph = deep(p.conflict_graph);
  return q;
}

std::vector<std::string> buffer_names(const PyProblem& p) {
  std::vector<std::string> names;
  names.reserve(p.buffers->size());
  for (const auto& b : *p.buffers) names.push_back(b->name);
  return names;
}

std::string capacity_text(const std::optional<Addr>& c) { return c ? std::to_string(*c) : "None"; }

void bind_model(py::module_& m) {
  py::class_<Diagnostic>(m, "Diagnostic", "One message: what went wrong, where, and how to fix it.")
      .def_property_readonly("severity",
                             [](const Diagnostic& d) { return std::string(to_string(d.severity)); })
      .def_readonly("code", &Diagnostic::code)
      .def_readonly("message", &Diagnostic::message)
      .def_property_readonly("file",
                             [](const Diagnostic& d) -> std::optional<std::string> {
                               if (!d.location || d.location->file.empty()) return std::nullopt;
                               return d.location->file;
                             })
      .def_property_readonly("line",
                             [](const Diagnostic& d) -> std::optional<std::uint32_t> {
                               if (!d.location || d.location->line == 0) return std::nullopt;
                               return d.location->line;
                             })
      .def_property_readonly("column",
                             [](const Diagnostic& d) -> std::optional<std::uint32_t> {
                               if (!d.location || d.location->column == 0) return std::nullopt;
                               return d.location->column;
                             })
      .def("__str__", [](const Diagnostic& d) { return format(d); })
      .def("__repr__", [](const Diagnostic& d) { return "<Diagnostic " + quoted(format(d)) + ">"; });

  auto capacity_or_none = [](py::handle h) -> std::optional<Addr> {
    if (h.is_none()) return std::nullopt;
    return addr_from(h, "capacity");
  };
  py::class_<ArenaItem, std::shared_ptr<ArenaItem>>(
      m, "Arena",
      "An address space: its capacity (None: no limit was given), reserved windows no buffer may touch.")
      .def(py::init(
               [capacity_or_none](py::handle id, py::handle capacity, py::handle name, py::handle reserved) {
                 return ArenaItem{integer_from<std::int64_t>(id, "arena id"), name_from(name, "name"),
                                  capacity_or_none(capacity), ranges_from(reserved)};
               }),
           py::arg("id"), py::arg("capacity") = py::none(), py::arg("name") = "",
           py::arg("reserved") = py::tuple())
      .def_property(
          "id", [](const ArenaItem& a) { return a.id; },
          [](ArenaItem& a, py::handle v) { a.id = integer_from<std::int64_t>(v, "arena id"); })
      .def_property(
          "capacity",
          [](const ArenaItem& a) -> py::object {
            if (!a.capacity) return py::none();
            return to_int(*a.capacity);
          },
          [capacity_or_none](ArenaItem& a, py::handle v) { a.capacity = capacity_or_none(v); })
      .def_property(
          "name", [](const ArenaItem& a) { return a.name; },
          [](ArenaItem& a, py::handle v) { a.name = name_from(v, "name"); })
      .def_property(
          "reserved",
          [](const ArenaItem& a) {
            py::list out;
            for (const auto& r : a.reserved) out.append(py::make_tuple(to_int(r.begin), to_int(r.end)));
            return out;
          },
          [](ArenaItem& a, py::handle r) { a.reserved = ranges_from(r); })
      .def("__repr__", [](const ArenaItem& a) {
        std::string s = "Arena(" + std::to_string(a.id) + ", capacity=" + capacity_text(a.capacity) +
                        ", name=" + quoted(a.name);
        if (!a.reserved.empty()) {
          s += ", reserved=[";
          for (std::size_t i = 0; i < a.reserved.size(); ++i)
            s += (i ? ", (" : "(") + std::to_string(a.reserved[i].begin) + ", " +
                 std::to_string(a.reserved[i].end) + ")";
          s += "]";
        }
        return s + ")";
      });

  py::class_<Pin>(
      m, "Pin",
      "A fixed offset. An exclusive pin also keeps every other buffer of the arena off its bytes for "
      "the whole program, whatever the lifetimes.")
      .def(py::init([](py::handle offset, py::handle exclusive) {
             if (!PyBool_Check(exclusive.ptr()))
               throw py::type_error("Pin exclusive must be True or False, not " + type_name(exclusive));
             return Pin{addr_from(offset, "pin offset"), exclusive.cast<bool>()};
           }),
           py::arg("offset"), py::arg("exclusive") = false)
      .def_property_readonly("offset", [](const Pin& p) { return to_int(p.offset); })
      .def_property_readonly("exclusive", [](const Pin& p) { return p.exclusive; })
      .def("__eq__",
           [](const Pin& p, py::handle o) -> py::object {
             if (!py::isinstance<Pin>(o)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             const Pin& q = o.cast<const Pin&>();
             return py::bool_(p.offset == q.offset && p.exclusive == q.exclusive);
           })
      .def("__hash__", [](const Pin& p) { return py::hash(py::make_tuple(to_int(p.offset), p.exclusive)); })
      .def("__repr__", [](const Pin& p) { return pin_text(p); });

  // `name` is the buffer's identity in Python; `id` is its older spelling,
  // accepted as a keyword and an attribute so that code written for it runs.
  auto name_get = [](const BufferSpec& b) { return b.name; };
  py::class_<BufferSpec, std::shared_ptr<BufferSpec>>(
      m, "Buffer", "One allocation request: its name, size, alignment, arena and lifetime [begin, end).")
      .def(py::init([](py::handle name, py::handle size, py::handle lifetime, py::handle alignment,
                       py::handle arena, py::handle id, py::handle live, py::handle pin,
                       py::handle candidate_arenas) {
             if (!name.is_none() && !id.is_none())
               throw py::type_error(
                   "Buffer() got both name and id; give one (id is the older spelling of name)");
             if (name.is_none() && id.is_none())
               throw py::type_error("Buffer() missing required argument: 'name'");
             if (size.is_none()) throw py::type_error("Buffer() missing required argument: 'size'");
             BufferSpec b{buffer_name_from(name.is_none() ? id : name, name.is_none() ? "id" : "name"),
                          addr_from(size, "size"), addr_from(alignment, "alignment"), 0, Interval{}};
             b.live = live_from(live);
             b.pin = pin_from(pin);
             b.candidate_arenas = candidates_from(candidate_arenas);
             if (!lifetime.is_none())
               b.lifetime = lifetime_from(lifetime);
             else if (!b.live.empty())
               b.lifetime = Interval{b.live.front().begin, b.live.back().end};  // the hull
             else
               throw py::type_error("Buffer() missing required argument: 'lifetime' (or 'live')");
             // Without an arena, the most preferred candidate (else arena 0).
             if (!arena.is_none())
               b.arena = integer_from<std::int64_t>(arena, "arena");
             else if (!b.candidate_arenas.empty())
               b.arena = b.candidate_arenas.front();
             return b;
           }),
           py::arg("name") = py::none(), py::arg("size") = py::none(), py::arg("lifetime") = py::none(),
           py::arg("alignment") = 1, py::arg("arena") = py::none(), py::kw_only(), py::arg("id") = py::none(),
           py::arg("live") = py::none(), py::arg("pin") = py::none(),
           py::arg("candidate_arenas") = py::none())
      .def_property(
          "name", name_get, [](BufferSpec& b, py::handle v) { b.name = buffer_name_from(v, "name"); },
          "The buffer's name: constraints and offsets refer to the buffer by it.")
      .def_property(
          "id", name_get, [](BufferSpec& b, py::handle v) { b.name = buffer_name_from(v, "id"); },
          "The older spelling of `name` (the same attribute).")
      .def_property(
          "size", [](const BufferSpec& b) { return to_int(b.size); },
          [](BufferSpec& b, py::handle v) { b.size = addr_from(v, "size"); })
      .def_property(
          "alignment", [](const BufferSpec& b) { return to_int(b.alignment); },
          [](BufferSpec& b, py::handle v) { b.alignment = addr_from(v, "alignment"); })
      .def_property(
          "arena", [](const BufferSpec& b) { return b.arena; },
          [](BufferSpec& b, py::handle v) { b.arena = integer_from<std::int64_t>(v, "arena"); })
      .def_property(
          "begin", [](const BufferSpec& b) { return b.lifetime.begin; },
          [](BufferSpec& b, py::handle v) { b.lifetime.begin = integer_from<Tick>(v, "begin"); })
      .def_property(
          "end", [](const BufferSpec& b) { return b.lifetime.end; },
          [](BufferSpec& b, py::handle v) { b.lifetime.end = integer_from<Tick>(v, "end"); })
      .def_property(
          "lifetime", [](const BufferSpec& b) { return py::make_tuple(b.lifetime.begin, b.lifetime.end); },
          [](BufferSpec& b, py::handle v) { b.lifetime = lifetime_from(v); })
      .def_property(
          "live", [](const BufferSpec& b) { return intervals_list(b.live); },
          [](BufferSpec& b, py::handle v) {
            b.live = live_from(v);
            if (!b.live.empty()) b.lifetime = Interval{b.live.front().begin, b.live.back().end};
          },
          "The half-open intervals the buffer is live on (sorted, disjoint); [] = live over its whole "
          "lifetime. Assigning a non-empty list sets the lifetime to their hull.")
      .def_property(
          "pin",
          [](const BufferSpec& b) -> py::object {
            if (!b.pin) return py::none();
            return py::cast(*b.pin);
          },
          [](BufferSpec& b, py::handle v) { b.pin = pin_from(v); },
          "A fixed offset in the buffer's arena (a Pin), or None. Assign an int or a Pin.")
      .def_property(
          "candidate_arenas", [](const BufferSpec& b) { return b.candidate_arenas; },
          [](BufferSpec& b, py::handle v) {
            b.candidate_arenas = candidates_from(v);
            if (!b.candidate_arenas.empty()) b.arena = b.candidate_arenas.front();
          },
          "The arenas the planner may choose, most preferred first ([] = `arena` only). Assigning a "
          "non-empty list sets `arena` to its first entry.")
      .def("__repr__", [](const BufferSpec& b) {
        std::string s = "Buffer(" + quoted(b.name) + ", size=" + std::to_string(b.size) + ", lifetime=(" +
                        std::to_string(b.lifetime.begin) + ", " + std::to_string(b.lifetime.end) +
                        "), alignment=" + std::to_string(b.alignment) + ", arena=" + std::to_string(b.arena);
        if (!b.live.empty()) s += ", live=" + py::repr(intervals_list(b.live)).cast<std::string>();
        if (b.pin) s += ", pin=" + pin_text(*b.pin);
        if (!b.candidate_arenas.empty())
          s += ", candidate_arenas=" + py::repr(py::cast(b.candidate_arenas)).cast<std::string>();
        return s + ")";
      });

  py::class_<AliasMemberItem>(m, "AliasMember",
                              "A must-alias member, `offset` bytes above the group's start.")
      .def(py::init([](py::handle buffer, py::handle offset) {
             return AliasMemberItem{buffer_name_from(buffer, "buffer"), addr_from(offset, "offset")};
           }),
           py::arg("buffer"), py::arg("offset") = 0)
      .def_property(
          "buffer", [](const AliasMemberItem& a) { return a.buffer; },
          [](AliasMemberItem& a, py::handle v) { a.buffer = buffer_name_from(v, "buffer"); })
      .def_property(
          "offset", [](const AliasMemberItem& a) { return to_int(a.offset); },
          [](AliasMemberItem& a, py::handle v) { a.offset = addr_from(v, "offset"); })
      .def("__repr__", [](const AliasMemberItem& a) {
        return "AliasMember(" + quoted(a.buffer) + ", offset=" + std::to_string(a.offset) + ")";
      });

  py::class_<MustAliasItem, std::shared_ptr<MustAliasItem>>(
      m, "MustAliasGroup", "Buffers that are one allocation (views, in-place results).")
      .def(py::init([](py::handle members) { return MustAliasItem{members_from(members)}; }),
           py::arg("members"))
      .def_property(
          "members", [](const MustAliasItem& g) { return g.members; },
          [](MustAliasItem& g, py::handle v) { g.members = members_from(v); })
      .def("__repr__", [](const MustAliasItem& g) {
        std::string s = "MustAliasGroup([";
        for (std::size_t i = 0; i < g.members.size(); ++i)
          s += std::string(i ? ", " : "") + "(" + quoted(g.members[i].buffer) + ", " +
               std::to_string(g.members[i].offset) + ")";
        return s + "])";
      });

  py::class_<SeparationItem, std::shared_ptr<SeparationItem>>(m, "Separation",
                                                              "Two buffers that may never overlap in bytes.")
      .def(py::init([](py::handle a, py::handle b) {
             return SeparationItem{buffer_name_from(a, "a"), buffer_name_from(b, "b")};
           }),
           py::arg("a"), py::arg("b"))
      .def_property(
          "a", [](const SeparationItem& s) { return s.a; },
          [](SeparationItem& s, py::handle v) { s.a = buffer_name_from(v, "a"); })
      .def_property(
          "b", [](const SeparationItem& s) { return s.b; },
          [](SeparationItem& s, py::handle v) { s.b = buffer_name_from(v, "b"); })
      .def("__repr__",
           [](const SeparationItem& s) { return "Separation(" + quoted(s.a) + ", " + quoted(s.b) + ")"; });

  py::class_<ExclusionItem, std::shared_ptr<ExclusionItem>>(
      m, "Exclusion",
      "Two buffers never live at once (exclusive branches): they may share bytes although their "
      "lifetimes overlap.")
      .def(py::init([](py::handle a, py::handle b) {
             return ExclusionItem{buffer_name_from(a, "a"), buffer_name_from(b, "b")};
           }),
           py::arg("a"), py::arg("b"))
      .def_property(
          "a", [](const ExclusionItem& s) { return s.a; },
          [](ExclusionItem& s, py::handle v) { s.a = buffer_name_from(v, "a"); })
      .def_property(
          "b", [](const ExclusionItem& s) { return s.b; },
          [](ExclusionItem& s, py::handle v) { s.b = buffer_name_from(v, "b"); })
      .def("__repr__",
           [](const ExclusionItem& s) { return "Exclusion(" + quoted(s.a) + ", " + quoted(s.b) + ")"; });

  py::class_<ConflictItem, std::shared_ptr<ConflictItem>>(
      m, "Conflict", "An edge of an explicit conflict graph: the two buffers are live together.")
      .def(py::init([](py::handle a, py::handle b) {
             return ConflictItem{buffer_name_from(a, "a"), buffer_name_from(b, "b")};
           }),
           py::arg("a"), py::arg("b"))
      .def_property(
          "a", [](const ConflictItem& s) { return s.a; },
          [](ConflictItem& s, py::handle v) { s.a = buffer_name_from(v, "a"); })
      .def_property(
          "b", [](const ConflictItem& s) { return s.b; },
          [](ConflictItem& s, py::handle v) { s.b = buffer_name_from(v, "b"); })
      .def("__repr__",
           [](const ConflictItem& s) { return "Conflict(" + quoted(s.a) + ", " + quoted(s.b) + ")"; });

  py::class_<PenaltyItem, std::shared_ptr<PenaltyItem>>(
      m, "Penalty", "A weight paid when two lifetime-disjoint buffers overlap in bytes.")
      .def(py::init([](py::handle a, py::handle b, py::handle w) {
             return PenaltyItem{buffer_name_from(a, "a"), buffer_name_from(b, "b"),
                                integer_from<Weight>(w, "weight")};
           }),
           py::arg("a"), py::arg("b"), py::arg("weight") = 1)
      .def_property(
          "a", [](const PenaltyItem& p) { return p.a; },
          [](PenaltyItem& p, py::handle v) { p.a = buffer_name_from(v, "a"); })
      .def_property(
          "b", [](const PenaltyItem& p) { return p.b; },
          [](PenaltyItem& p, py::handle v) { p.b = buffer_name_from(v, "b"); })
      .def_property(
          "weight", [](const PenaltyItem& p) { return to_int(p.weight); },
          [](PenaltyItem& p, py::handle v) { p.weight = integer_from<Weight>(v, "weight"); })
      .def("__repr__", [](const PenaltyItem& p) {
        return "Penalty(" + quoted(p.a) + ", " + quoted(p.b) + ", weight=" + std::to_string(p.weight) + ")";
      });

  py::class_<SlotBindingItem>(m, "SlotBinding",
                              "A buffer bound to one slot of a declared allocation (None: run time).")
      .def(py::init([](py::handle buffer, py::handle slot) {
             return SlotBindingItem{buffer_name_from(buffer, "buffer"), slot_from(slot)};
           }),
           py::arg("buffer"), py::arg("slot") = py::none())
      .def_property(
          "buffer", [](const SlotBindingItem& s) { return s.buffer; },
          [](SlotBindingItem& s, py::handle v) { s.buffer = buffer_name_from(v, "buffer"); })
      .def_property(
          "slot", [](const SlotBindingItem& s) { return s.slot; },
          [](SlotBindingItem& s, py::handle v) { s.slot = slot_from(v); })
      .def("__repr__", [](const SlotBindingItem& s) {
        return "SlotBinding(" + quoted(s.buffer) + ", slot=" + (s.slot ? std::to_string(*s.slot) : "None") +
               ")";
      });

  py::class_<DeclaredItem, std::shared_ptr<DeclaredItem>>(
      m, "DeclaredAllocation",
      "An author-declared allocation of `slots` equal slots; `buffer` covers them all.")
      .def(py::init([](py::handle buffer, py::handle slots, py::handle slot_size, py::handle b) {
             return DeclaredItem{buffer_name_from(buffer, "buffer"),
                                 integer_from<std::uint32_t>(slots, "slots"),
                                 addr_from(slot_size, "slot_size"), bindings_from(b)};
           }),
           py::arg("buffer"), py::arg("slots"), py::arg("slot_size"), py::arg("bindings") = py::tuple())
      .def_property(
          "buffer", [](const DeclaredItem& d) { return d.buffer; },
          [](DeclaredItem& d, py::handle v) { d.buffer = buffer_name_from(v, "buffer"); })
      .def_property(
          "slots", [](const DeclaredItem& d) { return d.slots; },
          [](DeclaredItem& d, py::handle v) { d.slots = integer_from<std::uint32_t>(v, "slots"); })
      .def_property(
          "slot_size", [](const DeclaredItem& d) { return to_int(d.slot_size); },
          [](DeclaredItem& d, py::handle v) { d.slot_size = addr_from(v, "slot_size"); })
      .def_property(
          "bindings", [](const DeclaredItem& d) { return d.bindings; },
          [](DeclaredItem& d, py::handle v) { d.bindings = bindings_from(v); })
      .def("__repr__", [](const DeclaredItem& d) {
        return "DeclaredAllocation(" + quoted(d.buffer) + ", slots=" + std::to_string(d.slots) +
               ", slot_size=" + std::to_string(d.slot_size) + ", " + std::to_string(d.bindings.size()) +
               " bindings)";
      });

  bind_list<ArenaItem>(m, "ArenaList", "Arena");
  bind_list<BufferSpec>(m, "BufferList", "Buffer");
  bind_list<MustAliasItem>(m, "MustAliasList", "MustAliasGroup");
  bind_list<SeparationItem>(m, "SeparationList", "Separation");
  bind_list<PenaltyItem>(m, "PenaltyList", "Penalty");
  bind_list<DeclaredItem>(m, "DeclaredList", "DeclaredAllocation");
  bind_list<ExclusionItem>(m, "ExclusionList", "Exclusion");
  bind_list<ConflictItem>(m, "ConflictList", "Conflict");

  py::class_<PyProblem> problem(m, "Problem", "Arenas, buffers and the constraints between them.");
  problem.def(py::init([](py::handle arenas, py::handle buffers, py::handle must_alias,
                          py::handle separations, py::handle penalties, py::handle declared,
                          py::handle exclusions, py::handle conflict_graph) {
                PyProblem p;
                p.arenas = items_from<ArenaItem>(arenas, "Arena");
                p.buffers = items_from<BufferSpec>(buffers, "Buffer");
                p.must_alias = items_from<MustAliasItem>(must_alias, "MustAliasGroup");
                p.separations = items_from<SeparationItem>(separations, "Separation");
                p.penalties = items_from<PenaltyItem>(penalties, "Penalty");
                p.declared = items_from<DeclaredItem>(declared, "DeclaredAllocation");
                p.exclusions = items_from<ExclusionItem>(exclusions, "Exclusion");
                if (!conflict_graph.is_none())
                  p.conflict_graph = items_from<ConflictItem>(conflict_graph, "Conflict");
                return p;
              }),
              py::arg("arenas") = py::tuple(), py::arg("buffers") = py::tuple(),
              py::arg("must_alias") = py::tuple(), py::arg("separations") = py::tuple(),
              py::arg("penalties") = py::tuple(), py::arg("declared") = py::tuple(),
              py::arg("exclusions") = py::tuple(), py::arg("conflict_graph") = py::none());
  list_property<ArenaItem>(problem, "arenas", &PyProblem::arenas, "Arena");
  list_property<BufferSpec>(problem, "buffers", &PyProblem::buffers, "Buffer");
  list_property<MustAliasItem>(problem, "must_alias", &PyProblem::must_alias, "MustAliasGroup");
  list_property<SeparationItem>(problem, "separations", &PyProblem::separations, "Separation");
  list_property<PenaltyItem>(problem, "penalties", &PyProblem::penalties, "Penalty");
  list_property<DeclaredItem>(problem, "declared", &PyProblem::declared, "DeclaredAllocation");
  list_property<ExclusionItem>(problem, "exclusions", &PyProblem::exclusions, "Exclusion");
  problem.def_property(
      "conflict_graph",
      [](const PyProblem& p) -> py::object {
        if (!p.conflict_graph) return py::none();
        return py::cast(ItemList<ConflictItem>{p.conflict_graph});
      },
      [](PyProblem& p, py::handle items) {
        if (items.is_none())
          p.conflict_graph.reset();
        else
          p.conflict_graph = items_from<ConflictItem>(items, "Conflict");
      },
      "None (lifetimes decide who is live together) or the list of Conflict edges: then exactly the pairs it "
      "names are live together.");
  problem.def_property_readonly("buffer_names", &buffer_names, "Every buffer's name, in list order.")
      .def_property_readonly("buffer_ids", &buffer_names, "The older spelling of buffer_names.")
      .def_static(
          "from_arrays",
          [](const py::object& sizes, const py::object& begins, const py::object& ends,
             const py::object& alignments, const py::object& arenas, const py::object& capacity) {
            return from_problem(problem_from_arrays(sizes, begins, ends, alignments, arenas, capacity));
          },
          py::arg("sizes"), py::arg("begins"), py::arg("ends"), py::arg("alignments") = py::none(),
          py::kw_only(), py::arg("arenas") = py::none(), py::arg("capacity") = py::none())
      .def("copy", &deep_copy, "An independent problem: new element objects with the same values.")
      .def(
          "_round_trip", [](const PyProblem& p) { return from_problem(to_problem(p)); },
          "The problem converted to the library's model and back (what every reader returns); for tests.")
      .def("__copy__", &deep_copy)
      .def(
          "__deepcopy__", [](const PyProblem& p, py::handle) { return deep_copy(p); }, py::arg("memo"))
      .def(
          "to_json",
          [](const PyProblem& py_problem, py::object offsets) {
            ProblemFile f = to_problem(py_problem);
            if (!offsets.is_none()) f.placement = placement_from(f.problem, offsets);
            return json_problem_text(f);  // an arena without a capacity is written without one
          },
          py::arg("offsets") = py::none())
      .def(
          "to_csv",
          [](const PyProblem& py_problem, py::object offsets) {
            const ProblemFile f = to_problem(py_problem);
            refuse_structure(f.problem, "CSV");
            std::optional<Placement> pl;
            if (!offsets.is_none()) pl = placement_from(f.problem, offsets);
            TextResult t = to_csv(f.problem, pl ? &*pl : nullptr);
            raise_if_errors(t.diagnostics);
            return *t.text;
          },
          py::arg("offsets") = py::none())
      .def("__repr__", [](const PyProblem& p) {
        return "<Problem: " + std::to_string(p.arenas->size()) + " arenas, " +
               std::to_string(p.buffers->size()) + " buffers, " + std::to_string(p.must_alias->size()) +
               " must-alias groups, " + std::to_string(p.separations->size()) + " separations, " +
               std::to_string(p.penalties->size()) + " penalties, " + std::to_string(p.declared->size()) +
               " declared, " + std::to_string(p.exclusions->size()) + " exclusions" +
               (p.conflict_graph
                    ? ", a conflict graph of " + std::to_string(p.conflict_graph->size()) + " edges"
                    : "") +
               ">";
      });
}

void bind_io(py::module_& m) {
  m.def(
      "parse_csv",
      [](const std::string& text, const py::object& capacity, const std::string& file) {
        return from_problem(read_or_raise(read_csv(text, csv_options(capacity), file)));
      },
      py::arg("text"), py::kw_only(), py::arg("capacity") = py::none(), py::arg("file") = "<string>");
  m.def(
      "read_csv",
      [](const std::filesystem::path& path, const py::object& capacity) {
        return from_problem(read_or_raise(read_csv_file(path, csv_options(capacity))));
      },
      py::arg("path"), py::kw_only(), py::arg("capacity") = py::none());
  m.def(
      "parse_json",
      [](const std::string& text, const std::string& file) {
        return from_problem(read_or_raise(read_json_problem(text, file)));
      },
      py::arg("text"), py::kw_only(), py::arg("file") = "<string>");
  m.def(
      "read_json",
      [](const std::filesystem::path& path) {
        return from_problem(read_or_raise(read_json_problem_file(path)));
      },
      py::arg("path"));
  // PyPTO's DSA schema v1 (io/dsa_schema.hpp): the problem, and what a
  // schema-v1 solution repeats (instance, profile, fingerprint, the document's
  // buffer id of each buffer) with the goal its objective asks for.
  m.def(
      "read_dsa",
      [](const std::filesystem::path& path) {
        DsaReadResult r = read_dsa_problem_file(path);
        ProblemFile f = read_or_raise(std::move(r.read));
        const DsaDocument& d = *r.document;
        using namespace pybind11::literals;
        py::dict info("instance"_a = d.instance, "profile"_a = d.profile, "fingerprint"_a = d.fingerprint,
                      "buffer_ids"_a = d.buffer_ids, "objective_terms"_a = d.objective_terms,
                      "goal"_a = d.goal == Goal::fit ? "fit" : "minimise");
        return py::make_tuple(from_problem(std::move(f)), std::move(info));
      },
      py::arg("path"));
  m.def(
      "read_placement",
      [](const std::filesystem::path& path, const py::object& capacity) {
        ProblemFile f = read_or_raise(is_json_path(path) ? read_json_problem_file(path)
                                                         : read_csv_file(path, csv_options(capacity)));
        if (!f.placement) {
          Diagnostics ds{error_at(SourceLocation{path.string(), 0, 0},
                                  "the file has no offsets; add an offset column (CSV) "
                                  "or \"offset\" fields (JSON), or read it with read_csv/read_json")};
          raise_error("InputError", joined(ds), ds);
        }
        py::list offsets = offsets_list(*f.placement);
        return py::make_tuple(from_problem(std::move(f)), offsets);
      },
      py::arg("path"), py::kw_only(), py::arg("capacity") = py::none());
}

void bind_checks(py::module_& m) {
  m.def(
      "validate",
      [](const PyProblem& py_problem, py::object offsets, py::object arenas) {
        const BuiltProblem built = build_problem(py_problem);
        const ProblemFile& f = built.file;
        if (!built.names.empty()) {  // what else is wrong with the arenas and buffers, then the names
          Diagnostics ds = validate(f.problem);
          ds.insert(ds.end(), built.names.begin(), built.names.end());
          return ds;
        }
        if (offsets.is_none()) {
          if (!arenas.is_none())
            throw py::type_error("validate: arenas were given without offsets; give both");
          return validate(f.problem);
        }
        const Placement pl = with_arenas(f.problem, placement_from(f.problem, offsets), arenas);
        py::gil_scoped_release release;
        return validate(f.problem, pl);
      },
      py::arg("problem"), py::arg("offsets") = py::none(), py::kw_only(), py::arg("arenas") = py::none());
  m.def(
      "lower_bound",
      [](const PyProblem& py_problem) {
        const ProblemFile f = to_problem(py_problem);
        raise_if_errors(validate(f.problem));
        py::list out;
        for (const auto& l : arena_loads(f.problem)) out.append(to_int(l.lower_bound));
        return out;
      },
      py::arg("problem"));
  m.def(
      "to_svg",
      [](const PyProblem& py_problem, py::object offsets, std::optional<std::filesystem::path> path,
         double width, double panel_height) {
        const ProblemFile f = to_problem(py_problem);
        raise_if_errors(validate(f.problem));
        const Placement pl = placement_from(f.problem, offsets);
        SvgOptions o;
        o.width = width;
        o.panel_height = panel_height;
        std::string text;
        {
          py::gil_scoped_release release;
          text = svg_memory_map(f.problem, pl, o);
        }
        if (path) {
          if (auto d = write_file_atomically(*path, text))
            raise_error("InputError", format(*d), Diagnostics{*d});
        }
        return text;
      },
      py::arg("problem"), py::arg("offsets"), py::arg("path") = py::none(), py::kw_only(),
      py::arg("width") = 1200.0, py::arg("panel_height") = 440.0);
}

}  // namespace

}  // namespace pto_mem::python

PYBIND11_MODULE(_pto_mem, m) {
  using namespace pto_mem::python;
  m.doc() = "pto_mem: static on-chip memory planning (see docs/python.md)";
  bind_model(m);
  bind_io(m);
  bind_checks(m);
  bind_plan(m);
  bind_compile(m);
}
