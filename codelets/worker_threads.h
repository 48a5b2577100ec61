/* The loops a CPU codelet spreads over the threads of its StarPU worker. */
#ifndef HINES_WORKER_THREADS_H
#define HINES_WORKER_THREADS_H

#define HINES_PRAGMA(text) _Pragma(#text)

/* for (int VAR = 0; VAR < COUNT; VAR++) { BODY }, over THREADS OpenMP threads with the schedule
 * SCHEDULE when THREADS > 1 (a combined worker of pheft or peager), else as a plain loop on the
 * calling thread. A StarPU CPU worker is one thread, and libgomp allocates and frees a team for
 * every parallel region of one thread (it keeps a team for reuse only when it has more): with a
 * region for each level's sweep, the allocation (malloc_consolidate, _int_free) and libgomp took
 * about a sixth of a core's time on random trees in chunks of one neuron (perf, dev machine).
 * The iterations are independent, so the order the plain loop takes gives the same bits. THREADS
 * is evaluated twice. */
#ifndef HINES_FOR_ON_THREADS_ALWAYS
#define HINES_FOR_ON_THREADS_ALWAYS 0 /* 1: a region even for one thread (a build to measure) */
#endif
#define FOR_ON_THREADS(THREADS, SCHEDULE, VAR, COUNT, ...)                                         \
  do {                                                                                             \
    const int hines_count_ = (COUNT);                                                              \
    if ((THREADS) > 1 || HINES_FOR_ON_THREADS_ALWAYS) {                                            \
      HINES_PRAGMA(omp parallel for num_threads(THREADS) schedule(SCHEDULE))                       \
      for (int VAR = 0; VAR < hines_count_; VAR++) {                                               \
        __VA_ARGS__;                                                                               \
      }                                                                                            \
    } else {                                                                                       \
      for (int VAR = 0; VAR < hines_count_; VAR++) {                                               \
        __VA_ARGS__;                                                                               \
      }                                                                                            \
    }                                                                                              \
  } while (0)

#endif
