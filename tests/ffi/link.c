/* SPDX-License-Identifier: MIT */
/*
 * ffi/link: a program linked to liburing-ffi.so.2, as Rust's and Zig's
 * bindings are (-luring-ffi): the header's helpers are called in the
 * library, under other C names bound by asm labels to theirs, so that the
 * header's own inline copies stay unused. Its references carry the ffi
 * map's versions (io_uring_queue_init@LIBURING_2.4), as those of a
 * program linked to liburing's own ffi library do; tests/ffi.sh checks
 * them and runs the program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <liburing.h>

extern struct io_uring_sqe *ffi_get_sqe(struct io_uring *) __asm__("io_uring_get_sqe");
extern void ffi_prep_nop(struct io_uring_sqe *) __asm__("io_uring_prep_nop");
extern void ffi_set_data64(struct io_uring_sqe *, __u64) __asm__("io_uring_sqe_set_data64");
extern int ffi_wait_cqe(struct io_uring *, struct io_uring_cqe **) __asm__("io_uring_wait_cqe");
extern int ffi_peek_cqe(struct io_uring *, struct io_uring_cqe **) __asm__("io_uring_peek_cqe");
extern __u64 ffi_get_data64(const struct io_uring_cqe *) __asm__("io_uring_cqe_get_data64");
extern void ffi_cqe_seen(struct io_uring *, struct io_uring_cqe *) __asm__("io_uring_cqe_seen");

/* CHECK, CHECK_EQ */
#include "test.h"

int main(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int i;

	CHECK(io_uring_queue_init(8, &ring, 0) == 0);
	for (i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = ffi_get_sqe(&ring);

		CHECK(sqe);
		ffi_prep_nop(sqe);
		ffi_set_data64(sqe, 0x1000 + i);
	}
	CHECK(io_uring_submit(&ring) == 3);
	for (i = 0; i < 3; i++) {
		CHECK(ffi_wait_cqe(&ring, &cqe) == 0);
		CHECK(ffi_get_data64(cqe) == (__u64)(0x1000 + i));
		CHECK(cqe->res == 0);
		ffi_cqe_seen(&ring, cqe);
	}
	CHECK(ffi_peek_cqe(&ring, &cqe) == -EAGAIN);
	io_uring_queue_exit(&ring);
	printf("ffi/link: ok\n");
	return 0;
}
