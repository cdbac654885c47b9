/* CB_ERROR_STACKS: nothing without it; with it, every thread's stack once,
 * each under its own header, and a thread that blocks the signal named as
 * one that did not answer. */
#define _GNU_SOURCE /* pthread_setname_np, setenv */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "thread_stacks.h"

static atomic_int ready;
static atomic_int stop;

/* A thread that waits, named, with every signal open or (deaf) blocked. */
static void *waiter(void *arg) {
  const int deaf = arg != NULL;
  pthread_setname_np(pthread_self(), deaf ? "stacks-deaf" : "stacks-open");
  if (deaf) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
  }
  atomic_fetch_add(&ready, 1);
  while (!atomic_load(&stop)) usleep(1000);
  return NULL;
}

/* What cb_thread_stacks_print writes to stderr. */
static char *printed(void) {
  fflush(stderr);
  FILE *f = tmpfile();
  if (!f) return NULL;
  const int saved = dup(STDERR_FILENO);
  dup2(fileno(f), STDERR_FILENO);
  cb_thread_stacks_print();
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  rewind(f);
  char *text = check_slurp(f);
  fclose(f);
  return text;
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

/* The switch is checked with the options: unset, 0 and 1 pass, anything
 * else is refused in one line naming the variable and what it takes. */
static void test_read(void) {
  char why[256];
  unsetenv("CB_ERROR_STACKS");
  CHECK(cb_thread_stacks_read(why, sizeof why) == NULL);
  static const char *const good[] = {"0", "1"};
  for (int i = 0; i < 2; i++) {
    setenv("CB_ERROR_STACKS", good[i], 1);
    CHECKF(cb_thread_stacks_read(why, sizeof why) == NULL, "'%s' refused", good[i]);
  }
  static const char *const bad[] = {"yes", "2", "", " 1", "true"};
  for (int i = 0; i < 5; i++) {
    setenv("CB_ERROR_STACKS", bad[i], 1);
    const char *r = cb_thread_stacks_read(why, sizeof why);
    CHECKF(r != NULL, "'%s' accepted", bad[i]);
    if (r) {
      char want[64];
      snprintf(want, sizeof want, "CB_ERROR_STACKS='%s': expected one of 0, 1", bad[i]);
      CHECK_STR(r, want);
    }
  }
  unsetenv("CB_ERROR_STACKS");
}

int main(void) {
  test_read();
  pthread_t open_thread, deaf_thread;
  pthread_create(&open_thread, NULL, waiter, NULL);
  pthread_create(&deaf_thread, NULL, waiter, (void *)1);
  while (atomic_load(&ready) < 2) usleep(1000);

  unsetenv("CB_ERROR_STACKS");
  char *text = printed();
  CHECKF(text && text[0] == '\0', "without CB_ERROR_STACKS: printed '%s'", text ? text : "?");
  free(text);

  setenv("CB_ERROR_STACKS", "1", 1);
  text = printed();
  CHECK(text != NULL);
  if (text) {
    CHECKF(count(text, ", its stack:\n") == 2, "two stacks expected:\n%s", text);
    CHECKF(strstr(text, "(test_thread_sta") != NULL, "the caller's stack:\n%s", text);
    CHECKF(strstr(text, "(stacks-open), its stack:\n    #0 ") != NULL,
           "the open thread's stack:\n%s", text);
    CHECKF(count(text, ": no stack (it did not answer)\n") == 1, "the deaf thread named:\n%s",
           text);
    CHECKF(strstr(text, " +0x") != NULL, "frames with offsets:\n%s", text);
  }
  free(text);

  text = printed();
  CHECKF(text && text[0] == '\0', "a second call printed '%s'", text ? text : "?");
  free(text);

  atomic_store(&stop, 1);
  pthread_join(open_thread, NULL);
  pthread_join(deaf_thread, NULL);
  return check_summary();
}
