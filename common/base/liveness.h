/* Which processes of the run still run: a board in shared memory, one slot
 * per process of the host (pid, its world ranks, a heartbeat its watchdog
 * thread writes four times a second). When a host wait times out (the
 * watchdog, -T), the board names the peers whose heartbeat stopped: a
 * process that was stopped (SIGSTOP, a debugger) or is gone. That is what a
 * wait inside NCCL cannot say by itself: NCCL waits on the host without
 * knowing for whom. Processes on other hosts have no slot here and are not
 * named. */
#ifndef CB_LIVENESS_H
#define CB_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>

#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over every process (call from one thread per process, as a
 * process-level cb_world_run function): agrees on a board name (process 0's),
 * maps it, fills this process's slot (ranks_per_proc ranks from
 * proc * ranks_per_proc), and unlinks the board's file once every process
 * has mapped it, so nothing is left behind. Returns whether this process is
 * on the board: then its caller starts the heartbeat (cb_watchdog_start,
 * whose thread beats). Without shared memory it prints nothing and the
 * board stays off; a world of one process (every rank a thread of it) has
 * no board. */
bool cb_liveness_join(cb_rank_info *me, int ranks_per_proc);

/* The pieces, for tests: maps the board file path (created if absent) with
 * nprocs slots and fills slot proc. 0 on success, -1 (errno set) if not. */
int cb_liveness_open(const char *path, int nprocs, int proc, int first_rank, int nranks);
void cb_liveness_close(void);
/* Writes this process's heartbeat (the watchdog thread calls it). */
void cb_liveness_beat(void);
/* The processes, other than this one, whose heartbeat is older than stale_s
 * seconds, as "rank 1 (pid 4242) has not run for 10.3 s (stopped)" (or
 * "... (gone)" when the pid no longer exists), joined with "; " into buf.
 * Returns how many; 0 (buf "") without a board. */
int cb_liveness_stale(double stale_s, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
