// The golden cases' base file, tests/golden/g1/base.cu (a filled-in mine/g1_hgemm.cu plus an
// hgemm_fast with cp.async double buffering), compiled next to the reference so the bench checks it
// on the GPU too: a skeleton whose intended answer is wrong would teach the wrong thing. Contract
// names renamed, as in g1_sweep.cu.
#include "g1_bench.h"

#define hgemm_wmma g1_learner_wmma
#define hgemm_mma g1_learner_mma
#define hgemm_fast g1_learner_fast
#include "../tests/golden/g1/base.cu"

void g1_learner_variants(std::vector<std::pair<const char*, HgemmFn>>& out) {
  out.push_back({"learner_wmma", hgemm_wmma});
  out.push_back({"learner_mma", hgemm_mma});
  out.push_back({"learner_fast", hgemm_fast});
}
