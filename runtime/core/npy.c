/*
 * npy.c — NumPy's .npy format (version 1.0 and 2.0), float32 C order.
 *
 * Reading also accepts float64 ('<f8') and converts it; anything else
 * (Fortran order, other dtypes, big-endian) is refused with the reason.
 */
#include <stdlib.h>
#include <string.h>
#include "axon.h"

static const unsigned char magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

int
npy_write(const char *path, const AxShape *s, const float *data, char *err, size_t n)
{
	char hdr[256], shape[160] = "";
	size_t k = 0;
	for (int d = 0; d < s->rank; d++)
		k += (size_t)snprintf(shape + k, sizeof shape - k, "%lld%s", (long long)s->d[d],
		                      s->rank == 1 ? "," : d + 1 < s->rank ? ", " : "");
	int len = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", shape);
	int total = 10 + len + 1;
	int pad = (64 - total % 64) % 64;
	FILE *f = fopen(path, "wb");
	if (!f)
		return ax_fail(err, n, "cannot write %s", path);
	unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0 };
	int hlen = len + pad + 1;
	pre[8] = (unsigned char)(hlen & 0xff);
	pre[9] = (unsigned char)(hlen >> 8);
	fwrite(pre, 1, 10, f);
	fwrite(hdr, 1, (size_t)len, f);
	for (int i = 0; i < pad; i++)
		fputc(' ', f);
	fputc('\n', f);
	int64_t numel = ax_numel(s);
	size_t w = fwrite(data, sizeof(float), (size_t)numel, f);
	if (fclose(f) != 0 || w != (size_t)numel)
		return ax_fail(err, n, "cannot write %s", path);
	return 0;
}

/* Reads path into a malloc'd float array; 0 = ok. */
int
npy_read(const char *path, AxShape *s, float **data, char *err, size_t n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return ax_fail(err, n, "cannot read %s", path);
	unsigned char pre[12];
	int rc = 1;
	char *hdr = NULL;
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, magic, 6) != 0) {
		ax_fail(err, n, "%s is not a .npy file", path);
		goto out;
	}
	size_t hlen;
	if (pre[6] == 1)
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
	else if (pre[6] == 2 || pre[6] == 3) {
		if (fread(pre + 10, 1, 2, f) != 2) {
			ax_fail(err, n, "%s: truncated header", path);
			goto out;
		}
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	} else {
		ax_fail(err, n, "%s: .npy version %d is not supported", path, pre[6]);
		goto out;
	}
	if (hlen > 1 << 20) {
		ax_fail(err, n, "%s: header too long", path);
		goto out;
	}
	hdr = calloc(1, hlen + 1);
	if (!hdr || fread(hdr, 1, hlen, f) != hlen) {
		ax_fail(err, n, "%s: truncated header", path);
		goto out;
	}
	int f8 = 0;
	if (strstr(hdr, "'descr': '<f8'"))
		f8 = 1;
	else if (!strstr(hdr, "'descr': '<f4'")) {
		ax_fail(err, n, "%s: only float32 ('<f4') or float64 ('<f8') data is supported", path);
		goto out;
	}
	if (!strstr(hdr, "'fortran_order': False")) {
		ax_fail(err, n, "%s: Fortran-order arrays are not supported", path);
		goto out;
	}
	const char *sp = strstr(hdr, "'shape': (");
	if (!sp) {
		ax_fail(err, n, "%s: no shape in the header", path);
		goto out;
	}
	sp += 10;
	s->rank = 0;
	while (*sp && *sp != ')') {
		char *end;
		long long v = strtoll(sp, &end, 10);
		if (end == sp) {
			ax_fail(err, n, "%s: bad shape in the header", path);
			goto out;
		}
		if (s->rank == AX_MAXR || v < 0) {
			ax_fail(err, n, "%s: shape has more than %d dims or a size below zero", path, AX_MAXR);
			goto out;
		}
		s->d[s->rank++] = v;
		sp = end;
		while (*sp == ',' || *sp == ' ')
			sp++;
	}
	int64_t numel = ax_numel(s);
	if (numel > ((int64_t)1 << 31)) {
		ax_fail(err, n, "%s: too large", path);
		goto out;
	}
	*data = malloc(sizeof(float) * (size_t)(numel ? numel : 1));
	if (!*data)
		ax_die("out of memory");
	if (f8) {
		for (int64_t i = 0; i < numel; i++) {
			double d;
			if (fread(&d, sizeof d, 1, f) != 1) {
				ax_fail(err, n, "%s: truncated data", path);
				free(*data);
				goto out;
			}
			(*data)[i] = (float)d;
		}
	} else if (fread(*data, sizeof(float), (size_t)numel, f) != (size_t)numel) {
		ax_fail(err, n, "%s: truncated data", path);
		free(*data);
		goto out;
	}
	rc = 0;
out:
	free(hdr);
	fclose(f);
	return rc;
}
