/* SPDX-License-Identifier: MIT */
/*
 * query.c - IORING_REGISTER_QUERY (6.18's io_uring/query.c): a chain of
 * headers, each naming a query and a buffer for its answer, walked until
 * next_entry is 0. The engine answers IO_URING_QUERY_OPCODES with what
 * it supports (the opcode counts, and the setup, enter, SQE and feature
 * flags it takes); the later queries (ZCRX, SCQ: for zero-copy receive
 * and rings in the application's memory, which the engine refuses) are
 * past nr_query_opcodes and answer -EOPNOTSUPP in their header.
 */
#include <errno.h>
#include <string.h>
#include "lib/uaccess.h"
#include "user/query.h"

/* io_uring/query.h's header and its first query (6.18) */
struct ar_query_hdr {
	__u64 next_entry;
	__u64 query_data;
	__u32 query_op;
	__u32 size;
	__s32 result;
	__u32 resv[3];
};

struct ar_query_opcode {
	__u32 nr_request_opcodes;
	__u32 nr_register_opcodes;
	__u64 feature_flags;
	__u64 ring_setup_flags;
	__u64 enter_flags;
	__u64 sqe_flags;
	__u32 nr_query_opcodes;
	__u32 pad;
};

#define AR_QUERY_OPCODES	0
#define AR_QUERY_NR		1	/* the queries this engine answers */
#define AR_QUERY_MAX_SIZE	sizeof(struct ar_query_opcode)
#define AR_QUERY_MAX_ENTRIES	1000	/* as the kernel's: a chain may loop */

static size_t ar_query_ops(void *data)
{
	struct ar_query_opcode *e = data;

	e->nr_request_opcodes = AR_OP_LAST;
	e->nr_register_opcodes = AR_REGISTER_LAST;
	e->feature_flags = ar_user_features();
	e->ring_setup_flags = ar_user_setup_flags();
	e->enter_flags = ar_user_enter_flags();
	e->sqe_flags = ar_user_sqe_flags();
	e->nr_query_opcodes = AR_QUERY_NR;
	e->pad = 0;
	return sizeof(*e);
}

/* bytes [from, to) of the user buffer zeroed, fault-safe */
static int ar_query_clear(char *udata, size_t from, size_t to)
{
	static const char zero[256];
	size_t n;

	for (; from < to; from += n) {
		n = to - from < sizeof(zero) ? to - from : sizeof(zero);
		if (ar_copy_to_user(udata + from, zero, n))
			return -EFAULT;
	}
	return 0;
}

static bool ar_resv_zero(const struct ar_query_hdr *h)
{
	return !h->resv[0] && !h->resv[1] && !h->resv[2];
}

/* one header: its answer and result written back; *next its successor */
static int ar_query_entry(void *data, void *uhdr, __u64 *next)
{
	struct ar_query_hdr hdr;
	size_t usize, ksize = 0;
	char *udata;
	int ret = -EINVAL;

	if (ar_copy_from_user(&hdr, uhdr, sizeof(hdr)))
		return -EFAULT;
	usize = hdr.size;
	hdr.size = usize < AR_QUERY_MAX_SIZE ? (__u32)usize : AR_QUERY_MAX_SIZE;
	udata = (char *)(unsigned long)hdr.query_data;
	if (hdr.query_op >= AR_QUERY_NR) {
		ret = -EOPNOTSUPP;
	} else if (ar_resv_zero(&hdr) && !hdr.result && hdr.size) {
		if (ar_copy_from_user(data, udata, hdr.size))
			return -EFAULT;
		ksize = ar_query_ops(data);
		ret = 0;
	}
	hdr.result = ret;
	hdr.size = (__u32)(usize < ksize ? usize : ksize);
	/* the answer, as much as fits; the rest of the caller's buffer zeroed */
	if (ar_copy_to_user(udata, data, hdr.size) ||
	    ar_query_clear(udata, hdr.size, usize))
		return -EFAULT;
	if (ar_copy_to_user(uhdr, &hdr, sizeof(hdr)))
		return -EFAULT;
	*next = hdr.next_entry;
	return 0;
}

int ar_query(const void *arg, unsigned nr)
{
	char data[AR_QUERY_MAX_SIZE];
	void *uhdr = (void *)arg;
	unsigned n = 0;
	__u64 next;
	int ret;

	memset(data, 0, sizeof(data));
	if (nr)
		return -EINVAL;
	while (uhdr) {
		ret = ar_query_entry(data, uhdr, &next);
		if (ret)
			return ret;
		uhdr = (void *)(unsigned long)next;
		if (++n >= AR_QUERY_MAX_ENTRIES)
			return -ERANGE;
	}
	return 0;
}
