/* SPDX-License-Identifier: MIT */
/*
 * fault.h - fault injection on the user engine (ANYRING_FAULTS, see
 * docs/faults.md). The rules are parsed once, at the first request this
 * engine issues in the process; the kernel engine never looks at them.
 *
 * The core calls ar_fault_issue() from ar_req_issue() (submit.c), behind
 * one branch on ar_faults_on, once the request's file is resolved. That
 * is the only hook: a request is matched against the rules at its first
 * issue, and the chosen effect is applied there (an error instead of the
 * operation; a shorter transfer; a delay slept in an io-wq worker, to
 * which the hook asks the core to hand the request). What fault.c may
 * ask of the engine beyond the request and the opcode table is declared
 * here, at the end; it includes no other engine header but complete.h.
 */
#ifndef ANYRING_USER_FAULT_H
#define ANYRING_USER_FAULT_H

#include "user/types.h"

#ifndef ar_unlikely
#define ar_unlikely(x)	__builtin_expect(!!(x), 0)
#endif

/*
 * 1 until the rules are parsed (so the first issue parses them), then 1
 * only if ANYRING_FAULTS gave rules. Relaxed loads: a thread that sees 1
 * goes through pthread_once() before it reads any rule, which orders the
 * parse before its reads; a thread that sees 0 reads nothing else.
 */
extern int ar_faults_on __attribute__((visibility("hidden")));	/* no GOT load */

static inline bool ar_faults_active(void)
{
	return __atomic_load_n(&ar_faults_on, __ATOMIC_RELAXED);
}

/* parse ANYRING_FAULTS now (idempotent); the first issue does it otherwise */
void ar_faults_init(void);

/*
 * At each issue of a request while rules exist: 0 to go on with the
 * issue; a negative errno to complete the request with it (injected, the
 * operation not performed); AR_ISSUE_PUNT to hand it to an io-wq worker,
 * which sleeps its delay before the issue; AR_ISSUE_QUEUED when it was
 * completed here (the ring exited during the delay).
 */
int ar_fault_issue(struct ar_ureq *req, unsigned issue_flags);

/*
 * The engine's services to fault.c. A registered file's fd, held until
 * ar_fault_file_put() (rsrc.c): -1 for an empty slot.
 */
int ar_fault_file_get(struct ar_uctx *ctx, unsigned slot, void **ref);
void ar_fault_file_put(struct ar_uctx *ctx, void *ref);
/* is the ring being torn down (ctx.c)? */
bool ar_ring_exiting(struct ar_uctx *ctx);

#endif
