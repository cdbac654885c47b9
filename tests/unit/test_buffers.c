/* The buffers a rank allocates (common/coll/buffers.c) hold every call of
 * the sweep, whatever its datatype, placement and -u offset: the send
 * buffer holds the input, the receive buffer the output and, in place, the
 * one region both lie in, and after it the guard the validation poisons
 * and checks (cb_buffers_output_end); cb_buffers_largest_fit agrees with
 * what fits. */
#include <stddef.h>
#include <stdint.h>

#include "buffers.h"
#include "check.h"
#include "collectives.h"

static const cb_coll_shape *const shapes[] = {
    &cb_shape_all_reduce, &cb_shape_all_gather, &cb_shape_reduce_scatter, &cb_shape_alltoall,
    &cb_shape_sendrecv,   &cb_shape_broadcast,  &cb_shape_reduce,         &cb_shape_gather,
    &cb_shape_scatter,    &cb_shape_alltoallv,  &cb_shape_hypercube};

/* Where the guard of a call begins, as an offset into the receive buffer:
 * the call placed as cb_place_call places it. */
static size_t guard_at(const cb_counts *c, size_t elem, int unalign, int in_place) {
  static char recv_base[1];
  cb_buffers b = {.recv = recv_base, .unalign = unalign};
  char *start = cb_buffers_start(&b, b.recv, elem);
  cb_call call = {.in_place = in_place,
                  .recv = start + (in_place ? c->recv_inplace_offset * elem : 0)};
  return (size_t)(cb_buffers_output_end(&b, &call, c, elem) - recv_base);
}

static void test_every_call_fits(void) {
  static const uint64_t maxes[] = {0, 1, 8, 100, 4096, 65537, 1u << 20, 3000007};
  static const size_t elems[] = {1, 2, 4, 8};
  static const int unaligns[] = {0, 1, 3, 4, 8, 100};
  int bad = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++)
      for (size_t u = 0; u < sizeof unaligns / sizeof unaligns[0]; u++)
        for (int n = 1; n <= 8; n++) {
          size_t send, recv;
          cb_buffers_need(shapes[s], maxes[m], n, unaligns[u], &send, &recv);
          for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++)
            for (uint64_t bytes = maxes[m] > 64 ? maxes[m] - 64 : 0; bytes <= maxes[m]; bytes++)
              for (int rank = 0; rank < n; rank++) {
                cb_counts c;
                shapes[s]->counts((size_t)bytes, elems[e], n, rank, &c);
                size_t off = (size_t)unaligns[u] * elems[e];
                size_t region = c.send_count > c.recv_count ? c.send_count : c.recv_count;
                int ok = off + c.send_count * elems[e] <= send &&
                         off + c.recv_count * elems[e] <= recv && off + region * elems[e] <= recv;
                for (int in_place = 0; in_place <= 1; in_place++) {
                  size_t end = guard_at(&c, elems[e], unaligns[u], in_place);
                  ok &= end >= off + (in_place ? region : c.recv_count) * elems[e] &&
                        end + CB_GUARD_BYTES <= recv;
                }
                if (!ok && bad++ < 10)
                  CHECKF(0, "%s max %llu u %d n %d elem %zu size %llu: send %zu recv %zu too small",
                         shapes[s]->name, (unsigned long long)maxes[m], unaligns[u], n, elems[e],
                         (unsigned long long)bytes, send, recv);
              }
        }
  CHECKF(bad == 0, "%d calls do not fit their buffers", bad);
}

static void test_largest_fit(void) {
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int u = 0; u <= 8; u += 4) {
      uint64_t avail = 10000000;
      uint64_t fit = cb_buffers_largest_fit(shapes[s], 4, u, avail);
      size_t send, recv;
      cb_buffers_need(shapes[s], fit, 4, u, &send, &recv);
      CHECKF(send + recv <= avail, "%s u %d: %llu fits by its own need", shapes[s]->name, u,
             (unsigned long long)fit);
      cb_buffers_need(shapes[s], fit + 1, 4, u, &send, &recv);
      CHECKF(send + recv > avail, "%s u %d: %llu is not the largest", shapes[s]->name, u,
             (unsigned long long)fit);
    }
}

int main(void) {
  test_every_call_fits();
  test_largest_fit();
  return check_summary();
}
