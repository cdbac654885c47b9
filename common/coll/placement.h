/* Where a collective program's ranks run: their hosts (simulated with
 * CB_HOSTS), the process groups of NCCL_TESTS_SPLIT, and the GPUs the
 * ranks drive, with the layouts a host cannot give refused before any GPU
 * work. Internal to common/coll/. */
#ifndef CB_PLACEMENT_H
#define CB_PLACEMENT_H

#include "run_state.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CB_HOSTS=N: the processes become N simulated hosts (host_layout.h), or
 * are refused (lead says why). Every process calls it, after the tunables
 * agree and before cb_split_world. */
void cb_place_hosts(cb_world *w, int lead);

/* NCCL_TESTS_SPLIT: the processes split into groups by color; groups of
 * different sizes are refused (lead says why). Every process calls it. */
void cb_split_world(cb_world *w, int color, int lead);

/* Which GPUs the ranks drive (run's first_device, share_gpus,
 * visible_gpus), refused when the host cannot give them to rpp ranks per
 * process; with CB_SHARE_GPUS=1, or hosts simulated, lead says that times
 * are not comparable.
 * Every process takes part. */
void cb_check_devices(cb_world *w, cb_run *run, int rpp, int lead);

/* The device rank me drives: NCCL_TESTS_DEVICE plus its index in the
 * process (nccl-tests' meaning), else by its index on the host. */
int cb_device_of(const cb_run *run, const cb_rank_info *me);

/* Collective over every rank of every group: the ranks that drive the same
 * physical GPU as me, device (its machine and PCI bus id,
 * cb_gpu_identity), whatever host each claims. Ranks of several simulated
 * hosts (CB_HOSTS, NCCL_HOSTID) that share one GPU split one residency
 * budget (grid_fit.h): counted by host, each host's grids would take the
 * whole of it. */
int cb_ranks_on_gpu(cb_rank_info *me, int device);

#ifdef __cplusplus
}
#endif

#endif
