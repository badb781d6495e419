/*
 * command.c — the user's --measure command on one candidate, wherever it runs
 * (a local worker, select.c, or an array task of Slurm, slurm.c): its command
 * line with {kernel}, {config} and {modelled_us} filled in, and what one run
 * of it means: the latency, the last word of its standard output that is a
 * whole finite number, in microseconds; a non-zero exit or no positive number
 * make the candidate infeasible, with the reason.  Both places read a run by
 * these functions, so a run through Slurm gives what a local run gives.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"

char *
command_line(const char *s, const char *kernel, const char *config, double modelled_s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		ax_die("out of memory");
	while (*s) {
		const char *path = strncmp(s, "{kernel}", 8) == 0 ? kernel : strncmp(s, "{config}", 8) == 0 ? config : NULL;
		if (path) {
			fputc('\'', f);
			fputs(path, f);   /* our own paths: no quote in them */
			fputc('\'', f);
			s += 8;
		} else if (strncmp(s, "{modelled_us}", 13) == 0) {
			fprintf(f, "%.17g", modelled_s * 1e6);
			s += 13;
		} else
			fputc(*s++, f);
	}
	fclose(f);
	return out;
}

double
command_last_number(FILE *out)
{
	char word[128];
	double last = NAN;
	while (fscanf(out, "%127s", word) == 1) {
		char *end;
		double x = strtod(word, &end);
		if (end != word && *end == 0 && isfinite(x))
			last = x;
	}
	return last;
}

double
command_verdict(int code, double last, const char *errpath, char *why, size_t nwhy)
{
	if (code == 0 && last > 0)
		return last * 1e-6;
	char err[300] = "";
	FILE *e = fopen(errpath, "r");
	if (e) {
		size_t r = fread(err, 1, sizeof err - 1, e);
		err[r] = 0;
		fclose(e);
	}
	for (char *s = err; *s; s++)
		if (*s == '\n')
			*s = ' ';
	if (code != 0)
		snprintf(why, nwhy, "the command exited with status %d: %.280s", code, err);
	else
		snprintf(why, nwhy, "the command printed no positive latency (microseconds) on its standard output");
	return -1;
}
