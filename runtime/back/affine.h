/*
 * affine.h — slice starts (nest.h) as affine expressions over loop
 * variables: c + sum of k[i] * v[i] (affine.c).
 */
#ifndef AXON_AFFINE_H
#define AXON_AFFINE_H
#include <stddef.h>
#include <stdint.h>

enum { AFF_MAXV = 8 };

typedef struct Aff {
	int64_t c;
	int n;
	int64_t k[AFF_MAXV];
	char v[AFF_MAXV][16];
} Aff;

/* the text of a start ("(b3 * 4 + j3) * 128"): 0, or -1 if it is not affine (or too long) */
int aff_parse(const char *s, Aff *a);
/* as a slice start ("j3 * 128 + 512") into buf; -1 if it does not fit */
int aff_print(const Aff *a, char *buf, size_t n);
/* a += k * v; a += m * b; -1 if there are too many variables */
int aff_term(Aff *a, const char *v, int64_t k);
int aff_add(Aff *a, const Aff *b, int64_t m);
int64_t aff_coef(const Aff *a, const char *v);
int aff_eq(const Aff *a, const Aff *b);

#endif
