#include "runtime.h"

#include <starpu.h>
#include <stdlib.h>
#include <string.h>

static char scheduler_in_use[64];
/* The run's workers, noted at start-up: the summary is written after StarPU stops. */
#define MAX_NOTED_GPUS 16
static int cpu_workers, cuda_workers, noted_gpus;
static char gpu_names[MAX_NOTED_GPUS][128];

int runtime_check_scheduler(const char *name, struct hines_error *err) {
  struct starpu_sched_policy **policies = starpu_sched_get_predefined_policies();
  char list[HINES_MESSAGE_SIZE] = "";
  for (int i = 0; policies[i]; i++) {
    if (strcmp(policies[i]->policy_name, name) == 0)
      return HINES_OK;
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s%s", used ? " " : "", policies[i]->policy_name);
  }
  return hines_fail(err, HINES_BAD_INPUT, "STARPU_SCHED=%s: unknown scheduler; StarPU offers: %s",
                    name, list);
}

int runtime_check_environment(struct hines_error *err) {
  const char *requested = getenv("STARPU_SCHED");
  if (requested && *requested) {
    int status = runtime_check_scheduler(requested, err);
    if (status)
      return status;
  }
  /* StarPU reads these with atoi and would quietly take "abc" for 0 workers. */
  const char *counts[] = {"STARPU_NCPU", "STARPU_NCPUS", "STARPU_NCUDA"};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
    const char *value = getenv(counts[i]);
    if (!value || !*value)
      continue;
    char *end;
    long number = strtol(value, &end, 10);
    if (*end || number < -1 || number > 4096)
      return hines_fail(err, HINES_BAD_INPUT, "%s=%s: not a worker count", counts[i], value);
  }
  return HINES_OK;
}

int runtime_start(const struct runtime_options *options, struct hines_error *err) {
  int status = runtime_check_environment(err);
  if (status)
    return status;
  /* StarPU's start-up chatter (FxT, scheduler advice) is for StarPU developers; users who want
   * it set STARPU_SILENT=0. */
  setenv("STARPU_SILENT", "1", 0);
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (!(options && options->tracing)) {
    /* A FxT-enabled StarPU 1.3 traces every run into /tmp unless told not to. */
    setenv("STARPU_FXT_TRACE", "0", 0);
  }
  int ret = starpu_init(&conf);
  if (ret == -ENODEV)
    return hines_fail(err, HINES_FAILURE, "StarPU found no worker to run on");
  if (ret != 0)
    return hines_fail(err, HINES_FAILURE, "StarPU failed to start (error %d)", ret);
  struct starpu_sched_policy *policy = starpu_sched_ctx_get_sched_policy(0);
  snprintf(scheduler_in_use, sizeof scheduler_in_use, "%s",
           policy && policy->policy_name ? policy->policy_name : "eager");
  cpu_workers = (int)starpu_cpu_worker_get_count();
  cuda_workers = (int)starpu_cuda_worker_get_count();
  /* One name per GPU, however many workers share it (STARPU_NWORKER_PER_CUDA). */
  noted_gpus = 0;
  int noted_devices[MAX_NOTED_GPUS];
  for (int w = 0; w < (int)starpu_worker_get_count() && noted_gpus < MAX_NOTED_GPUS; w++) {
    if (starpu_worker_get_type(w) != STARPU_CUDA_WORKER)
      continue;
    int device = starpu_worker_get_devid(w), seen = 0;
    for (int g = 0; g < noted_gpus; g++)
      seen |= noted_devices[g] == device;
    if (seen)
      continue;
    noted_devices[noted_gpus] = device;
    starpu_worker_get_name(w, gpu_names[noted_gpus++], sizeof gpu_names[0]);
  }
  return HINES_OK;
}

void runtime_stop(void) {
  starpu_shutdown();
}

const char *runtime_scheduler(void) {
  return scheduler_in_use;
}

int runtime_cpu_workers(void) {
  return cpu_workers;
}

int runtime_cuda_workers(void) {
  return cuda_workers;
}

int runtime_gpu_count(void) {
  return noted_gpus;
}

const char *runtime_gpu_name(int i) {
  return i >= 0 && i < noted_gpus ? gpu_names[i] : "";
}

const char *runtime_starpu_version(void) {
  static char version[32];
  int major, minor, release;
  starpu_get_version(&major, &minor, &release);
  snprintf(version, sizeof version, "%d.%d.%d", major, minor, release);
  return version;
}

void runtime_describe(FILE *out) {
  fprintf(out, "StarPU %d.%d.%d, scheduler %s, %d CPU worker%s, %d CUDA worker%s\n",
          STARPU_MAJOR_VERSION, STARPU_MINOR_VERSION, STARPU_RELEASE_VERSION, runtime_scheduler(),
          runtime_cpu_workers(), runtime_cpu_workers() == 1 ? "" : "s", runtime_cuda_workers(),
          runtime_cuda_workers() == 1 ? "" : "s");
  int n = (int)starpu_worker_get_count();
  for (int w = 0; w < n; w++) {
    char name[128];
    starpu_worker_get_name(w, name, sizeof name);
    fprintf(out, "  worker %d: %s\n", w, name);
  }
}
