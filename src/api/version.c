/* SPDX-License-Identifier: MIT */
/*
 * version.c - the liburing version this library stands in for: 2.15,
 * whose map (src/api/liburing.map) it exports.
 */
#include "engine/engine.h"
#include "api/newer.h"

#define AR_LIBURING_MAJOR	2
#define AR_LIBURING_MINOR	15

AR_EXPORT int io_uring_major_version(void)
{
	return AR_LIBURING_MAJOR;
}

AR_EXPORT int io_uring_minor_version(void)
{
	return AR_LIBURING_MINOR;
}

/*
 * true if major.minor is newer than the library: the program needs a
 * newer liburing than this one (io_uring_check_version(3)).
 */
AR_EXPORT bool io_uring_check_version(int major, int minor)
{
	return major > io_uring_major_version() ||
	       (major == io_uring_major_version() &&
		minor > io_uring_minor_version());
}
