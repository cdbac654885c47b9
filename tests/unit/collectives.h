/* The collectives of src/, for the tests that hold every program's shape
 * or table against nccl-tests' (each is defined in src/<program>.c; the
 * tests link every program's library, CMakeLists.txt). */
#ifndef CB_TEST_COLLECTIVES_H
#define CB_TEST_COLLECTIVES_H

#include "coll_shape.h"
#include "collective.h"

extern const cb_coll_shape cb_shape_all_reduce;
extern const cb_coll_shape cb_shape_all_gather;
extern const cb_coll_shape cb_shape_reduce_scatter;
extern const cb_coll_shape cb_shape_alltoall;
extern const cb_coll_shape cb_shape_sendrecv;
extern const cb_coll_shape cb_shape_broadcast;
extern const cb_coll_shape cb_shape_reduce;
extern const cb_coll_shape cb_shape_gather;
extern const cb_coll_shape cb_shape_scatter;
extern const cb_coll_shape cb_shape_alltoallv;
extern const cb_coll_shape cb_shape_hypercube;

#endif
