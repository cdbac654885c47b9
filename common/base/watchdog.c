#define _GNU_SOURCE /* nanosleep, pthread */
#include "watchdog.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "error.h"
#include "liveness.h"

/* One thread's watch. Only its thread writes it: call, who and the timeout
 * with release stores, then seq with a release store that makes it odd
 * (armed); disarming makes it even. The watchdog reads seq (acquire), the
 * fields (acquire), and seq again: the fields are that arm's when seq did
 * not move, because a later arm's release store of a field carries the
 * disarm before it. */
typedef struct watch {
  atomic_ulong seq;
  _Atomic(const char *) call;
  _Atomic(const char *) who;
  atomic_int timeout_s;
  struct watch *next; /* set before the watch is published, never changed */
  /* The watchdog thread's own: the armed seq it last saw, and since when. */
  unsigned long seen_seq;
  double seen_since;
} watch;

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static watch *watches; /* every thread's watch, newest first; never freed */
static pthread_once_t started = PTHREAD_ONCE_INIT;
static atomic_int default_timeout;
static _Thread_local watch *mine;

/* How often the watchdog looks: a timeout fires at most this late. */
#define CHECK_PERIOD_NS 250000000L
/* A heartbeat older than this (eight periods) marks a process that is not
 * running: its watchdog thread, which beats every period, did not run. */
#define STALE_S 2.0

static void check(watch *w, double now) {
  unsigned long s = atomic_load_explicit(&w->seq, memory_order_acquire);
  if (!(s & 1)) {
    w->seen_seq = s;
    return;
  }
  if (s != w->seen_seq) { /* a new arm: its clock starts now */
    w->seen_seq = s;
    w->seen_since = now;
    return;
  }
  int timeout_s = atomic_load_explicit(&w->timeout_s, memory_order_acquire);
  const char *call = atomic_load_explicit(&w->call, memory_order_acquire);
  const char *who = atomic_load_explicit(&w->who, memory_order_acquire);
  if (atomic_load_explicit(&w->seq, memory_order_acquire) != s) return; /* it moved on */
  if (now - w->seen_since < timeout_s) return;
  /* Name the peers that stopped running, where the board knows them. */
  char stale[512];
  int n = cb_liveness_stale(STALE_S, stale, sizeof stale);
  cb_fatal("timed out after %d s (-T) in %s, %s: it waited on the host for a peer that did "
           "not answer%s%s",
           timeout_s, call, who, n ? "; " : "", stale);
}

static void *watchdog_main(void *arg) {
  (void)arg;
  const struct timespec period = {0, CHECK_PERIOD_NS};
  for (;;) {
    nanosleep(&period, NULL);
    cb_liveness_beat();
    double now = cb_monotonic_s();
    pthread_mutex_lock(&list_lock);
    watch *head = watches;
    pthread_mutex_unlock(&list_lock);
    for (watch *w = head; w; w = w->next) check(w, now);
  }
  return NULL;
}

static void start_watchdog(void) {
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, watchdog_main, NULL);
  pthread_attr_destroy(&attr);
  if (rc != 0) cb_fatal("cannot start the watchdog thread that bounds host waits (-T)");
}

void cb_watchdog_start(void) {
  pthread_once(&started, start_watchdog);
}

static watch *my_watch(void) {
  if (mine) return mine;
  watch *w = calloc(1, sizeof *w);
  if (!w) cb_fatal("out of host memory");
  pthread_once(&started, start_watchdog);
  pthread_mutex_lock(&list_lock);
  w->next = watches;
  watches = w;
  pthread_mutex_unlock(&list_lock);
  return mine = w;
}

void cb_watchdog_arm(int timeout_s, const char *call, const char *who) {
  if (timeout_s <= 0) return;
  watch *w = my_watch();
  unsigned long s = atomic_load_explicit(&w->seq, memory_order_relaxed);
  if (s & 1) /* armed twice: disarm first, so the new fields never pass for the old arm's */
    atomic_store_explicit(&w->seq, ++s, memory_order_release);
  atomic_store_explicit(&w->timeout_s, timeout_s, memory_order_release);
  atomic_store_explicit(&w->call, call, memory_order_release);
  atomic_store_explicit(&w->who, who, memory_order_release);
  atomic_store_explicit(&w->seq, s + 1, memory_order_release);
}

void cb_watchdog_disarm(void) {
  watch *w = mine;
  if (!w) return;
  unsigned long s = atomic_load_explicit(&w->seq, memory_order_relaxed);
  if (s & 1) atomic_store_explicit(&w->seq, s + 1, memory_order_release);
}

void cb_watchdog_set_default(int timeout_s) {
  atomic_store(&default_timeout, timeout_s);
}

int cb_watchdog_default(void) {
  return atomic_load(&default_timeout);
}
