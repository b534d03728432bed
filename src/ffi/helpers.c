/*
 * liburing-ffi.so.2's helpers: every function <liburing.h> defines in the
 * header (io_uring_prep_*, io_uring_cq_ready, io_uring_wait_cqe, ...),
 * compiled here as an external definition so that a program can dlsym()
 * it or link to it (Rust, Zig and SDL3 use liburing's ffi library so).
 * They are the header's own code: the set, and each body, are those of the
 * <liburing.h> the build compiles against. The functions the header only
 * declares are libanyring's, reached through liburing.so.2 (the drop-in)
 * and, for the ffi map's versions, src/ffi/forwarders.S.
 *
 * liburing >= 2.4 (it has <liburing/io_uring_version.h>) spells its
 * helpers IOURINGINLINE, "static inline" unless defined before the header:
 * empty, every helper is an ordinary external definition.
 *
 * liburing 2.3 writes "static inline". Its own includes come first, with
 * their include guards, then "static" is defined empty for liburing.h
 * alone: its helpers become plain "inline", which -fgnu89-inline (the
 * Makefile compiles this file with it) emits as external definitions.
 */
#if __has_include(<liburing/io_uring_version.h>)
#define IOURINGINLINE
#include <liburing.h>
#else
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <inttypes.h>
#include <time.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/swab.h>
#include <liburing/compat.h>
#include <liburing/io_uring.h>
#include <liburing/barrier.h>
#ifndef __GNUC_GNU_INLINE__
#error "liburing 2.3's header: compile with -fgnu89-inline"
#endif
#define static
#include <liburing.h>
#undef static
#endif
