/* SPDX-License-Identifier: MIT */
/*
 * api-register: every register/unregister call of liburing 2.3's map with
 * its return convention: files (dense, sparse, update, tags), buffers,
 * eventfd (signalled on completion), personality, io-wq limits and
 * affinity, the registered ring fd (and entering through it), buffer
 * rings, sync cancel, the file allocation range, restrictions.
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>
#include "test.h"

/* Tagged resources post a CQE (user_data = tag) once released. */
static void t_expect_tags(struct io_uring *ring, __u64 sum, unsigned nr)
{
	struct io_uring_cqe *cqe;
	__u64 got = 0;

	while (nr--) {
		CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
		CHECK_EQ(cqe->res, 0);
		got += cqe->user_data;
		io_uring_cqe_seen(ring, cqe);
	}
	CHECK_EQ(got, sum);
	CHECK_EQ(io_uring_cq_ready(ring), 0);
}

static void t_files(struct io_uring *ring)
{
	int fds[2], more[1];
	__u64 tags[2] = { 1, 2 };

	CHECK_EQ(pipe(fds), 0);
	CHECK_EQ(io_uring_register_files(ring, fds, 2), 0);
	CHECK_EQ(io_uring_register_files(ring, fds, 2), -EBUSY);
	more[0] = fds[0];
	CHECK_EQ(io_uring_register_files_update(ring, 1, more, 1), 1);
	CHECK_EQ(io_uring_register_files_update(ring, 5, more, 1), -EINVAL);
	CHECK_EQ(io_uring_unregister_files(ring), 0);
	CHECK_EQ(io_uring_unregister_files(ring), -ENXIO);

	CHECK_EQ(io_uring_register_files_sparse(ring, 8), 0);
	CHECK_EQ(io_uring_register_files_update_tag(ring, 3, fds, tags, 2), 2);
	CHECK_EQ(io_uring_unregister_files(ring), 0);
	t_expect_tags(ring, 3, 2);

	CHECK_EQ(io_uring_register_files_tags(ring, fds, tags, 2), 0);
	CHECK_EQ(io_uring_unregister_files(ring), 0);
	t_expect_tags(ring, 3, 2);
	close(fds[0]);
	close(fds[1]);
}

static void t_buffers(struct io_uring *ring)
{
	static char a[4096], b[4096];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	__u64 tags[2] = { 5, 0 };

	CHECK_EQ(io_uring_register_buffers(ring, iov, 2), 0);
	CHECK_EQ(io_uring_register_buffers(ring, iov, 2), -EBUSY);
	CHECK_EQ(io_uring_unregister_buffers(ring), 0);
	CHECK_EQ(io_uring_unregister_buffers(ring), -ENXIO);
	CHECK_EQ(io_uring_register_buffers_sparse(ring, 4), 0);
	CHECK_EQ(io_uring_register_buffers_update_tag(ring, 1, iov, tags, 2), 2);
	CHECK_EQ(io_uring_unregister_buffers(ring), 0);
	t_expect_tags(ring, 5, 1);	/* tag 0 means no CQE */
	CHECK_EQ(io_uring_register_buffers_tags(ring, iov, tags, 2), 0);
	CHECK_EQ(io_uring_unregister_buffers(ring), 0);
	t_expect_tags(ring, 5, 1);
}

static void t_eventfd(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	uint64_t v = 0;
	int efd = eventfd(0, EFD_NONBLOCK);

	CHECK(efd >= 0);
	CHECK_EQ(io_uring_register_eventfd(ring, efd), 0);
	CHECK_EQ(io_uring_register_eventfd(ring, efd), -EBUSY);
	io_uring_prep_nop(io_uring_get_sqe(ring));
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	io_uring_cqe_seen(ring, cqe);
	CHECK_EQ(read(efd, &v, sizeof(v)), sizeof(v));
	CHECK(v >= 1);
	CHECK_EQ(io_uring_unregister_eventfd(ring), 0);
	CHECK_EQ(io_uring_unregister_eventfd(ring), -ENXIO);
	CHECK_EQ(io_uring_register_eventfd_async(ring, efd), 0);
	CHECK_EQ(io_uring_unregister_eventfd(ring), 0);
	close(efd);
}

static void t_misc(struct io_uring *ring)
{
	unsigned vals[2] = { 0, 0 };
	cpu_set_t set;
	int id;

	id = io_uring_register_personality(ring);
	CHECK(id > 0);
	CHECK_EQ(io_uring_unregister_personality(ring, id), 0);
	CHECK_EQ(io_uring_unregister_personality(ring, id), -EINVAL);

	/* zeros read the current limits */
	CHECK_EQ(io_uring_register_iowq_max_workers(ring, vals), 0);
	CHECK(vals[0] > 0);

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CHECK_EQ(io_uring_register_iowq_aff(ring, sizeof(set), &set), 0);
	CHECK_EQ(io_uring_unregister_iowq_aff(ring), 0);
	CHECK_EQ(io_uring_register_iowq_aff(ring, 1UL << 31, &set), -EINVAL);

	/* no file table yet: the kernel refuses the range */
	CHECK(io_uring_register_file_alloc_range(ring, 0, 1) < 0);
	CHECK_EQ(io_uring_register_files_sparse(ring, 4), 0);
	CHECK_EQ(io_uring_register_file_alloc_range(ring, 1, 2), 0);
	CHECK_EQ(io_uring_unregister_files(ring), 0);
}

static void t_ring_fd(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	CHECK_EQ(io_uring_unregister_ring_fd(ring), -EINVAL);
	CHECK_EQ(io_uring_register_ring_fd(ring), 1);
	CHECK_EQ(io_uring_register_ring_fd(ring), -EEXIST);
	CHECK(ring->enter_ring_fd != ring->ring_fd || ring->enter_ring_fd == 0);
	/* enters now go through the registered index */
	io_uring_prep_nop(io_uring_get_sqe(ring));
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	io_uring_cqe_seen(ring, cqe);
	CHECK_EQ(io_uring_unregister_ring_fd(ring), 1);
	CHECK_EQ(ring->enter_ring_fd, ring->ring_fd);
	/* left registered: queue_exit must unregister it */
	CHECK_EQ(io_uring_register_ring_fd(ring), 1);
}

static void t_buf_ring(struct io_uring *ring)
{
	struct io_uring_buf_reg reg;
	void *mem;

	CHECK_EQ(posix_memalign(&mem, 4096, 4096), 0);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)mem;
	reg.ring_entries = 8;
	reg.bgid = 3;
	CHECK_EQ(io_uring_register_buf_ring(ring, &reg, 0), 0);
	CHECK_EQ(io_uring_register_buf_ring(ring, &reg, 0), -EEXIST);
	CHECK_EQ(io_uring_unregister_buf_ring(ring, 3), 0);
	CHECK_EQ(io_uring_unregister_buf_ring(ring, 3), -ENOENT);
	free(mem);
}

static void t_sync_cancel(struct io_uring *ring)
{
	struct io_uring_sync_cancel_reg reg;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	char buf[8];
	int fds[2];

	CHECK_EQ(pipe(fds), 0);
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_read(sqe, fds[0], buf, sizeof(buf), 0);
	sqe->user_data = 42;
	CHECK_EQ(io_uring_submit(ring), 1);
	memset(&reg, 0, sizeof(reg));
	reg.addr = 42;
	reg.fd = -1;
	reg.timeout.tv_sec = -1;
	reg.timeout.tv_nsec = -1;
	CHECK_EQ(io_uring_register_sync_cancel(ring, &reg), 0);
	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 42);
	CHECK_EQ(cqe->res, -ECANCELED);
	io_uring_cqe_seen(ring, cqe);
	CHECK_EQ(io_uring_register_sync_cancel(ring, &reg), -ENOENT);
	close(fds[0]);
	close(fds[1]);
}

static void t_restrictions(void)
{
	struct io_uring_restriction res[1];
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_R_DISABLED;
	t_ring(&ring, 4, &p);
	memset(res, 0, sizeof(res));
	res[0].opcode = IORING_RESTRICTION_SQE_OP;
	res[0].sqe_op = IORING_OP_NOP;
	CHECK_EQ(io_uring_register_restrictions(&ring, res, 1), 0);
	CHECK_EQ(io_uring_enable_rings(&ring), 0);
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	io_uring_prep_fsync(io_uring_get_sqe(&ring), 0, 0);
	CHECK_EQ(io_uring_submit_and_wait(&ring, 2), 2);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->res, 0);
	io_uring_cqe_seen(&ring, cqe);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->res, -EACCES);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
}

/* OPENAT of path under personality pers (0: none), inline or in io-wq */
static int t_open_as(struct io_uring *ring, const char *path, int pers,
		     bool async)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int res;

	io_uring_prep_openat(sqe, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	sqe->personality = (__u16)pers;
	if (async)
		sqe->flags |= IOSQE_ASYNC;
	CHECK_EQ(io_uring_submit_and_wait(ring, 1), 1);
	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	if (res >= 0)
		close(res);
	return res;
}

/*
 * A personality is applied: registered as root, a root-only file opens
 * under it after seteuid() to another user (inline and in io-wq), fails
 * without it, and the thread that issued it is left as it was.
 */
static void t_personality_applied(void)
{
	char path[] = "/tmp/anyring-pers-XXXXXX";
	struct io_uring ring;
	gid_t groups[64];
	int fd, pers, ngroups;
	uid_t r, e, s;

	if (geteuid() != 0)
		return;		/* seteuid() needs root */
	t_ring(&ring, 8, NULL);
	pers = io_uring_register_personality(&ring);
	CHECK(pers > 0);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(chmod(path, 0600), 0);
	ngroups = getgroups(64, groups);
	CHECK_EQ(seteuid(65534), 0);
	CHECK_EQ(t_open_as(&ring, path, 0, false), -EACCES);
	CHECK(t_open_as(&ring, path, pers, false) >= 0);
	CHECK(t_open_as(&ring, path, pers, true) >= 0);
	CHECK_EQ(t_open_as(&ring, path, 0, true), -EACCES);
	CHECK_EQ(getresuid(&r, &e, &s), 0);
	CHECK_EQ(e, 65534);
	CHECK_EQ(r, 0);
	CHECK_EQ(getgroups(0, NULL), ngroups);
	CHECK_EQ(seteuid(0), 0);
	CHECK_EQ(io_uring_unregister_personality(&ring, pers), 0);
	CHECK_EQ(t_open_as(&ring, path, pers, false), -EINVAL);
	unlink(path);
	io_uring_queue_exit(&ring);
}

/* the lowest free fd number */
static int t_next_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	close(fd);
	return fd;
}

/*
 * What a ring holds takes none of the program's fd numbers: registered
 * files, the eventfd, an armed poll, a waiter and an SQPOLL thread are
 * file references on the kernel, and the program's next open() gets
 * the number it would get there.
 */
static void t_fd_numbers(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL };
	struct io_uring ring, sq;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int fds[2], efd, next;

	t_ring(&ring, 8, NULL);
	t_ring(&sq, 8, &p);
	CHECK_EQ(pipe(fds), 0);
	efd = eventfd(0, 0);
	CHECK(efd >= 0);
	next = t_next_fd();
	CHECK_EQ(io_uring_register_files(&ring, fds, 2), 0);
	CHECK_EQ(io_uring_register_eventfd(&ring, efd), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_add(sqe, fds[0], POLLIN);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 0;
	CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 2);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 0);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_prep_nop(io_uring_get_sqe(&sq));
	CHECK_EQ(io_uring_submit_and_wait(&sq, 1), 1);
	CHECK_EQ(io_uring_wait_cqe(&sq, &cqe), 0);
	io_uring_cqe_seen(&sq, cqe);
	CHECK_EQ(t_next_fd(), next);
	close(fds[0]);
	close(fds[1]);
	close(efd);
	io_uring_queue_exit(&sq);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	struct io_uring ring;

	t_ring(&ring, 8, NULL);
	t_files(&ring);
	t_buffers(&ring);
	t_eventfd(&ring);
	t_misc(&ring);
	t_buf_ring(&ring);
	t_sync_cancel(&ring);
	t_ring_fd(&ring);
	io_uring_queue_exit(&ring);
	t_restrictions();
	t_fd_numbers();
	t_personality_applied();
	return 0;
}
