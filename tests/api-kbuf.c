/* SPDX-License-Identifier: MIT */
/*
 * api-kbuf.c - provided buffers under load, on the test engine:
 *   1. a file read by many READs with IOSQE_BUFFER_SELECT from a buffer
 *      ring, 32 in flight; the reaper checks each CQE's buffer holds the
 *      bytes of the offset it read, and gives the buffer back to the ring
 *      (io_uring_buf_ring_add + advance) before more are submitted;
 *   2. a pipe fed by a writer thread, read one READ at a time (each may
 *      wait for data, giving its ring buffer back and taking it again),
 *      the stream checked byte for byte;
 *   3. the same pipe stream through PROVIDE_BUFFERS buffers, each one
 *      provided again by an SQE once its CQE was seen.
 * No CQE may lack its buffer or hold the wrong bytes, and none is lost.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "test.h"

#define NR_BUFS		64
#define BUF_SZ		512
#define QD		32
#define FILE_BLOCKS	256		/* 128 KiB */
#define NR_READS	20000
#define STREAM_LEN	(2 * 1024 * 1024)
#define BGID		7

static unsigned char *bufs;

/* the byte at offset off of the file and of the pipe stream */
static unsigned char pat(unsigned long off)
{
	return (unsigned char)((off * 2654435761UL) >> 13);
}

static int make_file(void)
{
	char path[] = "/tmp/anyring-kbuf-XXXXXX";
	static unsigned char blk[BUF_SZ];
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	unlink(path);
	for (unsigned b = 0; b < FILE_BLOCKS; b++) {
		for (unsigned i = 0; i < BUF_SZ; i++)
			blk[i] = pat((unsigned long)b * BUF_SZ + i);
		CHECK_EQ(pwrite(fd, blk, BUF_SZ, (off_t)b * BUF_SZ), BUF_SZ);
	}
	return fd;
}

static struct io_uring_buf_ring *setup_ring(struct io_uring *ring)
{
	struct io_uring_buf_ring *br;
	struct io_uring_buf_reg reg;

	br = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(br != MAP_FAILED);
	io_uring_buf_ring_init(br);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)br;
	reg.ring_entries = NR_BUFS;
	reg.bgid = BGID;
	CHECK_EQ(io_uring_register_buf_ring(ring, &reg, 0), 0);
	for (unsigned i = 0; i < NR_BUFS; i++)
		io_uring_buf_ring_add(br, bufs + i * BUF_SZ, BUF_SZ,
				      (unsigned short)i,
				      io_uring_buf_ring_mask(NR_BUFS), (int)i);
	io_uring_buf_ring_advance(br, NR_BUFS);
	return br;
}

static void give_back(struct io_uring_buf_ring *br, unsigned bid)
{
	io_uring_buf_ring_add(br, bufs + bid * BUF_SZ, BUF_SZ,
			      (unsigned short)bid,
			      io_uring_buf_ring_mask(NR_BUFS), 0);
	io_uring_buf_ring_advance(br, 1);
}

static void prep_read(struct io_uring *ring, int fd, unsigned len,
		      __u64 off, __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	CHECK(sqe);
	io_uring_prep_read(sqe, fd, NULL, len, off);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = ud;
}

/* the CQE's buffer */
static unsigned cqe_bid(const struct io_uring_cqe *cqe)
{
	unsigned bid;

	CHECK(cqe->flags & IORING_CQE_F_BUFFER);
	bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
	CHECK(bid < NR_BUFS);
	return bid;
}

static void file_reads(void)
{
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	struct io_uring_cqe *cqe;
	unsigned submitted = 0, done = 0, inflight = 0;
	int fd = make_file();

	t_ring(&ring, QD, NULL);
	br = setup_ring(&ring);
	while (done < NR_READS) {
		while (inflight < QD && submitted < NR_READS) {
			__u64 off = (__u64)(submitted * 7 % FILE_BLOCKS) * BUF_SZ;

			prep_read(&ring, fd, 0, off, off);
			submitted++;
			inflight++;
		}
		CHECK(io_uring_submit_and_wait(&ring, 1) >= 0);
		while (io_uring_peek_cqe(&ring, &cqe) == 0) {
			unsigned bid = cqe_bid(cqe);
			const unsigned char *b = bufs + bid * BUF_SZ;

			CHECK_EQ(cqe->res, BUF_SZ);
			for (unsigned i = 0; i < BUF_SZ; i += 61)
				CHECK_EQ(b[i], pat(cqe->user_data + i));
			give_back(br, bid);
			io_uring_cqe_seen(&ring, cqe);
			done++;
			inflight--;
		}
	}
	io_uring_queue_exit(&ring);
	munmap(br, 4096);
	close(fd);
}

struct writer {
	int fd;
	pthread_t tid;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	unsigned char chunk[1000];
	unsigned long off = 0;

	while (off < STREAM_LEN) {
		size_t n = sizeof(chunk), i;
		ssize_t ret;

		if (n > STREAM_LEN - off)
			n = STREAM_LEN - off;
		for (i = 0; i < n; i++)
			chunk[i] = pat(off + i);
		ret = write(w->fd, chunk, n);
		CHECK(ret > 0);
		off += (unsigned long)ret;
	}
	close(w->fd);
	return NULL;
}

static void provide_one(struct io_uring *ring, unsigned bid, __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	CHECK(sqe);
	io_uring_prep_provide_buffers(sqe, bufs + bid * BUF_SZ, BUF_SZ, 1,
				      BGID, (int)bid);
	sqe->user_data = ud;
}

/* one READ at a time from a pipe; legacy: PROVIDE_BUFFERS buffers */
static void pipe_stream(bool legacy)
{
	struct io_uring ring;
	struct io_uring_buf_ring *br = NULL;
	struct io_uring_cqe *cqe;
	struct writer w;
	unsigned long off = 0;
	int p[2];

	CHECK(!pipe(p));
	t_ring(&ring, 8, NULL);
	if (legacy) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_provide_buffers(sqe, bufs, BUF_SZ, NR_BUFS,
					      BGID, 0);
		CHECK_EQ(io_uring_submit_and_wait(&ring, 1), 1);
		CHECK(!io_uring_peek_cqe(&ring, &cqe));
		CHECK_EQ(cqe->res, 0);
		io_uring_cqe_seen(&ring, cqe);
	} else {
		br = setup_ring(&ring);
	}
	w.fd = p[1];
	CHECK(!pthread_create(&w.tid, NULL, writer_main, &w));
	for (;;) {
		unsigned bid;

		prep_read(&ring, p[0], 0, 0, 2);
		CHECK(io_uring_submit_and_wait(&ring, 1) >= 1);
		CHECK(!io_uring_peek_cqe(&ring, &cqe));
		if (cqe->user_data == 1) {	/* a PROVIDE_BUFFERS */
			CHECK_EQ(cqe->res, 0);
			io_uring_cqe_seen(&ring, cqe);
			CHECK(io_uring_wait_cqe(&ring, &cqe) == 0);
		}
		CHECK_EQ(cqe->user_data, 2);
		if (cqe->res == 0) {	/* EOF: the writer is done */
			io_uring_cqe_seen(&ring, cqe);
			break;
		}
		CHECK(cqe->res > 0);
		bid = cqe_bid(cqe);
		for (int i = 0; i < cqe->res; i++)
			CHECK_EQ(bufs[bid * BUF_SZ + (unsigned)i], pat(off + (unsigned)i));
		off += (unsigned long)cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		if (legacy)
			provide_one(&ring, bid, 1);
		else
			give_back(br, bid);
	}
	CHECK_EQ(off, STREAM_LEN);
	CHECK(!pthread_join(w.tid, NULL));
	io_uring_queue_exit(&ring);
	if (br)
		munmap(br, 4096);
	close(p[0]);
}

/*
 * A buffer ring in private memory stays private across fork(), as the
 * kernel copies a pinned page for the child: the child's stores into its
 * copy of the ring do not reach the parent's, while registered, once
 * unregistered and once the ring is gone (pin.c leaves private memory
 * where it is; an earlier pin that moved it into shared memory failed
 * this).
 */
static void child_scribbles(volatile unsigned char *p)
{
	pid_t pid = fork();
	int st;

	CHECK(pid >= 0);
	if (!pid) {
		memset((void *)p, 0xa5, 4096);
		_exit(p[100] == 0xa5 ? 0 : 1);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void fork_private(void)
{
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	unsigned char before[4096];

	t_ring(&ring, 8, NULL);
	br = setup_ring(&ring);
	memcpy(before, br, sizeof(before));
	child_scribbles((unsigned char *)br);
	CHECK(!memcmp(before, br, sizeof(before)));
	CHECK_EQ(io_uring_unregister_buf_ring(&ring, BGID), 0);
	child_scribbles((unsigned char *)br);
	CHECK(!memcmp(before, br, sizeof(before)));
	io_uring_queue_exit(&ring);
	child_scribbles((unsigned char *)br);
	CHECK(!memcmp(before, br, sizeof(before)));
	munmap(br, 4096);
}

int main(void)
{
	bufs = malloc(NR_BUFS * BUF_SZ);
	CHECK(bufs);
	file_reads();
	pipe_stream(false);
	pipe_stream(true);
	fork_private();
	free(bufs);
	printf("api-kbuf on %s: ok\n", t_engine());
	return 0;
}
