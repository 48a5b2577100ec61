#include "distribution.h"

void distribution_ranges(int n_neurons, const int *compartments, int n_morphologies, int ranks,
                         int *first) {
  long long total = 0;
  for (int k = 0; k < n_neurons; k++)
    total += compartments[k % n_morphologies];
  /* Walk the neurons once; rank r's range opens at the first neuron k whose preceding
   * compartments (before_k) reach total * r / ranks (integer arithmetic: the same on every
   * rank and machine). */
  long long before = 0;
  int k = 0;
  first[0] = 0;
  for (int r = 1; r < ranks; r++) {
    const long long share = (long long)((__int128)total * r / ranks);
    while (k < n_neurons && before < share)
      before += compartments[k++ % n_morphologies];
    first[r] = k;
  }
  first[ranks] = n_neurons;
}
