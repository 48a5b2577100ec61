/* The mechanism table (mechanisms.h): the one place a mechanism is defined. To add one, give it
 * an index name in enum mechanism_index (mechanisms.h) and an entry here: its gates' rates in
 * the three forms (with the slope s in mV as a mod file divides by it), each gate's current and
 * power, the currents' maximal conductances (S/cm^2) and reversals (mV), and its default place.
 * The option's list, the kernels, the rate tables and the NEURON comparison follow. */
#include "mechanisms.h"

#include <stdio.h>
#include <string.h>

const struct mechanism_description mechanism_table[MECHANISM_COUNT] = {
    /* NEURON's hh.mod (squid axon, 6.3 degC): hinestask's channels since the start, bit for
     * bit. */
    [MECHANISM_HH] =
        {.name = "hh",
         .title = "Hodgkin-Huxley Na, K and leak (NEURON's hh.mod, 6.3 degC)",
         .gate_names = {"m", "h", "n"},
         .gbar_names = {"gnabar", "gkbar", "gl"},
         .reversal_names = {"ena", "ek", "el"},
         .defaults = {.placement = PLACE_ALL,
                      .shape = MECHANISM_HH_SHAPE,
                      .gbar = {0.12, 0.036, 0.0003},
                      .reversal = {50.0, -77.0, -54.3},
                      /* m: 0.1 vtrap(-(v+40), 10), 4 exp(-(v+65)/18)
                       * h: 0.07 exp(-(v+65)/20), 1 / (exp(-(v+35)/10) + 1)
                       * n: 0.01 vtrap(-(v+55), 10), 0.125 exp(-(v+65)/80) */
                      .alpha = {{0.1, -40.0, 10.0}, {0.07, -65.0, -20.0}, {0.01, -55.0, 10.0}},
                      .beta = {{4.0, -65.0, -18.0}, {1.0, -35.0, -10.0}, {0.125, -65.0, -80.0}}}},
    /* The M current (slow, non-inactivating K+) of Mainen & Sejnowski 1996 (km.mod, ModelDB
     * 2488): one gate n, g = gbar n, a = Ra (v - tha) / (1 - exp(-(v - tha)/qa)),
     * b = -Rb (v - tha) / (1 - exp((v - tha)/qa)) with Ra = Rb = 0.001 /ms/mV, tha = -30 mV,
     * qa = 9 mV; rates as km.mod has them at its own 23 degC (tadj = 1: no temperature
     * scaling here); gbar 10 pS/um2, ek -90 mV. */
    [MECHANISM_KM] = {.name = "km",
                      .title = "M current, slow K+ (Mainen & Sejnowski 1996 km.mod, 23 degC)",
                      .gate_names = {"n"},
                      .gbar_names = {"gbar"},
                      .reversal_names = {"ek"},
                      .defaults = {.placement = PLACE_SOMA,
                                   .shape = MECHANISM_KM_SHAPE,
                                   .gbar = {0.001},
                                   .reversal = {-90.0},
                                   .alpha = {{0.001, -30.0, 9.0}},
                                   .beta = {{-0.001, -30.0, -9.0}}}},
    /* The hyperpolarisation-activated cation current Ih (HCN channels) of Kole, Hallermann &
     * Stuart 2006 (Ih.mod, as Hay et al. 2011 ship it with their L5 pyramidal cell, ModelDB
     * 139653): one gate m, g = gIhbar m, a nonspecific current reversing at ehcn = -45 mV;
     *   mAlpha = 0.001 * 6.43 * (v + 154.9) / (exp((v + 154.9) / 11.9) - 1)
     *   mBeta  = 0.001 * 193 * exp(v / 33.1)
     * (1/ms; the mod file nudges v = -154.9 by 1e-4 mV where this linoid takes its limit). The
     * linoid a (v - vh) / (1 - exp(-(v - vh) / s)) with a = -0.00643, vh = -154.9, s = -11.9 is
     * mAlpha; mBeta is the exp form with vh = 0. gIhbar 1e-5 S/cm^2 as the mod file's default
     * (Hay's cell sets it per section); everywhere by default (HCN channels
     * line the dendrites). */
    [MECHANISM_IH] = {.name = "ih",
                      .title = "Ih, HCN cation current (Kole et al. 2006 Ih.mod, Hay et al. 2011)",
                      .gate_names = {"m"},
                      .gbar_names = {"gbar"},
                      .reversal_names = {"ehcn"},
                      .defaults = {.placement = PLACE_ALL,
                                   .shape = MECHANISM_IH_SHAPE,
                                   .gbar = {0.00001},
                                   .reversal = {-45.0},
                                   .alpha = {{-0.00643, -154.9, -11.9}},
                                   .beta = {{0.193, 0.0, 33.1}}},
                      /* half activation near -110 mV: hyperpolarised cells (a sag protocol)
                       * read the table below hh's -100 mV */
                      .table_low_mV = -150.0},
};

void channel_set_finish(struct channel_set *set) {
  int gates = 0, placement = PLACE_NONE, placed = 0;
  for (int m = 0; m < MECHANISM_COUNT; m++) {
    struct channel_mechanism *mechanism = &set->mechanism[m];
    mechanism->first_gate = gates;
    if (mechanism->placement == PLACE_NONE)
      continue;
    gates += mechanism->shape.n_gates;
    placed++;
    if (mechanism->placement > placement)
      placement = mechanism->placement;
  }
  set->n_gates = gates;
  set->placement = placement;
  set->hh_only = placed == 1 && set->mechanism[MECHANISM_HH].placement != PLACE_NONE;
}

void channel_set_init(struct channel_set *set) {
  memset(set, 0, sizeof *set);
  for (int m = 0; m < MECHANISM_COUNT; m++) {
    set->mechanism[m] = mechanism_table[m].defaults;
    set->mechanism[m].placement = PLACE_NONE;
  }
  channel_set_finish(set);
}

void channel_set_place(struct channel_set *set, int index, int placement) {
  set->mechanism[index].placement = placement;
  channel_set_finish(set);
}

int mechanism_find(const char *name, size_t length) {
  for (int m = 0; m < MECHANISM_COUNT; m++)
    if (strlen(mechanism_table[m].name) == length &&
        strncmp(mechanism_table[m].name, name, length) == 0)
      return m;
  return -1;
}

const char *mechanism_names(void) {
  static char names[256];
  if (!names[0])
    for (int m = 0; m < MECHANISM_COUNT; m++) {
      if (m)
        strncat(names, ", ", sizeof names - strlen(names) - 1);
      strncat(names, mechanism_table[m].name, sizeof names - strlen(names) - 1);
    }
  return names;
}

void channel_set_spec(const struct channel_set *set, char *text, size_t size) {
  static const char *const places[] = {"none", "soma", "all"};
  size_t used = 0;
  text[0] = '\0';
  for (int m = 0; m < MECHANISM_COUNT && used < size; m++)
    if (set->mechanism[m].placement != PLACE_NONE)
      used += (size_t)snprintf(text + used, size - used, "%s%s:%s", used ? "," : "",
                               mechanism_table[m].name, places[set->mechanism[m].placement]);
  if (!text[0])
    snprintf(text, size, "none");
}

struct channel_set channel_set_hh(int placement) {
  struct channel_set set;
  channel_set_init(&set);
  channel_set_place(&set, MECHANISM_HH, placement);
  return set;
}
