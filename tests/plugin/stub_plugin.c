/* Plugins for the CPU tests of --plugin (tests/py/test_plugins.py): a good
 * one, and one for each way a plugin is refused, chosen by a definition
 * (tests/CMakeLists.txt builds one object of each). Their kernels launch
 * nothing: the tests list, pick and refuse them, and run none. */
#include "collbench/plugin.h"

static void launch_nothing(cb_kernel_ctx *ctx, const cb_call *call, cudaStream_t stream) {
  (void)ctx, (void)call, (void)stream;
}

#if defined(STUB_TAKEN)
#define STUB_NAME "ring" /* a kind of the catalogue */
#elif defined(STUB_BAD_NAME)
#define STUB_NAME "One Shot"
#elif defined(STUB_LONG_NAME)
#define STUB_NAME "oneshot-read-160" /* 16 characters */
#elif defined(STUB_SECOND)
#define STUB_NAME "oneshot" /* the good plugin's */
#else
#define STUB_NAME "oneshot"
#endif

#ifdef STUB_UNKNOWN_COLLECTIVE
#define STUB_COLLECTIVE allreduce
#else
#define STUB_COLLECTIVE all_reduce
#endif

static const cb_kernel stub_all_reduce = {
    .name = STUB_NAME,
    .summary = "a stand-in: each rank reads every peer's input and reduces in rank order",
    .limits = {.placements = CB_OUT_OF_PLACE,
               .dtypes = CB_ALL_DTYPES,
               .ops = CB_ALL_OPS,
               .max_ranks = 8,
               .single_host = 1},
#ifndef STUB_NO_LAUNCH
    .launch = launch_nothing,
#endif
    .waits = CB_WAITS_HANDSHAKE,
};
CB_REGISTER_KERNEL(STUB_COLLECTIVE, stub_all_reduce, "a stand-in of the CPU tests");

static const cb_kernel stub_all_gather = {
    .name = STUB_NAME,
    .summary = "a stand-in all-gather",
    .limits = {.placements = CB_BOTH_PLACEMENTS, .dtypes = CB_ALL_DTYPES, .ops = CB_ALL_OPS},
    .launch = launch_nothing,
};
CB_REGISTER_KERNEL(all_gather, stub_all_gather, NULL);

#ifndef STUB_SECOND
CB_REGISTER_TUNABLES(stub, CB_TUNABLE_NUMBER("CB_ONESHOT_BLOCKS", 1, 64, 1, 8, CB_TUNE_AGREE,
                                             "the stand-in's blocks"));
#endif

#ifdef STUB_API_VERSION /* a plugin built against another version of the API */
#undef CB_KERNEL_API_VERSION
#define CB_KERNEL_API_VERSION STUB_API_VERSION
#endif
#if defined(STUB_SECOND)
CB_PLUGIN("stub2");
#elif !defined(STUB_NOT_A_PLUGIN)
CB_PLUGIN("stub");
#endif
