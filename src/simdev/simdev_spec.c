/* SPDX-License-Identifier: MIT */
/*
 * simdev_spec.c - the simdev spec string ("size=1G,bs=4096,lat=fixed:5us")
 * and the random streams and latency models it selects. The grammar is in
 * docs/simdev.md; fault= values are rules of the shared fault grammar
 * (fault/rule.h, docs/faults.md). Every error is -EINVAL with one
 * ANYRING_DEBUG line naming the field.
 *
 * Every draw comes from a seeded generator (xoshiro256**, its state seeded
 * with splitmix64), one stream per purpose, and a fault rule picks I/Os by
 * a hash of (seed, rule, match), so the same seed and the same order of
 * submissions give the same latencies and the same faults.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "engine/engine.h"
#include "simdev/simdev_int.h"

#define AR_SIM_SPEC_MAX		4096
#define AR_SIM_DEF_SIZE		(1ULL << 30)
#define AR_SIM_DEF_BS		4096U
#define AR_SIM_MAX_BS		(1U << 20)
#define AR_SIM_DEF_SEED		0x5eedULL
#define AR_SIM_COALESCE_DEF_NS	100000ULL	/* coalesce=N alone: 100 us cap */
#define AR_SIM_LAT_MAX_NS	(3600ULL * 1000000000ULL)
#define AR_SIM_DEF_SPIN_NS	20000ULL	/* the device thread's idle busy-wait */
#define AR_SIM_MAX_SPIN_NS	10000000ULL

/* ---- random streams ---- */

static uint64_t ar_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void ar_sim_rng_seed(struct ar_sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);

	for (int i = 0; i < 4; i++)
		r->s[i] = ar_splitmix64(&x);
}

static uint64_t ar_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ar_sim_rng_next(struct ar_sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = ar_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = ar_rotl(s[3], 45);
	return out;
}

double ar_sim_rng_unit(struct ar_sim_rng *r)
{
	return (double)(ar_sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * exp, log and sqrt of our own: the build links no libm, and a seed must
 * give the same latencies whatever libm a machine has.
 */
static double ar_pow2i(int k)
{
	union { double d; uint64_t u; } v;

	if (k < -1022)
		return 0.0;
	if (k > 1023)
		k = 1023;
	v.u = (uint64_t)(k + 1023) << 52;
	return v.d;
}

static double ar_exp(double x)
{
	double r, term, sum;
	int k;

	if (x < -700)
		return 0.0;
	if (x > 700)
		x = 700;
	/* x = k ln2 + r, |r| <= ln2 / 2; then a Taylor series for e^r */
	k = (int)(x * 1.4426950408889634 + (x < 0 ? -0.5 : 0.5));
	r = x - k * 0.6931471805599453;
	term = sum = 1.0;
	for (int i = 1; i < 18; i++) {
		term *= r / i;
		sum += term;
	}
	return sum * ar_pow2i(k);
}

static double ar_log(double x)
{
	union { double d; uint64_t u; } v = { .d = x };
	double m, s, s2, sum, term;
	int e;

	if (!(x > 0))
		return -745.0;	/* the log of the smallest double: only x = 0 gets here */
	/* x = m 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh((m-1)/(m+1)) */
	e = (int)((v.u >> 52) & 0x7ff) - 1023;
	v.u = (v.u & ((1ULL << 52) - 1)) | (1023ULL << 52);
	m = v.d;
	if (m > 1.4142135623730951) {
		m /= 2;
		e++;
	}
	s = (m - 1) / (m + 1);
	s2 = s * s;
	term = s;
	sum = 0;
	for (int i = 1; i < 40; i += 2) {
		sum += term / i;
		term *= s2;
	}
	return 2 * sum + e * 0.6931471805599453;
}

static double ar_sqrt(double x)
{
	double g = x > 1 ? x / 2 : 1.0;

	if (!(x > 0))
		return 0.0;
	for (int i = 0; i < 60; i++) {
		double n = (g + x / g) / 2;

		if (n == g)
			break;
		g = n;
	}
	return g;
}

/* a standard normal deviate: Marsaglia's polar method, one of the pair */
static double ar_sim_rng_normal(struct ar_sim_rng *r)
{
	double u, v, s;

	do {
		u = 2 * ar_sim_rng_unit(r) - 1;
		v = 2 * ar_sim_rng_unit(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);	/* accepted with probability pi/4 */
	return u * ar_sqrt(-2 * ar_log(s) / s);
}

/* the inverse of the table's piecewise-linear distribution function */
static double ar_sim_table_quantile(const struct ar_sim_lat *lat, double p)
{
	unsigned i;

	if (p <= lat->pct[0])
		return lat->val[0];
	for (i = 1; i < lat->npts; i++) {
		if (p <= lat->pct[i]) {
			double f = (p - lat->pct[i - 1]) /
				   (lat->pct[i] - lat->pct[i - 1]);

			return lat->val[i - 1] + f * (lat->val[i] - lat->val[i - 1]);
		}
	}
	return lat->val[lat->npts - 1];
}

static uint64_t ar_sim_ns(double v)
{
	if (!(v > 0))
		return 0;
	return v >= (double)AR_SIM_LAT_MAX_NS ? AR_SIM_LAT_MAX_NS : (uint64_t)(v + 0.5);
}

uint64_t ar_sim_lat_sample(const struct ar_sim_lat *lat, struct ar_sim_rng *r)
{
	switch (lat->kind) {
	case AR_SIM_LAT_UNIFORM:
		return lat->a + (uint64_t)(ar_sim_rng_unit(r) * (double)(lat->b - lat->a + 1));
	case AR_SIM_LAT_LOGNORMAL:
		return ar_sim_ns((double)lat->a * ar_exp(lat->sigma * ar_sim_rng_normal(r)));
	case AR_SIM_LAT_TABLE:
		return ar_sim_ns(ar_sim_table_quantile(lat, 100.0 * ar_sim_rng_unit(r)));
	case AR_SIM_LAT_FIXED:
	default:
		return lat->a;
	}
}

/* ---- scalars (sizes, durations and integers are fault/rule.h's) ---- */

static int ar_parse_double(const char *s, double *out)
{
	char *end;

	if (!*s)
		return -EINVAL;
	*out = strtod(s, &end);
	return *end || end == s || *out != *out ? -EINVAL : 0;
}

/* ---- fields ---- */

static int ar_spec_err(const char *field, const char *val, const char *why)
{
	ar_debug("simdev spec: bad %s=%s: %s", field, val, why);
	return -EINVAL;
}

/* "a:b:c" split in place at ':' into at most max parts; returns the count */
static unsigned ar_split(char *s, char sep, char **parts, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		parts[n++] = s;
		s = strchr(s, sep);
		if (!s)
			return n;
		*s++ = '\0';
	}
	return max + 1;		/* too many */
}

static int ar_spec_table(char **parts, unsigned n, struct ar_sim_lat *lat,
			 const char *val)
{
	uint64_t ns;

	if (n < 1 || n > AR_SIM_TABLE_MAX)
		return ar_spec_err("lat", val, "table takes 1 to 16 pP=DUR points");
	for (unsigned i = 0; i < n; i++) {
		char *eq = strchr(parts[i], '=');
		double p;

		if ((parts[i][0] != 'p' && parts[i][0] != 'P') || !eq)
			return ar_spec_err("lat", val, "a table point is pP=DUR (p99=400us)");
		*eq = '\0';
		if (ar_parse_double(parts[i] + 1, &p) || p < 0 || p > 100)
			return ar_spec_err("lat", val, "a percentile is 0..100");
		if (!ar_fval_dur(eq + 1, &ns))
			return ar_spec_err("lat", val, "a table latency is a duration (80us)");
		if (i && (p <= lat->pct[i - 1] || (double)ns < lat->val[i - 1]))
			return ar_spec_err("lat", val, "percentiles must rise and latencies not fall");
		lat->pct[i] = p;
		lat->val[i] = (double)ns;
	}
	lat->npts = n;
	lat->kind = AR_SIM_LAT_TABLE;
	return 0;
}

static int ar_spec_lat(char *v, struct ar_sim_lat *lat)
{
	char val[256], *parts[AR_SIM_TABLE_MAX + 2];
	unsigned n;

	snprintf(val, sizeof(val), "%s", v);
	n = ar_split(v, ':', parts, AR_SIM_TABLE_MAX + 1);
	memset(lat, 0, sizeof(*lat));
	if (!strcmp(parts[0], "fixed")) {
		if (n != 2 || !ar_fval_dur(parts[1], &lat->a))
			return ar_spec_err("lat", val, "fixed:DUR (fixed:5us)");
		lat->kind = AR_SIM_LAT_FIXED;
		return 0;
	}
	if (!strcmp(parts[0], "uniform")) {
		if (n != 3 || !ar_fval_dur(parts[1], &lat->a) ||
		    !ar_fval_dur(parts[2], &lat->b) || lat->a > lat->b)
			return ar_spec_err("lat", val, "uniform:MIN:MAX, MIN <= MAX");
		lat->kind = AR_SIM_LAT_UNIFORM;
		return 0;
	}
	if (!strcmp(parts[0], "lognormal")) {
		if (n != 3 || !ar_fval_dur(parts[1], &lat->a) ||
		    ar_parse_double(parts[2], &lat->sigma) ||
		    lat->sigma < 0 || lat->sigma > 4)
			return ar_spec_err("lat", val, "lognormal:MEDIAN:SIGMA, SIGMA 0..4");
		lat->kind = AR_SIM_LAT_LOGNORMAL;
		return 0;
	}
	if (!strcmp(parts[0], "table"))
		return ar_spec_table(parts + 1, n - 1, lat, val);
	return ar_spec_err("lat", val, "fixed, uniform, lognormal or table");
}

static int ar_spec_coalesce(char *v, struct ar_sim_spec *sp)
{
	char val[128], *parts[3];
	unsigned n;
	uint64_t x;

	snprintf(val, sizeof(val), "%s", v);
	n = ar_split(v, ':', parts, 2);
	if (n > 2)
		return ar_spec_err("coalesce", val, "N, DUR or N:DUR");
	sp->coalesce_n = 0;
	sp->coalesce_ns = 0;
	for (unsigned i = 0; i < n; i++) {
		if (ar_fval_u64(parts[i], 0, &x) && (n == 1 || i == 0)) {
			if (!x || x > AR_SIM_COALESCE_MAX)
				return ar_spec_err("coalesce", val, "N is 1..256");
			sp->coalesce_n = (unsigned)x;
		} else if (ar_fval_dur(parts[i], &x) && x && (n == 1 || i == 1)) {
			sp->coalesce_ns = x;
		} else {
			return ar_spec_err("coalesce", val, "N, DUR or N:DUR (8:50us)");
		}
	}
	if (!sp->coalesce_ns)
		sp->coalesce_ns = AR_SIM_COALESCE_DEF_NS;
	if (!sp->coalesce_n)
		sp->coalesce_n = AR_SIM_COALESCE_MAX;
	return 0;
}

/*
 * fault=: a rule of the shared fault grammar (fault/rule.h), in the item
 * form with '@' between items (op=read@rate=0.01@err=EIO), or in
 * simdev's KIND[@SEL:VALUE...] form (eio@rate:0.01).
 */
static int ar_spec_fault(char *v, struct ar_sim_spec *sp)
{
	struct ar_fparse p = { .dom = AR_FDOM_DEV, .sep = '@' };
	struct ar_frule *r;
	char val[256];
	int ret;

	snprintf(val, sizeof(val), "%s", v);
	if (sp->nfaults == AR_SIM_FAULTS_MAX)
		return ar_spec_err("fault", val, "at most 16 rules");
	r = &sp->faults[sp->nfaults];
	ret = strchr(v, '=') ? ar_frule_parse(&p, r, v) :
			       ar_frule_parse_dev_kind(&p, r, v);
	if (ret)
		return ar_spec_err("fault", val, p.msg);
	sp->nfaults++;
	return 0;
}

static int ar_spec_enum(const char *field, const char *v, const char *a,
			const char *b, bool *is_b)
{
	char why[96];

	if (!strcmp(v, a) || !strcmp(v, b)) {
		*is_b = !strcmp(v, b);
		return 0;
	}
	snprintf(why, sizeof(why), "%s or %s", a, b);
	return ar_spec_err(field, v, why);
}

static int ar_spec_scalar(const char *key, char *v, struct ar_sim_spec *sp)
{
	uint64_t x;

	if (!strcmp(key, "size")) {
		if (!ar_fval_size(v, &sp->size) || !sp->size)
			return ar_spec_err(key, v, "a byte count (1G, 512M, 65536)");
	} else if (!strcmp(key, "bs")) {
		if (!ar_fval_size(v, &x) || x < AR_SIM_SECTOR || x > AR_SIM_MAX_BS ||
		    (x & (x - 1)))
			return ar_spec_err(key, v, "a power of two, 512..1M");
		sp->bs = (unsigned)x;
	} else if (!strcmp(key, "qd")) {
		if (!ar_fval_u64(v, 0, &x) || x > 65536)
			return ar_spec_err(key, v, "0 (unlimited) .. 65536");
		sp->qd = (unsigned)x;
	} else if (!strcmp(key, "bw")) {
		if (!ar_fval_size(v, &sp->bw))
			return ar_spec_err(key, v, "bytes per second (500M), 0 unlimited");
	} else if (!strcmp(key, "spin")) {
		if (!ar_fval_dur(v, &sp->spin_ns) || sp->spin_ns > AR_SIM_MAX_SPIN_NS)
			return ar_spec_err(key, v, "a duration up to 10ms (0: sleep at once)");
	} else if (!strcmp(key, "seed")) {
		if (!ar_fval_u64(v, 0, &sp->seed))
			return ar_spec_err(key, v, "an unsigned integer");
	} else if (!strcmp(key, "completion")) {
		return ar_spec_enum(key, v, "irq", "poll", &sp->poll);
	} else if (!strcmp(key, "powerloss")) {
		return ar_spec_enum(key, v, "drop", "torn", &sp->pl_torn);
	} else {
		return 1;	/* not a scalar */
	}
	return 0;
}

static const char *const ar_spec_keys[] = {
	"size", "bs", "lat", "qd", "bw", "completion", "coalesce",
	"powerloss", "seed", "file", "spin",
};

static int ar_spec_once(const char *key, unsigned *seen)
{
	for (unsigned i = 0; i < sizeof(ar_spec_keys) / sizeof(ar_spec_keys[0]); i++) {
		if (strcmp(key, ar_spec_keys[i]))
			continue;
		if (*seen & (1U << i)) {
			ar_debug("simdev spec: %s given twice", key);
			return -EINVAL;
		}
		*seen |= 1U << i;
		return 0;
	}
	return 0;
}

static int ar_spec_item(char *item, struct ar_sim_spec *sp, unsigned *seen)
{
	char *v = strchr(item, '=');
	int ret;

	if (!v || v == item) {
		ar_debug("simdev spec: '%s' is not KEY=VALUE", item);
		return -EINVAL;
	}
	*v++ = '\0';
	ret = ar_spec_once(item, seen);
	if (ret)
		return ret;
	ret = ar_spec_scalar(item, v, sp);
	if (ret <= 0)
		return ret;
	if (!strcmp(item, "lat"))
		return ar_spec_lat(v, &sp->lat);
	if (!strcmp(item, "coalesce"))
		return ar_spec_coalesce(v, sp);
	if (!strcmp(item, "fault"))
		return ar_spec_fault(v, sp);
	if (!strcmp(item, "file")) {
		if (!*v)
			return ar_spec_err("file", v, "a path");
		free(sp->file);
		sp->file = strdup(v);
		return sp->file ? 0 : -ENOMEM;
	}
	ar_debug("simdev spec: unknown key '%s' (size, bs, lat, qd, bw, "
		 "completion, coalesce, spin, fault, powerloss, seed, file)", item);
	return -EINVAL;
}

/* the checks that need the whole spec */
static int ar_spec_check(struct ar_sim_spec *sp, bool size_given)
{
	if (size_given && sp->size % sp->bs) {
		ar_debug("simdev spec: bad size=%llu: not a multiple of bs=%u",
			 (unsigned long long)sp->size, sp->bs);
		return -EINVAL;
	}
	if (sp->coalesce_n && sp->poll) {
		ar_debug("simdev spec: bad coalesce: only with completion=irq");
		return -EINVAL;
	}
	return 0;
}

/* a fault rule's draws without seed=: the device's seed (it may come later) */
static void ar_spec_seed_faults(struct ar_sim_spec *sp)
{
	for (unsigned i = 0; i < sp->nfaults; i++)
		if (!sp->faults[i].seeded)
			sp->faults[i].seed = sp->seed;
}

int ar_sim_spec_parse(const char *str, struct ar_sim_spec *sp)
{
	char *copy, *item, *save = NULL;
	unsigned seen = 0;
	int ret = 0;

	memset(sp, 0, sizeof(*sp));
	sp->size = AR_SIM_DEF_SIZE;
	sp->bs = AR_SIM_DEF_BS;
	sp->seed = AR_SIM_DEF_SEED;
	sp->spin_ns = AR_SIM_DEF_SPIN_NS;
	sp->lat.kind = AR_SIM_LAT_FIXED;
	if (!str) {
		ar_debug("simdev spec: NULL");
		return -EINVAL;
	}
	if (strlen(str) >= AR_SIM_SPEC_MAX) {
		ar_debug("simdev spec: longer than %d bytes", AR_SIM_SPEC_MAX - 1);
		return -EINVAL;
	}
	copy = strdup(str);
	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save))
		ret = ar_spec_item(item, sp, &seen);
	free(copy);
	if (!ret)
		ret = ar_spec_check(sp, seen & 1U);
	if (!ret && !(seen & 1U) && sp->file)
		sp->size = 0;	/* the file's own size, found at create */
	if (!ret)
		ar_spec_seed_faults(sp);
	if (ret)
		ar_sim_spec_free(sp);
	return ret;
}

void ar_sim_spec_free(struct ar_sim_spec *sp)
{
	for (unsigned i = 0; i < sp->nfaults; i++)
		ar_frule_free(&sp->faults[i]);
	sp->nfaults = 0;
	free(sp->file);
	sp->file = NULL;
}
