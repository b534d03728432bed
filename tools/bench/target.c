/* SPDX-License-Identifier: MIT */
/*
 * target.c - opening, creating and sizing benchmark targets.
 *
 * A missing file is created when --size is given and filled with data (not
 * left sparse), so reads hit real blocks; a shorter file is extended the
 * same way. The data is made durable (fsync) so O_DIRECT reads find it on
 * the device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "ext.h"
#include "prng.h"
#include "target.h"
#include "units.h"

#define FILL_CHUNK	(1u << 20)

int target_is_sim(const char *str)
{
	return str && !strncmp(str, SIM_PREFIX, strlen(SIM_PREFIX));
}

static int fill_file(int fd, uint64_t from, uint64_t to)
{
	uint64_t *chunk = malloc(FILL_CHUNK), seed = prng_seed(from + 1);
	uint64_t off = from;
	size_t i;

	if (!chunk)
		return -ENOMEM;
	for (i = 0; i < FILL_CHUNK / sizeof(*chunk); i++)
		chunk[i] = prng_next(&seed);
	while (off < to) {
		size_t n = to - off < FILL_CHUNK ? (size_t)(to - off) : FILL_CHUNK;
		ssize_t ret;

		chunk[0] = off;		/* no two chunks alike */
		ret = pwrite(fd, chunk, n, (off_t)off);
		if (ret <= 0) {
			free(chunk);
			return ret < 0 ? -errno : -EIO;
		}
		off += (uint64_t)ret;
	}
	free(chunk);
	return fsync(fd) ? -errno : 0;
}

static int prepare_file(const struct job_spec *s, struct target *t,
			const struct stat *st, char *why, size_t len)
{
	uint64_t have = st ? (uint64_t)st->st_size : 0;
	char sz[32];
	int fd, ret;

	t->kind = TARGET_FILE;
	if (!st && !s->size) {
		snprintf(why, len, "%s does not exist; give --size to create it",
			 t->path);
		return -1;
	}
	t->size = s->size ? s->size : have;
	if (have >= t->size)
		return 0;
	fprintf(stderr, "anyring-bench: %s %s to %s with data ...\n",
		st ? "extending" : "creating", t->path,
		fmt_size(t->size, sz, sizeof(sz)));
	fd = open(t->path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", t->path, strerror(errno));
		return -1;
	}
	ret = fill_file(fd, have, t->size);
	close(fd);
	if (ret) {
		snprintf(why, len, "filling %s: %s", t->path, strerror(-ret));
		return -1;
	}
	return 0;
}

/* --alloc: a new file of s->size bytes whose blocks writes will allocate */
static int prepare_alloc(const struct job_spec *s, struct target *t,
			 char *why, size_t len)
{
	const char *how = s->alloc == ALLOC_SPARSE ? "ftruncate" : "fallocate";
	int fd, ret;

	t->kind = TARGET_FILE;
	t->size = s->size;
	fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		snprintf(why, len, "%s: %s%s", t->path, strerror(errno),
			 errno == EEXIST ? " (--alloc makes a new file)" : "");
		return -1;
	}
	t->created = true;
	if (s->alloc == ALLOC_SPARSE)
		ret = ftruncate(fd, (off_t)t->size) ? errno : 0;
	else
		ret = posix_fallocate(fd, 0, (off_t)t->size);
	/* durable before the run: the run measures the writes, not this */
	if (!ret && fsync(fd))
		ret = errno;
	close(fd);
	if (ret) {
		snprintf(why, len, "%s: %s: %s", t->path, how, strerror(ret));
		return -1;
	}
	return 0;
}

/* --cold: write back what is dirty, then drop the pages */
static int evict(const struct target *t, char *why, size_t len)
{
	int fd = open(t->path, O_RDONLY), ret;

	if (fd < 0) {
		snprintf(why, len, "%s: %s", t->path, strerror(errno));
		return -1;
	}
	ret = fdatasync(fd) ? errno : 0;
	if (!ret)
		ret = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (ret) {
		snprintf(why, len, "--cold: evicting %s: %s", t->path,
			 strerror(ret));
		return -1;
	}
	return 0;
}

double target_cached_pct(const struct target *t)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages, i, in = 0;
	unsigned char *vec;
	void *map;
	int fd;

	if ((t->kind != TARGET_FILE && t->kind != TARGET_BLOCK) || !t->size ||
	    page <= 0)
		return -1;
	pages = (size_t)((t->size + (uint64_t)page - 1) / (uint64_t)page);
	fd = open(t->path, O_RDONLY);
	if (fd < 0)
		return -1;
	map = mmap(NULL, (size_t)t->size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	vec = malloc(pages);
	if (vec && !mincore(map, (size_t)t->size, vec))
		for (i = 0; i < pages; i++)
			in += vec[i] & 1;
	else
		pages = 0;
	free(vec);
	munmap(map, (size_t)t->size);
	return pages ? 100.0 * (double)in / (double)pages : -1;
}

static int prepare_block(const struct job_spec *s, struct target *t,
			 char *why, size_t len)
{
	unsigned long long bytes = 0;
	int fd = open(t->path, O_RDONLY);

	t->kind = TARGET_BLOCK;
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes)) {
		snprintf(why, len, "%s: %s", t->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	t->size = s->size && s->size < bytes ? s->size : bytes;
	return 0;
}

/* The size= field of a simdev spec, when it has one. */
static uint64_t sim_spec_size(const char *spec)
{
	const char *p = spec;
	uint64_t v;

	while (p && *p) {
		if (!strncmp(p, "size=", 5)) {
			char buf[32];
			size_t n = strcspn(p + 5, ",");

			if (n < sizeof(buf)) {
				memcpy(buf, p + 5, n);
				buf[n] = 0;
				if (!parse_size(buf, &v))
					return v;
			}
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

static int prepare_sim(const struct job_spec *s, struct target *t, char *why,
		       size_t len)
{
	int fd;

	t->kind = TARGET_SIM;
	if (!ext_have_simdev()) {
		snprintf(why, len, "sim: targets need anyring_simdev_create(), "
			 "which this libanyring does not have yet");
		return -1;
	}
	fd = ext_simdev_create(t->path);
	if (fd < 0) {
		snprintf(why, len, "sim:%s: %s (ANYRING_DEBUG=1 names the field)",
			 t->path, strerror(-fd));
		return -1;
	}
	t->sim_fd = fd;
	t->size = sim_spec_size(t->path);
	if (s->size && (!t->size || s->size < t->size))
		t->size = s->size;
	if (!t->size) {
		snprintf(why, len, "sim:%s: no size= in the spec; give --size",
			 t->path);
		return -1;
	}
	return 0;
}

int target_prepare(const struct job_spec *s, struct target *t, char *why,
		   size_t len)
{
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	t->sim_fd = -1;
	if (s->nop || !s->target)
		return 0;
	if (target_is_sim(s->target)) {
		t->path = s->target + strlen(SIM_PREFIX);
		ret = prepare_sim(s, t, why, len);
	} else if (s->alloc) {
		t->path = s->target;
		ret = prepare_alloc(s, t, why, len);
	} else {
		t->path = s->target;
		if (stat(t->path, &st)) {
			if (errno != ENOENT) {
				snprintf(why, len, "%s: %s", t->path,
					 strerror(errno));
				return -1;
			}
			ret = prepare_file(s, t, NULL, why, len);
		}
		else if (S_ISBLK(st.st_mode))
			ret = prepare_block(s, t, why, len);
		else if (S_ISREG(st.st_mode))
			ret = prepare_file(s, t, &st, why, len);
		else {
			snprintf(why, len, "%s: not a file or block device",
				 t->path);
			return -1;
		}
	}
	if (!ret && t->size < s->bs) {
		snprintf(why, len, "%s: %llu bytes, smaller than one block (%u)",
			 s->target, (unsigned long long)t->size, s->bs);
		ret = -1;
	}
	if (!ret && s->cold)
		ret = evict(t, why, len);
	return ret;
}

int target_open(const struct target *t, const struct job_spec *s, char *why,
		size_t len)
{
	int flags = s->read_pct == 100 ? O_RDONLY : O_RDWR;
	int fd;

	if (t->kind == TARGET_NONE)
		return -1;
	if (t->kind == TARGET_SIM)
		return t->sim_fd;
	if (s->direct)
		flags |= O_DIRECT;
	fd = open(t->path, flags);
	if (fd >= 0)
		return fd;
	fd = -errno;
	if (fd == -EINVAL && s->direct)
		snprintf(why, len, "%s: O_DIRECT is not supported there (tmpfs?)",
			 t->path);
	else
		snprintf(why, len, "%s: %s", t->path, strerror(-fd));
	return fd;
}

void target_close(const struct target *t, int fd)
{
	if (fd >= 0 && t->kind != TARGET_SIM)
		close(fd);
}

void target_release(struct target *t)
{
	if (t->sim_fd >= 0)
		close(t->sim_fd);
	t->sim_fd = -1;
	if (t->created)
		unlink(t->path);
	t->created = false;
}
