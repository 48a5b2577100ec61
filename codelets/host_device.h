/* Functions shared verbatim by the CPU and CUDA kernels are marked HINES_HOST_DEVICE, so that
 * both compile the same source. */
#ifndef HINES_HOST_DEVICE_H
#define HINES_HOST_DEVICE_H

#ifdef __CUDACC__
#define HINES_HOST_DEVICE __host__ __device__
#define HINES_RESTRICT __restrict__
#else
#define HINES_HOST_DEVICE
#define HINES_RESTRICT restrict
#endif

/* A load of read-only data: through the GPU's read-only data cache in device code, a plain load
 * elsewhere. */
#ifdef __CUDA_ARCH__
#define HINES_LDG(pointer) __ldg(pointer)
#else
#define HINES_LDG(pointer) (*(pointer))
#endif

/* A hint that the GPU thread will soon load `pointer`: its line is fetched into L2 with no
 * register held and no wait (PTX prefetch.global.L2); nothing on a CPU. A sweep's thread walks
 * its elements one after another and cannot issue the next element's load before the stores of
 * this one (they might alias), so each element would otherwise wait a full memory latency; the
 * hint, issued a few elements ahead, turns that wait into an L2 hit. It changes no arithmetic. */
#ifdef __CUDA_ARCH__
#define HINES_ON_GPU 1
#define HINES_PREFETCH_L2(pointer) asm volatile("prefetch.global.L2 [%0];" ::"l"(pointer))
#else
#define HINES_ON_GPU 0
#define HINES_PREFETCH_L2(pointer) ((void)(pointer))
#endif

#endif
