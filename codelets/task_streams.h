/* Streams for the kernels of StarPU CUDA tasks, so that the tasks one CUDA worker keeps queued
 * (STARPU_CUDA_PIPELINE, at most 4) run concurrently instead of one after the other on the
 * worker's single stream. A codelet queues its kernels on hines_task_stream_begin()'s stream
 * and ends with hines_task_stream_end(): StarPU's stream then waits for those kernels, so the
 * event StarPU records on its stream after the codelet returns still marks the task's end.
 *
 * Why it is safe: StarPU hands a task to a worker only once the tasks it depends on have
 * ended and its inputs are on the GPU, so the queued tasks of a worker never depend on each
 * other; they end in order (StarPU's stream), so a pipeline slot's stream is idle again when
 * the slot is reused. Only for codelets declared STARPU_CUDA_ASYNC. */
#ifndef HINES_TASK_STREAMS_H
#define HINES_TASK_STREAMS_H

#include <cuda_runtime.h>

/* The stream for the calling task's kernels: one of the calling worker's own streams, in turn
 * (created on first use on the worker's device), or StarPU's stream if they cannot be made. */
cudaStream_t hines_task_stream_begin(void);
/* Makes StarPU's stream wait for what the task queued on `stream`; 0 or a cudaError_t. */
int hines_task_stream_end(cudaStream_t stream);

#endif
