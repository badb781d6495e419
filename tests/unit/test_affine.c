/*
 * test_affine.c — slice starts read as affine expressions of loop variables
 * (runtime/back/affine.c), which forward.c's region checks rest on: what
 * is read, what is refused, and the text written back.
 */
#include "affine.h"
#include "check.h"

static void
reads(const char *text, int64_t c, const char *v0, int64_t k0, const char *v1, int64_t k1, int line)
{
	Aff a;
	int ok = aff_parse(text, &a) == 0;
	report(ok, line, "'%s' is not read", text);
	if (!ok)
		return;
	report(a.c == c, line, "'%s': constant %lld, want %lld", text, (long long)a.c, (long long)c);
	if (v0)
		report(aff_coef(&a, v0) == k0, line, "'%s': %s * %lld, want %lld", text, v0, (long long)aff_coef(&a, v0),
		       (long long)k0);
	if (v1)
		report(aff_coef(&a, v1) == k1, line, "'%s': %s * %lld, want %lld", text, v1, (long long)aff_coef(&a, v1),
		       (long long)k1);
}

static void
refused(const char *text, int line)
{
	Aff a;
	report(aff_parse(text, &a) != 0, line, "'%s' is read as affine", text);
}

/* text -> Aff -> text -> Aff gives the same form */
static void
round_trip(const char *text, int line)
{
	Aff a, b;
	char buf[40];
	int ok = aff_parse(text, &a) == 0 && aff_print(&a, buf, sizeof buf) == 0 && aff_parse(buf, &b) == 0;
	report(ok && aff_eq(&a, &b), line, "'%s' printed as '%s' is not the same", text, ok ? buf : "?");
}

int
main(void)
{
	reads("0", 0, NULL, 0, NULL, 0, __LINE__);
	reads("(b3 * 4 + j3) * 128", 0, "b3", 512, "j3", 128, __LINE__);
	reads("(r + 1) * 1024 + j5 * 128 + 128", 1152, "r", 1024, "j5", 128, __LINE__);
	reads("r * 128 + 128 + 128", 256, "r", 128, NULL, 0, __LINE__);
	reads("-(i0 - 3) * 2", 6, "i0", -2, NULL, 0, __LINE__);
	reads("i0 - i0 + 7", 7, "i0", 0, NULL, 0, __LINE__);
	refused("i0 * j0", __LINE__);          /* not affine */
	refused("i0 // 2", __LINE__);          /* a floor division: not read */
	refused("(i0 + 1", __LINE__);
	refused("i0 +", __LINE__);
	refused("", __LINE__);
	round_trip("(b3 * 4 + j3) * 128", __LINE__);
	round_trip("-(i0 - 3) * 2", __LINE__);
	round_trip("0", __LINE__);
	round_trip("j3 - 5", __LINE__);
	Aff a, b;
	aff_parse("b4 * 1024 + j4 * 512", &a);
	aff_parse("j4 * 512 + b4 * 1024", &b);
	CHECK(aff_eq(&a, &b));
	aff_parse("j4 * 512 + b4 * 1024 + 1", &b);
	CHECK(!aff_eq(&a, &b));
	char small[8];
	CHECK(aff_print(&a, small, sizeof small) != 0);   /* does not fit: refused, not cut */
	return check_done();
}
