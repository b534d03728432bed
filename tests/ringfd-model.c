/* SPDX-License-Identifier: MIT */
/*
 * ringfd-model.c - an exhaustive check of the protocol of src/lib/ringfd.h
 * over every sequentially consistent interleaving of a few threads.
 *
 * The protocol's steps are encoded by hand as a state machine over the
 * state word, busy, the eventfd's count, the CQ's head and tail, and
 * each thread's program counter: one step of a thread is one atomic
 * operation or one system call of the header (ar_wake_mb() is a no-op
 * under sequential consistency, which is what it buys the real code;
 * pending() is one step: its head load, then its tail load, answer as
 * the CQ was at the tail load, since the head only grows and never
 * passes the tail). A breadth-first search visits every reachable state
 * once, so the trace it prints for a violation is a shortest one. This
 * checks the protocol's logic, not the C11 orderings (ringfd-stress.c
 * runs the real header), and it is a transcription: a change to the
 * header's steps needs the same change here.
 *
 * Threads: posters (tail++, then ar_ringfd_signal()), clearers
 * (ar_ringfd_clear(), rearm or not), and perhaps a consumer, the event
 * loop: with the CQ empty it clears (rearm=false), then sleeps in poll
 * until the count is not 0, reaps everything, and so on until every post
 * was reaped. Checked:
 *
 *   every state     the count is at most 1; IDLE means the count is 0;
 *                   a clear's read() finds the count 1; the consumer
 *                   never sleeps with entries pending, the count 0, and
 *                   no thread left that could write;
 *   at the end      busy free, the state IDLE or SIGNALLED as the count
 *                   is 0 or 1, pending implies the count is 1; and after
 *                   one more clear the count is 1 exactly while entries
 *                   are pending.
 *
 * The same checker runs the protocol this header replaced (one flag) and
 * must find its lost wakeup, whose trace it prints: so a pass shows the
 * model can fail. -v prints the trace of every violation, -o runs only
 * the old protocol.
 */
#include <stdbool.h>
#include <stdint.h>
#include "test.h"

#define M_MAXT		6
#define M_DONE		0xff

enum { M_IDLE, M_ARMING, M_SIGNALLED };	/* the old protocol: 0 or 1 */
enum { M_POSTER, M_CLEARER, M_CONSUMER };

/* program counters */
enum {
	/* ar_ringfd_clear() */
	C_LOAD = 1,	/* ARMING: settle; else not SIGNALLED: return */
	C_SETTLE,	/* ar_ringfd_settle(): load state until not ARMING */
	C_PEND,		/* !rearm && pending(): return */
	C_BUSY,		/* exchange busy: taken, return */
	C_RECHK,	/* acquire load: state != SIGNALLED: unlock */
	C_READ,		/* read(): the count to 0 */
	C_IDLE,		/* state = IDLE */
	C_LOOK,		/* pending()? signal */
	C_SLOAD,	/* ar_ringfd_signal(): state != IDLE: no */
	C_SCAS,		/* CAS IDLE -> ARMING */
	C_SWRITE,	/* write() */
	C_SSTORE,	/* state = SIGNALLED */
	C_UNLOCK,	/* busy = false */
	/* the old clear */
	O_XCHG = 20,	/* exchange(flag, false): was down, return */
	O_READ,		/* read() */
	O_LOOK,		/* pending()? */
	O_XCHG2,	/* exchange(flag, true): was up, return */
	O_WRITE,	/* write() */
	/* a poster */
	P_TAIL = 30,	/* tail++ (and ar_wake_mb()) */
	P_LOAD,		/* state != IDLE (old: flag up): return */
	P_CAS,		/* CAS IDLE -> ARMING (old: exchange the flag up) */
	P_WRITE,	/* write() */
	P_STORE,	/* state = SIGNALLED (new only) */
	/* the consumer */
	K_TOP = 40,	/* all reaped: done; CQ empty: clear; poll */
	K_POLL,		/* sleeps until the count is not 0 */
	K_REAP,		/* head = tail */
};

struct m_state {
	uint8_t state, busy, count, head, tail;
	uint8_t pc[M_MAXT], iter[M_MAXT];
	uint8_t tries[M_MAXT];	/* a clear's loads of ARMING in settle */
};

/*
 * ar_ringfd_settle() gives up after AR_RINGFD_SETTLE_TRIES loads of
 * ARMING; here after 2, which lets a clear both wait and give up.
 */
#define M_SETTLE_TRIES	2

struct m_cfg {
	const char *name;
	unsigned posters, posts;	/* posts: each */
	unsigned clearers, clears;	/* clears: each */
	unsigned rearm;			/* how many of the clearers */
	bool consumer;
};

static bool m_old;		/* the old protocol */
static bool m_verbose;
static const struct m_cfg *m_cfg;
static unsigned m_nthreads, m_total;
static uint8_t m_kind[M_MAXT];
static bool m_rearm[M_MAXT];

/*
 * ---- the states seen: an array in the order found (the breadth-first
 * queue), each with the state it came from, and a hash table over it ----
 */

struct m_node {
	struct m_state s;
	uint32_t parent;	/* index of the state before */
	uint8_t by;		/* the thread whose step led here */
};

static struct m_node *m_nodes;
static size_t m_len, m_nodes_cap;
static uint32_t *m_table;	/* index + 1; 0 is empty */
static size_t m_cap;

static uint64_t m_hash(const struct m_state *s)
{
	const uint8_t *p = (const uint8_t *)s;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < sizeof(*s); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static void m_table_put(uint32_t idx)
{
	size_t i = m_hash(&m_nodes[idx].s) & (m_cap - 1);

	while (m_table[i])
		i = (i + 1) & (m_cap - 1);
	m_table[i] = idx + 1;
}

/* s as a new node reached from parent by thread by; false if seen */
static bool m_insert(const struct m_state *s, uint32_t parent, uint8_t by)
{
	size_t i;

	if ((m_len + 1) * 2 > m_cap) {
		free(m_table);
		m_cap = m_cap ? m_cap * 2 : 1 << 16;
		m_table = calloc(m_cap, sizeof(*m_table));
		CHECK(m_table);
		for (uint32_t j = 0; j < m_len; j++)
			m_table_put(j);
	}
	for (i = m_hash(s) & (m_cap - 1); m_table[i]; i = (i + 1) & (m_cap - 1))
		if (!memcmp(&m_nodes[m_table[i] - 1].s, s, sizeof(*s)))
			return false;
	if (m_len == m_nodes_cap) {
		m_nodes_cap = m_nodes_cap ? m_nodes_cap * 2 : 1 << 16;
		m_nodes = realloc(m_nodes, m_nodes_cap * sizeof(*m_nodes));
		CHECK(m_nodes);
	}
	m_nodes[m_len] = (struct m_node){ .s = *s, .parent = parent, .by = by };
	m_table[i] = ++m_len;
	return true;
}

static void m_reset(void)
{
	free(m_nodes);
	free(m_table);
	m_nodes = NULL;
	m_table = NULL;
	m_len = m_nodes_cap = m_cap = 0;
}

/* ---- the threads' steps ---- */

static bool m_pending(const struct m_state *s)
{
	return s->head != s->tail;
}

static uint8_t m_clear_start(void)
{
	return m_old ? O_XCHG : C_LOAD;
}

/* a clear returned */
static void m_clear_done(struct m_state *s, unsigned t)
{
	if (m_kind[t] == M_CONSUMER) {
		s->pc[t] = K_POLL;
		return;
	}
	s->pc[t] = ++s->iter[t] < m_cfg->clears ? m_clear_start() : M_DONE;
}

/* a signal returned */
static void m_poster_done(struct m_state *s, unsigned t)
{
	s->pc[t] = ++s->iter[t] < m_cfg->posts ? P_TAIL : M_DONE;
}

static bool m_others_done(const struct m_state *s, unsigned t)
{
	for (unsigned i = 0; i < m_nthreads; i++)
		if (i != t && s->pc[i] != M_DONE)
			return false;
	return true;
}

static const char *m_err;

/*
 * One step of thread t in s: false when it cannot step (done, or the
 * consumer asleep). Sets m_err on a violation found by the step itself.
 */
static bool m_step(struct m_state *s, unsigned t)
{
	uint8_t old;

	switch (s->pc[t]) {
	case M_DONE:
		return false;

	/* ar_ringfd_clear() */
	case C_LOAD:
		s->tries[t] = 0;
		if (s->state == M_ARMING)
			s->pc[t] = C_SETTLE;
		else if (s->state != M_SIGNALLED)
			m_clear_done(s, t);
		else
			s->pc[t] = C_PEND;
		break;
	case C_SETTLE:
		if (s->state == M_ARMING) {
			if (++s->tries[t] == M_SETTLE_TRIES) {
				s->tries[t] = 0;
				m_clear_done(s, t);	/* gave up: "left signalled" */
			}
		} else {
			s->tries[t] = 0;
			if (s->state != M_SIGNALLED)
				m_clear_done(s, t);
			else
				s->pc[t] = C_PEND;
		}
		break;
	case C_PEND:
		if (!m_rearm[t] && m_pending(s))
			m_clear_done(s, t);
		else
			s->pc[t] = C_BUSY;
		break;
	case C_BUSY:
		if (s->busy) {
			m_clear_done(s, t);
		} else {
			s->busy = 1;
			s->pc[t] = C_RECHK;
		}
		break;
	case C_RECHK:
		s->pc[t] = s->state != M_SIGNALLED ? C_UNLOCK : C_READ;
		break;
	case C_READ:
		if (s->count != 1)
			m_err = "a clear's read() found the count not 1";
		s->count = 0;
		s->pc[t] = C_IDLE;
		break;
	case C_IDLE:
		s->state = M_IDLE;
		s->pc[t] = C_LOOK;
		break;
	case C_LOOK:
		s->pc[t] = m_pending(s) ? C_SLOAD : C_UNLOCK;
		break;
	case C_SLOAD:
		s->pc[t] = s->state != M_IDLE ? C_UNLOCK : C_SCAS;
		break;
	case C_SCAS:
		if (s->state == M_IDLE) {
			s->state = M_ARMING;
			s->pc[t] = C_SWRITE;
		} else {
			s->pc[t] = C_UNLOCK;
		}
		break;
	case C_SWRITE:
		s->count++;
		s->pc[t] = C_SSTORE;
		break;
	case C_SSTORE:
		s->state = M_SIGNALLED;
		s->pc[t] = C_UNLOCK;
		break;
	case C_UNLOCK:
		s->busy = 0;
		m_clear_done(s, t);
		break;

	/* the old clear */
	case O_XCHG:
		old = s->state;
		s->state = 0;
		if (!old)
			m_clear_done(s, t);
		else
			s->pc[t] = O_READ;
		break;
	case O_READ:
		s->count = 0;
		s->pc[t] = O_LOOK;
		break;
	case O_LOOK:
		if (m_pending(s))
			s->pc[t] = O_XCHG2;
		else
			m_clear_done(s, t);
		break;
	case O_XCHG2:
		old = s->state;
		s->state = 1;
		if (old)
			m_clear_done(s, t);
		else
			s->pc[t] = O_WRITE;
		break;
	case O_WRITE:
		s->count++;
		m_clear_done(s, t);
		break;

	/* a poster */
	case P_TAIL:
		s->tail++;
		s->pc[t] = P_LOAD;
		break;
	case P_LOAD:
		if (s->state != M_IDLE)
			m_poster_done(s, t);
		else
			s->pc[t] = P_CAS;
		break;
	case P_CAS:
		if (m_old) {
			old = s->state;
			s->state = 1;
			if (old)
				m_poster_done(s, t);
			else
				s->pc[t] = P_WRITE;
		} else if (s->state == M_IDLE) {
			s->state = M_ARMING;
			s->pc[t] = P_WRITE;
		} else {
			m_poster_done(s, t);
		}
		break;
	case P_WRITE:
		s->count++;
		if (m_old)
			m_poster_done(s, t);
		else
			s->pc[t] = P_STORE;
		break;
	case P_STORE:
		s->state = M_SIGNALLED;
		m_poster_done(s, t);
		break;

	/* the consumer */
	case K_TOP:
		if (s->head == m_total)
			s->pc[t] = M_DONE;
		else if (!m_pending(s))
			s->pc[t] = m_clear_start();
		else
			s->pc[t] = K_POLL;
		break;
	case K_POLL:
		if (s->count) {
			s->pc[t] = K_REAP;
			break;
		}
		/* asleep until a write; once nobody is left to write, for ever */
		if (!m_others_done(s, t))
			return false;
		if (m_pending(s))
			m_err = "LOST WAKEUP: the consumer sleeps for ever with "
				"entries pending";
		s->pc[t] = K_TOP;
		break;
	case K_REAP:
		s->head = s->tail;
		s->pc[t] = K_TOP;
		break;
	default:
		fprintf(stderr, "ringfd-model: pc %u?\n", s->pc[t]);
		exit(1);
	}
	return true;
}

/* thread t may still write() the eventfd */
static bool m_may_write(const struct m_state *s, unsigned t)
{
	uint8_t pc = s->pc[t];

	if (pc == M_DONE || pc == K_POLL)
		return false;
	switch (m_kind[t]) {
	case M_POSTER:
		return pc != P_STORE || s->iter[t] + 1U < m_cfg->posts;
	case M_CLEARER:
		return pc <= C_SWRITE || (pc >= O_XCHG && pc <= O_WRITE) ||
		       s->iter[t] + 1U < m_cfg->clears;
	default:
		return true;
	}
}

/* the invariants of every state; NULL or what is broken */
static const char *m_check(const struct m_state *s)
{
	bool writer = false;
	unsigned k = M_MAXT;

	if (!m_old && s->count > 1)
		return "the count went past 1";
	if (!m_old && s->state == M_IDLE && s->count)
		return "IDLE with the count not 0";
	for (unsigned t = 0; t < m_nthreads; t++) {
		if (m_kind[t] == M_CONSUMER)
			k = t;
		else if (m_may_write(s, t))
			writer = true;
	}
	if (k < M_MAXT && s->pc[k] == K_POLL && m_pending(s) && !s->count &&
	    !writer)
		return "LOST WAKEUP: the consumer sleeps with entries pending, "
		       "the count 0, and no thread left that could write";
	return NULL;
}

/* every thread done: the checks of the end, then one more clear */
static const char *m_check_end(struct m_state *s)
{
	if (m_pending(s) && !s->count)
		return "LOST WAKEUP: entries pending, the count 0, nothing runs";
	if (s->state == (m_old ? 1 : M_SIGNALLED) && !s->count)
		return "LOST WAKEUP (latent): signalled with the count 0, so no "
		       "post will write";
	if (!m_old) {
		if (s->busy)
			return "busy left taken";
		if (s->state == M_ARMING)
			return "ARMING with nothing running";
		if (s->count != (s->state == M_SIGNALLED))
			return "the count is not what the state says";
	}
	/* one more clear, rearm=false, by thread 0 turned clearer */
	m_kind[0] = M_CLEARER;
	m_rearm[0] = false;
	s->pc[0] = m_clear_start();
	s->iter[0] = m_cfg->clears;
	while (s->pc[0] != M_DONE && m_step(s, 0))
		;
	m_kind[0] = m_cfg->consumer ? M_CONSUMER : M_POSTER;
	if (m_err)
		return m_err;
	if (!!s->count != m_pending(s))
		return m_pending(s) ?
		       "after a clear: entries pending and the fd not readable" :
		       "after a clear: nothing pending and the fd readable";
	return NULL;
}

static const char *m_pc_name(uint8_t pc)
{
	static const struct { uint8_t pc; const char *name; } n[] = {
		{ C_LOAD, "clear: load state" },
		{ C_SETTLE, "clear: settle (ARMING?)" },
		{ C_PEND, "clear: pending?" },
		{ C_BUSY, "clear: take busy" }, { C_RECHK, "clear: recheck state" },
		{ C_READ, "clear: read()" }, { C_IDLE, "clear: state = IDLE" },
		{ C_LOOK, "clear: look (pending?)" },
		{ C_SLOAD, "clear->signal: load state" },
		{ C_SCAS, "clear->signal: CAS IDLE->ARMING" },
		{ C_SWRITE, "clear->signal: write()" },
		{ C_SSTORE, "clear->signal: state = SIGNALLED" },
		{ C_UNLOCK, "clear: drop busy" },
		{ O_XCHG, "old clear: flag down (exchange)" },
		{ O_READ, "old clear: read()" }, { O_LOOK, "old clear: look" },
		{ O_XCHG2, "old clear: flag up (exchange)" },
		{ O_WRITE, "old clear: write()" },
		{ P_TAIL, "post: tail++" }, { P_LOAD, "signal: load state" },
		{ P_CAS, "signal: CAS / exchange" }, { P_WRITE, "signal: write()" },
		{ P_STORE, "signal: state = SIGNALLED" },
		{ K_TOP, "consumer: CQ empty?" }, { K_POLL, "consumer: poll" },
		{ K_REAP, "consumer: reap" },
	};

	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		if (n[i].pc == pc)
			return n[i].name;
	return "?";
}

static const char *const m_kind_name[] = { "poster", "clearer", "consumer" };

static void m_trace_line(unsigned i, const struct m_state *b,
			 const struct m_state *a, unsigned t)
{
	printf("      %2u. t%u %-8s %-34s -> state %u busy %u count %u "
	       "head %u tail %u\n", i, t, m_kind_name[m_kind[t]],
	       m_pc_name(b->pc[t]), a->state, a->busy, a->count, a->head,
	       a->tail);
}

/* the steps from the start to node idx, then thread t's step to last */
static void m_trace(uint32_t idx, unsigned t, const struct m_state *last)
{
	uint32_t path[4096];
	unsigned n = 0, i;

	for (uint32_t j = idx; j; j = m_nodes[j].parent) {
		CHECK(n < sizeof(path) / sizeof(path[0]));
		path[n++] = j;
	}
	for (i = 0; i < n; i++) {
		uint32_t j = path[n - 1 - i];

		m_trace_line(i + 1, &m_nodes[m_nodes[j].parent].s,
			     &m_nodes[j].s, m_nodes[j].by);
	}
	if (last)
		m_trace_line(i + 1, &m_nodes[idx].s, last, t);
}

/* the violations of a run: lost wakeups, and the rest */
struct m_result {
	unsigned long states;
	unsigned lost, other;
};

static void m_found(struct m_result *res, const char *err, uint32_t idx,
		    unsigned t, const struct m_state *last)
{
	bool lost = !strncmp(err, "LOST", 4);
	unsigned *n = lost ? &res->lost : &res->other;

	/* breadth first: the first of a kind has the shortest trace */
	if (!(*n)++ || m_verbose) {
		printf("    %s, after:\n", err);
		m_trace(idx, t, last);
	}
}

/* every interleaving of cfg, breadth first */
static void m_run(const struct m_cfg *cfg, bool old, struct m_result *res)
{
	struct m_state init;
	unsigned t;

	memset(res, 0, sizeof(*res));
	m_old = old;
	m_cfg = cfg;
	m_nthreads = 0;
	m_total = cfg->posters * cfg->posts;
	if (cfg->consumer) {
		m_kind[m_nthreads] = M_CONSUMER;
		m_rearm[m_nthreads++] = false;
	}
	for (unsigned i = 0; i < cfg->posters; i++) {
		m_kind[m_nthreads] = M_POSTER;
		m_rearm[m_nthreads++] = false;
	}
	for (unsigned i = 0; i < cfg->clearers; i++) {
		m_kind[m_nthreads] = M_CLEARER;
		m_rearm[m_nthreads++] = i < cfg->rearm;
	}
	CHECK(m_nthreads <= M_MAXT);

	memset(&init, 0, sizeof(init));
	for (t = 0; t < M_MAXT; t++)
		init.pc[t] = M_DONE;
	for (t = 0; t < m_nthreads; t++)
		init.pc[t] = m_kind[t] == M_POSTER ? P_TAIL :
			     m_kind[t] == M_CONSUMER ? K_TOP : m_clear_start();
	m_insert(&init, 0, 0);

	for (uint32_t i = 0; i < m_len; i++) {
		bool any = false, end = true;
		const char *err;
		struct m_state n;

		for (t = 0; t < m_nthreads; t++) {
			n = m_nodes[i].s;
			m_err = NULL;
			if (!m_step(&n, t))
				continue;
			any = true;
			err = m_err ? m_err : m_check(&n);
			if (err)
				m_found(res, err, i, t, &n);
			else
				m_insert(&n, i, t);
		}
		if (any)
			continue;
		for (t = 0; t < m_nthreads; t++)
			if (m_nodes[i].s.pc[t] != M_DONE)
				end = false;
		n = m_nodes[i].s;
		m_err = NULL;
		err = end ? m_check_end(&n) : "deadlock: no thread can step";
		if (err)
			m_found(res, err, i, 0, NULL);
	}
	res->states = m_len;
	m_reset();
}

static const struct m_cfg m_cfgs[] = {
	{ "2 posters x 1, 2 clearers", 2, 1, 2, 1, 0, false },
	{ "2 posters x 1, 1 clearer + 1 rearm", 2, 1, 2, 1, 1, false },
	{ "2 posters x 2, 2 clearers x 2", 2, 2, 2, 2, 0, false },
	{ "2 posters x 1, consumer, 2 clearers", 2, 1, 2, 1, 0, true },
	{ "2 posters x 1, consumer, 1 clearer + 1 rearm", 2, 1, 2, 1, 1, true },
	{ "2 posters x 2, consumer, 1 clearer x 2", 2, 2, 1, 2, 0, true },
	{ "3 posters x 1, consumer, 2 clearers", 3, 1, 2, 1, 0, true },
	{ "2 posters x 2, consumer, 2 clearers x 2 (1 rearm)", 2, 2, 2, 2, 1, true },
};

int main(int argc, char **argv)
{
	bool only_old = false;
	unsigned bad = 0, old_lost = 0;
	struct m_result res;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			m_verbose = true;
		else if (!strcmp(argv[i], "-o"))
			only_old = true;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!only_old) {
		printf("ringfd-model: lib/ringfd.h, every interleaving: no lost "
		       "wakeup, the count and the state agree\n");
		for (size_t i = 0; i < sizeof(m_cfgs) / sizeof(m_cfgs[0]); i++) {
			m_run(&m_cfgs[i], false, &res);
			printf("  %-50s %8lu states: %s\n", m_cfgs[i].name,
			       res.states, res.lost || res.other ? "FAILED" : "ok");
			bad += res.lost || res.other;
		}
	}
	printf("ringfd-model: the old protocol (one flag) must lose a "
	       "wakeup; the shortest traces:\n");
	for (size_t i = 0; i < sizeof(m_cfgs) / sizeof(m_cfgs[0]); i++) {
		printf("  %s:\n", m_cfgs[i].name);
		m_run(&m_cfgs[i], true, &res);
		printf("  %-50s %8lu states: %u lost wakeups, %u other "
		       "violations\n", "", res.states, res.lost, res.other);
		old_lost += res.lost != 0;
	}
	if (bad) {
		printf("FAILED: lib/ringfd.h breaks the protocol's checks\n");
		return 1;
	}
	if (!old_lost) {
		printf("FAILED: the model finds no lost wakeup in the old "
		       "protocol: it checks nothing\n");
		return 1;
	}
	printf("passed\n");
	return 0;
}
