/* Functions shared verbatim by the CPU and CUDA kernels are marked HINES_HOST_DEVICE, so that
 * both compile the same source. */
#ifndef HINES_HOST_DEVICE_H
#define HINES_HOST_DEVICE_H

#ifdef __CUDACC__
#define HINES_HOST_DEVICE __host__ __device__
#else
#define HINES_HOST_DEVICE
#endif

#endif
