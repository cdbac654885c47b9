/* copy_perf's CPU logic: its options (-D -W --pageable --osu and the
 * nccl-tests ones it shares), every refusal, the byte counts of a window,
 * the llhost ring's packet/chunk/block counts, and -k selection on its
 * kernel table. No CUDA call is made. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "copy.h"
#include "copy_options.h"
#include "opts_check.h"
#include "kernels/copy_llhost.h"
#include "tunables.h"

static char err[512];

static cb_opts_result parse(const char *line, cb_copy_options *o) {
  char *argv[64];
  int argc = opts_argv("copy_perf", line, argv, 64);
  memset(err, 0, sizeof err);
  return cb_copy_options_parse(argc, argv, o, err, sizeof err);
}

#define CHECK_RUN(line, o)                                                                         \
  CHECKF(parse(line, o) == CB_OPTS_RUN, "'%s' should parse, got error '%s'", line, err)

static void check_error(const char *line, const char *mention) {
  cb_copy_options o;
  cb_opts_result r = parse(line, &o);
  check_refused(line, r, err, mention);
}

static void test_defaults(void) {
  cb_copy_options o;
  memset(&o, 0x5a, sizeof o);
  cb_copy_options_defaults(&o);
  CHECK_EQ_U64(o.sweep.min_bytes, 1);
  CHECK_EQ_U64(o.sweep.max_bytes, 4ull << 20);
  CHECK_EQ_U64(o.sweep.step_factor, 2);
  CHECK_EQ_INT(o.iters, 20);
  CHECK_EQ_INT(o.warmup, 5);
  CHECK_EQ_INT(o.check, 1);
  CHECK_EQ_INT(o.gpus, 1);
  CHECK_EQ_INT(o.timeout_s, 300);
  CHECK_EQ_U64(o.dirs, CB_ALL_DIRS);
  CHECK_EQ_INT(o.dirs_named, 0);
  CHECK_EQ_INT(o.window, 64);
  CHECK_EQ_INT(o.post_gap_ns, 0);
  CHECK_EQ_INT(o.pageable, 0);
  CHECK_EQ_INT(o.osu, 0);
  CHECK_STR(o.kernels, "all");
  CHECK_STR(o.json_path, "");
  CHECK_STR(o.csv_path, "");
  /* 1, 2, 4, ..., 4 MiB: osu_bw's sweep. */
  CHECK_EQ_U64(cb_sweep_count(&o.sweep), 23);
  cb_copy_options p;
  CHECK_RUN("", &p);
  CHECK(memcmp(&o.sweep, &p.sweep, sizeof o.sweep) == 0);
}

static void test_copy_options(void) {
  cb_copy_options o;
  CHECK_RUN("-D h2d", &o);
  CHECK_EQ_U64(o.dirs, CB_DIR_BIT(CB_H2D));
  CHECK_EQ_INT(o.dirs_named, 1);
  CHECK_RUN("-D d2h", &o);
  CHECK_EQ_U64(o.dirs, CB_DIR_BIT(CB_D2H));
  CHECK_RUN("--direction d2d", &o);
  CHECK_EQ_U64(o.dirs, CB_DIR_BIT(CB_D2D));
  CHECK_RUN("-D h2d,d2d", &o);
  CHECK_EQ_U64(o.dirs, CB_DIR_BIT(CB_H2D) | CB_DIR_BIT(CB_D2D));
  CHECK_RUN("-D H2D,d2h", &o);
  CHECK_EQ_U64(o.dirs, CB_DIR_BIT(CB_H2D) | CB_DIR_BIT(CB_D2H));
  CHECK_RUN("-D all", &o);
  CHECK_EQ_U64(o.dirs, CB_ALL_DIRS);
  CHECK_EQ_INT(o.dirs_named, 0);
  CHECK_RUN("-D ALL", &o);
  CHECK_EQ_INT(o.dirs_named, 0);

  CHECK_RUN("-W 1", &o);
  CHECK_EQ_INT(o.window, 1);
  CHECK_RUN("--window 65536", &o);
  CHECK_EQ_INT(o.window, 65536);
  CHECK_RUN("--pageable", &o);
  CHECK_EQ_INT(o.pageable, 1);
  CHECK_EQ_INT(o.osu, 0);
  CHECK_RUN("--osu", &o);
  CHECK_EQ_INT(o.osu, 1);
  CHECK_EQ_INT(o.pageable, 0);
  CHECK_RUN("--osu --pageable -W 8 -D d2h", &o);
  CHECK(o.osu && o.pageable && o.window == 8 && o.dirs == CB_DIR_BIT(CB_D2H));
  CHECK_RUN("--post_gap 2000", &o);
  CHECK_EQ_INT(o.post_gap_ns, 2000);
  CHECK_RUN("--post_gap 0", &o);
  CHECK_EQ_INT(o.post_gap_ns, 0);
  CHECK_RUN("--post_gap 10000000 --osu", &o);
  CHECK_EQ_INT(o.post_gap_ns, 10000000);

  /* The nccl-tests options copy_perf shares. */
  CHECK_RUN("-b 1 -e 1G -f 4 -n 7 -w 0 -c 2 -g 2 -T 60 -k ce,llhost -J a.json --csv b.csv", &o);
  CHECK_EQ_U64(o.sweep.min_bytes, 1);
  CHECK_EQ_U64(o.sweep.max_bytes, 1ull << 30);
  CHECK_EQ_U64(o.sweep.step_factor, 4);
  CHECK_EQ_INT(o.iters, 7);
  CHECK_EQ_INT(o.warmup, 0);
  CHECK_EQ_INT(o.check, 2);
  CHECK_EQ_INT(o.gpus, 2);
  CHECK_EQ_INT(o.timeout_s, 60);
  CHECK_STR(o.kernels, "ce,llhost");
  CHECK_STR(o.json_path, "a.json");
  CHECK_STR(o.csv_path, "b.csv");
  CHECK_RUN("-c 0", &o);
  CHECK_EQ_INT(o.check, 0);

  /* -i alone steps linearly (the default -f 2 would ignore it); -f 1 -i too. */
  CHECK_RUN("-b 1 -e 100 -i 33", &o);
  CHECK_EQ_U64(o.sweep.step_factor, 1);
  CHECK_EQ_U64(o.sweep.step_bytes, 33);
  CHECK_EQ_U64(cb_sweep_count(&o.sweep), 4); /* 1, 34, 67, 100 */
  CHECK_RUN("-b 12 -e 300 -i 36 -f 1", &o);
  CHECK_EQ_U64(cb_sweep_count(&o.sweep), 9);
  CHECK_RUN("-b 5 -e 5", &o);
  CHECK_EQ_U64(cb_sweep_count(&o.sweep), 1);
  CHECK_RUN("-b 1073741823 -e 1073741824 -i 1", &o);
  CHECK_EQ_U64(cb_sweep_count(&o.sweep), 2);

  CHECK(parse("-h", &o) == CB_OPTS_HELP);
  CHECK(parse("-D h2d --help", &o) == CB_OPTS_HELP);
  CHECK(parse("-k list", &o) == CB_OPTS_LIST_KERNELS);
}

static void test_refusals(void) {
  check_error("-D", "-D");
  check_error("-D foo", "foo");
  check_error("-D h2d,", "-D takes h2d d2h d2d");
  check_error("-D h2d,,d2h", "direction");
  check_error("-D h2d,x", "'x'");
  check_error("-W 0", "-W");
  check_error("-W -1", "-W");
  check_error("-W 65537", "65536");
  check_error("-W abc", "abc");
  check_error("-W 1.5", "1.5");
  check_error("--window", "--window");
  check_error("--pageable=1", "--pageable");
  check_error("--osu yes", "yes");
  check_error("--post_gap -1", "--post_gap");
  check_error("--post_gap 10000001", "10000000");
  check_error("--post_gap 1.5", "1.5");
  check_error("--post_gap 2us", "2us");
  check_error("--post_gap", "--post_gap");
  check_error("-G 3", "graph");
  check_error("--cudagraph 3", "graph");
  /* The collectives' options have no meaning here. */
  check_error("-d float", "-d");
  check_error("-o sum", "-o");
  check_error("-t 2", "-t");
  check_error("--stress 5", "--stress");
  check_error("-b 0", "-b");
  check_error("-b 12X", "12X");
  check_error("-e 0", "-e");
  check_error("-b 2G -e 1G", "larger than -e");
  check_error("-b 8M", "-b 8388608 is larger than -e 4194304: -e was left at its default, 4 MiB");
  check_error("-k all,ce", "all (every kernel) cannot be combined");
  check_error("-b 1 -e 8 -i 0 -f 1", "never advance");
  check_error("-b 1 -e 8 -i 0", "never advance");
  /* -i alone: the message must not blame a -f 1 nobody typed. */
  CHECKF(strstr(err, "-f 1") == NULL && strstr(err, "-i 0"), "-i 0 alone: '%s'", err);
  check_error("-e 8589934592G", "largest byte count");
  check_error("-i 4 -f 2", "contradict");
  check_error("-f 0", "-f");
  check_error("-n 0", "-n");
  check_error("-c 1001", "-c");
  check_error("-g 0", "-g");
  check_error("-T 0", "-T");
  check_error("-k", "-k");
  check_error("stray", "stray");
}

static void test_canonical(void) {
  cb_copy_options a, b;
  char x[512], y[512];
  CHECK_RUN("-W 8 -D h2d --pageable --osu -k 1", &a);
  cb_copy_options_canonical(&a, x, sizeof x);
  /* Options as the user types them (a difference between processes is named so). */
  CHECK_CONTAINS(x, "-W 8;");
  CHECK_CONTAINS(x, "-D h2d;");
  CHECK_CONTAINS(x, "--pageable given;");
  CHECK_CONTAINS(x, "--osu given;");
  CHECK_CONTAINS(x, "-k 1;");
  CHECK_RUN("-W 9 -D h2d --pageable --osu -k 1", &b);
  cb_copy_options_canonical(&b, y, sizeof y);
  CHECK(strcmp(x, y) != 0);
  /* Ranks that disagree on the post gap would time different loops. */
  CHECK_RUN("-W 8 -D h2d --pageable --osu -k 1 --post_gap 1500", &b);
  cb_copy_options_canonical(&b, y, sizeof y);
  CHECK_CONTAINS(y, "--post_gap 1500;");
  CHECK(strcmp(x, y) != 0);
}

static void test_directions(void) {
  char bad[16];
  CHECK_STR(cb_copy_dir_name(CB_H2D), "h2d");
  CHECK_STR(cb_copy_dir_name(CB_D2H), "d2h");
  CHECK_STR(cb_copy_dir_name(CB_D2D), "d2d");
  int twice;
  CHECK_EQ_U64(cb_copy_dir_mask_parse("d2h,H2D", bad, sizeof bad, &twice),
               CB_DIR_BIT(CB_H2D) | CB_DIR_BIT(CB_D2H));
  /* A direction named twice is refused, not merged (any case: the same name). */
  CHECK_EQ_U64(cb_copy_dir_mask_parse("d2h,h2d,D2H", bad, sizeof bad, &twice), 0);
  CHECK(twice);
  CHECK_STR(bad, "D2H");
  CHECK_EQ_U64(cb_copy_dir_mask_parse("h2dd", bad, sizeof bad, &twice), 0);
  CHECK(!twice);
  CHECK_STR(bad, "h2dd");
  CHECK_EQ_U64(cb_copy_dir_mask_parse("", bad, sizeof bad, &twice), 0);
}

static void test_byte_counts(void) {
  /* A window moves W copies. */
  CHECK_EQ_U64(cb_copy_window_bytes(1, 64), 64);
  CHECK_EQ_U64(cb_copy_window_bytes(1ull << 30, 64), 64ull << 30);
  CHECK_NEAR(cb_copy_gbps(1000, 1.0), 1.0, 1e-12); /* 1000 B in 1 us = 1 GB/s */
  CHECK_NEAR(cb_copy_gbps(1ull << 30, 20000.0), 53.687, 1e-3);
  CHECK_NEAR(cb_copy_gbps(8, 0.0), 0.0, 0);

  /* llhost LL16: 8 data bytes a packet, 512 packets (4 KiB) a chunk. */
  const int ll = CB_LLH_LL16, flag = CB_LLH_FLAG_DIRECT;
  CHECK_EQ_U64(cb_llh_packets(1), 1);
  CHECK_EQ_U64(cb_llh_packets(8), 1);
  CHECK_EQ_U64(cb_llh_packets(9), 2);
  CHECK_EQ_U64(cb_llh_packets(1ull << 30), 1ull << 27);
  CHECK_EQ_INT(cb_llh_chunks(0, ll), 1); /* an empty copy still takes a chunk */
  CHECK_EQ_INT(cb_llh_chunks(1, ll), 1);
  CHECK_EQ_INT(cb_llh_chunks(4096, ll), 1);
  CHECK_EQ_INT(cb_llh_chunks(4097, ll), 2);
  CHECK_EQ_INT(cb_llh_chunks(1ull << 30, ll), 262144);
  CHECK_EQ_INT(cb_llh_chunks((1ull << 30) - 1, ll), 262144);
  CHECK_EQ_INT(cb_llh_chunk_packets(1, 0), 1);
  CHECK_EQ_INT(cb_llh_chunk_packets(4097, 0), 512);
  CHECK_EQ_INT(cb_llh_chunk_packets(4097, 1), 1);
  CHECK_EQ_INT(cb_llh_chunk_packets(4097, 2), 0);
  CHECK_EQ_INT(cb_llh_chunk_packets(4103, 1), 1); /* 7 bytes: one short packet */
  CHECK_EQ_INT(cb_llh_chunk_packets(4105, 1), 2);
  /* The flag protocol: 16 KiB a chunk, the last one partial. */
  CHECK_EQ_INT(cb_llh_chunks(0, flag), 1);
  CHECK_EQ_INT(cb_llh_chunks(16384, CB_LLH_FLAG_STAGED), 1);
  CHECK_EQ_INT(cb_llh_chunks(16385, flag), 2);
  CHECK_EQ_INT(cb_llh_chunks(1ull << 30, flag), 65536);
  CHECK_EQ_INT(cb_llh_chunk_bytes(16385, flag, 0), 16384);
  CHECK_EQ_INT(cb_llh_chunk_bytes(16385, flag, 1), 1);
  CHECK_EQ_INT(cb_llh_chunk_bytes(16385, flag, 2), 0);
  CHECK_EQ_INT(cb_llh_chunk_bytes(4097, ll, 1), 1);
  /* Blocks: at most CB_LLHOST_BLOCKS, no more than a window's chunks (a
   * window of small copies is spread over blocks). */
  CHECK_EQ_INT(cb_llh_blocks(1, 1, 32), 1);
  CHECK_EQ_INT(cb_llh_blocks(3, 1, 32), 3);
  CHECK_EQ_INT(cb_llh_blocks(1, 64, 32), 32);
  CHECK_EQ_INT(cb_llh_blocks(3, 5, 32), 15);
  CHECK_EQ_INT(cb_llh_blocks(262144, 65536, 256), 256);
  /* Every packet, and every byte, of a copy is in exactly one chunk. */
  const uint64_t sizes[] = {1, 7, 8, 9, 4095, 4096, 4097, 16383, 16385, 65537, 1000003};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    uint64_t total = 0, bytes = 0;
    for (uint32_t j = 0; j < cb_llh_chunks(sizes[s], ll); j++)
      total += cb_llh_chunk_packets(sizes[s], j);
    CHECKF(total == cb_llh_packets(sizes[s]), "size %llu: %llu packets in chunks, %llu in all",
           (unsigned long long)sizes[s], (unsigned long long)total,
           (unsigned long long)cb_llh_packets(sizes[s]));
    for (uint32_t j = 0; j < cb_llh_chunks(sizes[s], flag); j++)
      bytes += cb_llh_chunk_bytes(sizes[s], flag, j);
    CHECKF(bytes == sizes[s], "size %llu: %llu bytes in flag chunks", (unsigned long long)sizes[s],
           (unsigned long long)bytes);
  }
  /* Counters compared modulo 2^32, as they wrap. */
  CHECK(cb_llh_reached(5, 5));
  CHECK(cb_llh_reached(6, 5));
  CHECK(!cb_llh_reached(4, 5));
  CHECK(cb_llh_reached(2, 0xfffffffeu));
  CHECK(!cb_llh_reached(0xfffffffeu, 2));
  /* The first lap: a zeroed slot word lets the first chunk of each slot in. */
  for (uint32_t flag = 1; flag <= CB_LLH_RING_CHUNKS; flag++)
    if (!cb_llh_reached(0, flag - CB_LLH_RING_CHUNKS)) {
      CHECKF(0, "flag %u: a zeroed slot word should admit it", flag);
      break;
    }
  CHECK(!cb_llh_reached(0, CB_LLH_RING_CHUNKS + 1 - CB_LLH_RING_CHUNKS));
  CHECK(cb_tunable_find("CB_LLHOST_BLOCKS")->hi <= CB_LLH_RING_CHUNKS);
  CHECK_EQ_INT(sizeof(cb_llh_ctrl) % 64, 0);
}

/* ---- kernel selection on a fake table --------------------------------------------- */

static const char *missing(void) {
  return "fake library not installed";
}
static void fake_post(cb_copy_ctx *c, const cb_copy_call *call, int n, cudaStream_t s) {
  (void)c, (void)call, (void)n, (void)s;
}

static const cb_copy_kernel fake[] = {
    {.id = 0, .name = "ce", .summary = "engine", .dirs = CB_ALL_DIRS, .post = fake_post},
    {.id = 2,
     .name = "sm",
     .summary = "kernel",
     .dirs = CB_ALL_DIRS,
     .needs_pinned = 1,
     .post = fake_post},
    {.id = 3,
     .name = "gdrcopy",
     .summary = "mapping",
     .dirs = CB_DIR_BIT(CB_H2D) | CB_DIR_BIT(CB_D2H),
     .other_dirs = "host paths only",
     .unavailable = missing,
     .post = fake_post},
};
static const cb_copy_program prog = {fake, 3};

static void test_select(void) {
  int sel[3], expl;
  char e[256];
  CHECK_EQ_INT(cb_copy_kernels_select(&prog, "all", sel, &expl, e, sizeof e), 0);
  CHECK(sel[0] && sel[1] && sel[2] && !expl);
  CHECK_EQ_INT(cb_copy_kernels_select(&prog, "2", sel, &expl, e, sizeof e), 0);
  CHECK(!sel[0] && sel[1] && !sel[2] && expl);
  CHECK_EQ_INT(cb_copy_kernels_select(&prog, "ce,gdrcopy", sel, &expl, e, sizeof e), 0);
  CHECK(sel[0] && !sel[1] && sel[2]);
  CHECK_EQ_INT(cb_copy_kernels_select(&prog, "1", sel, &expl, e, sizeof e), -1);
  CHECK_CONTAINS(e, "unknown kernel '1' for copy_perf");
  CHECK_EQ_INT(cb_copy_kernels_select(&prog, "ce,", sel, &expl, e, sizeof e), -1);
  CHECK_CONTAINS(e, "bad -k");
  CHECK_EQ_INT(cb_copy_kernels_select(&prog, "all,1", sel, &expl, e, sizeof e), -1);
  CHECK_CONTAINS(e, "bad -k 'all,1': all (every kernel) cannot be combined with other kernels");

  CHECK(cb_copy_kernel_dir_reason(&fake[0], CB_D2D, 0) == NULL);
  CHECK(cb_copy_kernel_dir_reason(&fake[0], CB_H2D, 1) == NULL);
  CHECK_CONTAINS(cb_copy_kernel_dir_reason(&fake[1], CB_H2D, 1), "--pageable");
  CHECK(cb_copy_kernel_dir_reason(&fake[1], CB_D2D, 1) == NULL); /* no host memory in d2d */
  CHECK_STR(cb_copy_kernel_dir_reason(&fake[2], CB_D2D, 0), "host paths only");
  CHECK(cb_copy_kernel_dir_reason(&fake[2], CB_D2H, 0) == NULL);

  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cb_copy_kernels_print(f, &prog);
  fclose(f);
  CHECK_CONTAINS(text, "# kernels of copy_perf");
  CHECK_CONTAINS(text, "   3  gdrcopy     mapping  [unavailable: fake library not installed]");
  CHECK_CONTAINS(text, "directions: h2d d2h; not the others: host paths only");
  CHECK_CONTAINS(text, "directions: h2d d2h d2d; pinned host memory only");
  free(text);
}

int main(void) {
  test_defaults();
  test_copy_options();
  test_refusals();
  test_canonical();
  test_directions();
  test_byte_counts();
  test_select();
  return check_summary();
}
