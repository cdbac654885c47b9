/* The harness's name for collbench/cuda_check.h: CB_CUDA. */
#ifndef CB_CUDA_CHECK_H
#define CB_CUDA_CHECK_H

#include "collbench/cuda_check.h"

#endif
