/* SPDX-License-Identifier: MIT */
/*
 * anyring-run - run a program with libanyring preloaded in place of
 * liburing, optionally with io_uring denied.
 *
 *   anyring-run [--engine=auto|kernel|user] [--deny-io-uring] [--debug]
 *               [--lib=PATH] [--] CMD [ARGS...]
 *
 * libanyring exports liburing's versioned symbols, so preloading it serves
 * a program linked against liburing.so.2 with anyring's engines. The
 * library is the one this tool runs with (beside it in the build tree,
 * wherever the dynamic linker found it when installed) unless --lib names
 * another.
 *
 * --deny-io-uring installs a seccomp filter that fails io_uring_setup,
 * io_uring_enter and io_uring_register with EPERM, as Docker's default
 * profile does, to try a program as it would run in such a container.
 *
 * A fully static CMD takes no preload: anyring-run says so on stderr and
 * runs it as it is.
 *
 * Exit status: CMD's, or 125 if anyring-run itself fails, 126 if CMD
 * cannot be run, 127 if CMD is not found (as env(1)); 2 on bad usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "anyring.h"
#include "progfile.h"

#define EXIT_USAGE	2
#define EXIT_FAILED	125
#define EXIT_CANNOT_RUN	126
#define EXIT_NOT_FOUND	127

/* io_uring_setup, io_uring_enter, io_uring_register: the same on every ABI */
#define NR_IO_URING_FIRST	425
#define NR_IO_URING_LAST	427

/*
 * The architectures whose io_uring calls the filter denies: the native one
 * and the 32-bit one the kernel also runs. x32 calls arrive as the native
 * arch with this bit set in the number.
 */
#if defined(__x86_64__)
#define DENY_ARCH_NATIVE	AUDIT_ARCH_X86_64
#define DENY_ARCH_COMPAT	AUDIT_ARCH_I386
#define DENY_X32_BIT		0x40000000U
#elif defined(__aarch64__)
#define DENY_ARCH_NATIVE	AUDIT_ARCH_AARCH64
#define DENY_ARCH_COMPAT	AUDIT_ARCH_ARM
#define DENY_X32_BIT		0U
#endif

struct options {
	const char *engine;	/* NULL: leave ANYRING_ENGINE as it is */
	const char *lib;	/* NULL: the library beside this tool */
	int deny;
	int debug;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: anyring-run [OPTION]... [--] CMD [ARGS]...\n"
		"Run CMD with libanyring preloaded (LD_PRELOAD), so a program\n"
		"linked against liburing.so.2 runs on anyring's engines.\n"
		"\n"
		"  --engine=NAME    set ANYRING_ENGINE: auto (the kernel, falling\n"
		"                   back to user when io_uring is refused), kernel\n"
		"                   or user; without it ANYRING_ENGINE is kept\n"
		"  --deny-io-uring  install a seccomp filter that fails\n"
		"                   io_uring_setup/enter/register with EPERM, as\n"
		"                   Docker's default profile does (sets no_new_privs:\n"
		"                   setuid programs run without their privileges)\n"
		"  --debug          set ANYRING_DEBUG=1: the library reports on\n"
		"                   stderr which engine serves each ring\n"
		"  --lib=PATH       preload PATH instead of the libanyring this\n"
		"                   tool runs with\n"
		"  -h, --help       print this help and exit\n"
		"\n"
		"The library is put first in LD_PRELOAD, before any already there,\n"
		"with libanyring-sig.so.0 from its directory when it is there\n"
		"(the system-call trap's shim for sigaction and signal masks).\n"
		"Secure-execution (setuid) programs ignore LD_PRELOAD.\n"
		"\n"
		"Exit status: CMD's; 2 on bad usage; 125 if anyring-run fails;\n"
		"126 if CMD cannot be run; 127 if CMD is not found.\n");
}

static int bad_usage(const char *msg, const char *arg)
{
	if (msg)
		fprintf(stderr, "anyring-run: %s%s%s%s\n", msg,
			arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	fprintf(stderr, "Try 'anyring-run --help'.\n");
	return EXIT_USAGE;
}

static int valid_engine(const char *name)
{
	return !strcmp(name, "auto") || !strcmp(name, "kernel") ||
	       !strcmp(name, "user");
}

/* Parse argv; returns the index of CMD, or -(exit status) to stop. */
static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "engine",		required_argument,	NULL, 'e' },
		{ "deny-io-uring",	no_argument,		NULL, 'd' },
		{ "debug",		no_argument,		NULL, 'D' },
		{ "lib",		required_argument,	NULL, 'l' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL,			0,			NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	/* '+': stop at CMD, so its own options are left to it */
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!valid_engine(optarg)) {
				fprintf(stderr, "anyring-run: unknown engine '%s' "
					"(auto, kernel or user)\n", optarg);
				return -EXIT_USAGE;
			}
			o->engine = optarg;
			break;
		case 'd':
			o->deny = 1;
			break;
		case 'D':
			o->debug = 1;
			break;
		case 'l':
			o->lib = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:	/* getopt_long has said what is wrong */
			return -bad_usage(NULL, NULL);
		}
	}
	if (optind >= argc)
		return -bad_usage("no command given", NULL);
	return optind;
}

/*
 * The libanyring this tool itself runs with, as the dynamic linker found
 * it (beside the tool in the build tree, in the multiarch libdir when
 * installed into /usr): 0 and its path in out, or -1.
 */
static int loaded_lib(char *out, size_t len)
{
	Dl_info info;

	if (!dladdr((void *)anyring_ring_engine, &info) || !info.dli_fname ||
	    info.dli_fname[0] != '/' ||
	    (size_t)snprintf(out, len, "%s", info.dli_fname) >= len)
		return -1;
	return access(out, R_OK) ? -1 : 0;
}

/*
 * The default library: the one this tool runs with, else
 * ../lib/libanyring.so.0 from this tool's directory, else
 * ../lib/libanyring.so. Returns 0 and the path in out, or -1.
 */
static int default_lib(char *out, size_t len)
{
	static const char *const names[] = { "libanyring.so.0", "libanyring.so" };
	char exe[PATH_MAX], dir[PATH_MAX + 8], libdir[PATH_MAX], *slash;
	ssize_t n;
	size_t i;

	if (!loaded_lib(out, len))
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0) {
		fprintf(stderr, "anyring-run: cannot read /proc/self/exe: %s "
			"(use --lib=PATH)\n", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(dir, sizeof(dir), "%s/../lib", exe);
	/* resolve the directory, keep the soname link as the file name */
	if (!realpath(dir, libdir)) {
		fprintf(stderr, "anyring-run: libanyring not found: %s: %s "
			"(use --lib=PATH)\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if ((size_t)snprintf(out, len, "%s/%s", libdir, names[i]) >= len)
			continue;
		if (!access(out, R_OK))
			return 0;
	}
	fprintf(stderr, "anyring-run: libanyring not found: no %s/%s "
		"(use --lib=PATH)\n", libdir, names[0]);
	return -1;
}

/* A --lib path: must exist if it names a file, and be one LD_PRELOAD entry. */
static int check_lib(const char *lib)
{
	if (!*lib || strpbrk(lib, ": \t")) {
		fprintf(stderr, "anyring-run: --lib='%s': LD_PRELOAD cannot hold "
			"an empty path or one with ':' or blanks\n", lib);
		return -1;
	}
	/* without a '/', ld.so searches its library path: nothing to check */
	if (strchr(lib, '/') && access(lib, R_OK)) {
		fprintf(stderr, "anyring-run: library '%s': %s\n", lib,
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The system-call trap's shim, libanyring-sig.so.0, beside lib (when lib
 * is a path): into out, or "" when there is none.
 */
static void shim_of(const char *lib, char *out, size_t len)
{
	const char *slash = strrchr(lib, '/');

	out[0] = '\0';
	if (!slash || (size_t)snprintf(out, len, "%.*s/libanyring-sig.so.0",
				       (int)(slash - lib), lib) >= len ||
	    access(out, R_OK))
		out[0] = '\0';
}

/* LD_PRELOAD = lib, its shim, then whatever was there */
static int set_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char shim[PATH_MAX + 32];
	char *val;
	int ret;

	shim_of(lib, shim, sizeof(shim));
	if (asprintf(&val, "%s%s%s%s%s", lib, *shim ? ":" : "", shim,
		     old && *old ? ":" : "", old && *old ? old : "") < 0)
		return -1;
	ret = setenv("LD_PRELOAD", val, 1);
	free(val);
	return ret;
}

#ifdef DENY_ARCH_NATIVE
static int deny_io_uring(void)
{
	struct sock_filter insns[] = {
		/* 0: the call's architecture */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, DENY_ARCH_NATIVE, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, DENY_ARCH_COMPAT, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 4: the number, x32 bit cleared */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~DENY_X32_BIT),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, NR_IO_URING_FIRST, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, NR_IO_URING_LAST, 1, 0),
		/* 8: io_uring_setup, _enter or _register */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};

	/* without CAP_SYS_ADMIN a filter needs no_new_privs */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		fprintf(stderr, "anyring-run: --deny-io-uring: "
			"prctl(PR_SET_NO_NEW_PRIVS): %s\n", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
		fprintf(stderr, "anyring-run: --deny-io-uring: cannot install "
			"the seccomp filter: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}
#else
static int deny_io_uring(void)
{
	fprintf(stderr, "anyring-run: --deny-io-uring is not supported on "
		"this architecture\n");
	return -1;
}
#endif

static int setup_env(const struct options *o)
{
	char path[PATH_MAX];
	const char *lib = o->lib;

	if (lib && check_lib(lib))
		return -1;
	if (!lib) {
		if (default_lib(path, sizeof(path)))
			return -1;
		lib = path;
	}
	if (set_preload(lib) ||
	    (o->engine && setenv("ANYRING_ENGINE", o->engine, 1)) ||
	    (o->debug && setenv("ANYRING_DEBUG", "1", 1))) {
		fprintf(stderr, "anyring-run: cannot set the environment: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	struct options o;
	int cmd = parse(argc, argv, &o), err;

	if (cmd <= 0)
		return -cmd;
	if (setup_env(&o))
		return EXIT_FAILED;
	if (o.deny && deny_io_uring())
		return EXIT_FAILED;
	if (!prog_find(argv[cmd], path, sizeof(path)) && prog_is_static(path))
		fprintf(stderr, "anyring-run: warning: %s is statically linked: "
			"no library can be preloaded into it, so anyring cannot "
			"serve its io_uring calls (they reach the kernel as "
			"they are)\n", path);
	execvp(argv[cmd], &argv[cmd]);
	err = errno;
	fprintf(stderr, "anyring-run: cannot run '%s': %s\n", argv[cmd],
		strerror(err));
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
