#define _GNU_SOURCE /* kill, ftruncate, mmap */
#include "liveness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  _Atomic int64_t beat_ns; /* CLOCK_MONOTONIC, the same clock for every process of a host */
  _Atomic int32_t pid;     /* 0: no process here (another host, or not joined yet) */
  int32_t first_rank, nranks;
  int32_t pad;
} slot;

/* Published with a release store after board_slots and my_slot: the
 * watchdog thread, which may already run (an MPI wait armed it), reads it. */
static slot *_Atomic board;
static int board_slots, my_slot = -1;

static slot *the_board(void) {
  return atomic_load_explicit(&board, memory_order_acquire);
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int cb_liveness_open(const char *path, int nprocs, int proc, int first_rank, int nranks) {
  if (nprocs < 1 || proc < 0 || proc >= nprocs) {
    errno = EINVAL;
    return -1;
  }
  int fd = open(path, O_RDWR | O_CREAT, 0600);
  if (fd < 0) return -1;
  size_t bytes = (size_t)nprocs * sizeof(slot);
  /* Every process sets the same length: ftruncate to it never cuts a slot. */
  if (ftruncate(fd, (off_t)bytes) != 0) {
    close(fd);
    return -1;
  }
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return -1;
  cb_liveness_close();
  board_slots = nprocs;
  my_slot = proc;
  slot *s = &((slot *)p)[proc];
  s->first_rank = first_rank;
  s->nranks = nranks;
  atomic_store(&s->beat_ns, now_ns());
  atomic_store(&s->pid, (int32_t)getpid()); /* last: the slot is complete for the others */
  atomic_store_explicit(&board, (slot *)p, memory_order_release);
  return 0;
}

/* For tests and for a second open: not while the watchdog thread may beat. */
void cb_liveness_close(void) {
  slot *b = atomic_exchange(&board, NULL);
  if (b) munmap(b, (size_t)board_slots * sizeof(slot));
  board_slots = 0;
  my_slot = -1;
}

void cb_liveness_beat(void) {
  slot *b = the_board();
  if (b) atomic_store_explicit(&b[my_slot].beat_ns, now_ns(), memory_order_relaxed);
}

/* snprintf at buf + *used, keeping *used within the buffer. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t len, size_t *used,
                                                      const char *fmt, ...) {
  if (*used + 1 >= len) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *used, len - *used, fmt, ap);
  va_end(ap);
  if (n > 0) *used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
}

int cb_liveness_stale(double stale_s, char *buf, size_t len) {
  size_t used = 0;
  int count = 0;
  if (len) buf[0] = '\0';
  slot *b = the_board();
  if (!b) return 0;
  int64_t now = now_ns();
  for (int i = 0; i < board_slots; i++) {
    slot *s = &b[i];
    int pid = atomic_load(&s->pid);
    if (i == my_slot || pid == 0) continue;
    double idle = (double)(now - atomic_load_explicit(&s->beat_ns, memory_order_relaxed)) * 1e-9;
    if (idle <= stale_s) continue;
    const char *state = kill(pid, 0) != 0 && errno == ESRCH ? "gone" : "stopped";
    if (count) add(buf, len, &used, "; ");
    if (s->nranks > 1)
      add(buf, len, &used, "ranks %d-%d (pid %d) have not run for %.1f s (%s)", s->first_rank,
          s->first_rank + s->nranks - 1, pid, idle, state);
    else
      add(buf, len, &used, "rank %d (pid %d) has not run for %.1f s (%s)", s->first_rank, pid, idle,
          state);
    count++;
  }
  return count;
}

#define PATH_MAX_LEN 96

/* Process 0's choice of file: in /dev/shm (memory) where there is one. */
static void board_path(char *path, size_t len) {
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, len, "%s/collbench-live-%d-%lld", dir, (int)getpid(), (long long)now_ns());
}

bool cb_liveness_join(cb_rank_info *me, int ranks_per_proc) {
  /* One process has no peer process to name: its ranks are its own threads. */
  if (me->nprocs < 2) return false;
  char mine[PATH_MAX_LEN] = {0};
  if (me->proc == 0) board_path(mine, sizeof mine);
  char *all = calloc((size_t)me->world_nranks, sizeof mine);
  if (!all) return false;
  cb_world_allgather_all(me, mine, sizeof mine, all); /* everyone takes process 0's */
  char path[PATH_MAX_LEN];
  memcpy(path, all, sizeof path);
  path[sizeof path - 1] = '\0';
  free(all);
  int ok =
      cb_liveness_open(path, me->nprocs, me->proc, me->proc * ranks_per_proc, ranks_per_proc) == 0;
  cb_world_barrier_all(me); /* every process of the host has it mapped (or failed) */
  if (me->local_proc == 0) unlink(path);
  return ok;
}
