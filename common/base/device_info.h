/* One rank's GPU as the reports show it (the "# Using devices" lines, JSON
 * "devices"). */
#ifndef CB_DEVICE_INFO_H
#define CB_DEVICE_INFO_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int rank, proc, pid, device; /* rank: among every rank of every group */
  int group;                   /* the group's color (NCCL_TESTS_SPLIT), 0 without a split */
  char host[64];
  char pci[32]; /* "0000:00:06" */
  char name[256];
} cb_device_info;

#ifdef __cplusplus
}
#endif

#endif
