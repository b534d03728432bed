/* SPDX-License-Identifier: MIT */
/*
 * patch.c - the trap's inline route: a call site that trapped once is
 * rewritten so that its later calls reach the engine as a function call,
 * without the signal.
 *
 * A site is `syscall` preceded by `mov $nr, %eax` (b8 imm32) and, between
 * the two, only register and memory moves this file can decode (none
 * writes rax, none is rip-relative or a branch). Only the 5-byte mov is
 * replaced, by a `jmp` to a stub of our own near the site:
 *
 *	stub:	mov $nr, %eax
 *		<the instructions between, copied>
 *		lea -128(%rsp), %rsp		the red zone stays the program's
 *		call *entry(%rip)		ar_trap_inline_entry
 *		lea 128(%rsp), %rsp
 *		movabs $site+2, %rcx		rcx and r11 as syscall leaves them
 *		jmp site+2
 *
 * The syscall instruction itself is left as it was: code that jumps to
 * it, or to an instruction between, runs the original bytes and takes
 * the signal as before. The mov is replaced as the kernel's text_poke_bp
 * replaces an instruction, with a self-jump (`jmp .`) where it puts int3:
 * the first two bytes become `jmp .` (a thread that arrives spins), every
 * thread of the process serializes (membarrier SYNC_CORE), the last three
 * bytes are written, every thread serializes, the first two are written
 * and every thread serializes again. The text page is a private copy
 * (copy-on-write) while it is made writable for that; pages shared with
 * other processes are never written.
 *
 * docs/trap.md says what this route costs and what it risks.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include "engine/engine.h"
#include "lib/uaccess.h"
#include "trap/trap.h"

#if defined(__x86_64__)

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

#define AR_PAGE		4096UL
#define AR_LINE		64UL
/* how far before the syscall the mov may be */
#define AR_BACK		32
/* sites looked at, rewritten or not: each is looked at once */
#define AR_SITES_MAX	64

#define AR_VEC_AVX_N	1
#define AR_VEC_AVX512_N	2

/* the route is on: set once, at install, before any trap is served */
static bool ar_patch_on;
/* the sites looked at: written under ar_patch_busy, read without */
static unsigned long ar_sites[AR_SITES_MAX];
static unsigned ar_nr_sites;
static int ar_patch_busy;

/*
 * The vector registers the entry keeps: what code of ours can change
 * (the library's C code uses xmm0-15; glibc's AVX2 and EVEX string
 * functions, which it calls, use ymm0-15 and ymm16-31 and the opmasks).
 * State nothing of ours touches (x87, MXCSR, AMX tiles) is left as is.
 */
enum ar_vec {
	AR_VEC_SSE,		/* xmm0-15: 256 bytes */
	AR_VEC_AVX = AR_VEC_AVX_N,	/* ymm0-15: 512 bytes */
	AR_VEC_AVX512 = AR_VEC_AVX512_N, /* zmm0-31, k0-7: 2112 bytes */
};
__attribute__((visibility("hidden"))) unsigned char ar_vec_kind;

static void ar_cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
	__asm__ __volatile__("cpuid"
			     : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			     : "a"(leaf), "c"(sub));
}

/* which registers the entry must keep; false: none it can keep all of */
static bool ar_vec_init(void)
{
	unsigned r[4], lo, hi;
	uint64_t xcr0;

	ar_cpuid(0, 0, r);
	ar_vec_kind = AR_VEC_SSE;
	if (r[0] < 7)
		return true;
	ar_cpuid(1, 0, r);
	/* OSXSAVE: the kernel has turned XSAVE on, xgetbv may be used */
	if (!(r[2] & (1U << 27)))
		return true;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	xcr0 = (uint64_t)hi << 32 | lo;
	if (xcr0 & 0xe0) {
		ar_cpuid(7, 0, r);
		/* opmasks as 64 bits (kmovq): AVX512BW; without, keep out */
		if ((xcr0 & 0xe0) != 0xe0 || !(r[1] & (1U << 30)))
			return false;
		ar_vec_kind = AR_VEC_AVX512;
	} else if (xcr0 & 4) {
		ar_vec_kind = AR_VEC_AVX;
	}
	return true;
}

/*
 * Called by ar_trap_inline_entry with the system call's number and
 * arguments; the entry has saved every register the system call keeps
 * and code of ours may change. The answer is the system call's: -errno
 * in rax; errno is the program's.
 */
__attribute__((visibility("hidden"), used))
long ar_trap_inline(long nr, long a1, long a2, long a3, long a4, long a5,
		    long a6)
{
	struct ar_trap_args args = {
		.nr = nr, .a = { a1, a2, a3, a4, a5, a6 },
		.way = AR_ROUTE_SITE,
	};
	int saved = errno;
	long ret;

	ret = ar_trap_serve_on_stack(ar_trap_serve, &args);
	errno = saved;
	return ret;
}

#define AR_V16(op, fmt)							\
	op(0, fmt) op(1, fmt) op(2, fmt) op(3, fmt) op(4, fmt) op(5, fmt)	\
	op(6, fmt) op(7, fmt) op(8, fmt) op(9, fmt) op(10, fmt) op(11, fmt)	\
	op(12, fmt) op(13, fmt) op(14, fmt) op(15, fmt)
#define AR_V16HI(op, fmt)						\
	op(16, fmt) op(17, fmt) op(18, fmt) op(19, fmt) op(20, fmt)	\
	op(21, fmt) op(22, fmt) op(23, fmt) op(24, fmt) op(25, fmt)	\
	op(26, fmt) op(27, fmt) op(28, fmt) op(29, fmt) op(30, fmt)	\
	op(31, fmt)
#define AR_K8(op)	op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7)
#define AR_SX(i, f)	"	movups %xmm" #i ", " #i "*16(%rsp)\n"
#define AR_LX(i, f)	"	movups " #i "*16(%rsp), %xmm" #i "\n"
#define AR_SY(i, f)	"	vmovdqu %ymm" #i ", " #i "*32(%rsp)\n"
#define AR_LY(i, f)	"	vmovdqu " #i "*32(%rsp), %ymm" #i "\n"
#define AR_SZ(i, f)	"	vmovdqu64 %zmm" #i ", " #i "*64(%rsp)\n"
#define AR_LZ(i, f)	"	vmovdqu64 " #i "*64(%rsp), %zmm" #i "\n"
#define AR_SK(i)	"	kmovq %k" #i ", 2048+" #i "*8(%rsp)\n"
#define AR_LK(i)	"	kmovq 2048+" #i "*8(%rsp), %k" #i "\n"

/*
 * The stubs call here, with nr in eax and the arguments where the system
 * call has them (rdi, rsi, rdx, r10, r8, r9), the stack below the
 * program's red zone, at any alignment. rax gets the answer, rcx and r11
 * are changed (as syscall changes them); every other general register,
 * rflags and the vector registers of ar_vec_kind are kept.
 *
 * Only rflags and rbp go on the program's stack: the rest goes on the
 * thread's trap stack, as a signal frame goes on an alternate stack, once
 * the thread has one (its first trapped call makes it) and unless this
 * call interrupted one being served there (ar_trap_depth).
 */
void ar_trap_inline_entry(void);
__asm__(".text\n"
	".hidden ar_trap_inline_entry\n"
	".globl ar_trap_inline_entry\n"
	".type ar_trap_inline_entry, @function\n"
	"ar_trap_inline_entry:\n"
	"	pushfq\n"
	"	cld\n"			/* C code runs with DF clear */
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"	/* rflags at 8(%rbp) */
	"	movq ar_trap_depth@gottpoff(%rip), %rcx\n"
	"	cmpl $0, %fs:(%rcx)\n"
	"	jne 1f\n"
	"	movq ar_trap_stack@gottpoff(%rip), %r11\n"
	"	movq %fs:(%r11), %r11\n"
	"	testq %r11, %r11\n"
	"	jz 1f\n"
	"	leaq " AR_STR(AR_TRAP_STACK) "(%r11), %rsp\n"
	"	incl %fs:(%rcx)\n"
	"	pushq $1\n"		/* on the trap stack: depth to drop */
	"	jmp 2f\n"
	"1:	pushq $0\n"
	"2:	pushq %r12\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	pushq %rdx\n"
	"	pushq %r10\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	movq %rsp, %r12\n"
	"	andq $-64, %rsp\n"
	"	movzbl ar_vec_kind(%rip), %r11d\n"
	"	cmpl $" AR_STR(AR_VEC_AVX512_N) ", %r11d\n"
	"	je 4f\n"
	"	cmpl $" AR_STR(AR_VEC_AVX_N) ", %r11d\n"
	"	je 3f\n"
	"	subq $256, %rsp\n"
	AR_V16(AR_SX, 0)
	"	jmp 5f\n"
	"3:	subq $512, %rsp\n"
	AR_V16(AR_SY, 0)
	"	jmp 5f\n"
	"4:	subq $2112, %rsp\n"
	AR_V16(AR_SZ, 0)
	AR_V16HI(AR_SZ, 0)
	AR_K8(AR_SK)
	/* ar_trap_inline(nr, a1, a2, a3, a4, a5, a6): a6 on the stack */
	"5:	movq %r9, %r11\n"
	"	movq %r8, %r9\n"
	"	movq %r10, %r8\n"
	"	movq %rdx, %rcx\n"
	"	movq %rsi, %rdx\n"
	"	movq %rdi, %rsi\n"
	"	movl %eax, %edi\n"
	"	subq $8, %rsp\n"
	"	pushq %r11\n"
	"	call ar_trap_inline\n"
	"	addq $16, %rsp\n"
	"	movzbl ar_vec_kind(%rip), %r11d\n"
	"	cmpl $" AR_STR(AR_VEC_AVX512_N) ", %r11d\n"
	"	je 7f\n"
	"	cmpl $" AR_STR(AR_VEC_AVX_N) ", %r11d\n"
	"	je 6f\n"
	AR_V16(AR_LX, 0)
	"	jmp 8f\n"
	"6:\n"
	AR_V16(AR_LY, 0)
	"	jmp 8f\n"
	"7:\n"
	AR_V16(AR_LZ, 0)
	AR_V16HI(AR_LZ, 0)
	AR_K8(AR_LK)
	"8:	movq %r12, %rsp\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %r10\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	popq %r12\n"
	"	popq %r11\n"
	"	testq %r11, %r11\n"
	"	jz 9f\n"
	"	movq ar_trap_depth@gottpoff(%rip), %rcx\n"
	"	decl %fs:(%rcx)\n"
	/*
	 * rflags back without popfq, which costs more than the rest of
	 * this entry: DF, OF (from al), then SF, ZF, AF, PF and CF (sahf).
	 * r11 keeps them, as syscall leaves it.
	 */
	"9:	movq %rax, %rcx\n"
	"	movq 8(%rbp), %r11\n"
	"	testl $0x400, %r11d\n"
	"	jz 10f\n"
	"	std\n"
	"10:	movl %r11d, %eax\n"
	"	shrl $11, %eax\n"
	"	andl $1, %eax\n"
	"	addb $0x7f, %al\n"
	"	movl %r11d, %eax\n"
	"	movb %al, %ah\n"
	"	sahf\n"
	"	movq %rcx, %rax\n"
	"	movq %rbp, %rsp\n"
	"	popq %rbp\n"
	"	leaq 8(%rsp), %rsp\n"	/* the saved rflags */
	"	ret\n"
	".size ar_trap_inline_entry, .-ar_trap_inline_entry\n");

/* ---- decoding what lies between the mov and the syscall ---- */

/* the length of a ModRM operand (ModRM, SIB, displacement); 0: refused */
static unsigned ar_modrm_len(const unsigned char *p, unsigned avail)
{
	unsigned mod, rm, len = 1;

	if (avail < 1)
		return 0;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {			/* SIB */
		if (avail < 2)
			return 0;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;	/* no base: disp32 */
	} else if (mod == 0 && rm == 5) {
		return 0;		/* rip-relative: not where it was */
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len <= avail ? len : 0;
}

/* the memory operand at ModRM p is [rax + disp]: no index, base rax */
static bool ar_mem_rax(const unsigned char *p, unsigned rex)
{
	if (rex & 1)
		return false;		/* r8-based */
	if ((p[0] & 7) == 0)
		return true;
	/* SIB: base rax (not the no-base form), index none (100, no REX.X) */
	return (p[0] & 7) == 4 && (p[1] & 7) == 0 &&
	       ((p[1] >> 3) & 7) == 4 && !(rex & 2);
}

/*
 * The length of one instruction at p that may be copied into a stub: a
 * move, a lea or an ALU operation between registers and memory, or a
 * move of an immediate, none writing rax or rip-relative. 0: anything
 * else.
 */
static unsigned ar_insn_len_any(const unsigned char *p, unsigned avail,
				bool copiable)
{
	unsigned rex = 0, n = 0, op, ml, reg, rm;
	bool to_rm, rm_only;

	if (avail && (p[0] & 0xf0) == 0x40)
		rex = p[n++];
	if (n >= avail)
		return 0;
	op = p[n++];
	if (op >= 0xb8 && op <= 0xbf) {	/* mov $imm, r */
		if (copiable && (op & 7) == 0 && !(rex & 1))
			return 0;
		n += (rex & 8) ? 8 : 4;
		return n <= avail ? n : 0;
	}
	switch (op) {
	case 0x01: case 0x09: case 0x21: case 0x29: case 0x31: case 0x89:
		to_rm = true;		/* op r/m, r: r/m written */
		break;
	case 0x03: case 0x0b: case 0x23: case 0x2b: case 0x33: case 0x8b:
	case 0x63: case 0x8d:
		to_rm = false;		/* op r, r/m: r written */
		break;
	case 0xc7:			/* mov $imm32, r/m */
		to_rm = true;
		break;
	default:
		return 0;
	}
	if (n >= avail)
		return 0;
	ml = ar_modrm_len(p + n, avail - n);
	if (!ml)
		return 0;
	reg = ((p[n] >> 3) & 7) | ((rex & 4) ? 8 : 0);
	rm = (p[n] & 7) | ((rex & 1) ? 8 : 0);
	rm_only = (p[n] >> 6) == 3;
	if (op == 0xc7 && ((p[n] >> 3) & 7) != 0)
		return 0;
	if (op == 0x8d && rm_only)
		return 0;
	if (copiable && (to_rm ? (rm_only && rm == 0) : reg == 0))
		return 0;		/* rax would change */
	/*
	 * Not copiable, the question is whether this could be what runs
	 * before the syscall: not if it touches [rax + disp] (rax is nr
	 * there, a low address no program maps)
	 */
	if (!copiable && !rm_only && op != 0x8d && ar_mem_rax(p + n, rex))
		return 0;
	n += ml;
	if (op == 0xc7)
		n += 4;
	return n <= avail ? n : 0;
}

static unsigned ar_insn_len(const unsigned char *p, unsigned avail)
{
	return ar_insn_len_any(p, avail, true);
}

/*
 * A byte before `b8` that could make it the middle of a longer
 * instruction that runs in a working program: a prefix (then it is a
 * move to another register, or a 16-bit one), or an opcode whose ModRM
 * `b8` would be, addressing [rax + nr] without touching it (lea, a nop,
 * a prefetch). Another opcode there would read or write [rax + nr], a
 * low address no program maps. Such a site is left to the signal.
 */
static bool ar_byte_before_ok(unsigned char b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
	case 0x8d: case 0x0d: case 0x18: case 0x1f:
		return false;
	}
	return (b & 0xf0) != 0x40;	/* REX */
}

/*
 * `b8` at code[pos] may be the displacement or SIB byte of an instruction
 * the decoder knows that starts up to 15 bytes before it (`movq $nr,
 * -0x48(%rsp)` is 48 c7 44 24 b8 and nr): such a b8 is no mov. Readings
 * that would touch [rax + disp] do not count (`09 b8 ...`, a jne's
 * displacement 9 then the mov, is not `or %edi, nr(%rax)`).
 */
static bool ar_inside_insn(const unsigned char *code, int pos, int end)
{
	for (int k = 1; k <= 15 && k <= pos; k++)
		if (ar_insn_len_any(code + pos - k, (unsigned)(end - pos + k),
				    false) > (unsigned)k)
			return true;
	return false;
}

/*
 * Where the mov of a site is: the offset in code[] of `b8 nr` from which
 * copiable instructions lead exactly to the syscall at code[end], or -1.
 * The nearest one wins. code[0] is only looked at as the byte before.
 */
static int ar_site_mov(const unsigned char *code, int end, long nr)
{
	unsigned char want[5] = { 0xb8, (unsigned char)nr,
				  (unsigned char)(nr >> 8), 0, 0 };
	int pos, at;
	unsigned len;

	for (pos = end - 5; pos >= 1; pos--) {
		if (memcmp(code + pos, want, 5) || !ar_byte_before_ok(code[pos - 1]) ||
		    ar_inside_insn(code, pos, end))
			continue;
		for (at = pos + 5; at < end; at += (int)len) {
			len = ar_insn_len(code + at, (unsigned)(end - at));
			if (!len)
				break;
		}
		if (at == end)
			return pos;
	}
	return -1;
}

/* ---- the mapping of a site ---- */

/*
 * The protection of the mapping that holds addr, from /proc/self/maps:
 * 0 (and *prot) for a private mapping, -1 for a shared one or none.
 */
static int ar_map_prot(unsigned long addr, int *prot)
{
	char buf[4096], *line, *nl;
	unsigned long lo, hi;
	char perms[5];
	size_t have = 0;
	off_t off = 0;
	ssize_t n;
	int fd, ret = -1;

	fd = ar_proc_maps_fd();
	if (fd < 0)
		return -1;
	for (;;) {
		n = pread(fd, buf + have, sizeof(buf) - 1 - have, off);
		if (n <= 0)
			break;
		off += n;
		have += (size_t)n;
		buf[have] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
			    addr >= lo && addr < hi) {
				*prot = (perms[0] == 'r' ? PROT_READ : 0) |
					(perms[1] == 'w' ? PROT_WRITE : 0) |
					(perms[2] == 'x' ? PROT_EXEC : 0);
				ret = perms[3] == 'p' ? 0 : -1;
				goto out;
			}
			line = nl + 1;
		}
		have = strlen(line);
		memmove(buf, line, have);
	}
out:
	return ret;
}

/*
 * A page for a stub, within 1 GiB of `near` (a rel32 reaches 2): below it
 * first, where a program's image has nothing; above it, not in the first
 * GiB past the heap's break, where brk() would grow into it.
 */
static unsigned char *ar_stub_page(unsigned long near)
{
	const unsigned long step = 2UL << 20, reach = 1UL << 30;
	unsigned long base = near & ~(step - 1), hint, d;
	unsigned long brk0 = (unsigned long)sbrk(0);
	void *p;
	int k;

	for (k = 1; k <= 2 * (int)(reach / step); k++) {
		d = step * (unsigned long)((k + 1) / 2);
		hint = k & 1 ? base - d : base + d;
		if (hint < 0x10000 || hint > (1UL << 47) - AR_PAGE ||
		    (hint >= brk0 && hint - brk0 < reach))
			continue;
		p = mmap((void *)hint, AR_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0);
		if (p == (void *)hint)
			return p;
		if (p != MAP_FAILED)
			munmap(p, AR_PAGE);	/* an old kernel's hint */
	}
	return NULL;
}

static void ar_put32(unsigned char *p, long v)
{
	int32_t x = (int32_t)v;

	memcpy(p, &x, 4);
}

/* the stub of a site: mov at `mov`, the syscall at `sys` */
static unsigned char *ar_stub_make(unsigned long mov, unsigned long sys,
				   const unsigned char *mid, unsigned midlen,
				   long nr)
{
	unsigned char *s = ar_stub_page(mov), *p;
	void *entry = (void *)ar_trap_inline_entry;

	if (!s)
		return NULL;
	p = s;
	*p++ = 0xb8;				/* mov $nr, %eax */
	ar_put32(p, nr);
	p += 4;
	memcpy(p, mid, midlen);			/* what lay between */
	p += midlen;
	memcpy(p, "\x48\x8d\x64\x24\x80", 5);	/* lea -128(%rsp), %rsp */
	p += 5;
	*p++ = 0xff;				/* call *entry(%rip) */
	*p++ = 0x15;
	ar_put32(p, (long)(AR_PAGE - 8) - (long)(p + 4 - s));
	p += 4;
	memcpy(p, "\x48\x8d\xa4\x24\x80\x00\x00\x00", 8); /* lea 128(%rsp), %rsp */
	p += 8;
	*p++ = 0x48;				/* movabs $sys+2, %rcx */
	*p++ = 0xb9;
	memcpy(p, &(unsigned long){ sys + 2 }, 8);
	p += 8;
	*p++ = 0xe9;				/* jmp sys+2 */
	ar_put32(p, (long)(sys + 2) - (long)(unsigned long)(p + 4));
	p += 4;
	memset(p, 0xcc, (size_t)(s + AR_PAGE - 8 - p));
	memcpy(s + AR_PAGE - 8, &entry, 8);
	if (mprotect(s, AR_PAGE, PROT_READ | PROT_EXEC)) {
		munmap(s, AR_PAGE);
		return NULL;
	}
	return s;
}

/* every thread of the process executes a serializing instruction */
static void ar_sync_core(void)
{
	syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

/* two bytes in one locked store: an instruction fetch sees all or none */
static void ar_text_put2(unsigned char *dst, const unsigned char *src)
{
	uint16_t v;

	memcpy(&v, src, 2);
	__asm__ __volatile__("xchgw %w0, (%1)" : "+r"(v) : "r"(dst) : "memory");
}

/*
 * Replace the 5-byte mov at `mov` with a jmp to `stub`, as text_poke_bp
 * does (the header comment). The page is writable only meanwhile.
 */
static int ar_site_poke(unsigned char *mov, const unsigned char *stub, int prot)
{
	unsigned char *page = (unsigned char *)((unsigned long)mov & ~(AR_PAGE - 1));
	const unsigned char spin[2] = { 0xeb, 0xfe };	/* jmp . */
	unsigned char jmp[5];

	/* a forked child's process is not registered yet: each time */
	if (syscall(SYS_membarrier,
		    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		return -1;
	if (mprotect(page, AR_PAGE, prot | PROT_WRITE))
		return -1;
	jmp[0] = 0xe9;
	ar_put32(jmp + 1, (long)(unsigned long)stub -
			  (long)(unsigned long)(mov + 5));
	ar_text_put2(mov, spin);
	ar_sync_core();
	/* no thread executes these three: it spins before them */
	memcpy(mov + 2, jmp + 2, 3);
	ar_sync_core();
	ar_text_put2(mov, jmp);
	ar_sync_core();
	mprotect(page, AR_PAGE, prot);
	return 0;
}

/* the site was looked at already: without the lock, as every trap asks */
static bool ar_site_seen(unsigned long sys)
{
	/* acquire pairs with the release in ar_site_new(): entries below n are set */
	unsigned i, n = __atomic_load_n(&ar_nr_sites, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (ar_sites[i] == sys)
			return true;
	return n == AR_SITES_MAX;
}

/*
 * Before a call whose site will be rewritten is served: the process
 * registers for membarrier's SYNC_CORE now, while it may still be one
 * thread (a forked child's first io_uring_setup, before the ring's
 * threads exist). The kernel makes a registration cost an RCU grace
 * period (about 16 ms measured here) only when the process has more
 * than one thread; ar_site_poke() registers again, which costs nothing
 * once done.
 */
void ar_trap_patch_prepare(unsigned long ip)
{
	static pid_t registered;	/* the process that registered */
	pid_t pid;

	if (!__atomic_load_n(&ar_patch_on, __ATOMIC_RELAXED) ||
	    ar_site_seen(ip - 2))
		return;
	pid = (pid_t)ar_sys_site(SYS_getpid, 0, 0, 0, 0, 0, 0);
	/* relaxed: a stale read only registers once more */
	if (__atomic_load_n(&registered, __ATOMIC_RELAXED) == pid)
		return;
	if (!syscall(SYS_membarrier,
		     MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		__atomic_store_n(&registered, pid, __ATOMIC_RELAXED);
}

/* under ar_patch_busy: record the site; false if seen (or no room) */
static bool ar_site_new(unsigned long sys)
{
	if (ar_site_seen(sys))
		return false;
	ar_sites[ar_nr_sites] = sys;
	/* release pairs with the acquire in ar_site_seen() */
	__atomic_store_n(&ar_nr_sites, ar_nr_sites + 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * Rewrite the site whose syscall (of nr) ends at ip, after the trap has
 * served it, if it was not looked at before. Called from the SIGSYS
 * handler, on the trap's stack.
 */
void ar_trap_patch(unsigned long ip, long nr)
{
	unsigned long sys = ip - 2, from, mov;
	unsigned char code[AR_BACK + 2], *stub;
	uint64_t all = ~0ULL, old;
	int at, prot;
	const char *why = NULL;

	if (!__atomic_load_n(&ar_patch_on, __ATOMIC_RELAXED) ||
	    ar_site_seen(sys))
		return;
	/*
	 * Every signal blocked from here on (the kernel's call, not libc's,
	 * which the preload shim hooks): no handler of the program's may run
	 * on this thread into a spinning site, or fork (ar_patch_fork_prepare()
	 * would wait for this thread).
	 */
	ar_sys_site(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old,
		    sizeof(all), 0, 0);
	/* one at a time; a thread that finds it busy takes the signal again */
	if (__atomic_exchange_n(&ar_patch_busy, 1, __ATOMIC_ACQUIRE))
		goto unmask;
	if (!ar_site_new(sys))
		goto out;
	from = sys - AR_BACK;
	if ((from & ~(AR_PAGE - 1)) != (sys & ~(AR_PAGE - 1)))
		from = sys & ~(AR_PAGE - 1);
	if (ar_copy_from_user(code, (void *)from, ip - from) ||
	    code[sys - from] != 0x0f || code[sys - from + 1] != 0x05) {
		why = "its bytes cannot be read";
		goto out;
	}
	at = ar_site_mov(code, (int)(sys - from), nr);
	if (at < 0) {
		why = "no `mov $nr, %eax` found before it";
		goto out;
	}
	mov = from + (unsigned long)at;
	if ((mov & ~(AR_LINE - 1)) != ((mov + 1) & ~(AR_LINE - 1))) {
		why = "its mov crosses a cache line";
		goto out;
	}
	/* text: not a JIT's writable code, nor a mapping shared with others */
	if (ar_map_prot(mov, &prot) || !(prot & PROT_EXEC) ||
	    (prot & PROT_WRITE)) {
		why = "its mapping is shared, writable or not executable";
		goto out;
	}
	stub = ar_stub_make(mov, sys, code + at + 5,
			    (unsigned)(sys - mov - 5), nr);
	if (!stub) {
		why = "no stub page can be made near it";
		goto out;
	}
	if (ar_site_poke((unsigned char *)mov, stub, prot)) {
		munmap(stub, AR_PAGE);
		why = "its page cannot be made writable, or membarrier(2) is refused";
	}
	if (!why)
		ar_debug("trap: the %s site at %#lx rewritten: its calls skip "
			 "the signal", ar_trap_nr_name(nr), sys);
out:
	if (why)
		ar_debug("trap: the %s site at %#lx is left to the signal: %s",
			 ar_trap_nr_name(nr), sys, why);
	/* release pairs with the acquire above */
	__atomic_store_n(&ar_patch_busy, 0, __ATOMIC_RELEASE);
unmask:
	ar_sys_site(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0,
		    sizeof(old), 0, 0);
}

/*
 * fork() waits for a rewrite in progress: a child copied in the middle
 * would keep a `jmp .` at the site, and no thread to finish it. A clone
 * made with the raw system call does not wait (docs/trap.md).
 */
static void ar_patch_fork_prepare(void)
{
	/* acquire pairs with the release at the end of ar_trap_patch() */
	while (__atomic_exchange_n(&ar_patch_busy, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void ar_patch_fork_done(void)
{
	/* release: the child and the parent see the site whole */
	__atomic_store_n(&ar_patch_busy, 0, __ATOMIC_RELEASE);
}

/* turn the route on, if this process can serialize its threads' cores */
bool ar_trap_patch_init(void)
{
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE))
		return false;
	if (!ar_vec_init() ||
	    pthread_atfork(ar_patch_fork_prepare, ar_patch_fork_done,
			   ar_patch_fork_done))
		return false;
	__atomic_store_n(&ar_patch_on, true, __ATOMIC_RELAXED);
	return true;
}

#else

void ar_trap_patch(unsigned long ip, long nr)
{
	(void)ip; (void)nr;
}

void ar_trap_patch_prepare(unsigned long ip)
{
	(void)ip;
}

bool ar_trap_patch_init(void)
{
	return false;
}

#endif
