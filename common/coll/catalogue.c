#include "catalogue.h"

#include <stdio.h>
#include <string.h>

#define NCCL CB_KIND_NCCL
#define OURS CB_KIND_OURS

/* A line per kind, in id order; a new kind is a new line at the end. */
/* clang-format off */
const cb_catalogue_entry cb_catalogue[] = {
    {0, "nccl", NCCL, "NCCL's own call, plain buffers"},
    {1, "ring", OURS, "Simple protocol: chunked, pipelined, through FIFOs in the next rank's memory"},
    {2, "ll", OURS, "one-shot LL packets (data + flag in one store)"},
    {3, "ll2", OURS, "two-shot LL (reduce-scatter then all-gather in packets; from 3 ranks, one-shot at 2)"},
    {4, "direct", OURS, "plain 16-byte loads/stores into peers' buffers, flag handshakes"},
    {5, "ce", OURS, "copy engines move the bytes; SMs only reduce or signal"},
    {6, "nccl-sym", NCCL, "NCCL with symmetric window registration (NCCL >= 2.27)"},
    {7, "nccl-ce", NCCL, "NCCL, symmetric windows + zero-CTA policy: copy-engine collectives (NCCL >= 2.28)"},
    {8, "hier-ring", OURS, "across hosts: our ring within each host, NCCL between hosts on a rail communicator"},
    {9, "hier-ll", OURS, "across hosts: our ll within each host, NCCL between hosts on a rail communicator"},
    {10, "hier-direct", OURS, "across hosts: our direct within each host, NCCL between hosts on a rail communicator"},
    {11, "hier-ce", OURS, "across hosts: our ce within each host, NCCL between hosts on a rail communicator"},
};
/* clang-format on */

const int cb_catalogue_size = (int)(sizeof cb_catalogue / sizeof cb_catalogue[0]);

const cb_catalogue_entry *cb_catalogue_find(const char *name) {
  for (int i = 0; i < cb_catalogue_size; i++)
    if (strcmp(cb_catalogue[i].name, name) == 0) return &cb_catalogue[i];
  return NULL;
}

const char *cb_catalogue_check(int id, const char *name, char *buf, unsigned long len) {
  if (id < 0 || id >= cb_catalogue_size) {
    snprintf(buf, len, "kernel id %d (%s) is not in the catalogue (docs/kernels.md)", id, name);
    return buf;
  }
  if (strcmp(cb_catalogue[id].name, name) != 0) {
    snprintf(buf, len,
             "kernel id %d is named '%s', but the catalogue (docs/kernels.md) names it '%s'", id,
             name, cb_catalogue[id].name);
    return buf;
  }
  return NULL;
}

int cb_catalogue_is_nccl(int id) {
  return id >= 0 && id < cb_catalogue_size && cb_catalogue[id].owner == CB_KIND_NCCL;
}
