/*
 * util.h — the floor of axgen: allocation, strings, growable lists and
 * internal errors (util.c).  It needs nothing else of axgen; everything
 * else stands on it.
 */
#ifndef AXGEN_UTIL_H
#define AXGEN_UTIL_H

#include <stddef.h>

typedef struct List {   /* growable vector of pointers */
	void **v;
	int n, cap;
} List;

void *xalloc(size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void list_push(List *l, void *p);
void list_sort_str(List *l);
int find_str(const List *l, const char *s);           /* index of s in a list of strings, or -1 */
int in_strv(const char *const *v, const char *s);     /* s in a NULL-terminated array of strings */
char *read_file(const char *path, size_t *len);

/* Internal bugs, never user errors (those go through diag.c): aborts. */
void die_(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));
#define die(...) die_(__FILE__, __LINE__, __VA_ARGS__)

#endif
