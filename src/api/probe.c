/* SPDX-License-Identifier: MIT */
/*
 * probe.c - io_uring_get_probe*(): which opcodes the engine serving a ring
 * (or a new default ring) supports, via IORING_REGISTER_PROBE.
 */
#include <stdlib.h>
#include "engine/engine.h"

#define AR_PROBE_OPS	256

AR_EXPORT struct io_uring_probe *io_uring_get_probe_ring(struct io_uring *ring)
{
	struct io_uring_probe *probe;
	size_t len = sizeof(*probe) + AR_PROBE_OPS * sizeof(struct io_uring_probe_op);

	probe = calloc(1, len);
	if (!probe)
		return NULL;
	if (io_uring_register_probe(ring, probe, AR_PROBE_OPS) < 0) {
		free(probe);
		return NULL;
	}
	return probe;
}

AR_EXPORT struct io_uring_probe *io_uring_get_probe(void)
{
	struct io_uring_probe *probe;
	struct io_uring ring;

	if (io_uring_queue_init(2, &ring, 0) < 0)
		return NULL;
	probe = io_uring_get_probe_ring(&ring);
	io_uring_queue_exit(&ring);
	return probe;
}

AR_EXPORT void io_uring_free_probe(struct io_uring_probe *probe)
{
	free(probe);
}
