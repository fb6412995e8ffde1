// pto_mem::compiled: plan(problem, options) and every solver it runs,
// compiled once. With PTO_MEM_COMPILED defined (the target defines it for
// its users too), planner.hpp only declares plan(); this file holds its one
// definition.
#ifndef PTO_MEM_COMPILED
#define PTO_MEM_COMPILED 1
#endif
#include "pto_mem/planner.hpp"
#include "pto_mem/planner_impl.hpp"
