#include "catalogue.h"

#include <stdio.h>
#include <string.h>

const cb_catalogue_entry cb_catalogue[CB_NUM_KIDS] = {
    {CB_KID_NCCL, CB_KNAME_NCCL, "NCCL's own call, plain buffers"},
    {CB_KID_RING, CB_KNAME_RING,
     "Simple protocol: chunked, pipelined, through FIFOs in the next rank's memory"},
    {CB_KID_LL, CB_KNAME_LL, "one-shot LL packets (data + flag in one store)"},
    {CB_KID_LL2, CB_KNAME_LL2,
     "two-shot LL (reduce-scatter then all-gather in packets; from 3 ranks, one-shot at 2)"},
    {CB_KID_DIRECT, CB_KNAME_DIRECT,
     "plain 16-byte loads/stores into peers' buffers, flag handshakes"},
    {CB_KID_CE, CB_KNAME_CE, "copy engines move the bytes; SMs only reduce or signal"},
    {CB_KID_NCCL_SYM, CB_KNAME_NCCL_SYM, "NCCL with symmetric window registration (NCCL >= 2.27)"},
    {CB_KID_NCCL_CE, CB_KNAME_NCCL_CE,
     "NCCL, symmetric windows + zero-CTA policy: copy-engine collectives (NCCL >= 2.28)"},
    {CB_KID_HIER_RING, CB_KNAME_HIER_RING,
     "across hosts: our ring within each host, NCCL between hosts on a rail communicator"},
    {CB_KID_HIER_LL, CB_KNAME_HIER_LL,
     "across hosts: our ll within each host, NCCL between hosts on a rail communicator"},
    {CB_KID_HIER_DIRECT, CB_KNAME_HIER_DIRECT,
     "across hosts: our direct within each host, NCCL between hosts on a rail communicator"},
    {CB_KID_HIER_CE, CB_KNAME_HIER_CE,
     "across hosts: our ce within each host, NCCL between hosts on a rail communicator"},
};

const char *cb_catalogue_check(int id, const char *name, char *buf, unsigned long len) {
  if (id < 0 || id >= CB_NUM_KIDS) {
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
  return id == CB_KID_NCCL || id == CB_KID_NCCL_SYM || id == CB_KID_NCCL_CE;
}
