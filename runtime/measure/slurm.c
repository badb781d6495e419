/*
 * slurm.c — --slurm: the user's --measure command run on a Slurm cluster, one
 * array job for all the candidates of a compile.
 *
 * The work directory (shared by every node) holds
 *   c/KEY.py, c/KEY.json, c/KEY.sh   a candidate: its kernel, its choices, the command on them;
 *   r/KEY.out, r/KEY.err, r/KEY.st   its result: the command's stdout, stderr, exit code;
 *   run/job.XXXXXX/                  one submission: its keys, its batch script, its tasks' logs.
 * KEY is a 128-bit hash of the target, the command and the candidate (kernel and choices; the
 * model's figure too when the command names {modelled_us}), so the same candidate measured by
 * the same command is never measured twice: a compile run again finds its results on disk.
 * A task writes each result under a name of its own and renames it into place, r/KEY.st
 * last, so a result is there whole or not at all: a task killed, or its node lost, loses only
 * the run it was in.  Array task i measures the i-th of ntasks contiguous slices of the keys
 * and skips those with results.
 *
 * slurm_measure submits the keys without a result (sbatch --array), follows the job (squeue)
 * until every task has ended, and submits once more, as a new array, the keys that a task
 * which did not complete left without a result; keys left after that are unmeasured, with the
 * states of both tasks.  SIGINT or SIGTERM meanwhile cancels the job (scancel).  The results
 * are read back by command.c as a local run reads its command, so the choice is the same.
 */
#define _DEFAULT_SOURCE   /* SA_RESTART */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "measure.h"

enum { DIRMAX = 1024 };         /* work directory's path, at most */
enum { PATHMAX = DIRMAX + 128 };

typedef struct Lost {           /* a key left unmeasured, and why */
	char key[33];
	char *why;
} Lost;

struct SlurmRun {
	char dir[DIRMAX];           /* absolute */
	const char *partition;
	int max_tasks;
	const char *cmd;
	int cmd_model;              /* the command names {modelled_us} */
	uint64_t h[2];              /* the hash of the target and the command */
	Lost *lost;                 /* sorted by key */
	int64_t nlost;
};

/* ---- keys and files ------------------------------------------------------------------ */

static int
has_result(const SlurmRun *r, const char *key)
{
	char p[PATHMAX];
	snprintf(p, sizeof p, "%s/r/%s.st", r->dir, key);
	return access(p, F_OK) == 0;
}

/* text into path, whole or not at all (a name of this process's own, then renamed) */
static int
write_whole(const char *path, const char *text)
{
	char tmp[PATHMAX + 32];
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int bad = fputs(text, f) < 0;
	if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
		remove(tmp);
		return -1;
	}
	return 0;
}

/* is NAME an executable on PATH? */
static int
on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return 0;
	for (const char *s = path; *s;) {
		size_t n = strcspn(s, ":");
		char p[PATHMAX];
		snprintf(p, sizeof p, "%.*s/%s", (int)(n < 1000 ? n : 1000), s, name);
		if (n > 0 && access(p, X_OK) == 0)
			return 1;
		s += n + (s[n] == ':');
	}
	return 0;
}

int
slurm_ready(const SlurmOpts *o, char *why, size_t nwhy)
{
	const char *tools[] = { "sbatch", "squeue", "scancel" };
	for (int i = 0; i < 3; i++)
		if (!on_path(tools[i])) {
			snprintf(why, nwhy, "%s is not on PATH: --slurm submits with sbatch and follows with squeue (run it on a "
			         "machine that can submit to the cluster, with Slurm's client commands: Debian's slurm-client)",
			         tools[i]);
			return -1;
		}
	const char *d = o->workdir;
	if (strlen(d) + 1 > DIRMAX - 200 || strpbrk(d, "'\n")) {
		snprintf(why, nwhy, "--workdir '%.200s': at most %d characters, and no quote or newline", d, DIRMAX - 200);
		return -1;
	}
	if (ax_mkdir_p(d) != 0 || access(d, W_OK) != 0) {
		snprintf(why, nwhy, "cannot make or write the work directory %.300s: %s", d, strerror(errno));
		return -1;
	}
	return 0;
}

SlurmRun *
slurm_open(const SlurmOpts *o, const char *target, const char *cmd, char *why, size_t nwhy)
{
	if (slurm_ready(o, why, nwhy) != 0)
		return NULL;
	SlurmRun *r = calloc(1, sizeof *r);
	if (!r)
		ax_die("out of memory");
	char cwd[DIRMAX], abspath[2 * DIRMAX + 2] = "";
	if (o->workdir[0] == '/')
		snprintf(abspath, sizeof abspath, "%s", o->workdir);
	else if (getcwd(cwd, sizeof cwd))
		snprintf(abspath, sizeof abspath, "%s/%s", cwd, o->workdir);
	if (strlen(abspath) + 200 < sizeof r->dir)   /* room for the files' names under it */
		memcpy(r->dir, abspath, strlen(abspath) + 1);
	const char *sub[] = { "c", "r", "run" };
	for (int i = 0; i < 3 && r->dir[0]; i++) {
		char p[PATHMAX];
		snprintf(p, sizeof p, "%s/%s", r->dir, sub[i]);
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			snprintf(why, nwhy, "cannot make %.300s: %s", p, strerror(errno));
			free(r);
			return NULL;
		}
	}
	if (!r->dir[0] || strpbrk(r->dir, "'\n")) {
		snprintf(why, nwhy, "the work directory's path is too long or has a quote");
		free(r);
		return NULL;
	}
	r->partition = o->partition;
	r->max_tasks = o->max_tasks > 0 ? o->max_tasks : 16;
	r->cmd = cmd;
	r->cmd_model = strstr(cmd, "{modelled_us}") != NULL;
	r->h[0] = 1469598103934665603ull;
	r->h[1] = 0x84222325cbf29ce4ull;
	ax_hash_add(r->h, target);
	ax_hash_add(r->h, cmd);
	return r;
}

int
slurm_put(const SlurmRun *r, const char *kernel, const char *config, double modelled_s, char key[33], char *why,
          size_t nwhy)
{
	uint64_t h[2] = { r->h[0], r->h[1] };
	ax_hash_add(h, kernel);
	ax_hash_add(h, config);
	char num[64];
	snprintf(num, sizeof num, "%.17g", modelled_s * 1e6);
	if (r->cmd_model)
		ax_hash_add(h, num);
	ax_hash_hex(h, key);
	char kp[PATHMAX], cp[PATHMAX], sp[PATHMAX];
	snprintf(kp, sizeof kp, "%s/c/%s.py", r->dir, key);
	snprintf(cp, sizeof cp, "%s/c/%s.json", r->dir, key);
	snprintf(sp, sizeof sp, "%s/c/%s.sh", r->dir, key);
	if (access(sp, F_OK) == 0)   /* written before (the script last) */
		return 0;
	char *line = command_line(r->cmd, kp, cp, modelled_s);
	size_t n = strlen(line) + 16;
	char *sh = malloc(n);
	if (!sh)
		ax_die("out of memory");
	snprintf(sh, n, "(\n%s\n)\n", line);
	free(line);
	int rc = write_whole(kp, kernel) || write_whole(cp, config) || write_whole(sp, sh) ? -1 : 0;
	free(sh);
	if (rc)
		snprintf(why, nwhy, "cannot write the candidate into %.300s/c: %s", r->dir, strerror(errno));
	return rc;
}

/* ---- running Slurm's commands ---------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void
on_stop(int sig)
{
	stop_signal = sig;
}

/* a shell command's output (its stderr too) into out; its exit code, -1 if it could not run */
static int
run_capture(const char *cmd, char *out, size_t nout)
{
	out[0] = 0;
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t k = 0, r;
	char buf[4096];
	while ((r = fread(buf, 1, sizeof buf, p)) > 0)
		for (size_t i = 0; i < r; i++)
			if (k + 1 < nout)
				out[k++] = buf[i];
	out[k] = 0;
	int st = pclose(p);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void
one_line(char *s)   /* newlines to spaces, trailing space dropped */
{
	for (char *p = s; *p; p++)
		if (*p == '\n')
			*p = ' ';
	for (size_t n = strlen(s); n > 0 && s[n - 1] == ' '; n--)
		s[n - 1] = 0;
}

static void
sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

/* ---- one array job --------------------------------------------------------------------- */

enum { ST_ACTIVE, ST_DONE, ST_FAILED };
enum { FOLLOW_GIVE_UP_S = 300 };   /* squeue failing this long in a row: stop following */

typedef struct Job {
	char id[64];
	char rundir[PATHMAX];
	int ntasks;
	int64_t n;                  /* keys */
	char (*state)[24];          /* per task, as squeue said it last ("" if never seen) */
	int gone;                   /* squeue no longer knows the job */
} Job;

static int
state_kind(const char *s)
{
	static const char *const failed[] = { "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
	                                      "DEADLINE", "OUT_OF_MEMORY", "REVOKED", "SPECIAL_EXIT" };
	if (strcmp(s, "COMPLETED") == 0)
		return ST_DONE;
	for (size_t i = 0; i < sizeof failed / sizeof failed[0]; i++)
		if (strcmp(s, failed[i]) == 0)
			return ST_FAILED;
	return ST_ACTIVE;   /* PENDING, RUNNING, CONFIGURING, COMPLETING, SUSPENDED, REQUEUED, ... */
}

/* the task that measures key j of n in ntasks slices */
static int
task_of(int64_t j, int64_t n, int ntasks)
{
	int i = (int)(j * ntasks / n);
	while (i + 1 < ntasks && (int64_t)(i + 1) * n / ntasks <= j)
		i++;
	while (i > 0 && (int64_t)i * n / ntasks > j)
		i--;
	return i;
}

static int
write_job_files(const SlurmRun *r, Job *jb, char (*keys)[33])
{
	char p[PATHMAX + 32];
	snprintf(p, sizeof p, "%s/keys", jb->rundir);
	FILE *f = fopen(p, "w");
	if (!f)
		return -1;
	for (int64_t i = 0; i < jb->n; i++)
		fprintf(f, "%s\n", keys[i]);
	if (fclose(f) != 0)
		return -1;
	char *sh = NULL;
	size_t len = 0;
	f = open_memstream(&sh, &len);
	fprintf(f,
	        "#!/bin/sh\n"
	        "# written by axonc compile --slurm: array task i measures the i-th of %d slices of the %lld keys\n"
	        "# in keys; each result is written under a name of its own, then renamed into place (.st last)\n"
	        "D='%s'\n"
	        "R='%s'\n"
	        "T=%d\n"
	        "N=%lld\n"
	        "i=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\n"
	        "a=$((i * N / T)); b=$(((i + 1) * N / T))\n"
	        "tag=${SLURM_JOB_ID:-0}.$i\n"
	        "sed -n \"$((a + 1)),${b}p\" \"$R/keys\" | while read -r k; do\n"
	        "\t[ -e \"$D/r/$k.st\" ] && continue\n"
	        "\tsh \"$D/c/$k.sh\" >\"$D/r/$k.out.$tag\" 2>\"$D/r/$k.err.$tag\" </dev/null\n"
	        "\tst=$?\n"
	        "\t# killed by a signal: if this task is being cancelled, its own signal ends it here,\n"
	        "\t# before it writes the killing as the candidate's result\n"
	        "\t[ $st -gt 128 ] && sleep 3\n"
	        "\techo $st >\"$D/r/$k.st.$tag\"\n"
	        "\tmv -f \"$D/r/$k.out.$tag\" \"$D/r/$k.out\" && mv -f \"$D/r/$k.err.$tag\" \"$D/r/$k.err\" &&\n"
	        "\t\tmv -f \"$D/r/$k.st.$tag\" \"$D/r/$k.st\" || exit 1\n"
	        "done || exit 1\n"
	        ": >\"$R/done.$i\"\n",
	        jb->ntasks, (long long)jb->n, r->dir, jb->rundir, jb->ntasks, (long long)jb->n);
	fclose(f);
	snprintf(p, sizeof p, "%s/task.sh", jb->rundir);
	int rc = write_whole(p, sh);
	free(sh);
	return rc;
}

static int
submit(const SlurmRun *r, Job *jb)
{
	char cmd[3 * PATHMAX], out[2048];
	int k = snprintf(cmd, sizeof cmd,
	                 "sbatch --parsable --array=0-%d --job-name=axonc-measure --no-requeue --ntasks=1 "
	                 "--output='%s/task-%%a.log'",
	                 jb->ntasks - 1, jb->rundir);
	if (r->partition)
		k += snprintf(cmd + k, sizeof cmd - (size_t)k, " --partition='%s'", r->partition);
	snprintf(cmd + k, sizeof cmd - (size_t)k, " '%s/task.sh' 2>&1", jb->rundir);
	int rc = run_capture(cmd, out, sizeof out);
	long id = 0;   /* --parsable: "ID" or "ID;CLUSTER" on a line of its own, after any warning */
	for (char *line = out; line && *line;) {
		char *nl = strchr(line, '\n'), *end;
		long x = strtol(line, &end, 10);
		if (end != line && (*end == '\n' || *end == ';' || *end == 0))
			id = x;
		line = nl ? nl + 1 : NULL;
	}
	if (rc != 0 || id <= 0) {
		one_line(out);
		fprintf(stderr, "axonc: error: --slurm: sbatch failed (exit %d): %.1000s\n", rc, out[0] ? out : "no output");
		return -1;
	}
	snprintf(jb->id, sizeof jb->id, "%ld", id);
	return 0;
}

/* the tasks' states from squeue; 0 if it answered */
static int
poll_states(Job *jb, char *err, size_t nerr)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "squeue -h -r -t all -j %s -o '%%K %%T' 2>&1", jb->id);
	size_t cap = 64 * (size_t)jb->ntasks + 4096;
	char *out = malloc(cap);
	if (!out)
		ax_die("out of memory");
	int rc = run_capture(cmd, out, cap);
	if (rc != 0 && strstr(out, "Invalid job id")) {   /* purged already (MinJobAge): every task has ended */
		jb->gone = 1;
		free(out);
		return 0;
	}
	if (rc != 0) {
		snprintf(err, nerr, "%.300s", out);
		one_line(err);
		free(out);
		return -1;
	}
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		int i;
		char st[24];
		if (sscanf(line, "%d %23s", &i, st) == 2 && i >= 0 && i < jb->ntasks)
			snprintf(jb->state[i], sizeof jb->state[i], "%s", st);
	}
	free(out);
	return 0;
}

/* counts of the tasks: [ST_ACTIVE] split into pending and running */
static void
tally(const Job *jb, int *pending, int *running, int *done, int *failed)
{
	*pending = *running = *done = *failed = 0;
	for (int i = 0; i < jb->ntasks; i++) {
		const char *s = jb->state[i];
		int k = s[0] ? state_kind(s) : ST_ACTIVE;
		if (k == ST_DONE)
			(*done)++;
		else if (k == ST_FAILED)
			(*failed)++;
		else if (jb->gone)   /* ended, in a state squeue did not show us */
			(*failed)++;
		else if (!s[0] || strcmp(s, "PENDING") == 0)
			(*pending)++;
		else
			(*running)++;
	}
}

/* submits keys[0..n) (distinct, none with a result) as one array job and follows it until
 * every task has ended or every key has a result; 0, or -1 (said) */
static int
run_job(SlurmRun *r, Job *jb, char (*keys)[33], int64_t n, int progress)
{
	*jb = (Job){ .n = 0 };
	jb->n = n;
	jb->ntasks = n < r->max_tasks ? (int)n : r->max_tasks;
	snprintf(jb->rundir, sizeof jb->rundir, "%s/run/job.XXXXXX", r->dir);
	if (!mkdtemp(jb->rundir) || write_job_files(r, jb, keys) != 0) {
		fprintf(stderr, "axonc: error: --slurm: cannot write the job's files under %s/run: %s\n", r->dir,
		        strerror(errno));
		return -1;
	}
	if (!(jb->state = calloc((size_t)jb->ntasks, sizeof *jb->state)))
		ax_die("out of memory");
	if (submit(r, jb) != 0)
		return -1;
	fprintf(stderr, "axonc: slurm: submitted job %s: %d array task%s for %lld candidate%s%s%s\n", jb->id, jb->ntasks,
	        jb->ntasks == 1 ? "" : "s", (long long)n, n == 1 ? "" : "s", r->partition ? ", partition " : "",
	        r->partition ? r->partition : "");
	double t0 = ax_now_ms(), last_ok = t0;
	char shown[256] = "", err[400] = "";
	for (;;) {
		if (stop_signal) {
			char cmd[128], out[512];
			snprintf(cmd, sizeof cmd, "scancel %s 2>&1", jb->id);
			int rc = run_capture(cmd, out, sizeof out);
			one_line(out);
			if (progress)
				fputc('\n', stderr);
			fprintf(stderr, "axonc: error: interrupted (signal %d): %s Slurm job %s%s%s; the results written so far "
			        "stay in %s, and the same command resumes from them\n", (int)stop_signal,
			        rc == 0 ? "cancelled" : "could not cancel", jb->id, rc == 0 ? "" : ": ", rc == 0 ? "" : out, r->dir);
			return -1;
		}
		int64_t have = 0;
		for (int64_t i = 0; i < n; i++)
			have += has_result(r, keys[i]);
		int answered = poll_states(jb, err, sizeof err) == 0;
		double now = ax_now_ms();
		if (answered)
			last_ok = now;
		else if (now - last_ok > FOLLOW_GIVE_UP_S * 1e3) {
			fprintf(stderr, "axonc: error: --slurm: cannot follow job %s: squeue failed for %d s: %s; the job is left "
			        "as it is, its results stay in %s (the same command resumes from them)\n", jb->id,
			        FOLLOW_GIVE_UP_S, err, r->dir);
			return -1;
		}
		int pending, running, done, failed;
		tally(jb, &pending, &running, &done, &failed);
		char line[256];
		snprintf(line, sizeof line, "axonc: slurm job %s: %d done, %d failed, %d running, %d pending; %lld/%lld measured",
		         jb->id, done, failed, running, pending, (long long)have, (long long)n);
		if (progress)
			fprintf(stderr, "\r%s   ", line);
		else {   /* a line when the tasks' counts change */
			char *cut = strchr(line, ';');
			if (strncmp(line, shown, (size_t)(cut - line)) != 0 || strlen(shown) != (size_t)(cut - line)) {
				fprintf(stderr, "%.*s\n", (int)(cut - line), line);
				snprintf(shown, sizeof shown, "%.*s", (int)(cut - line), line);
			}
		}
		if (have == n || (answered && pending + running == 0))
			break;
		double s = (now - t0) / 1e3;   /* squeue every 0.5 s at first, every 2 s after a minute */
		sleep_s(s < 60 ? 0.5 : 2);
	}
	if (progress)
		fputc('\n', stderr);
	return 0;
}

/* ---- the whole measurement --------------------------------------------------------------- */

static int
key_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void
add_lost(SlurmRun *r, const char *key, const char *why)
{
	Lost *l = realloc(r->lost, sizeof *l * (size_t)(r->nlost + 1));
	if (!l)
		ax_die("out of memory");
	r->lost = l;
	snprintf(l[r->nlost].key, sizeof l[r->nlost].key, "%s", key);
	if (!(l[r->nlost].why = strdup(why)))
		ax_die("out of memory");
	r->nlost++;
}

/* the keys of jb without a result, into left (returns how many); why[j] (key j's reasons so far)
 * moves with its key, what became of its task added */
static int64_t
leftover(const Job *jb, const SlurmRun *r, char (*keys)[33], char (*left)[33], char **why, int round)
{
	int64_t m = 0;
	for (int64_t j = 0; j < jb->n; j++) {
		char *prev = why[j];
		why[j] = NULL;
		if (has_result(r, keys[j])) {
			free(prev);
			continue;
		}
		int i = task_of(j, jb->n, jb->ntasks);
		char w[PATHMAX + 300];
		snprintf(w, sizeof w, "%sarray task %d of Slurm job %s ended %s (its output: %s/task-%d.log)",
		         round ? ", then in its retry " : "", i, jb->id,
		         jb->state[i][0] && (!jb->gone || state_kind(jb->state[i]) != ST_ACTIVE) ? jb->state[i]
		         : "without writing its results", jb->rundir, i);
		size_t had = prev ? strlen(prev) : 0;
		char *s = malloc(had + strlen(w) + 1);
		if (!s)
			ax_die("out of memory");
		memcpy(s, prev ? prev : "", had);
		strcpy(s + had, w);
		free(prev);
		why[m] = s;   /* m <= j: every why[< j] was emptied or moved below m */
		memmove(left[m], keys[j], sizeof left[m]);
		m++;
	}
	return m;
}

/* the job's own directory, removed when every task completed and every key has a result */
static void
job_done(const SlurmRun *r, Job *jb, int64_t left)
{
	int pending, running, done, failed;
	tally(jb, &pending, &running, &done, &failed);
	if (left == 0 && done == jb->ntasks) {
		char p[PATHMAX + 64];
		const char *f[2] = { "keys", "task.sh" };
		for (int k = 0; k < 2; k++) {
			snprintf(p, sizeof p, "%s/%s", jb->rundir, f[k]);
			remove(p);
		}
		for (int i = 0; i < jb->ntasks; i++) {
			snprintf(p, sizeof p, "%s/task-%d.log", jb->rundir, i);
			remove(p);
			snprintf(p, sizeof p, "%s/done.%d", jb->rundir, i);
			remove(p);
		}
		rmdir(jb->rundir);
	} else
		fprintf(stderr, "axonc: slurm job %s: %d of %d tasks completed, %d ended otherwise; %lld candidate%s without a "
		        "result (logs in %s)\n", jb->id, done, jb->ntasks, jb->ntasks - done, (long long)left,
		        left == 1 ? "" : "s", jb->rundir);
	(void)r;
	free(jb->state);
	jb->state = NULL;
}

int
slurm_measure(SlurmRun *r, char (*keys)[33], int64_t n, int progress)
{
	char(*todo)[33] = malloc(sizeof *todo * (size_t)(n + 1));
	if (!todo)
		ax_die("out of memory");
	memcpy(todo, keys, sizeof *todo * (size_t)n);
	qsort(todo, (size_t)n, sizeof *todo, key_cmp);
	int64_t distinct = 0, m = 0;
	for (int64_t i = 0; i < n; i++) {
		if (i > 0 && strcmp(todo[i], todo[i - 1]) == 0)
			continue;
		distinct++;
		if (!has_result(r, todo[i])) {
			memmove(todo[m], todo[i], sizeof todo[m]);
			m++;
		}
	}
	fprintf(stderr, "axonc: slurm: %lld candidate%s (%lld distinct), %lld with results in %s, %lld to measure\n",
	        (long long)n, n == 1 ? "" : "s", (long long)distinct, (long long)(distinct - m), r->dir, (long long)m);
	char **why = calloc((size_t)m + 1, sizeof *why);
	char(*left)[33] = malloc(sizeof *left * (size_t)(m + 1));
	if (!why || !left)
		ax_die("out of memory");
	struct sigaction sa = { 0 }, old[3];
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART;   /* reads of sbatch's and squeue's output go on; the sleeps end early */
	sigemptyset(&sa.sa_mask);
	const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	stop_signal = 0;
	for (int k = 0; k < 3; k++)
		sigaction(sigs[k], &sa, &old[k]);
	int rc = 0;
	for (int round = 0; round < 2 && m > 0 && rc == 0; round++) {
		Job jb;
		rc = run_job(r, &jb, todo, m, progress);
		if (rc == 0) {
			m = leftover(&jb, r, todo, left, why, round);
			memcpy(todo, left, sizeof *todo * (size_t)m);
			job_done(r, &jb, m);
			if (m > 0 && round == 0)
				fprintf(stderr, "axonc: slurm: retrying the %lld candidate%s left, once, as a new array job\n",
				        (long long)m, m == 1 ? "" : "s");
		}
		free(jb.state);
	}
	for (int k = 0; k < 3; k++)
		sigaction(sigs[k], &old[k], NULL);
	if (rc == 0 && m > 0) {
		for (int64_t j = 0; j < m; j++)
			add_lost(r, todo[j], why[j]);
		qsort(r->lost, (size_t)r->nlost, sizeof *r->lost, key_cmp);
		fprintf(stderr, "axonc: slurm: %lld candidate%s unmeasured: %s\n", (long long)m, m == 1 ? "" : "s", why[0]);
	}
	for (int64_t j = 0; j <= m && why; j++)
		free(why[j]);
	free(why);
	free(left);
	free(todo);
	return rc;
}

double
slurm_latency(const SlurmRun *r, const char *key, char *why, size_t nwhy)
{
	char p[PATHMAX];
	snprintf(p, sizeof p, "%s/r/%s.st", r->dir, key);
	FILE *f = fopen(p, "r");
	int code;
	if (!f || fscanf(f, "%d", &code) != 1) {
		if (f)
			fclose(f);
		Lost k = { .why = NULL };
		snprintf(k.key, sizeof k.key, "%s", key);
		const Lost *l = r->nlost ? bsearch(&k, r->lost, (size_t)r->nlost, sizeof *r->lost, key_cmp) : NULL;
		snprintf(why, nwhy, "%.580s", l ? l->why : "no result was written");
		return -2;
	}
	fclose(f);
	snprintf(p, sizeof p, "%s/r/%s.out", r->dir, key);
	f = fopen(p, "r");
	double last = f ? command_last_number(f) : 0;
	if (f)
		fclose(f);
	snprintf(p, sizeof p, "%s/r/%s.err", r->dir, key);
	return command_verdict(code, last, p, why, nwhy);
}

void
slurm_close(SlurmRun *r)
{
	if (!r)
		return;
	for (int64_t i = 0; i < r->nlost; i++)
		free(r->lost[i].why);
	free(r->lost);
	free(r);
}
