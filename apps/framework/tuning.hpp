#pragma once
// Tuning: per device, the compile-time parameters (tiles, work-groups) of the steps where they
// matter. Three ideas, three files: each step's search space is part of its record
// (tune_space.hpp), `runapp tune APP` sweeps it (tune_sweep.hpp), and the winners are kept in
// tuned.json in the cache directory and used by default by `runapp run` and `runapp compare`
// (tuned_store.hpp).
#include "tune_space.hpp"
#include "tune_sweep.hpp"
#include "tuned_store.hpp"
