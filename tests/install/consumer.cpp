// A user program: its own buffer type, planned through the installed
// headers; exits 0 only when the placement is valid.
#include <cstdio>
#include <vector>

#include <pto_mem/algorithms/validator.hpp>
#include <pto_mem/planner.hpp>
#ifdef CONSUMER_HAS_IO
#include <pto_mem/io/json_problem.hpp>
#endif

struct Value {
  unsigned id;
  unsigned long size;
  int alignment;
  int arena;
  std::pair<int, int> lifetime;
};

int main() {
  const std::vector<Value> values = {{1, 100, 4, 0, {0, 3}}, {2, 200, 4, 0, {1, 4}}, {3, 50, 4, 0, {3, 6}}};
  const auto plan = pto_mem::plan(values, pto_mem::UnboundedArenaPolicy{});
  if (!plan.result.fits() || !plan.result.placement ||
      !pto_mem::validate(plan.model.problem, *plan.result.placement).empty()) {
    std::puts("consumer: planning failed");
    return 1;
  }
#ifdef CONSUMER_HAS_IO
  const auto text = pto_mem::json_problem_text(plan.model.problem, &*plan.result.placement);
  const auto back = pto_mem::read_json_problem(text);
  if (!back || !back.file->placement) {
    std::puts("consumer: JSON round trip failed");
    return 1;
  }
#endif
  std::printf("consumer: planned %zu buffers, peak %llu\n", values.size(),
              static_cast<unsigned long long>(plan.result.objective.max_peak));
  return 0;
}
