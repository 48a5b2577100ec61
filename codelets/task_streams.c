#include "task_streams.h"

#include <starpu.h>

/* One more stream than StarPU's pipeline holds tasks, so a stream is never reused while a
 * queued task may still run on it (tasks of a worker end in order). */
#define TASK_STREAMS 5

struct worker_streams {
  int ready, failed, next;
  cudaStream_t stream[TASK_STREAMS];
  cudaEvent_t done[TASK_STREAMS];
};
/* Indexed by worker id; each is touched only by the thread driving that worker. */
static struct worker_streams streams_of_worker[STARPU_NMAXWORKERS];

cudaStream_t hines_task_stream_begin(void) {
  cudaStream_t local = starpu_cuda_get_local_stream();
  int worker = starpu_worker_get_id();
  if (worker < 0 || worker >= STARPU_NMAXWORKERS)
    return local;
  struct worker_streams *ws = &streams_of_worker[worker];
  if (!ws->ready && !ws->failed) {
    for (int i = 0; i < TASK_STREAMS && !ws->failed; i++)
      ws->failed =
          cudaStreamCreateWithFlags(&ws->stream[i], cudaStreamNonBlocking) != cudaSuccess ||
          cudaEventCreateWithFlags(&ws->done[i], cudaEventDisableTiming) != cudaSuccess;
    ws->ready = !ws->failed;
  }
  if (!ws->ready)
    return local;
  cudaStream_t stream = ws->stream[ws->next];
  return stream;
}

int hines_task_stream_end(cudaStream_t stream) {
  cudaStream_t local = starpu_cuda_get_local_stream();
  if (stream == local)
    return 0;
  struct worker_streams *ws = &streams_of_worker[starpu_worker_get_id()];
  cudaEvent_t done = ws->done[ws->next];
  ws->next = (ws->next + 1) % TASK_STREAMS;
  cudaError_t status = cudaEventRecord(done, stream);
  if (status == cudaSuccess)
    status = cudaStreamWaitEvent(local, done, 0);
  return (int)status;
}
