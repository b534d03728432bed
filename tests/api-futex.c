/* SPDX-License-Identifier: MIT */
/*
 * api-futex.c - IORING_OP_FUTEX_* across threads:
 *  - a FUTEX_WAIT armed by one thread's ring (its submit returned) is
 *    woken by another thread's ring's FUTEX_WAKE (1 woken, the wait 0);
 *  - ... and by a store and a plain futex(2) FUTEX_WAKE from another
 *    thread, and a FUTEX_WAITV by one on its second word (res 1); the
 *    count that futex(2) answers is 0 or 1 on the user engine, whose
 *    wait may not be in the kernel yet (docs/semantics.md D91);
 *  - a thread blocked in futex(2) is woken by a ring's FUTEX_WAKE;
 *  - a wait is cancelled by ASYNC_CANCEL (-ECANCELED), and one still
 *    armed when its ring exits does not hold the exit up.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include "test.h"

#define OP_FUTEX_WAIT	51
#define OP_FUTEX_WAKE	52
#define OP_FUTEX_WAITV	53
#define F2_U32_PRIVATE	(0x02 | 128)

struct waitv {
	__u64 val;
	__u64 uaddr;
	__u32 flags;
	__u32 reserved;
};

static _Alignas(64) uint32_t words[4];
static atomic_int armed;

static void prep_futex(struct io_uring_sqe *sqe, __u8 op, uint32_t *w,
		       __u64 val)
{
	io_uring_prep_rw(op, sqe, F2_U32_PRIVATE, w, 0, 0);
	sqe->addr2 = val;
	sqe->addr3 = FUTEX_BITSET_MATCH_ANY;
}

static int reap(struct io_uring *ring, __u64 *ud)
{
	struct io_uring_cqe *cqe;
	int res;

	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	res = cqe->res;
	*ud = cqe->user_data;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

static void wait_armed(int v)
{
	long long deadline = t_now_ns() + T_HANG_SEC * 1000000000LL;

	while (atomic_load(&armed) != v)
		CHECK(t_now_ns() < deadline);
}

/* the waiting side: arm, say so, reap; returns the wait's result */
static void *waiter_fn(void *arg)
{
	long op = (long)arg;
	static struct waitv v[2];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	__u64 ud;
	int res;

	t_ring(&ring, 4, NULL);
	sqe = io_uring_get_sqe(&ring);
	if (op == OP_FUTEX_WAITV) {
		v[0].uaddr = (unsigned long)&words[0];
		v[1].uaddr = (unsigned long)&words[1];
		v[0].flags = v[1].flags = F2_U32_PRIVATE;
		io_uring_prep_rw(OP_FUTEX_WAITV, sqe, 0, v, 2, 0);
	} else {
		prep_futex(sqe, OP_FUTEX_WAIT, &words[0], 0);
	}
	sqe->user_data = 7;
	CHECK_EQ(io_uring_submit(&ring), 1);
	atomic_store(&armed, 1);
	res = reap(&ring, &ud);
	CHECK_EQ(ud, 7);
	CHECK_EQ(res, op == OP_FUTEX_WAITV ? 1 : 0);
	io_uring_queue_exit(&ring);
	return NULL;
}

static void ring_wakes_ring(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	pthread_t tid;
	__u64 ud;

	atomic_store(&armed, 0);
	t_ring(&ring, 4, NULL);
	CHECK_EQ(pthread_create(&tid, NULL, waiter_fn, (void *)OP_FUTEX_WAIT), 0);
	wait_armed(1);
	sqe = io_uring_get_sqe(&ring);
	prep_futex(sqe, OP_FUTEX_WAKE, &words[0], INT_MAX);
	CHECK_EQ(io_uring_submit(&ring), 1);
	CHECK_EQ(reap(&ring, &ud), 1);
	CHECK_EQ(pthread_join(tid, NULL), 0);
	io_uring_queue_exit(&ring);
}

static long sys_futex(uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static void syscall_wakes_ring(long op, uint32_t *w)
{
	pthread_t tid;
	long res;

	atomic_store(&armed, 0);
	CHECK_EQ(pthread_create(&tid, NULL, waiter_fn, (void *)op), 0);
	wait_armed(1);
	__atomic_store_n(w, 1, __ATOMIC_RELEASE);
	res = sys_futex(w, FUTEX_WAKE_PRIVATE, 1);
	if (!strcmp(t_engine(), ANYRING_ENGINE_KERNEL))
		CHECK_EQ(res, 1);
	else
		CHECK(res == 0 || res == 1);
	CHECK_EQ(pthread_join(tid, NULL), 0);
	__atomic_store_n(w, 0, __ATOMIC_RELEASE);
}

static void *sleeper_fn(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&words[2], __ATOMIC_ACQUIRE))
		sys_futex(&words[2], FUTEX_WAIT_PRIVATE, 0);
	return NULL;
}

static int ring_wake(struct io_uring *ring, uint32_t *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	__u64 ud;

	prep_futex(sqe, OP_FUTEX_WAKE, w, 1);
	CHECK_EQ(io_uring_submit(ring), 1);
	return reap(ring, &ud);
}

/* a thread asleep in futex(2): woken by the ring (0 until it sleeps) */
static void ring_wakes_thread(void)
{
	long long deadline = t_now_ns() + T_HANG_SEC * 1000000000LL;
	struct io_uring ring;
	pthread_t tid;
	int res;

	t_ring(&ring, 4, NULL);
	CHECK_EQ(pthread_create(&tid, NULL, sleeper_fn, NULL), 0);
	while ((res = ring_wake(&ring, &words[2])) != 1) {
		CHECK_EQ(res, 0);
		CHECK(t_now_ns() < deadline);
	}
	__atomic_store_n(&words[2], 1, __ATOMIC_RELEASE);
	res = ring_wake(&ring, &words[2]);
	CHECK(res == 0 || res == 1);
	CHECK_EQ(pthread_join(tid, NULL), 0);
	io_uring_queue_exit(&ring);
}

static void cancel_and_exit(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int i, res[2];
	__u64 ud;

	t_ring(&ring, 4, NULL);
	sqe = io_uring_get_sqe(&ring);
	prep_futex(sqe, OP_FUTEX_WAIT, &words[3], 0);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 1, 0);
	sqe->user_data = 2;
	CHECK_EQ(io_uring_submit(&ring), 2);
	for (i = 0; i < 2; i++) {
		int r = reap(&ring, &ud);

		CHECK(ud == 1 || ud == 2);
		res[ud - 1] = r;
	}
	CHECK_EQ(res[0], -ECANCELED);
	CHECK_EQ(res[1], 1);
	/* armed at exit: the exit cancels it */
	sqe = io_uring_get_sqe(&ring);
	prep_futex(sqe, OP_FUTEX_WAIT, &words[3], 0);
	CHECK_EQ(io_uring_submit(&ring), 1);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	struct io_uring_probe *probe;
	struct io_uring ring;

	t_ring(&ring, 4, NULL);
	probe = io_uring_get_probe_ring(&ring);
	if (!probe || !io_uring_opcode_supported(probe, OP_FUTEX_WAITV))
		t_skip("no FUTEX_WAITV on this engine");
	io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);
	for (int i = 0; i < 50; i++) {
		ring_wakes_ring();
		syscall_wakes_ring(OP_FUTEX_WAIT, &words[0]);
		syscall_wakes_ring(OP_FUTEX_WAITV, &words[1]);
	}
	ring_wakes_thread();
	cancel_and_exit();
	return 0;
}
