/* study_plan_budget.h - internal to studies/study_plan*.c: the plan's shared header lines, the budget
 * study (every split of a device budget ranked, model/5-plan/budget.h) and the candidates side by side. */
#ifndef RS_STUDY_PLAN_BUDGET_H
#define RS_STUDY_PLAN_BUDGET_H

#include <stdio.h>

#include "study_plan.h"

/* A split's short name: "ring", "ulysses", "usp2x4". Returns buf. */
const char *rs_plan_split_name(char *buf, size_t len, const rs_plan_option_t *o);
/* What rates each candidate's attention and GEMMs, the runtime and the usable fraction, as "# " lines
 * (candidates of one profile on consecutive entries are one candidate). Can't fail. */
void rs_plan_print_headers(FILE *out, const rs_plan_config_t *c, const rs_plan_candidate_t *cands, int n);
/* The budget study on the loaded candidates (n entries, n_layouts a profile, profile-major): its work
 * estimated against in->limits, every split costed, ranked, written (--csv: every split; the table:
 * the best in->top, why each loses; with in->compare each candidate's best side by side). Returns 0,
 * or -1 with err: bad input (above a limit, nothing fits: err names the closest), runtime. */
int rs_plan_budget_study(const rs_plan_in_t *in, const rs_plan_candidate_t *cands, int n, int n_layouts, rs_err_t *err);
/* The best option of each profile among its layouts (the plan's, no budget) side by side. Can't fail. */
void rs_plan_compare_plans(FILE *out, const rs_plan_in_t *in, const rs_plan_candidate_t *cands, int n);

#endif /* RS_STUDY_PLAN_BUDGET_H */
