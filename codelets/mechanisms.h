/* Ion channel mechanisms as data. A mechanism (NEURON's word: a mod file's SUFFIX) is a set of
 * Hodgkin-Huxley-style gates, each advancing by its alpha(v) and beta(v), and one or more ohmic
 * currents g = gbar * (product of its gates' powers) with a reversal. The mechanisms a run can
 * place are the entries of one table, mechanism_table in mechanisms.c: adding a mechanism is
 * adding an entry there (and its index name in enum mechanism_index below); the option's list
 * of names, the rate tables, the kernels' loops, the gate arrays and the NEURON comparison
 * (scripts/compare_neuron.py reads the table from hinestask's --json) all follow from it.
 *
 * Rates (1/ms, v in mV) are in the three forms of NEURON's ChannelBuilder (KSChan), written the
 * way mod files write them, with a slope s in mV (KSChan's k = 1/s, d = vh):
 *   RATE_EXP      a * exp((v - vh) / s)                            KSChan exp:    A = a
 *   RATE_SIGMOID  a / (exp((v - vh) / s) + 1)                      KSChan sigmoid: A = a
 *   RATE_LINOID   a * (v - vh) / (1 - exp(-(v - vh) / s))          KSChan linoid: A = a * s
 *                 (a * s at v = vh: hh_vtrap's limit)
 * Dividing by s rather than multiplying by 1/s keeps hh's rates bit for bit as hh.mod writes
 * them (-(v + 65) / 18 is exactly (v + 65) / -18).
 *
 * The gates advance with NEURON's cnexp rule (exact for the linear gate equation at fixed v);
 * the currents enter the voltage step linearised, conductance on the diagonal and g*E on the
 * right-hand side, which keeps the implicit step stable. Everything the kernels compute is
 * here, shared by the CPU and CUDA kernels and the reference time loop (explicit fma where a
 * multiply-add is meant: the kernels are built without contraction). */
#ifndef HINES_MECHANISMS_H
#define HINES_MECHANISMS_H

#include <math.h>
#include <stddef.h>

#include "hines_math.h"
#include "host_device.h"

/* "static inline", always inlined: the kernels pass constants (a shape, a variant) that must
 * fold where the function is inlined. */
/* Loops over a mechanism's gates and currents, and over the table's mechanisms, unrolled
 * completely whatever their body's size: their counts and shapes are constants only once
 * unrolled (GCC would not unroll the exact rates' body on its own, and the CPU loops around
 * them then no longer vectorise). */
#ifdef __CUDACC__
#define MECHANISM_UNROLL _Pragma("unroll")
#else
#define MECHANISM_UNROLL _Pragma("GCC unroll 8")
#endif
#ifdef __CUDACC__
#define HINES_ALWAYS_INLINE static __forceinline__
#else
#define HINES_ALWAYS_INLINE static inline __attribute__((always_inline))
#endif

/* Where a mechanism sits: nowhere, on compartment 0 (the soma), on every compartment. */
enum channel_placement { PLACE_NONE, PLACE_SOMA, PLACE_ALL };

enum rate_kind { RATE_EXP, RATE_SIGMOID, RATE_LINOID };
struct rate_form {
  double a;  /* 1/ms (linoid: 1/(ms mV)) */
  double vh; /* mV */
  double s;  /* mV */
};

#define MECHANISM_MAX_GATES 4
#define MECHANISM_MAX_CURRENTS 3

/* What a mechanism's code depends on, as opposed to its numbers: how many gates and currents,
 * which current each gate gates and with what power (1 to 4), and its rates' forms. The kernels
 * take it by value: called with a constant shape (hh's, MECHANISM_HH_SHAPE) every test on it
 * folds away at compile time, which is how hh alone, the default, costs what it cost when it
 * was the only mechanism. */
struct mechanism_shape {
  int n_gates, n_currents;
  signed char power[MECHANISM_MAX_GATES];
  signed char current[MECHANISM_MAX_GATES];
  signed char alpha_kind[MECHANISM_MAX_GATES], beta_kind[MECHANISM_MAX_GATES];
};

/* NEURON's hh: gates m, h, n; currents na (m^3 h), k (n^4) and its own leak (no gate). */
#define MECHANISM_HH_SHAPE                                                                         \
  {                                                                                                \
    3, 3, {3, 1, 4, 0}, {0, 0, 1, 0}, {RATE_LINOID, RATE_EXP, RATE_LINOID, 0}, {                   \
      RATE_EXP, RATE_SIGMOID, RATE_EXP, 0                                                          \
    }                                                                                              \
  }
/* km (one gate n, g = gbar n) and ih (one gate m, g = gbar m): constants too, so that CPU
 * loops over lanes can take every mechanism's shape as a constant (channel_lanes_cpu.h). */
#define MECHANISM_KM_SHAPE                                                                         \
  {                                                                                                \
    1, 1, {1}, {0}, {RATE_LINOID}, {                                                               \
      RATE_LINOID                                                                                  \
    }                                                                                              \
  }
#define MECHANISM_IH_SHAPE                                                                         \
  {                                                                                                \
    1, 1, {1}, {0}, {RATE_LINOID}, {                                                               \
      RATE_EXP                                                                                     \
    }                                                                                              \
  }

/* One mechanism as a run has it: its place, its gates' first index among the run's gates, its
 * shape and numbers (the table's, or the user's gbar and reversals). */
struct channel_mechanism {
  int placement;  /* enum channel_placement */
  int first_gate; /* set by channel_set_finish */
  struct mechanism_shape shape;
  double gbar[MECHANISM_MAX_CURRENTS];     /* S/cm^2 */
  double reversal[MECHANISM_MAX_CURRENTS]; /* mV */
  struct rate_form alpha[MECHANISM_MAX_GATES], beta[MECHANISM_MAX_GATES];
};

/* The table's entries (mechanisms.c); hh stays first: the hh-only specialisation and the
 * --params columns gnabar, gkbar, gl_hh, el_hh refer to entry MECHANISM_HH. */
enum mechanism_index { MECHANISM_HH, MECHANISM_KM, MECHANISM_IH, MECHANISM_COUNT };
/* Currents of hh, in its shape's order (the --params columns and --gnabar & co.). */
enum hh_current { HH_CURRENT_NA, HH_CURRENT_K, HH_CURRENT_LEAK };

#define CHANNELS_MAX_GATES (MECHANISM_COUNT * MECHANISM_MAX_GATES)

/* The channels of a run: one slot per table entry (PLACE_NONE: not in this run). The gates of
 * the placed mechanisms are numbered in table order (first_gate); a batch stores gate g of
 * compartment i as its own array, and the rate table holds the placed gates only. */
struct channel_set {
  int placement; /* where any mechanism is: PLACE_ALL if one is everywhere, else PLACE_SOMA or
                    PLACE_NONE (the kernels' test per compartment, as hh's placement was) */
  int n_gates;   /* of the placed mechanisms */
  int hh_only;   /* hh placed and nothing else: the kernels' compile-time specialisation */
  struct channel_mechanism mechanism[MECHANISM_COUNT];
};

/* The table (host only). */
struct mechanism_description {
  const char *name;  /* as the option writes it */
  const char *title; /* one line: what, after whom */
  const char *gate_names[MECHANISM_MAX_GATES];
  const char *gbar_names[MECHANISM_MAX_CURRENTS];     /* NAME.PARAM in --channels */
  const char *reversal_names[MECHANISM_MAX_CURRENTS]; /* NULL: not settable */
  struct channel_mechanism defaults;                  /* placement: the default place */
  double table_low_mV; /* where its rate table must start at least (0: -100 mV, hh.mod's) */
};
#ifdef __cplusplus
extern "C" {
#endif
extern const struct mechanism_description mechanism_table[MECHANISM_COUNT];
/* Every mechanism with its numbers from the table, none placed. */
void channel_set_init(struct channel_set *set);
/* Places mechanism `index` (PLACE_NONE removes it) and renumbers the gates. */
void channel_set_place(struct channel_set *set, int index, int placement);
/* Renumbers the gates and the summary fields after placements changed by hand. */
void channel_set_finish(struct channel_set *set);
/* hh alone at `placement` (the others not placed), with the table's numbers. */
struct channel_set channel_set_hh(int placement);
/* The table index of `name` (length `length`), or -1. */
int mechanism_find(const char *name, size_t length);
/* "hh:all,km:soma" (or "none"): where the set's mechanisms are, NAME:PLACE items. */
void channel_set_spec(const struct channel_set *set, char *text, size_t size);
/* "hh, km, ih": the table's names, for messages and the usage text. */
const char *mechanism_names(void);
#ifdef __cplusplus
}
#endif

/* x / (exp(x/y) - 1) without the 0/0 at x = 0 (hh.mod's vtrap). */
static inline HINES_HOST_DEVICE double hh_vtrap(double x, double y) {
  return fabs(x / y) < 1e-6 ? y * (1.0 - x / y / 2.0) : x / (hines_exp(x / y) - 1.0);
}

/* One exponential and one division whatever the form, and no branch (selects only), so that a
 * CPU loop over neurons vectorises it when the form is not a constant. The linoid is hh_vtrap's
 * arithmetic: a * vtrap(-(v - vh), s) with vtrap's x/y = -(v - vh)/s = -u exactly. */
HINES_ALWAYS_INLINE HINES_HOST_DEVICE double rate_value(int kind, const struct rate_form *f,
                                                        double v) {
  const double shifted = v - f->vh;
  const double u = shifted / f->s;
  const int linoid = kind == RATE_LINOID;
  const double q = linoid ? -u : u;
  const double e = hines_exp(q);
  /* linoid: x / (exp(x/y) - 1) with x = -(v - vh); sigmoid: a / (exp(u) + 1) */
  const double ratio = (linoid ? -shifted : f->a) / (e + (linoid ? -1.0 : 1.0));
  return kind == RATE_EXP ? f->a * e
         : linoid         ? f->a * (fabs(q) < 1e-6 ? f->s * (1.0 - q / 2.0) : ratio)
                          : ratio;
}

static inline HINES_HOST_DEVICE double hh_relax(double gate, double alpha, double beta, double dt) {
  double rate = alpha + beta;
  double steady = alpha / rate;
  return fma(gate - steady, hines_exp(-dt * rate), steady);
}

static inline HINES_HOST_DEVICE int placement_applies(int placement, int compartment) {
  return placement == PLACE_ALL || (placement == PLACE_SOMA && compartment == 0);
}

/* Whether some mechanism sits on `compartment`. */
static inline HINES_HOST_DEVICE int channels_apply(const struct channel_set *set, int compartment) {
  return placement_applies(set->placement, compartment);
}

/* Gate `gate` of a mechanism whose first gate is at `gates`, the gates gate_step apart. */
#define MECHANISM_GATE(gates, gate, gate_step) ((gates)[(size_t)(gate) * (gate_step)])

/* Advances the mechanism's gates by dt at voltage v with the rates computed exactly. */
HINES_ALWAYS_INLINE HINES_HOST_DEVICE void mechanism_gates_exact(const struct channel_mechanism *m,
                                                                 const struct mechanism_shape shape,
                                                                 double v, double dt, double *gates,
                                                                 size_t gate_step) {
  MECHANISM_UNROLL
  for (int g = 0; g < MECHANISM_MAX_GATES; g++)
    if (g < shape.n_gates) {
      const double alpha = rate_value(shape.alpha_kind[g], &m->alpha[g], v);
      const double beta = rate_value(shape.beta_kind[g], &m->beta[g], v);
      MECHANISM_GATE(gates, g, gate_step) =
          hh_relax(MECHANISM_GATE(gates, g, gate_step), alpha, beta, dt);
    }
}

/* conductance times gate^power, in the order hh's code has always multiplied (m*m*m as one
 * factor, n^4 as two factors n*n). */
HINES_ALWAYS_INLINE HINES_HOST_DEVICE double gate_power_times(double conductance, double gate,
                                                              int power) {
  const double square = gate * gate;
  return power == 1   ? conductance * gate
         : power == 2 ? conductance * square
         : power == 3 ? conductance * (square * gate)
                      : conductance * square * square;
}

/* For a compartment whose membrane area times 1e-2 is `scale` (S/cm^2 -> uS), the mechanism's
 * conductance to add to the diagonal and its current g*E to add to the rhs. */
HINES_ALWAYS_INLINE HINES_HOST_DEVICE void mechanism_currents(const struct channel_mechanism *m,
                                                              const struct mechanism_shape shape,
                                                              double scale, const double *gates,
                                                              size_t gate_step, double *conductance,
                                                              double *driven_current) {
  double g[MECHANISM_MAX_CURRENTS];
  double total = 0.0;
  MECHANISM_UNROLL
  for (int c = 0; c < MECHANISM_MAX_CURRENTS; c++)
    if (c < shape.n_currents) {
      double gc = m->gbar[c];
      MECHANISM_UNROLL
      for (int gate = 0; gate < MECHANISM_MAX_GATES; gate++)
        if (gate < shape.n_gates && shape.current[gate] == c)
          gc = gate_power_times(gc, MECHANISM_GATE(gates, gate, gate_step), shape.power[gate]);
      g[c] = gc * scale;
      total = c == 0 ? g[c] : total + g[c];
    }
  /* the last current's g*E, then the others' added by fma, last to first */
  double driven = 0.0;
  MECHANISM_UNROLL
  for (int c = MECHANISM_MAX_CURRENTS - 1; c >= 0; c--)
    if (c < shape.n_currents)
      driven =
          c == shape.n_currents - 1 ? g[c] * m->reversal[c] : fma(g[c], m->reversal[c], driven);
  *conductance = total;
  *driven_current = driven;
}

/* Rate tables, as NEURON's hh.mod (TABLE ... FROM -100 TO 100 WITH 200, on by default there:
 * usetable_hh = 1). The cnexp update of gate x at fixed v is x_new = x A(v) + B(v) with
 * A = exp(-dt (alpha + beta)) and B = x_inf (1 - A); the table holds A and B of every placed
 * gate at every millivolt from -100 to 100 for the run's dt (channel_rate_table_fill, on the
 * host, from the exact rates above), and a step interpolates them linearly in v: one index and
 * fraction per compartment, then an fma per coefficient and one per gate instead of two
 * exponentials and three divisions per gate. Outside [-100, 100] mV the end point's values
 * hold, as NEURON's table clamps (NaN reads the first point; the voltage stays NaN and is
 * reported as such).
 * NEURON interpolates x_inf and tau and takes the exponential of -dt/tau each step; the decay
 * form tabulates that exponential too, so the step has none. Both are second-order accurate in
 * the grid spacing; BENCHMARKS.md ("Rate tables") measures the two against exact rates and
 * against NEURON.
 * The table starts with its grid (RATE_TABLE_HEADER doubles: the first voltage, points per mV,
 * and the clamp's ends 0 and 200 in grid units); then entry i (interval [v_i, v_i + 1 mV],
 * i = 0 .. 200) holds, for each placed gate in turn (4 * n_gates doubles: 12 for hh's m, h, n),
 * A(v_i), the slope A(v_i+1) - A(v_i), B(v_i) and its slope: the values one compartment reads
 * are contiguous, and the interpolation is a single fma per value. Entry 200 has slopes 0, so
 * v >= 100 mV reads exactly the last point, as NEURON does. With ih placed the grid starts at
 * -150 mV instead (250 intervals; hh's and km's values below -100 mV are then their rates',
 * not hh.mod's clamp). The kernels read the grid from the
 * header, not from constants: with constant clamp ends GCC 12 turns the clamp into branches (it
 * specialises the index for the constant cases) and no longer vectorises the CPU loops
 * ("control flow in loop"); read from memory, the ends are loop invariants and the loop
 * vectorises with gathers. */
enum hh_rates { HH_RATES_EXACT, HH_RATES_TABLE };
#define RATE_TABLE_VMIN_MV (-100.0) /* hh's and km's lowest point, as hh.mod's TABLE */
#define RATE_TABLE_VMAX_MV 100.0
#define RATE_TABLE_INTERVALS 200 /* grid points 0 .. 200 from -100 mV */
#define RATE_TABLE_PER_MV 1.0    /* 200 intervals over 200 mV */
/* A table starts lower where a placed mechanism asks it to (mechanism_description's
 * table_low_mV: ih, which activates below -100 mV, from -150); a batch reserves the longest. */
#define RATE_TABLE_LOWEST_MV (-150.0)
#define RATE_TABLE_MAX_INTERVALS 250
enum rate_table_header {
  RATE_TABLE_FIRST_MV,
  RATE_TABLE_POINTS_PER_MV,
  RATE_TABLE_LOW,
  RATE_TABLE_HIGH,
  RATE_TABLE_HEADER
};
/* Doubles per gate and grid point, and of a table for n_gates gates. */
#define RATE_TABLE_PER_GATE 4
#define RATE_TABLE_SIZE(n_gates)                                                                   \
  (RATE_TABLE_HEADER +                                                                             \
   (size_t)(RATE_TABLE_MAX_INTERVALS + 1) * RATE_TABLE_PER_GATE * (size_t)(n_gates))
/* What a batch reserves, whatever it places. */
#define CHANNEL_RATE_TABLE_SIZE RATE_TABLE_SIZE(CHANNELS_MAX_GATES)

/* The channels' share of a task's kind for the size models (codelets/size_model.h): tables and
 * exact rates cost differently per compartment, and so do the mechanisms. hh alone keeps the
 * kinds it had when it was the only mechanism (exact rates: the placement alone, the kinds
 * models learnt before tables existed), so models learnt then still apply. */
static inline unsigned channels_cost_kind(const struct channel_set *set, int rates) {
  unsigned kind = (unsigned)set->placement +
                  (set->placement != PLACE_NONE && rates == HH_RATES_TABLE ? 16u : 0u);
  if (set->placement != PLACE_NONE && !set->hh_only)
    for (int m = 0; m < MECHANISM_COUNT; m++)
      kind += 64u * (unsigned)set->mechanism[m].placement * (m == 0 ? 1u : 3u * (unsigned)m);
  return kind;
}

/* A and B (decay form above) of a gate at voltage v and step dt, from the exact rates. */
static inline void gate_decay_coefficients(const struct channel_mechanism *m, int g, double v,
                                           double dt, double *a, double *b) {
  const double alpha = rate_value(m->shape.alpha_kind[g], &m->alpha[g], v);
  const double beta = rate_value(m->shape.beta_kind[g], &m->beta[g], v);
  const double rate = alpha + beta;
  *a = hines_exp(-dt * rate);
  *b = alpha / rate * -expm1(-dt * rate); /* 1 - A without cancellation */
}

/* The table's first voltage for the set: -100 mV (hh.mod's TABLE), or lower where a placed
 * mechanism's description asks for it. */
static inline double channel_rate_table_first_mV(const struct channel_set *set) {
  double first = RATE_TABLE_VMIN_MV;
  for (int mi = 0; mi < MECHANISM_COUNT; mi++)
    if (set->mechanism[mi].placement != PLACE_NONE && mechanism_table[mi].table_low_mV < first)
      first = mechanism_table[mi].table_low_mV;
  return first < RATE_TABLE_LOWEST_MV ? RATE_TABLE_LOWEST_MV : first;
}

/* Fills table (RATE_TABLE_SIZE(set->n_gates) doubles at least) for step dt. */
static inline void channel_rate_table_fill(const struct channel_set *set, double dt,
                                           double *table) {
  const double first_mV = channel_rate_table_first_mV(set);
  const int intervals = (int)((RATE_TABLE_VMAX_MV - first_mV) * RATE_TABLE_PER_MV);
  table[RATE_TABLE_FIRST_MV] = first_mV;
  table[RATE_TABLE_POINTS_PER_MV] = RATE_TABLE_PER_MV;
  table[RATE_TABLE_LOW] = 0.0;
  table[RATE_TABLE_HIGH] = intervals;
  table += RATE_TABLE_HEADER;
  const size_t entry = RATE_TABLE_PER_GATE * (size_t)set->n_gates;
  for (int mi = 0; mi < MECHANISM_COUNT; mi++) {
    const struct channel_mechanism *m = &set->mechanism[mi];
    if (m->placement == PLACE_NONE)
      continue;
    for (int g = 0; g < m->shape.n_gates; g++) {
      double *column = table + RATE_TABLE_PER_GATE * (size_t)(m->first_gate + g);
      double a, b, next_a = 0.0, next_b = 0.0;
      gate_decay_coefficients(m, g, first_mV, dt, &a, &b);
      for (int i = 0; i <= intervals; i++) {
        double *values = column + (size_t)i * entry;
        if (i < intervals)
          gate_decay_coefficients(m, g, first_mV + (i + 1) / RATE_TABLE_PER_MV, dt, &next_a,
                                  &next_b);
        values[0] = a;
        values[1] = i < intervals ? next_a - a : 0.0;
        values[2] = b;
        values[3] = i < intervals ? next_b - b : 0.0;
        a = next_a;
        b = next_b;
      }
    }
  }
}

/* Where voltage v falls in the table: the offset of its entry's first value (the first gate's
 * A) and the fraction theta of the interval. */
HINES_ALWAYS_INLINE HINES_HOST_DEVICE size_t rate_table_entry(const double *HINES_RESTRICT table,
                                                              double v, size_t entry_size,
                                                              double *theta) {
  const double low = HINES_LDG(table + RATE_TABLE_LOW), high = HINES_LDG(table + RATE_TABLE_HIGH);
  double x =
      (v - HINES_LDG(table + RATE_TABLE_FIRST_MV)) * HINES_LDG(table + RATE_TABLE_POINTS_PER_MV);
  x = x > low ? x : low; /* below the range, and NaN */
  x = x < high ? x : high;
  const int i = (int)x;
  *theta = x - (double)i; /* exact */
  return RATE_TABLE_HEADER + (size_t)i * entry_size;
}

/* Advances the mechanism's gates through the table (read-only data, through the GPU's read-only
 * cache); e: the offset of the mechanism's first gate in the compartment's entry. One offset
 * added to table in every load (not a pointer to the entry): GCC 12 turns that form into
 * gathers, the other it does not vectorise. */
HINES_ALWAYS_INLINE HINES_HOST_DEVICE void mechanism_gates_table(const struct mechanism_shape shape,
                                                                 const double *HINES_RESTRICT table,
                                                                 size_t e, double theta,
                                                                 double *gates, size_t gate_step) {
  MECHANISM_UNROLL
  for (int g = 0; g < MECHANISM_MAX_GATES; g++)
    if (g < shape.n_gates) {
      const size_t at = e + RATE_TABLE_PER_GATE * (size_t)g;
      double *x = &MECHANISM_GATE(gates, g, gate_step);
      *x = fma(*x, fma(theta, HINES_LDG(table + at + 1), HINES_LDG(table + at + 0)),
               fma(theta, HINES_LDG(table + at + 3), HINES_LDG(table + at + 2)));
    }
}

/* The kernels' forms of the channel code: rates exact or from the table, hh alone (constant
 * shape) or any set. */
enum channel_variant {
  CHANNELS_HH_EXACT,
  CHANNELS_HH_TABLE,
  CHANNELS_ANY_EXACT,
  CHANNELS_ANY_TABLE
};
static inline HINES_HOST_DEVICE int channel_variant_of(const struct channel_set *set,
                                                       const double *rate_table) {
  return (set->hh_only ? CHANNELS_HH_EXACT : CHANNELS_ANY_EXACT) + (rate_table ? 1 : 0);
}

/* The channels' share of a row at a compartment where channels_apply: every mechanism there
 * advances its gates on the old voltage, then adds its conductance to the diagonal and its
 * driving current to the rhs (linearised, so the step stays implicit). gates: the
 * compartment's first gate, gate g at gates[g * gate_step]. variant (enum channel_variant,
 * from channel_variant_of; rate_table NULL for the exact ones): a constant where the kernels
 * call this, so the other forms' code disappears; CPU loops that vectorise these calls keep one
 * loop per variant, for the same reason. hh: the numbers of hh to use
 * (&set->mechanism[MECHANISM_HH], or a neuron's own in a parameter sweep). */
HINES_ALWAYS_INLINE HINES_HOST_DEVICE void
channels_row(const struct channel_set *set, const struct channel_mechanism *hh, int variant,
             const double *HINES_RESTRICT rate_table, int compartment, double old_voltage,
             double dt_ms, double scale, double *gates, size_t gate_step, double *diagonal,
             double *rhs) {
  double conductance, driven;
  if (variant == CHANNELS_HH_EXACT || variant == CHANNELS_HH_TABLE) {
    const struct mechanism_shape hh_shape = MECHANISM_HH_SHAPE;
    if (variant == CHANNELS_HH_TABLE) {
      double theta;
      const size_t e = rate_table_entry(rate_table, old_voltage, 12, &theta);
      mechanism_gates_table(hh_shape, rate_table, e, theta, gates, gate_step);
    } else {
      mechanism_gates_exact(hh, hh_shape, old_voltage, dt_ms, gates, gate_step);
    }
    mechanism_currents(hh, hh_shape, scale, gates, gate_step, &conductance, &driven);
    *diagonal += conductance;
    *rhs += driven;
    return;
  }
  double theta = 0.0;
  size_t e = 0;
  if (variant == CHANNELS_ANY_TABLE)
    e = rate_table_entry(rate_table, old_voltage, RATE_TABLE_PER_GATE * (size_t)set->n_gates,
                         &theta);
  MECHANISM_UNROLL
  for (int mi = 0; mi < MECHANISM_COUNT; mi++) {
    const struct channel_mechanism *m = mi == MECHANISM_HH ? hh : &set->mechanism[mi];
    if (!placement_applies(set->mechanism[mi].placement, compartment))
      continue;
    double *own = gates + (size_t)m->first_gate * gate_step;
    if (variant == CHANNELS_ANY_TABLE)
      mechanism_gates_table(m->shape, rate_table, e + RATE_TABLE_PER_GATE * (size_t)m->first_gate,
                            theta, own, gate_step);
    else
      mechanism_gates_exact(m, m->shape, old_voltage, dt_ms, own, gate_step);
    mechanism_currents(m, m->shape, scale, own, gate_step, &conductance, &driven);
    *diagonal += conductance;
    *rhs += driven;
  }
}

/* channels_row of the form `variant` (channel_variant_of), picked at run time; table_memory:
 * the rate table for the table forms, which the exact forms never read. Where a GPU kernel may
 * run an exact form, pass memory that is readable all the same (the table's place, filled or
 * not): a GPU compiler may hoist the table forms' loads of the table's header above the switch.
 * With NULL for exact rates the level solver's row kernel read address 0 on the H200 (an illegal
 * address, every run of --hh-rates exact whose rows were built apart). */
static inline HINES_HOST_DEVICE void
channels_row_of_variant(const struct channel_set *set, const struct channel_mechanism *hh,
                        int variant, const double *HINES_RESTRICT table_memory, int compartment,
                        double old_voltage, double dt_ms, double scale, double *gates,
                        size_t gate_step, double *diagonal, double *rhs) {
  switch (variant) {
  case CHANNELS_HH_EXACT:
    channels_row(set, hh, CHANNELS_HH_EXACT, table_memory, compartment, old_voltage, dt_ms, scale,
                 gates, gate_step, diagonal, rhs);
    break;
  case CHANNELS_HH_TABLE:
    channels_row(set, hh, CHANNELS_HH_TABLE, table_memory, compartment, old_voltage, dt_ms, scale,
                 gates, gate_step, diagonal, rhs);
    break;
  case CHANNELS_ANY_EXACT:
    channels_row(set, hh, CHANNELS_ANY_EXACT, table_memory, compartment, old_voltage, dt_ms, scale,
                 gates, gate_step, diagonal, rhs);
    break;
  default:
    channels_row(set, hh, CHANNELS_ANY_TABLE, table_memory, compartment, old_voltage, dt_ms, scale,
                 gates, gate_step, diagonal, rhs);
  }
}

/* channels_row with the variant picked at run time from the table (NULL: exact rates; scalar
 * code: the reference, the soma). */
static inline HINES_HOST_DEVICE void
channels_row_any(const struct channel_set *set, const struct channel_mechanism *hh,
                 const double *HINES_RESTRICT rate_table, int compartment, double old_voltage,
                 double dt_ms, double scale, double *gates, size_t gate_step, double *diagonal,
                 double *rhs) {
  channels_row_of_variant(set, hh, channel_variant_of(set, rate_table), rate_table, compartment,
                          old_voltage, dt_ms, scale, gates, gate_step, diagonal, rhs);
}

/* channels_row_any where the caller knows at compile time whether the set holds hh alone
 * (hh_only_known 1: only hh's two forms are compiled, as for a sweep's own numbers in a run of
 * hh alone; 0: any set, channels_row_any). */
HINES_ALWAYS_INLINE HINES_HOST_DEVICE void
channels_row_known(int hh_only_known, const struct channel_set *set,
                   const struct channel_mechanism *hh, const double *HINES_RESTRICT rate_table,
                   int compartment, double old_voltage, double dt_ms, double scale, double *gates,
                   size_t gate_step, double *diagonal, double *rhs) {
  if (!hh_only_known)
    channels_row_any(set, hh, rate_table, compartment, old_voltage, dt_ms, scale, gates, gate_step,
                     diagonal, rhs);
  else if (rate_table)
    channels_row(set, hh, CHANNELS_HH_TABLE, rate_table, compartment, old_voltage, dt_ms, scale,
                 gates, gate_step, diagonal, rhs);
  else
    channels_row(set, hh, CHANNELS_HH_EXACT, NULL, compartment, old_voltage, dt_ms, scale, gates,
                 gate_step, diagonal, rhs);
}

/* Every placed gate at rest for voltage v: x_inf = alpha / (alpha + beta). */
static inline void channels_rest(const struct channel_set *set, double v, double *gates,
                                 size_t gate_step) {
  for (int mi = 0; mi < MECHANISM_COUNT; mi++) {
    const struct channel_mechanism *m = &set->mechanism[mi];
    if (m->placement == PLACE_NONE)
      continue;
    for (int g = 0; g < m->shape.n_gates; g++) {
      const double alpha = rate_value(m->shape.alpha_kind[g], &m->alpha[g], v);
      const double beta = rate_value(m->shape.beta_kind[g], &m->beta[g], v);
      gates[(size_t)(m->first_gate + g) * gate_step] = alpha / (alpha + beta);
    }
  }
}

#endif
