/* copy_perf: host<->device and peer copies, path by path, side by side:
 * which one wins at which size, for latency and for bandwidth. */
#include "copy.h"
#include "kernels/copy_kernels.h"

#define HOST_DIRS (CB_DIR_BIT(CB_H2D) | CB_DIR_BIT(CB_D2H))
#define NO_PEER   "a path between host memory and this GPU: no peer copy"

static const cb_copy_kernel kernels[] = {
    {.id = 0,
     .name = "ce",
     .summary = "cudaMemcpyAsync on one stream (copy engine); a window is W calls",
     .dirs = CB_ALL_DIRS,
     .post = cb_copy_ce_post,
     .complete = cb_copy_stream_complete},
    {.id = 1,
     .name = "batch",
     .summary = "cudaMemcpyBatchAsync (copy engine): one call for a window of copies",
     .dirs = CB_ALL_DIRS,
     .unavailable = cb_copy_batch_unavailable,
     .setup = cb_copy_batch_setup,
     .teardown = cb_copy_batch_teardown,
     .post = cb_copy_batch_post,
     .complete = cb_copy_stream_complete},
    {.id = 2,
     .name = "sm",
     .summary = "a GPU kernel per copy loads/stores mapped pinned host memory (d2d: stores to "
                "the peer), 16-byte accesses",
     .dirs = CB_ALL_DIRS,
     .needs_pinned = 1,
     .setup = cb_copy_sm_setup,
     .teardown = cb_copy_sm_teardown,
     .post = cb_copy_sm_post,
     .complete = cb_copy_stream_complete},
    {.id = 3,
     .name = "gdrcopy",
     .summary = "CPU stores into / loads from device memory through a GDRCopy BAR mapping",
     .dirs = HOST_DIRS,
     .other_dirs = NO_PEER,
     .unavailable = cb_copy_gdr_unavailable,
     .setup = cb_copy_gdr_setup,
     .teardown = cb_copy_gdr_teardown,
     .post = cb_copy_gdr_post},
    {.id = 4,
     .name = "llhost",
     .summary = "LL16 packets (small copies) or a payload and one flag per chunk, between the "
                "CPU and a resident GPU kernel through mapped pinned host memory",
     .dirs = HOST_DIRS,
     .other_dirs = NO_PEER,
     .refuse_run = cb_copy_llh_refuse_run,
     .setup = cb_copy_llh_setup,
     .teardown = cb_copy_llh_teardown,
     .start = cb_copy_llh_start,
     .stop = cb_copy_llh_stop,
     .post = cb_copy_llh_post,
     .complete = cb_copy_llh_complete,
     .protocol = cb_copy_llh_protocol,
     .describe = cb_copy_llh_describe},
};

static const cb_copy_program copy = {kernels, sizeof kernels / sizeof kernels[0]};

int main(int argc, char **argv) {
  return cb_copy_main(&copy, argc, argv);
}
