#define _GNU_SOURCE /* dladdr, syscall, nanosleep */
#include "thread_stacks.h"

#include <dirent.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "env.h"

#define MAX_FRAMES 48
/* How long a signalled thread has to print its stack before the next. */
#define ANSWER_WAIT_MS 200

static atomic_flag printed = ATOMIC_FLAG_INIT;
static atomic_long answered; /* the thread that printed its stack last */

/* The signal each thread prints its stack on: a real-time signal past the
 * first few, which threading libraries take for themselves. */
static int stack_signal(void) {
  return SIGRTMIN + 8;
}

static void put(const char *text, int len) {
  if (len <= 0) return;
  ssize_t n = write(STDERR_FILENO, text, (size_t)len);
  (void)n; /* stderr is all there is to tell */
}

/* backtrace, dladdr and snprintf are not async-signal-safe by the letter:
 * the process is about to end, and the worst case is a thread that cannot
 * answer (one stopped inside the loader, whose lock dladdr takes), which is
 * then named as one that did not. The first backtrace, which loads the
 * unwinder, is the printing thread's own. */
static void print_header(void) {
  char comm[17] = "";
  prctl(PR_GET_NAME, comm, 0, 0, 0);
  char line[160];
  put(line, snprintf(line, sizeof line, "collbench: process %d, thread %ld (%s), its stack:\n",
                     (int)getpid(), (long)syscall(SYS_gettid), comm));
}

/* The frames from `first` on: the library's (or the program's) file name,
 * the offset in it, the nearest exported symbol. */
static void print_frames(void *const *frames, int n, int first) {
  char line[512];
  for (int i = first; i < n; i++) {
    Dl_info d;
    memset(&d, 0, sizeof d);
    const int known = dladdr(frames[i], &d) != 0 && d.dli_fname != NULL;
    const char *slash = known ? strrchr(d.dli_fname, '/') : NULL;
    const char *file = slash ? slash + 1 : known ? d.dli_fname : "?";
    const uintptr_t base = known ? (uintptr_t)d.dli_fbase : 0;
    const unsigned long off = (unsigned long)((uintptr_t)frames[i] - base);
    int len = snprintf(line, sizeof line, "    #%d %s +0x%lx%s%s\n", i - first, file, off,
                       d.dli_sname ? " " : "", d.dli_sname ? d.dli_sname : "");
    put(line, len < (int)sizeof line ? len : (int)sizeof line - 1);
  }
}

/* Not inlined, so that the frames to skip are known: this one and the
 * handler and the signal's return (3), or this one and
 * cb_thread_stacks_print (2). */
__attribute__((noinline)) static void print_own_stack(int skip) {
  void *frames[MAX_FRAMES];
  const int n = backtrace(frames, MAX_FRAMES);
  print_header();
  print_frames(frames, n, skip);
}

static void on_stack_signal(int sig) {
  (void)sig;
  print_own_stack(3);
  atomic_store(&answered, (long)syscall(SYS_gettid));
}

static void sleep_ms(long ms) {
  const struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Waits for thread tid's answer; 0 when none came (a late one then prints
 * under its own header all the same). */
static int answered_by(long tid) {
  for (int ms = 0; ms < ANSWER_WAIT_MS; ms++) {
    if (atomic_load(&answered) == tid) return 1;
    sleep_ms(1);
  }
  return 0;
}

static void print_other_threads(void) {
  DIR *dir = opendir("/proc/self/task");
  if (!dir) {
    fprintf(stderr, "collbench: CB_ERROR_STACKS: no /proc/self/task, no other thread's stack\n");
    return;
  }
  const long self = syscall(SYS_gettid);
  for (struct dirent *e = readdir(dir); e; e = readdir(dir)) {
    char *end;
    const long tid = strtol(e->d_name, &end, 10);
    if (*end || tid <= 0 || tid == self) continue;
    if (syscall(SYS_tgkill, (long)getpid(), tid, (long)stack_signal()) != 0 || !answered_by(tid))
      fprintf(stderr, "collbench: process %d, thread %ld: no stack (it did not answer)\n",
              (int)getpid(), tid);
  }
  closedir(dir);
}

const char *cb_thread_stacks_read(char *why, size_t len) {
  static const char *const off_on[] = {"0", "1"};
  int on;
  return cb_env_choice_parse("CB_ERROR_STACKS", getenv("CB_ERROR_STACKS"), off_on, 2, 0, &on, why,
                             len);
}

/* Reads the variable itself: an error can end a run before its options are
 * read, and only "1" (the one value that turns it on) matters here. */
void cb_thread_stacks_print(void) {
  const char *on = getenv("CB_ERROR_STACKS");
  if (!on || strcmp(on, "1") != 0 || atomic_flag_test_and_set(&printed)) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stack_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(stack_signal(), &sa, NULL);
  print_own_stack(2); /* also loads what backtrace needs before any handler runs */
  print_other_threads();
}
