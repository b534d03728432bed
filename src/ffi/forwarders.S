/*
 * liburing-ffi.so.2's forwarders: for each function of liburing's ffi map
 * that is not a helper of the header but that the drop-in liburing.so.2
 * exports (libanyring's), NAME under the ffi map's version (e.g.
 * io_uring_queue_init@@LIBURING_2.4) is a tail jump to NAME under
 * liburing.so.2's version (io_uring_queue_init@LIBURING_2.0). The jump
 * passes every register and the stack through untouched, so no stub knows
 * its function's signature. The list is generated at build time
 * (src/ffi/gen-forwarders.sh writes forwarders.inc: FWD(name, version)).
 *
 * The stub is NAME itself, which the map puts in its node (ffi_node is
 * only the generated list's record of it); its reference ffi_ref_NAME is
 * renamed NAME@VERSION by .symver, which only liburing.so.2 defines.
 * Not ".symver NAME@@ffi_node" for the stub: GNU ld 2.40 then binds the
 * object's NAME@VERSION reference to that definition (a forwarder that
 * jumps to itself), or fails when the object references no other
 * version of liburing.so.2's. tests/ffi.sh checks the relocations.
 */
#if defined(__x86_64__)
#define FWD_JUMP(ref)	jmp ref@PLT
#elif defined(__aarch64__)
#define FWD_JUMP(ref)	b ref
#else
#error "liburing-ffi.so.2's forwarders: no tail jump for this architecture"
#endif

/*
 * Built with -fcf-protection (x86_64) or -mbranch-protection (aarch64), as
 * dpkg-buildflags may ask: a landing pad first, and the GNU property note
 * that says so, without which the link drops the marking for the whole
 * library. <cet.h> (the compiler's) does both on x86_64; aarch64's note,
 * GNU_PROPERTY_AARCH64_FEATURE_1_AND with BTI (1) and PAC (2) (a tail
 * jump has no return address to sign), is written below.
 */
#if defined(__x86_64__) && defined(__CET__)
#include <cet.h>
#define FWD_ENTRY	_CET_ENDBR
#elif defined(__aarch64__) && defined(__ARM_FEATURE_BTI_DEFAULT)
#define FWD_ENTRY	bti c
#else
#define FWD_ENTRY
#endif

#define FWD(name, ffi_node, version)				\
	.globl	name;						\
	.type	name, %function;				\
	.p2align 4;						\
name:								\
	FWD_ENTRY;						\
	FWD_JUMP(ffi_ref_##name);				\
	.size	name, .-name;					\
	.symver	ffi_ref_##name, name@version;

	.text
#include "forwarders.inc"

	.section .note.GNU-stack,"",%progbits

#if defined(__aarch64__) && \
	(defined(__ARM_FEATURE_BTI_DEFAULT) || defined(__ARM_FEATURE_PAC_DEFAULT))
#ifdef __ARM_FEATURE_BTI_DEFAULT
#define FWD_BTI		1
#else
#define FWD_BTI		0
#endif
#ifdef __ARM_FEATURE_PAC_DEFAULT
#define FWD_PAC		2
#else
#define FWD_PAC		0
#endif
	.pushsection .note.gnu.property, "a"
	.p2align 3
	.word	4			/* name size: "GNU" */
	.word	16			/* descriptor size */
	.word	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.word	0xc0000000		/* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
	.word	4
	.word	FWD_BTI | FWD_PAC
	.word	0
	.popsection
#endif
