// expect: unknown pto_mem strategy name
#include <pto_mem/planner.hpp>
int main() {
  pto_mem::PlanOptions o;
  o.strategy = "gredy";
  return o.strategy == pto_mem::Strategy::greedy;
}
