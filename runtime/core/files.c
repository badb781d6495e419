/*
 * files.c — whole files read into memory, and directories made with their
 * parents (compile --config's JSON, compile --sizes's cache, slurm.c's
 * work directory).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "axon.h"

char *
ax_read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *t = NULL, buf[8192];
	size_t n = 0, cap = 0, k;
	while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
		if (n + k + 1 > cap && !(t = realloc(t, cap = 2 * (n + k + 1))))
			ax_die("out of memory");
		memcpy(t + n, buf, k);
		n += k;
	}
	fclose(f);
	if (!t && !(t = malloc(1)))
		ax_die("out of memory");
	t[n] = 0;
	if (len)
		*len = n;
	return t;
}

int
ax_mkdir_p(const char *path)
{
	char p[4096];
	if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0777) != 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
}
