/* SPDX-License-Identifier: MIT */
/*
 * engine.c - the table of engines, looked up by name.
 */
#include <string.h>
#include "engine.h"

const struct bench_engine *const engine_list[] = {
	&engine_kernel, &engine_user, &engine_sync, &engine_libaio,
	&engine_posixaio, NULL,
};

const struct bench_engine *engine_find(const char *name)
{
	unsigned i;

	for (i = 0; name && engine_list[i]; i++)
		if (!strcmp(engine_list[i]->name, name))
			return engine_list[i];
	return NULL;
}

const char *engine_names(void)
{
	return "kernel, user, sync, libaio, posixaio";
}
