/* Synthetic morphologies. Every generator first plans the tree at the level of branches (which
 * branch hangs from which, how many compartments each holds), then lays the compartments out
 * and lets morphology_from_tree Hines-order them. Planning by branches is what makes the
 * branch count exact: morphology.c starts a branch at the root and at every child of a node
 * with c >= 2 children, so a tree whose junctions have arities c_1..c_k has exactly
 * 1 + c_1 + ... + c_k branches. Hence 2 branches is impossible, and B branches need B
 * compartments at least (each branch holds one or more). */
#include "synthetic.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cap far above the papers' sizes (<= 1000) that keeps every int and size_t product safe and
 * turns a typo such as 1000000000 into a message instead of gigabytes of allocation. */
#define SYNTHETIC_MAX_COMPARTMENTS 10000000

#define SOMA_RADIUS_UM 10.0
#define DENDRITE_LENGTH_UM 10.0
#define DENDRITE_ROOT_RADIUS_UM 1.0
#define DENDRITE_MIN_RADIUS_UM 0.2
/* Radius ratio child/parent branch: dendrites thin out with order, mildly (Rall's 3/2 rule
 * would give 0.63 for symmetric bifurcations; the papers only need plausible values). */
#define DENDRITE_TAPER_PER_LEVEL 0.85
#define SWC_TYPE_SOMA 1
#define SWC_TYPE_BASAL_DENDRITE 3

#define FIG14_COMPARTMENTS 512
#define FIG14_MIN_LEVELS 2
#define FIG14_MAX_LEVELS 4

/* synthetic_random draws the share of branch starts in this range: real dendrites have a few
 * to a few tens of compartments per branch. */
#define RANDOM_MIN_BRANCH_PERCENT 5.0
#define RANDOM_MAX_BRANCH_PERCENT 50.0

const struct synthetic_class_info synthetic_classes[6] = {
    {"small-low", 76, 7},      {"small-high", 76, 29}, {"medium-low", 305, 30},
    {"medium-high", 319, 157}, {"big-low", 695, 66},   {"big-high", 691, 341},
};

/* splitmix64: tiny, good enough for shapes, and identical on every platform (rand() is not). */
struct rng {
  uint64_t state;
};

static uint64_t rng_next(struct rng *r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double rng_uniform(struct rng *r) { /* in [0, 1) */
  return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static int rng_below(struct rng *r, int n) { /* in [0, n), n >= 1 */
  int value = (int)(rng_uniform(r) * n);
  return value < n ? value : n - 1;
}

/* The tree at branch granularity. Branches are numbered so that a parent comes before its
 * children; children of one junction appear in increasing number. */
struct branch_plan {
  int n_branches;
  int *parent; /* -1 for the root branch */
  int *level;
  int *size; /* compartments, >= 1 */
};

static int plan_alloc(struct branch_plan *plan, int n_branches) {
  plan->n_branches = n_branches;
  plan->parent = malloc((size_t)n_branches * sizeof(int));
  plan->level = malloc((size_t)n_branches * sizeof(int));
  plan->size = malloc((size_t)n_branches * sizeof(int));
  return plan->parent && plan->level && plan->size ? HINES_OK : HINES_FAILURE;
}

static void plan_free(struct branch_plan *plan) {
  free(plan->parent);
  free(plan->level);
  free(plan->size);
  memset(plan, 0, sizeof *plan);
}

static struct compartment_geometry soma_geometry(void) {
  /* Length = diameter, NEURON's convention for a spherical soma, so total_length_um stays
   * meaningful; cable.c ignores the length of a sphere. */
  return (struct compartment_geometry){.length_um = 2.0 * SOMA_RADIUS_UM,
                                       .radius_um = SOMA_RADIUS_UM,
                                       .swc_type = SWC_TYPE_SOMA,
                                       .is_sphere = 1};
}

static struct compartment_geometry dendrite_geometry(int level) {
  double radius = DENDRITE_ROOT_RADIUS_UM * pow(DENDRITE_TAPER_PER_LEVEL, level);
  return (struct compartment_geometry){
      .length_um = DENDRITE_LENGTH_UM,
      .radius_um = radius > DENDRITE_MIN_RADIUS_UM ? radius : DENDRITE_MIN_RADIUS_UM,
      .swc_type = SWC_TYPE_BASAL_DENDRITE,
      .is_sphere = 0};
}

/* Lays the planned branches out as compartments (branch by branch, each a chain hanging from
 * the last compartment of its parent branch) and Hines-orders them. Checks the result against
 * the plan so a generator bug surfaces as an error here rather than as a wrong benchmark. */
static int plan_build(const char *name, const struct branch_plan *plan, struct morphology *out,
                      struct hines_error *err) {
  memset(out, 0, sizeof *out);
  int n = 0;
  for (int b = 0; b < plan->n_branches; b++)
    n += plan->size[b];
  int *first = malloc((size_t)plan->n_branches * sizeof(int));
  int *parent = malloc((size_t)n * sizeof(int));
  struct compartment_geometry *geometry = malloc((size_t)n * sizeof *geometry);
  if (!first || !parent || !geometry) {
    free(first);
    free(parent);
    free(geometry);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", name);
  }
  int next = 0;
  for (int b = 0; b < plan->n_branches; b++) {
    first[b] = next;
    for (int j = 0; j < plan->size[b]; j++, next++) {
      if (j > 0)
        parent[next] = next - 1;
      else if (plan->parent[b] < 0)
        parent[next] = -1;
      else
        parent[next] = first[plan->parent[b]] + plan->size[plan->parent[b]] - 1;
      geometry[next] = next == 0 ? soma_geometry() : dendrite_geometry(plan->level[b]);
    }
  }
  int status = morphology_from_tree(name, n, parent, geometry, out, err);
  free(first);
  free(parent);
  free(geometry);
  if (status != HINES_OK)
    return status;
  if (out->n_compartments != n || out->n_branches != plan->n_branches) {
    int got_branches = out->n_branches;
    morphology_free(out);
    return hines_fail(err, HINES_FAILURE, "%s: internal error: planned %d branches, tree has %d",
                      name, plan->n_branches, got_branches);
  }
  return HINES_OK;
}

/* HINES_OK when `branches` branches can be built from `compartments` compartments. */
static int check_tree_size(const char *name, int compartments, int branches,
                           struct hines_error *err) {
  if (compartments < 1 || compartments > SYNTHETIC_MAX_COMPARTMENTS)
    return hines_fail(err, HINES_BAD_INPUT, "%s: %d compartments (must be 1..%d)", name,
                      compartments, SYNTHETIC_MAX_COMPARTMENTS);
  if (branches < 1)
    return hines_fail(err, HINES_BAD_INPUT, "%s: %d branches (a tree has at least 1)", name,
                      branches);
  if (branches == 2)
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s: 2 branches is impossible (a branch point adds at least 2 branches to "
                      "the root branch, so a tree has 1 or at least 3)",
                      name);
  if (branches > compartments)
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s: %d branches do not fit in %d compartments (each branch needs one)", name,
                      branches, compartments);
  return HINES_OK;
}

/* The achievable branch count nearest to `target` for a tree of n compartments: the achievable
 * counts are 1 and 3..n. A target of 2 is equidistant from 1 and 3 and goes to 3, keeping the
 * tree branched since branching was asked for. */
static int nearest_achievable_branches(long target, int compartments) {
  if (target > compartments)
    target = compartments;
  if (target <= 1)
    return 1;
  if (target == 2)
    return compartments >= 3 ? 3 : 1;
  return (int)target;
}

/* Random tree shape with exactly `branches` branches: (branches - 1) / 2 junctions, all
 * bifurcations except one trifurcation when branches - 1 is odd. Each junction splits a leaf
 * branch chosen uniformly (van Pelt's uniform terminal splitting, a standard random dendrite
 * model). Sizes are a uniformly random composition of the compartments into `branches`
 * positive parts (cuts at distinct random gaps), so lengths vary widely but none is empty. */
static int plan_random(struct rng *rng, int compartments, int branches, struct branch_plan *plan) {
  if (plan_alloc(plan, branches))
    return HINES_FAILURE;
  int *leaves = malloc((size_t)branches * sizeof(int));
  /* cut[g]: a branch ends after compartment g of the composition (g in 0..compartments-2). */
  unsigned char *cut = calloc((size_t)compartments, 1);
  if (!leaves || !cut) {
    free(leaves);
    free(cut);
    return HINES_FAILURE;
  }
  int n_junctions = (branches - 1) / 2;
  int trifurcation = (branches - 1) % 2 ? rng_below(rng, n_junctions) : -1;
  int n_leaves = 0, n_planned = 0;
  plan->parent[0] = -1;
  plan->level[0] = 0;
  leaves[n_leaves++] = n_planned++;
  for (int j = 0; j < n_junctions; j++) {
    int arity = j == trifurcation ? 3 : 2;
    int pick = rng_below(rng, n_leaves);
    int split = leaves[pick];
    for (int c = 0; c < arity; c++) {
      int child = n_planned++;
      plan->parent[child] = split;
      plan->level[child] = plan->level[split] + 1;
      if (c == 0)
        leaves[pick] = child; /* the split branch is no longer a leaf */
      else
        leaves[n_leaves++] = child;
    }
  }
  /* Floyd's algorithm: branches - 1 distinct gaps out of compartments - 1, uniformly. */
  int gaps = compartments - 1, n_cuts = branches - 1;
  for (int g = gaps - n_cuts; g < gaps; g++) {
    int t = rng_below(rng, g + 1);
    cut[cut[t] ? g : t] = 1;
  }
  int b = 0;
  plan->size[0] = 0;
  for (int i = 0; i < compartments; i++) {
    plan->size[b]++;
    if (i < gaps && cut[i])
      plan->size[++b] = 0;
  }
  free(leaves);
  free(cut);
  return HINES_OK;
}

static int build_random_tree(const char *name, int compartments, int branches, struct rng *rng,
                             struct morphology *out, struct hines_error *err) {
  memset(out, 0, sizeof *out);
  int status = check_tree_size(name, compartments, branches, err);
  if (status != HINES_OK)
    return status;
  struct branch_plan plan = {0};
  if (plan_random(rng, compartments, branches, &plan)) {
    plan_free(&plan);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", name);
  }
  status = plan_build(name, &plan, out, err);
  plan_free(&plan);
  return status;
}

static struct rng rng_seeded(unsigned seed) {
  return (struct rng){.state = seed};
}

int synthetic_tree(const char *name, int compartments, int branches, unsigned seed,
                   struct morphology *out, struct hines_error *err) {
  struct rng rng = rng_seeded(seed);
  return build_random_tree(name, compartments, branches, &rng, out, err);
}

int synthetic_class(const char *name, unsigned seed, struct morphology *out,
                    struct hines_error *err) {
  memset(out, 0, sizeof *out);
  size_t n_classes = sizeof synthetic_classes / sizeof synthetic_classes[0];
  for (size_t c = 0; c < n_classes; c++)
    if (strcmp(name, synthetic_classes[c].name) == 0) {
      char label[64];
      snprintf(label, sizeof label, "synthetic:%s:%u", name, seed);
      return synthetic_tree(label, synthetic_classes[c].compartments, synthetic_classes[c].branches,
                            seed, out, err);
    }
  char known[128] = "";
  for (size_t c = 0; c < n_classes; c++) {
    if (c > 0)
      strncat(known, " ", sizeof known - strlen(known) - 1);
    strncat(known, synthetic_classes[c].name, sizeof known - strlen(known) - 1);
  }
  return hines_fail(err, HINES_BAD_INPUT, "%s: unknown class (one of %s)", name, known);
}

/* branches = lround(percent * compartments / 100) (halves away from zero), then the nearest
 * achievable count (see nearest_achievable_branches): 1 for targets below 2, 3 for 2, and at
 * most `compartments`. Once percent * compartments / 100 >= 2.5 (25 compartments at 10 %), the
 * rounding alone applies, so the count is within 0.5 of the request. */
int synthetic_fig6(int compartments, double branch_percent, unsigned seed, struct morphology *out,
                   struct hines_error *err) {
  memset(out, 0, sizeof *out);
  char label[96];
  snprintf(label, sizeof label, "synthetic:fig6:%d:%g:%u", compartments, branch_percent, seed);
  if (!(branch_percent >= 0.0 && branch_percent <= 100.0))
    return hines_fail(err, HINES_BAD_INPUT, "%s: branch percentage %g (must be 0..100)", label,
                      branch_percent);
  if (compartments < 1 || compartments > SYNTHETIC_MAX_COMPARTMENTS)
    return check_tree_size(label, compartments, 1, err);
  long target = lround(branch_percent * compartments / 100.0);
  return synthetic_tree(label, compartments, nearest_achievable_branches(target, compartments),
                        seed, out, err);
}

/* Level 0 is one branch of 256 compartments; level k (2^k branches of equal size) holds half of
 * what the levels above left, and the last level takes all the rest. With 512 = 2^9 every
 * share divides evenly for up to 4 levels (8 compartments per branch at level 3). */
int synthetic_fig14(int levels, struct morphology *out, struct hines_error *err) {
  memset(out, 0, sizeof *out);
  char label[64];
  snprintf(label, sizeof label, "synthetic:fig14:%d", levels);
  if (levels < FIG14_MIN_LEVELS || levels > FIG14_MAX_LEVELS)
    return hines_fail(err, HINES_BAD_INPUT, "%s: %d branch levels (must be %d..%d)", label, levels,
                      FIG14_MIN_LEVELS, FIG14_MAX_LEVELS);
  struct branch_plan plan = {0};
  if (plan_alloc(&plan, (1 << levels) - 1)) {
    plan_free(&plan);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", label);
  }
  int remaining = FIG14_COMPARTMENTS;
  for (int level = 0; level < levels; level++) {
    int width = 1 << level, first = width - 1; /* branches of a level, numbered breadth-first */
    int share = level == levels - 1 ? remaining : remaining / 2;
    remaining -= share;
    for (int j = 0; j < width; j++) {
      plan.parent[first + j] = level == 0 ? -1 : (width / 2 - 1) + j / 2;
      plan.level[first + j] = level;
      plan.size[first + j] = share / width;
    }
  }
  int status = plan_build(label, &plan, out, err);
  plan_free(&plan);
  return status;
}

int synthetic_comb(int teeth, struct morphology *out, struct hines_error *err) {
  memset(out, 0, sizeof *out);
  char label[64];
  snprintf(label, sizeof label, "synthetic:comb:%d", teeth);
  if (teeth < 2 || 2 * teeth - 1 > SYNTHETIC_MAX_COMPARTMENTS)
    return hines_fail(err, HINES_BAD_INPUT, "%s: %d teeth (must be 2..%d)", label, teeth,
                      (SYNTHETIC_MAX_COMPARTMENTS + 1) / 2);
  struct branch_plan plan = {0};
  if (plan_alloc(&plan, 2 * teeth - 1)) {
    plan_free(&plan);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", label);
  }
  for (int k = 0; k < teeth; k++) { /* axis k at 2k, its tooth at 2k + 1 */
    plan.parent[2 * k] = k == 0 ? -1 : 2 * (k - 1);
    plan.level[2 * k] = k;
    plan.size[2 * k] = 1;
    if (k + 1 < teeth) {
      plan.parent[2 * k + 1] = 2 * k;
      plan.level[2 * k + 1] = k + 1;
      plan.size[2 * k + 1] = 1;
    }
  }
  int status = plan_build(label, &plan, out, err);
  plan_free(&plan);
  return status;
}

/* Size uniform in [min, max]; branch share uniform in 5..50 % of the size, then rounded to the
 * nearest achievable count as in synthetic_fig6. One generator stream draws size, share and
 * shape, so the seed alone determines the tree. */
int synthetic_random(int min_compartments, int max_compartments, unsigned seed,
                     struct morphology *out, struct hines_error *err) {
  memset(out, 0, sizeof *out);
  char label[96];
  snprintf(label, sizeof label, "synthetic:random:%d:%d:%u", min_compartments, max_compartments,
           seed);
  if (min_compartments < 1 || max_compartments > SYNTHETIC_MAX_COMPARTMENTS ||
      min_compartments > max_compartments)
    return hines_fail(err, HINES_BAD_INPUT, "%s: size range %d..%d (must be within 1..%d)", label,
                      min_compartments, max_compartments, SYNTHETIC_MAX_COMPARTMENTS);
  struct rng rng = rng_seeded(seed);
  int compartments = min_compartments + rng_below(&rng, max_compartments - min_compartments + 1);
  double percent = RANDOM_MIN_BRANCH_PERCENT +
                   (RANDOM_MAX_BRANCH_PERCENT - RANDOM_MIN_BRANCH_PERCENT) * rng_uniform(&rng);
  long target = lround(percent * compartments / 100.0);
  return build_random_tree(label, compartments, nearest_achievable_branches(target, compartments),
                           &rng, out, err);
}
