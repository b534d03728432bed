/* SPDX-License-Identifier: MIT */
/*
 * fuzz_sqe.c - libFuzzer target: random SQE batches on two engines.
 *
 * Each input decodes (fuzz_decode.c) into a ring configuration and up to
 * 16 SQEs: NOP, READ, WRITE, READV, WRITEV, READ_FIXED, WRITE_FIXED, FSYNC,
 * FALLOCATE, FADVISE, STATX, OPENAT, CLOSE (of a direct slot), MKDIRAT,
 * UNLINKAT, RENAMEAT, SYMLINKAT, LINKAT, TIMEOUT, TIMEOUT_REMOVE,
 * LINK_TIMEOUT, ASYNC_CANCEL, FILES_UPDATE and opcode 255 (and, from
 * fuzz_net.c, SEND, RECV, POLL_ADD, SHUTDOWN, SOCKET, PROVIDE_BUFFERS,
 * REMOVE_BUFFERS, FTRUNCATE, FSETXATTR, FGETXATTR, EPOLL_CTL and
 * URING_CMD on sockets, an eventfd and an epoll fd it makes), with any
 * sqe->flags, sometimes a small value in a field the op does not use,
 * sometimes a bad address in one of its pointers (NULL, 1, PROT_NONE,
 * unmapped, running into an unmapped page, non-canonical, read-only, a
 * path longer than PATH_MAX: fuzz_bad.c). Requests only touch the run's
 * own temp dir, fds and memory, and the bad-pointer pool. One batch in
 * 16 runs in a forked child of the process that made the ring, one in 16
 * has its CQEs waited for through a registered wait region
 * (IORING_ENTER_EXT_ARG_REG, on a ring made disabled), and one in 16
 * runs on a ring set to issue=inline (the user engine's page-cache reads
 * of a submit then go in one io_submit(), never shared with a helper).
 * fuzz_order.c turns the races the kernel itself has into NOPs (or leaves
 * their CQEs out), then the batch runs on each engine (fuzz_run.c) and the
 * runs are compared (fuzz_compare.c): CQEs, submit results, fds left
 * open, the temp dir, the files, the pipe and the buffers. A difference
 * prints both runs and the batch and aborts, so libFuzzer saves the input;
 * ASan/UBSan catch crashes and leaks, -timeout catches hangs.
 *
 *   make fuzz && build/fuzz/fuzz_sqe -max_total_time=600 tests/fuzz/corpus
 *
 * (libFuzzer adds what it finds to the first corpus dir: pass a copy, or
 * a scratch dir first, to keep tests/fuzz/corpus as it is. Useful too:
 * -max_len=160 (16 SQEs), -error_exitcode=1 (libFuzzer's default 77 reads
 * as "skipped" to tests/run.sh), -fork=1 -ignore_crashes=1 to go on past
 * mismatches, each saved as crash-*.) Replay one input with its batch and
 * both runs printed:
 *
 *   FUZZ_VERBOSE=1 FUZZ_KEEP_FINDINGS=1 build/fuzz/fuzz_sqe \
 *           tests/fuzz/findings/NAME
 *
 * Env: FUZZ_ENGINES (default "kernel,user"; "kernel,kernel" checks that
 * the comparison itself is stable), FUZZ_VERBOSE, FUZZ_KEEP_FINDINGS (do
 * not steer around the known findings of fuzz_decode.c). Exits 77 at
 * start when an engine cannot create rings here.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "anyring.h"
#include "fuzz.h"

#define FZ_MAX_THREADS	256

static char engine_buf[64];
static const char *engines[2];
static int verbose;

/*
 * Skip (77) when the engine cannot make rings here; else one NOP through
 * it and a wait that sleeps, so what an engine keeps per thread for good
 * (the user engine's waiter eventfd) exists before the first run counts
 * fds. The NOP alone is not enough: when it completes before the wait
 * looks, nothing sleeps and the waiter is made in the first run (one
 * eventfd "left open" there, a false mismatch). A POLL_ADD of a pipe
 * left armed at exit does the same for what outlives a ring on purpose:
 * the user engine's AIO context, kept with its eventfd for the next ring
 * (src/user/aio.c). A fork with a ring does it for the process family's
 * eventfds, which the user engine makes at the first such fork
 * (src/user/fork.c; the batches that run in a forked child).
 */
static void probe(const char *engine)
{
	struct __kernel_timespec ts = { .tv_nsec = 1000000 };
	struct io_uring_params p;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int ret, pfd[2] = { -1, -1 };

	memset(&p, 0, sizeof(p));
	ret = anyring_queue_init_engine(engine, 4, &ring, &p);
	if (ret) {
		printf("skipped: engine %s cannot create rings: %s\n", engine,
		       strerror(-ret));
		exit(77);
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_ASYNC;	/* so that the wait sleeps */
	if (io_uring_submit_and_wait(&ring, 1) == 1 &&
	    !io_uring_wait_cqe(&ring, &cqe))
		io_uring_cqe_seen(&ring, cqe);
	/* the CQ is empty: this wait sleeps 1 ms (-ETIME) */
	ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	if (!ret)
		io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	/* a CQ of 1024: the context is made that big, which serves any ring */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 1024;
	if (!pipe(pfd) && !anyring_queue_init_engine(engine, 4, &ring, &p)) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_poll_add(sqe, pfd[0], POLLIN);
		io_uring_submit(&ring);
		io_uring_queue_exit(&ring);
	}
	if (pfd[0] >= 0) {
		close(pfd[0]);
		close(pfd[1]);
	}
	memset(&p, 0, sizeof(p));
	if (!anyring_queue_init_engine(engine, 4, &ring, &p)) {
		pid_t pid;

		fflush(NULL);
		pid = fork();
		if (!pid)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		io_uring_queue_exit(&ring);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *env = getenv("FUZZ_ENGINES");
	char *comma;

	(void)argc;
	(void)argv;
	snprintf(engine_buf, sizeof(engine_buf), "%s",
		 env && *env ? env : "kernel,user");
	engines[0] = engine_buf;
	comma = strchr(engine_buf, ',');
	if (comma) {
		*comma = 0;
		engines[1] = comma + 1;
	} else {
		engines[1] = engines[0];
	}
	verbose = getenv("FUZZ_VERBOSE") && *getenv("FUZZ_VERBOSE") &&
		strcmp(getenv("FUZZ_VERBOSE"), "0");
	fz_keep_findings = getenv("FUZZ_KEEP_FINDINGS") != NULL;
	probe(engines[0]);
	probe(engines[1]);
	return 0;
}

/* worker threads that outlive their rings pile up: a leak */
static void check_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	if (!d)
		return;
	while (readdir(d))
		n++;
	closedir(d);
	if (n > FZ_MAX_THREADS) {
		printf("fuzz: %d threads alive after the runs\n", n);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_batch b;
	static struct fz_result r[2];

	fz_decode(data, size, &b);
	fz_order(&b);
	fz_run(&b, engines[0], &r[0]);
	fz_run(&b, engines[1], &r[1]);
	if (fz_compare(&b, &r[0], &r[1], verbose))
		abort();
	check_threads();
	return 0;
}
