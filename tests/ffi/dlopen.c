/* SPDX-License-Identifier: MIT */
/*
 * ffi/dlopen: liburing-ffi.so.2 used as SDL3 3.2 uses it: dlopen() it,
 * dlsym() each function, and run a ring through those pointers only (this
 * program is linked to no liburing: <liburing.h> gives it the types, its
 * inline helpers go unused). Opens a file with openat, writes it and
 * fsyncs it (a linked pair), reads it back, cancels a timeout, times a
 * wait out, closes the file; then checks that every function came from
 * liburing-ffi.so.2 or the liburing.so.2 beside it (anyring's drop-in) and
 * that no other liburing, nor libanyring.so.0 (a second engine), is in
 * the process.
 *
 *   dlopen FFI_SO ENGINE DIR
 *
 * ENGINE: the engine the ring must be on (anyring_ring_engine(), which
 * dlsym() finds through the ffi library's DT_NEEDED), or auto for any;
 * DIR: for the file. Prints the engine it ran on.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>

/* CHECK, CHECK_EQ */
#include "test.h"

/* SDL3 3.2's src/io/io_uring/SDL_asyncio_liburing.c dlsym()s these 20 */
#define SDL3_FUNCS \
	F(int, io_uring_queue_init, (unsigned, struct io_uring *, unsigned)) \
	F(struct io_uring_probe *, io_uring_get_probe, (void)) \
	F(void, io_uring_free_probe, (struct io_uring_probe *)) \
	F(int, io_uring_opcode_supported, (const struct io_uring_probe *, int)) \
	F(struct io_uring_sqe *, io_uring_get_sqe, (struct io_uring *)) \
	F(void, io_uring_prep_read, (struct io_uring_sqe *, int, void *, unsigned, __u64)) \
	F(void, io_uring_prep_write, (struct io_uring_sqe *, int, const void *, unsigned, __u64)) \
	F(void, io_uring_prep_close, (struct io_uring_sqe *, int)) \
	F(void, io_uring_prep_fsync, (struct io_uring_sqe *, int, unsigned)) \
	F(void, io_uring_prep_cancel, (struct io_uring_sqe *, void *, int)) \
	F(void, io_uring_prep_timeout, (struct io_uring_sqe *, struct __kernel_timespec *, unsigned, unsigned)) \
	F(void, io_uring_prep_nop, (struct io_uring_sqe *)) \
	F(void, io_uring_sqe_set_data, (struct io_uring_sqe *, void *)) \
	F(void, io_uring_sqe_set_flags, (struct io_uring_sqe *, unsigned)) \
	F(int, io_uring_submit, (struct io_uring *)) \
	F(int, io_uring_peek_cqe, (struct io_uring *, struct io_uring_cqe **)) \
	F(int, io_uring_wait_cqe, (struct io_uring *, struct io_uring_cqe **)) \
	F(int, io_uring_wait_cqe_timeout, (struct io_uring *, struct io_uring_cqe **, struct __kernel_timespec *)) \
	F(void, io_uring_cqe_seen, (struct io_uring *, struct io_uring_cqe *)) \
	F(void, io_uring_queue_exit, (struct io_uring *))

/* and a few more a binding uses */
#define MORE_FUNCS \
	F(int, io_uring_queue_init_params, (unsigned, struct io_uring *, struct io_uring_params *)) \
	F(void, io_uring_prep_openat, (struct io_uring_sqe *, int, const char *, int, mode_t)) \
	F(void *, io_uring_cqe_get_data, (const struct io_uring_cqe *)) \
	F(unsigned, io_uring_cq_ready, (const struct io_uring *)) \
	F(void, io_uring_cq_advance, (struct io_uring *, unsigned)) \
	F(const char *, anyring_ring_engine, (const struct io_uring *))

#define F(ret, name, args) static ret (*p_##name) args;
SDL3_FUNCS
MORE_FUNCS
#undef F

static char ffi_real[PATH_MAX], dir_real[PATH_MAX];

/* name's function comes from the ffi library or the drop-in beside it */
static void check_origin(const char *name, void *fn)
{
	char real[PATH_MAX], *slash;
	Dl_info info;

	CHECK(dladdr(fn, &info) && info.dli_fname);
	CHECK(realpath(info.dli_fname, real));
	slash = strrchr(real, '/');
	if (!strcmp(real, ffi_real) ||
	    (slash && !strncmp(real, dir_real, slash - real) &&
	     !dir_real[slash - real] && !strncmp(slash, "/liburing.so.2", 14)))
		return;
	fprintf(stderr, "%s comes from %s, not %s or its liburing.so.2\n",
		name, real, ffi_real);
	exit(1);
}

/* no liburing but ours, no libanyring.so.0 beside the drop-in */
static int check_object(struct dl_phdr_info *info, size_t size, void *data)
{
	char real[PATH_MAX];
	const char *base;

	(void)size;
	(void)data;
	if (!info->dlpi_name || !*info->dlpi_name)
		return 0;
	base = strrchr(info->dlpi_name, '/');
	base = base ? base + 1 : info->dlpi_name;
	if (!strncmp(base, "libanyring.so", 13)) {
		fprintf(stderr, "%s is loaded: a second engine\n", info->dlpi_name);
		exit(1);
	}
	if (strncmp(base, "liburing", 8))
		return 0;
	CHECK(realpath(info->dlpi_name, real));
	if (strcmp(real, ffi_real) &&
	    (strncmp(real, dir_real, strlen(dir_real)) ||
	     real[strlen(dir_real)] != '/' ||
	     strchr(real + strlen(dir_real) + 1, '/'))) {
		fprintf(stderr, "%s (%s) is loaded: not ours\n",
			info->dlpi_name, real);
		exit(1);
	}
	return 0;
}

static struct io_uring_cqe *wait_one(struct io_uring *ring, void *data)
{
	struct io_uring_cqe *cqe = NULL;

	CHECK_EQ(p_io_uring_wait_cqe(ring, &cqe), 0);
	CHECK(cqe);
	CHECK(p_io_uring_cqe_get_data(cqe) == data);
	return cqe;
}

int main(int argc, char **argv)
{
	static const int ops[] = {
		IORING_OP_NOP, IORING_OP_FSYNC, IORING_OP_TIMEOUT,
		IORING_OP_CLOSE, IORING_OP_READ, IORING_OP_WRITE,
		IORING_OP_ASYNC_CANCEL, IORING_OP_OPENAT,
	};
	struct __kernel_timespec ts_long = { .tv_sec = 30 };
	struct __kernel_timespec ts_short = { .tv_nsec = 20 * 1000 * 1000 };
	char path[PATH_MAX], out[8192], in[8192];
	struct io_uring_probe *probe;
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	const char *engine;
	char engine_name[32];
	char *slash;
	void *h;
	int fd, i, tag[8];

	if (argc != 4) {
		fprintf(stderr, "usage: %s FFI_SO ENGINE DIR\n", argv[0]);
		return 2;
	}
	CHECK(realpath(argv[1], ffi_real));
	strcpy(dir_real, ffi_real);
	slash = strrchr(dir_real, '/');
	*slash = '\0';

	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
#define F(ret, name, args) \
	p_##name = (ret (*) args)dlsym(h, #name); \
	if (!p_##name) { fprintf(stderr, "dlsym %s: %s\n", #name, dlerror()); return 1; } \
	check_origin(#name, (void *)p_##name);
	SDL3_FUNCS
	MORE_FUNCS
#undef F
	dl_iterate_phdr(check_object, NULL);

	/* SDL3's probe of the operations it needs */
	probe = p_io_uring_get_probe();
	CHECK(probe);
	for (i = 0; i < (int)(sizeof(ops) / sizeof(ops[0])); i++)
		CHECK(p_io_uring_opcode_supported(probe, ops[i]));
	p_io_uring_free_probe(probe);

	memset(&p, 0, sizeof(p));
	CHECK_EQ(p_io_uring_queue_init_params(4, &ring, &p), 0);
	p_io_uring_queue_exit(&ring);
	CHECK_EQ(p_io_uring_queue_init(8, &ring, 0), 0);
	engine = p_anyring_ring_engine(&ring);
	if (!engine || (strcmp(argv[2], "auto") && strcmp(engine, argv[2]))) {
		fprintf(stderr, "the ring is on engine %s, not %s\n",
			engine ? engine : "(none)", argv[2]);
		return 1;
	}
	/* the name is the library's: kept past dlclose() */
	snprintf(engine_name, sizeof(engine_name), "%s", engine);

	/* empty: peek says so, a wait with a timeout times out */
	CHECK_EQ(p_io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	CHECK_EQ(p_io_uring_wait_cqe_timeout(&ring, &cqe, &ts_short), -ETIME);

	/* openat */
	snprintf(path, sizeof(path), "%s/ffi-data", argv[3]);
	sqe = p_io_uring_get_sqe(&ring);
	CHECK(sqe);
	p_io_uring_prep_openat(sqe, AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	p_io_uring_sqe_set_data(sqe, &tag[0]);
	CHECK_EQ(p_io_uring_submit(&ring), 1);
	cqe = wait_one(&ring, &tag[0]);
	fd = cqe->res;
	CHECK(fd >= 0);
	p_io_uring_cqe_seen(&ring, cqe);

	/* write, then fsync linked to it */
	for (i = 0; i < (int)sizeof(out); i++)
		out[i] = (char)(i * 7 + 3);
	sqe = p_io_uring_get_sqe(&ring);
	p_io_uring_prep_write(sqe, fd, out, sizeof(out), 0);
	p_io_uring_sqe_set_data(sqe, &tag[1]);
	p_io_uring_sqe_set_flags(sqe, IOSQE_IO_LINK);
	sqe = p_io_uring_get_sqe(&ring);
	p_io_uring_prep_fsync(sqe, fd, 0);
	p_io_uring_sqe_set_data(sqe, &tag[2]);
	CHECK_EQ(p_io_uring_submit(&ring), 2);
	cqe = wait_one(&ring, &tag[1]);
	CHECK_EQ(cqe->res, sizeof(out));
	p_io_uring_cqe_seen(&ring, cqe);
	cqe = wait_one(&ring, &tag[2]);
	CHECK_EQ(cqe->res, 0);
	p_io_uring_cqe_seen(&ring, cqe);

	/* read it back */
	memset(in, 0, sizeof(in));
	sqe = p_io_uring_get_sqe(&ring);
	p_io_uring_prep_read(sqe, fd, in, sizeof(in), 0);
	p_io_uring_sqe_set_data(sqe, &tag[3]);
	CHECK_EQ(p_io_uring_submit(&ring), 1);
	cqe = wait_one(&ring, &tag[3]);
	CHECK_EQ(cqe->res, sizeof(in));
	p_io_uring_cqe_seen(&ring, cqe);
	CHECK(!memcmp(in, out, sizeof(in)));

	/* a timeout of 30 s, cancelled: both complete, counted by cq_ready */
	sqe = p_io_uring_get_sqe(&ring);
	p_io_uring_prep_timeout(sqe, &ts_long, 0, 0);
	p_io_uring_sqe_set_data(sqe, &tag[4]);
	CHECK_EQ(p_io_uring_submit(&ring), 1);
	sqe = p_io_uring_get_sqe(&ring);
	p_io_uring_prep_cancel(sqe, &tag[4], 0);
	p_io_uring_sqe_set_data(sqe, &tag[5]);
	CHECK_EQ(p_io_uring_submit(&ring), 1);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(p_io_uring_wait_cqe(&ring, &cqe), 0);
		if (p_io_uring_cqe_get_data(cqe) == &tag[4])
			CHECK_EQ(cqe->res, -ECANCELED);
		else {
			CHECK(p_io_uring_cqe_get_data(cqe) == &tag[5]);
			CHECK_EQ(cqe->res, 0);
		}
		if (i == 0) {
			p_io_uring_cqe_seen(&ring, cqe);
			continue;
		}
		CHECK_EQ(p_io_uring_cq_ready(&ring), 1);
		p_io_uring_cq_advance(&ring, 1);
	}
	CHECK_EQ(p_io_uring_cq_ready(&ring), 0);

	/* a nop and a close, peeked for */
	sqe = p_io_uring_get_sqe(&ring);
	p_io_uring_prep_nop(sqe);
	p_io_uring_sqe_set_data(sqe, &tag[6]);
	sqe = p_io_uring_get_sqe(&ring);
	p_io_uring_prep_close(sqe, fd);
	p_io_uring_sqe_set_data(sqe, &tag[7]);
	CHECK_EQ(p_io_uring_submit(&ring), 2);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(p_io_uring_wait_cqe_timeout(&ring, &cqe, &ts_long), 0);
		CHECK(p_io_uring_cqe_get_data(cqe) == &tag[6 + i]);
		CHECK_EQ(cqe->res, 0);
		p_io_uring_cqe_seen(&ring, cqe);
	}
	CHECK_EQ(p_io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);

	p_io_uring_queue_exit(&ring);
	dl_iterate_phdr(check_object, NULL);
	/* SDL3 dlclose()s it: the drop-in, and so the engine, stays */
	CHECK_EQ(dlclose(h), 0);
	CHECK(dlopen("liburing.so.2", RTLD_NOW | RTLD_NOLOAD));
	unlink(path);
	printf("ffi/dlopen: engine %s: ok\n", engine_name);
	return 0;
}
