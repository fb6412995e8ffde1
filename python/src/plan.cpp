// pto_mem.plan / plan_arrays / Problem.from_arrays: the planner front door
// (pto_mem/planner.hpp) with the GIL released, progress reported and Ctrl+C
// honoured, and the NumPy path that builds and answers a problem without a
// Python loop.
#include <pybind11/numpy.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stop_token>
#include <thread>
#include <unordered_map>

#include "common.hpp"
#include "pto_mem/algorithms/explain.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/io/explain_json.hpp"
#include "pto_mem/io/problem_file.hpp"
#include "pto_mem/planner.hpp"

namespace pto_mem::python {
namespace {

/// A plan result with the names of the buffers it answers for (offsets by name).
struct PyPlanResult {
  PlanResult r;
  std::vector<std::string> ids;     ///< buffer_label of each buffer, in buffer order
  std::vector<std::int64_t> homes;  ///< each buffer's BufferSpec::arena (where it is without an arena choice)
};

/// Every buffer's BufferSpec::arena, in order.
std::vector<std::int64_t> homes_of(const Problem& p) {
  std::vector<std::int64_t> out;
  out.reserve(p.buffers.size());
  for (const auto& b : p.buffers) out.push_back(b.arena);
  return out;
}

/// The arena buffer i of the result went to: the planner's choice when it
/// made one, else the buffer's own arena.
std::int64_t arena_of(const PyPlanResult& r, std::size_t i) {
  if (r.r.placement && i < r.r.placement->arenas.size()) return r.r.placement->arenas[i];
  return r.homes[i];
}

/// What stopped the search, as the library names it.
py::str stopped_by_of(const PlanResult& r) { return py::str(std::string(to_string(r.stopped_by))); }

/// A progress report as Python sees it (the callback's argument).
struct PyProgress {
  std::optional<Addr> best_peak;  ///< total peak of the best placement so far; None before the first
  std::optional<Weight> penalty;  ///< its penalty
  Addr proved_bound = 0;          ///< no placement's total peak is below this
  std::optional<double> gap;      ///< SearchProgress::gap(); None before the first placement
  double elapsed_s = 0;
};

PyProgress progress_of(const SearchProgress& s) {
  PyProgress p;
  p.proved_bound = s.proved_bound;
  p.elapsed_s = s.elapsed_s;
  if (s.best_peak != 0) {  // 0: no placement yet
    p.best_peak = s.best_peak;
    p.penalty = s.best_penalty;
    p.gap = s.gap();
  }
  return p;
}

using IntArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

/// How often the waiting thread looks for a signal (Ctrl+C).
constexpr auto signal_poll = std::chrono::milliseconds(50);

/// Runs `plan` on a worker thread while this thread, without the GIL, waits.
/// It takes the GIL to deliver progress reports to `progress` (coalesced:
/// the newest report) and, every 50 ms, to look for a pending signal. A
/// Python exception from either (KeyboardInterrupt from Ctrl+C, or the
/// callback's own) asks the search to stop; the call waits for the worker
/// (it never outlives the call) and then raises: KeyboardInterrupt becomes
/// pto_mem.Interrupted carrying the result found so far, any other
/// exception propagates unchanged.
PyPlanResult plan_interruptible(const Problem& p, PlanOptions o, std::vector<std::string> ids,
                                const py::object& progress) {
  std::stop_source stop;
  o.stop = stop.get_token();
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::optional<SearchProgress> pending;  // the newest report not yet delivered
  if (!progress.is_none())
    o.progress = [&](const SearchProgress& s) {
      std::lock_guard lock(mu);
      pending = s;
      cv.notify_all();
    };
  PlanResult result;
  std::exception_ptr failure;       // a C++ exception of the library
  std::exception_ptr python_error;  // a py::error_already_set (signal handler or callback)
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        result = plan(p, o);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard lock(mu);
      done = true;
      cv.notify_all();
    });
    auto next_poll = std::chrono::steady_clock::now() + signal_poll;
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait_until(lock, next_poll, [&] { return done || (pending && !python_error); });
      std::optional<SearchProgress> report;
      if (!python_error) report = pending;
      pending.reset();
      const bool finished = done;
      const bool poll = !finished && std::chrono::steady_clock::now() >= next_poll;
      lock.unlock();
      if (!python_error && (report || poll)) {
        py::gil_scoped_acquire gil;
        try {
          if (report) progress(progress_of(*report));
          if (poll && PyErr_CheckSignals() != 0) throw py::error_already_set();
        } catch (py::error_already_set&) {
          python_error = std::current_exception();
        }
        if (python_error) stop.request_stop();
      }
      if (poll) next_poll = std::chrono::steady_clock::now() + signal_poll;
      if (finished) break;
      lock.lock();
    }
    worker.join();
  }
  PyPlanResult out{std::move(result), std::move(ids), homes_of(p)};
  if (python_error) {
    try {
      std::rethrow_exception(python_error);
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_KeyboardInterrupt)) throw;
      const std::string status = status_name(out.r.status);
      py::object type = py::module_::import("pto_mem.errors").attr("Interrupted");
      py::object exc =
          type("planning was interrupted; .result holds what the search found so far (status " + status + ")",
               py::cast(std::move(out)));
      PyErr_SetObject(type.ptr(), exc.ptr());
      throw py::error_already_set();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return out;
}

Goal goal_from(py::handle h) {
  if (!py::isinstance<py::str>(h))
    throw py::type_error("goal must be a str ('fit' or 'minimise') or None, not " + type_name(h));
  const auto g = h.cast<std::string>();
  if (g == "fit") return Goal::fit;
  if (g == "minimise" || g == "minimize") return Goal::minimise;
  throw py::value_error(
      "goal must be 'fit' or 'minimise' (or None: fit when an arena has a capacity), not '" + g + "'");
}

/// Replaces the capacity of the arenas `capacity` names: an int for every
/// arena, or a dict {arena id: capacity}; a capacity is 1 .. 2**64 - 1 bytes,
/// as on the command line.
void apply_capacity(ProblemFile& f, const py::object& capacity) {
  if (capacity.is_none()) return;
  Problem& p = f.problem;
  f.no_capacity.resize(p.arenas.size(), false);
  if (py::isinstance<py::dict>(capacity)) {
    for (auto [k, v] : capacity.cast<py::dict>()) {
      const auto id = integer_from<std::int64_t>(k, "capacity: an arena id");
      auto it = std::find_if(p.arenas.begin(), p.arenas.end(), [&](const Arena& a) { return a.id == id; });
      if (it == p.arenas.end())
        throw py::value_error("capacity: the problem has no arena " + std::to_string(id));
      it->capacity = addr_from(v, "capacity of arena " + std::to_string(id), 1);
      f.no_capacity[static_cast<std::size_t>(it - p.arenas.begin())] = false;
    }
    return;
  }
  if (py::isinstance<py::str>(capacity) || !(PyIndex_Check(capacity.ptr()) && !PyBool_Check(capacity.ptr())))
    throw py::type_error("capacity must be an int, a dict {arena id: int} or None, not " +
                         type_name(capacity));
  const Addr c = addr_from(capacity, "capacity", 1);
  for (auto& a : p.arenas) a.capacity = c;
  std::fill(f.no_capacity.begin(), f.no_capacity.end(), false);
}

/// PlanOptions from plan()'s keyword arguments: None leaves the library's
/// default (a default-constructed PlanOptions) in place.
PlanOptions options_from(const py::object& strategy, const py::object& goal, const py::object& time_limit,
                         const py::object& node_limit, const py::object& threads, const py::object& seed,
                         const py::object& restarts, const py::object& compat_pypto) {
  PlanOptions o;
  if (!strategy.is_none()) {
    if (!py::isinstance<py::str>(strategy))
      throw py::type_error("strategy must be a str or None, not " + type_name(strategy));
    const auto name = strategy.cast<std::string>();
    const auto s = parse_strategy(name);
    if (!s) {  // a rejected call, as documented: PlanError with status `unsupported`
      Diagnostics ds{error("unknown strategy '" + name +
                           "'; choose one of: sequential, reuse, greedy, exact, portfolio")};
      py::dict extra;
      extra["status"] = status_name(Status::unsupported);
      raise_error("PlanError", "planning failed (unsupported):\n" + joined(ds), ds, extra);
    }
    o.strategy = *s;
  }
  if (!goal.is_none()) o.goal = goal_from(goal);
  if (!time_limit.is_none()) {
    const double t = real_from(time_limit, "time_limit");
    if (std::isnan(t) || t <= 0)
      throw py::value_error("time_limit must be a positive number of seconds (None: no time limit), not " +
                            py::repr(time_limit).cast<std::string>());
    o.time_limit_s = t;  // inf and huge values (unlimited_seconds or more): no limit
  }
  if (!node_limit.is_none()) o.node_limit = integer_from<std::uint64_t>(node_limit, "node_limit");
  if (!threads.is_none()) o.threads = integer_from<unsigned>(threads, "threads", 0, 1024);
  if (!seed.is_none()) o.seed = integer_from<std::uint64_t>(seed, "seed");
  if (!restarts.is_none()) o.restarts = integer_from<std::size_t>(restarts, "restarts");
  if (!compat_pypto.is_none()) {
    if (!PyBool_Check(compat_pypto.ptr()))
      throw py::type_error("compat_pypto must be True, False or None, not " + type_name(compat_pypto));
    o.compat_pypto = compat_pypto.cast<bool>();
  }
  return o;
}

/// Raises PlanError when the status is not an answer (a malformed problem,
/// an unknown strategy, a planner fault).
PyPlanResult answer(PyPlanResult out) {
  if (!is_answer(out.r.status)) {
    Diagnostics ds = out.r.diagnostics;
    const std::string status = status_name(out.r.status);
    py::dict extra;
    extra["status"] = status;
    extra["result"] = py::cast(std::move(out));
    raise_error("PlanError", "planning failed (" + status + "):\n" + joined(ds), ds, extra);
  }
  return out;
}

void require_integers(const py::array& a, const char* name) {
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u' && a.size() != 0)  // [] is float64 to NumPy
    throw py::type_error(std::string(name) + " must be an integer array, not dtype " +
                         py::str(a.dtype()).cast<std::string>());
  if (a.ndim() != 1) throw py::value_error(std::string(name) + " must be one-dimensional");
}

/// `obj` as a one-dimensional int64 array. An unsigned 64-bit array must
/// hold values below 2**63: anything above would wrap to a negative int64.
IntArray int_array(const py::object& obj, const char* name) {
  py::array a = py::array::ensure(obj);
  if (!a) throw py::type_error(std::string(name) + " must be array-like");
  require_integers(a, name);
  if (a.dtype().kind() == 'u' && a.itemsize() >= 8) {
    auto u = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    const std::uint64_t* d = u.data();
    for (py::ssize_t i = 0; i < u.size(); ++i)
      if (d[i] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw py::value_error(std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(d[i]) +
                              " is out of range: at most 2**63 - 1");
  }
  return IntArray::ensure(a);
}

/// Every buffer's label (its name, or its index when it has none), in order.
std::vector<std::string> ids_of(const Problem& p) {
  std::vector<std::string> ids;
  ids.reserve(p.buffers.size());
  for (std::size_t i = 0; i < p.buffers.size(); ++i) ids.push_back(buffer_label(p, static_cast<BufferId>(i)));
  return ids;
}

}  // namespace

ProblemFile problem_from_arrays(const py::object& sizes_in, const py::object& begins_in,
                                const py::object& ends_in, const py::object& alignments_in,
                                const py::object& arenas_in, const py::object& capacity) {
  IntArray sizes = int_array(sizes_in, "sizes"), begins = int_array(begins_in, "begins"),
           ends = int_array(ends_in, "ends");
  const auto n = static_cast<std::size_t>(sizes.shape(0));
  std::optional<IntArray> alignments, arenas;
  if (!alignments_in.is_none()) alignments = int_array(alignments_in, "alignments");
  if (!arenas_in.is_none()) arenas = int_array(arenas_in, "arenas");
  for (auto [arr, name] : {std::pair{&begins, "begins"}, std::pair{&ends, "ends"}})
    if (static_cast<std::size_t>(arr->shape(0)) != n)
      throw py::value_error(std::string(name) + " has " + std::to_string(arr->shape(0)) + " entries, sizes " +
                            std::to_string(n));
  for (auto [arr, name] : {std::pair{&alignments, "alignments"}, std::pair{&arenas, "arenas"}})
    if (*arr && static_cast<std::size_t>((*arr)->shape(0)) != n)
      throw py::value_error(std::string(name) + " has " + std::to_string((*arr)->shape(0)) +
                            " entries, sizes " + std::to_string(n));

  ProblemFile f;
  Problem& p = f.problem;
  Diagnostics bad;
  {
    py::gil_scoped_release release;
    const std::int64_t* s = sizes.data();
    const std::int64_t* b = begins.data();
    const std::int64_t* e = ends.data();
    const std::int64_t* al = alignments ? alignments->data() : nullptr;
    const std::int64_t* ar = arenas ? arenas->data() : nullptr;
    p.buffers.resize(n);
    std::vector<std::int64_t> arena_ids;
    for (std::size_t i = 0; i < n; ++i) {
      BufferSpec& x = p.buffers[i];  // unnamed: buffer i's label is "i"
      if (s[i] < 0 || (al && al[i] < 0)) {
        if (bad.size() < 20)
          bad.push_back(
              error("buffer " + std::to_string(i) + ": " +
                    (s[i] < 0 ? "size " + std::to_string(s[i]) : "alignment " + std::to_string(al[i])) +
                    " is negative; sizes and alignments are byte counts"));
        continue;
      }
      x.size = static_cast<Addr>(s[i]);
      x.alignment = al ? static_cast<Addr>(al[i]) : 1;
      x.arena = ar ? ar[i] : 0;
      x.lifetime = Interval{b[i], e[i]};
      if (ar) arena_ids.push_back(ar[i]);
    }
    if (!ar) arena_ids.push_back(0);
    std::sort(arena_ids.begin(), arena_ids.end());
    arena_ids.erase(std::unique(arena_ids.begin(), arena_ids.end()), arena_ids.end());
    for (auto id : arena_ids) p.arenas.push_back(Arena{id, "arena" + std::to_string(id), 0, {}});
  }
  raise_if_errors(bad);
  // Arenas without a given capacity get one every placement fits into
  // (always_fitting_capacity: "no capacity" to the library and to Python).
  const auto fitting = always_fitting_capacities(p);
  for (std::size_t k = 0; k < p.arenas.size(); ++k) p.arenas[k].capacity = fitting[k];
  f.no_capacity.assign(p.arenas.size(), true);
  apply_capacity(f, capacity);
  return f;
}

namespace {

py::dict statistics_dict(const Statistics& s) {
  py::dict d;
  d["candidates_evaluated"] = s.candidates_evaluated;
  d["orders_evaluated"] = s.orders_evaluated;
  d["selected_order"] = s.selected_order;
  d["first_fit_feasible"] = s.first_fit_feasible;
  d["selected_first_fit"] = s.selected_first_fit;
  for (const auto& [k, v] : s.extra) d[py::str(k)] = v;
  return d;
}

py::list addr_list(const std::vector<Addr>& v) {
  py::list out;
  for (Addr x : v) out.append(to_int(x));
  return out;
}

}  // namespace

Placement placement_from(const Problem& p, py::handle offsets) {
  const std::size_t n = p.buffers.size();
  Placement pl;
  auto fail = [](const std::string& message) {
    Diagnostics ds{error(message)};
    raise_error("InputError", message, ds);
  };
  // One offset from Python: None (unplaced) or an int 0 .. 2**64 - 1.
  auto offset_of = [&](py::handle v, const std::string& id) -> std::optional<Addr> {
    if (v.is_none()) return std::nullopt;
    if (!PyBool_Check(v.ptr()) && PyIndex_Check(v.ptr())) {
      const auto i = py::reinterpret_steal<py::int_>(PyNumber_Index(v.ptr()));
      if (!i) throw py::error_already_set();
      if (PyObject_RichCompareBool(i.ptr(), py::int_(0).ptr(), Py_LT) == 1)
        fail("offsets: buffer '" + id + "' has a negative offset " + text_of(i));
    }
    return addr_from(v, "the offset of buffer '" + id + "'");
  };
  if (py::isinstance<PyPlanResult>(offsets)) {
    const auto& r = offsets.cast<const PyPlanResult&>();
    if (!r.r.placement) fail("the plan result has no placement (status " + status_name(r.r.status) + ")");
    if (r.ids.size() != n)
      fail("the plan result is for " + std::to_string(r.ids.size()) + " buffers, the problem has " +
           std::to_string(n));
    return *r.r.placement;
  }
  if (py::isinstance<py::dict>(offsets)) {
    std::unordered_map<std::string, BufferId>
        index;  // label -> buffer (the caller checked labels are unique)
    index.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      index.emplace(buffer_label(p, static_cast<BufferId>(i)), static_cast<BufferId>(i));
    pl.offsets.assign(n, std::nullopt);
    for (auto [k, v] : offsets.cast<py::dict>()) {
      const std::string id =
          py::isinstance<py::str>(k) ? k.cast<std::string>() : py::str(k).cast<std::string>();
      const auto it = index.find(id);
      if (it == index.end()) fail("offsets: the problem has no buffer '" + id + "'");
      pl.offsets[it->second] = offset_of(v, id);
    }
    return pl;
  }
  if (py::isinstance<py::array>(offsets)) {
    IntArray a = int_array(py::reinterpret_borrow<py::object>(offsets), "offsets");
    if (static_cast<std::size_t>(a.shape(0)) != n)
      fail("offsets has " + std::to_string(a.shape(0)) + " entries, the problem " + std::to_string(n) +
           " buffers");
    const std::int64_t* d = a.data();
    pl.offsets.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      if (d[i] >= 0) pl.offsets[i] = static_cast<Addr>(d[i]);
    return pl;
  }
  if (py::isinstance<py::sequence>(offsets) && !py::isinstance<py::str>(offsets)) {
    auto seq = offsets.cast<py::sequence>();
    if (seq.size() != n)
      fail("offsets has " + std::to_string(seq.size()) + " entries, the problem " + std::to_string(n) +
           " buffers");
    pl.offsets.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      pl.offsets[i] = offset_of(seq[i], buffer_label(p, static_cast<BufferId>(i)));
    return pl;
  }
  throw py::type_error(
      "offsets must be a PlanResult, a dict {name: offset}, a NumPy array or a sequence of int/None");
}

Placement with_arenas(const Problem& p, Placement pl, py::handle arenas) {
  if (arenas.is_none()) return pl;
  const std::size_t n = p.buffers.size();
  auto fail = [](const std::string& message) {
    Diagnostics ds{error(message)};
    raise_error("InputError", message, ds);
  };
  std::vector<std::int64_t> chosen = homes_of(p);
  if (pl.arenas.size() == n) chosen = pl.arenas;
  auto arena_of_entry = [&](py::handle v, const std::string& id, std::size_t i) {
    if (!v.is_none()) chosen[i] = integer_from<std::int64_t>(v, "the arena of buffer '" + id + "'");
  };
  if (py::isinstance<py::dict>(arenas)) {
    std::unordered_map<std::string, BufferId> index;
    index.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      index.emplace(buffer_label(p, static_cast<BufferId>(i)), static_cast<BufferId>(i));
    for (auto [k, v] : arenas.cast<py::dict>()) {
      const std::string id =
          py::isinstance<py::str>(k) ? k.cast<std::string>() : py::str(k).cast<std::string>();
      const auto it = index.find(id);
      if (it == index.end()) fail("arenas: the problem has no buffer '" + id + "'");
      arena_of_entry(v, id, it->second);
    }
  } else if (py::isinstance<py::sequence>(arenas) && !py::isinstance<py::str>(arenas)) {
    auto seq = arenas.cast<py::sequence>();
    if (seq.size() != n)
      fail("arenas has " + std::to_string(seq.size()) + " entries, the problem " + std::to_string(n) +
           " buffers");
    for (std::size_t i = 0; i < n; ++i) arena_of_entry(seq[i], buffer_label(p, static_cast<BufferId>(i)), i);
  } else {
    throw py::type_error("arenas must be a dict {name: arena id}, a sequence of arena ids or None, not " +
                         type_name(arenas));
  }
  pl.arenas = std::move(chosen);
  return pl;
}

void bind_plan(py::module_& m) {
  py::class_<Objective>(
      m, "Objective",
      "Spill (how far buffers went down their candidate arenas), penalty paid, then total and "
      "largest arena peak (smaller is better, in that order).")
      .def_property_readonly(
          "spill", [](const Objective& o) { return py::int_(o.spill); },
          "The sum over buffers of the chosen arena's position among its candidates (0: every "
          "buffer in its first choice, and always 0 without candidate arenas).")
      .def_property_readonly("penalty", [](const Objective& o) { return to_int(o.penalty); })
      .def_property_readonly("total_peak", [](const Objective& o) { return to_int(o.total_peak); })
      .def_property_readonly("max_peak", [](const Objective& o) { return to_int(o.max_peak); })
      .def_property_readonly("peak_by_arena", [](const Objective& o) { return addr_list(o.peak_by_arena); })
      .def("__repr__", [](const Objective& o) {
        return "Objective(spill=" + std::to_string(o.spill) + ", penalty=" + std::to_string(o.penalty) +
               ", total_peak=" + std::to_string(o.total_peak) + ", max_peak=" + std::to_string(o.max_peak) +
               ")";
      });

  py::class_<PyProgress>(m, "Progress",
                         "A progress report of a running search (the argument of plan(progress=...)).")
      .def_readonly("best_peak", &PyProgress::best_peak,
                    "Total peak of the best placement so far (None: none yet).")
      .def_readonly("penalty", &PyProgress::penalty, "Its penalty (None: no placement yet).")
      .def_readonly("proved_bound", &PyProgress::proved_bound, "No placement's total peak is below this.")
      .def_readonly("gap", &PyProgress::gap,
                    "(best_peak - proved_bound) / proved_bound (0 when the bound is 0); None before the "
                    "first placement.")
      .def_readonly("elapsed_s", &PyProgress::elapsed_s, "Seconds since the search started.")
      .def("__repr__", [](const PyProgress& p) {
        auto opt = [](const auto& v) { return v ? std::to_string(*v) : std::string("None"); };
        return "Progress(best_peak=" + opt(p.best_peak) + ", penalty=" + opt(p.penalty) +
               ", proved_bound=" + std::to_string(p.proved_bound) + ", gap=" + opt(p.gap) +
               ", elapsed_s=" + std::to_string(p.elapsed_s) + ")";
      });

  py::class_<PyPlanResult>(m, "PlanResult",
                           "What plan() found: status, offsets, objective, bounds, statistics.")
      .def_property_readonly("status", [](const PyPlanResult& r) { return status_name(r.r.status); })
      .def_property_readonly("fits", [](const PyPlanResult& r) { return r.r.fits(); })
      .def_property_readonly("strategy", [](const PyPlanResult& r) { return r.r.strategy; })
      .def_property_readonly("stopped_by", [](const PyPlanResult& r) { return stopped_by_of(r.r); })
      .def_property_readonly("proved",
                             [](const PyPlanResult& r) {
                               py::dict d;  // as the tool's JSON report: which objective terms are proved
                               d["penalty"] = r.r.proved.penalty;
                               d["peak"] = r.r.proved.peak;
                               d["penalty_bound"] = to_int(r.r.proved.penalty_bound);
                               return d;
                             })
      .def_property_readonly("offsets",
                             [](const PyPlanResult& r) {
                               py::dict d;
                               if (r.r.placement)
                                 for (std::size_t i = 0; i < r.ids.size(); ++i)
                                   if (const auto& o = r.r.placement->offsets[i])
                                     d[py::str(r.ids[i])] = to_int(*o);
                               return d;
                             })
      .def_property_readonly(
          "arenas",
          [](const PyPlanResult& r) {
            py::dict d;  // as offsets: the placed buffers, by name
            if (r.r.placement)
              for (std::size_t i = 0; i < r.ids.size(); ++i)
                if (r.r.placement->offsets[i]) d[py::str(r.ids[i])] = arena_of(r, i);
            return d;
          },
          "{buffer name: arena id} for every placed buffer: the arena the planner chose among its "
          "candidates, else its own.")
      .def_property_readonly(
          "arena_list",
          [](const PyPlanResult& r) {
            py::list out;  // as placement: in buffer order, None for an unplaced buffer
            for (std::size_t i = 0; i < r.ids.size(); ++i) {
              if (r.r.placement && r.r.placement->offsets[i])
                out.append(arena_of(r, i));
              else
                out.append(py::none());
            }
            return out;
          },
          "The arena of each buffer in buffer order (None: not placed).")
      .def_property_readonly("placement",
                             [](const PyPlanResult& r) {
                               py::list out;
                               for (std::size_t i = 0; i < r.ids.size(); ++i) {
                                 const auto& o = r.r.placement ? r.r.placement->offsets[i] : std::nullopt;
                                 if (o)
                                   out.append(to_int(*o));
                                 else
                                   out.append(py::none());
                               }
                               return out;
                             })
      .def_property_readonly("offsets_array",
                             [](const PyPlanResult& r) {
                               py::array_t<std::int64_t> a(static_cast<py::ssize_t>(r.ids.size()));
                               std::int64_t* d = a.mutable_data();
                               for (std::size_t i = 0; i < r.ids.size(); ++i) {
                                 const auto& o = r.r.placement ? r.r.placement->offsets[i] : std::nullopt;
                                 d[i] = o ? to_int64(*o) : -1;
                               }
                               return a;
                             })
      .def_property_readonly("objective", [](const PyPlanResult& r) { return r.r.objective; })
      .def_property_readonly("lower_bound", [](const PyPlanResult& r) { return addr_list(r.r.lower_bound); })
      .def_property_readonly("max_load_bound",
                             [](const PyPlanResult& r) { return addr_list(r.r.max_load_bound); })
      .def_property_readonly("statistics",
                             [](const PyPlanResult& r) { return statistics_dict(r.r.statistics); })
      .def_property_readonly("diagnostics", [](const PyPlanResult& r) { return r.r.diagnostics; })
      .def_property_readonly("time_s", [](const PyPlanResult& r) { return r.r.time_s; })
      .def("__len__", [](const PyPlanResult& r) { return r.ids.size(); })
      .def("__repr__", [](const PyPlanResult& r) {
        return "<PlanResult " + status_name(r.r.status) + " by " + r.r.strategy + ": " +
               std::to_string(r.ids.size()) + " buffers, total peak " +
               std::to_string(r.r.objective.total_peak) + ", penalty " +
               std::to_string(r.r.objective.penalty) + ", stopped by " +
               std::string(to_string(r.r.stopped_by)) + ">";
      });

  m.def("strategies", [] { return strategies(); });

  m.def(
      "plan",
      [](const PyProblem& problem, const py::object& strategy, const py::object& goal,
         const py::object& time_limit, const py::object& node_limit, const py::object& threads,
         const py::object& seed, const py::object& restarts, const py::object& compat_pypto,
         const py::object& capacity, const py::object& progress) {
        if (!progress.is_none() && !PyCallable_Check(progress.ptr()))
          throw py::type_error("progress must be a callable or None, not " + type_name(progress));
        const PlanOptions o =
            options_from(strategy, goal, time_limit, node_limit, threads, seed, restarts, compat_pypto);
        BuiltProblem built =
            build_problem(problem);  // a private copy: the caller may edit `problem` meanwhile
        ProblemFile& f = built.file;
        apply_capacity(f, capacity);
        auto ids = ids_of(f.problem);
        if (!built.names.empty()) {  // a malformed problem, as the library answers one: invalid_input
          PyPlanResult out{PlanResult{}, std::move(ids), homes_of(f.problem)};
          out.r.status = Status::invalid_input;
          out.r.strategy = std::string(to_string(o.strategy.value()));
          out.r.diagnostics = validate(f.problem);  // its arenas and buffers; then the names
          out.r.diagnostics.insert(out.r.diagnostics.end(), built.names.begin(), built.names.end());
          return answer(std::move(out));
        }
        return answer(plan_interruptible(f.problem, o, std::move(ids), progress));
      },
      py::arg("problem"), py::kw_only(), py::arg("strategy") = py::none(), py::arg("goal") = py::none(),
      py::arg("time_limit") = py::none(), py::arg("node_limit") = py::none(), py::arg("threads") = py::none(),
      py::arg("seed") = py::none(), py::arg("restarts") = py::none(), py::arg("compat_pypto") = py::none(),
      py::arg("capacity") = py::none(), py::arg("progress") = py::none());

  m.def(
      "explain",
      [](const PyProblem& problem, const py::object& result, const py::object& strategy,
         const py::object& goal, const py::object& time_limit, const py::object& node_limit,
         const py::object& threads, const py::object& seed, const py::object& restarts,
         const py::object& compat_pypto, const py::object& capacity, const py::object& check_node_limit,
         bool least_capacity) {
        const PlanOptions o =
            options_from(strategy, goal, time_limit, node_limit, threads, seed, restarts, compat_pypto);
        ExplainOptions eo;
        eo.least_capacity = least_capacity;
        if (!check_node_limit.is_none())
          eo.check_node_limit = integer_from<std::uint64_t>(check_node_limit, "check_node_limit");
        BuiltProblem built = build_problem(problem);
        ProblemFile& f = built.file;
        apply_capacity(f, capacity);
        if (!built.names.empty()) {
          Diagnostics ds = validate(f.problem);
          ds.insert(ds.end(), built.names.begin(), built.names.end());
          py::dict extra;
          extra["status"] = status_name(Status::invalid_input);
          raise_error("PlanError", "cannot explain a malformed problem:\n" + joined(ds), ds, extra);
        }
        std::optional<PlanResult> given;
        if (!result.is_none()) {
          if (!py::isinstance<PyPlanResult>(result))
            throw py::type_error("result must be a PlanResult of this problem or None, not " +
                                 type_name(result));
          const auto& r = result.cast<const PyPlanResult&>();
          if (r.ids != ids_of(f.problem))
            throw py::value_error(
                "result is not a plan of this problem (its buffers differ); pass the PlanResult that "
                "plan() returned for it, or None to plan it here");
          given = r.r;
        }
        Explanation e;
        {
          py::gil_scoped_release release;
          e = given ? pto_mem::explain(f.problem, *given, o, eo) : pto_mem::explain(f.problem, o, eo);
        }
        nlohmann::ordered_json doc = nlohmann::ordered_json::object();
        doc["status"] = status_name(e.status);
        const nlohmann::ordered_json why =
            explanation_json(f.problem, e);  // kept alive: items() refers to it
        for (const auto& [k, v] : why.items()) doc[k] = v;
        return py::module_::import("json").attr("loads")(doc.dump());
      },
      py::arg("problem"), py::arg("result") = py::none(), py::kw_only(), py::arg("strategy") = py::none(),
      py::arg("goal") = py::none(), py::arg("time_limit") = py::none(), py::arg("node_limit") = py::none(),
      py::arg("threads") = py::none(), py::arg("seed") = py::none(), py::arg("restarts") = py::none(),
      py::arg("compat_pypto") = py::none(), py::arg("capacity") = py::none(),
      py::arg("check_node_limit") = py::none(), py::arg("least_capacity") = true);

  m.def(
      "plan_arrays",
      [](const py::object& sizes, const py::object& begins, const py::object& ends,
         const py::object& alignments, const py::object& arenas, const py::object& capacity,
         const py::object& strategy, const py::object& goal, const py::object& time_limit,
         const py::object& node_limit, const py::object& threads, const py::object& seed,
         const py::object& restarts, const py::object& progress) {
        if (!progress.is_none() && !PyCallable_Check(progress.ptr()))
          throw py::type_error("progress must be a callable or None, not " + type_name(progress));
        PlanOptions o =
            options_from(strategy, goal, time_limit, node_limit, threads, seed, restarts, py::none());
        const ProblemFile f = problem_from_arrays(sizes, begins, ends, alignments, arenas, capacity);
        return answer(plan_interruptible(f.problem, o, ids_of(f.problem), progress));
      },
      py::arg("sizes"), py::arg("begins"), py::arg("ends"), py::arg("alignments") = py::none(), py::kw_only(),
      py::arg("arenas") = py::none(), py::arg("capacity") = py::none(), py::arg("strategy") = py::none(),
      py::arg("goal") = py::none(), py::arg("time_limit") = py::none(), py::arg("node_limit") = py::none(),
      py::arg("threads") = py::none(), py::arg("seed") = py::none(), py::arg("restarts") = py::none(),
      py::arg("progress") = py::none());
}

}  // namespace pto_mem::python
