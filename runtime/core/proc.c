/*
 * proc.c — child processes that never outlive axonc: a worker or a bounded
 * solver query is killed when the process that forked it ends, whatever
 * ended it (SIGKILL included), so no orphan keeps running and holding memory;
 * a user's command (--measure) runs in a process group that a watchdog kills
 * when the command's worker ends.
 */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "axon.h"

pid_t
ax_fork(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		/* SIGKILL when the forking thread ends; if it ended before this line ran, the
		 * child was already handed to another parent: stop at once */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127);
	}
	return pid;
}

/* The watchdog between a worker and a command: the command runs in a process
 * group of its own; when the command ends the watchdog kills what it left
 * behind in that group, and when the worker ends first (any signal) the
 * watchdog is told (SIGTERM) and kills the group, then itself. */
static volatile pid_t watched_group;

static void
watchdog_parent_died(int sig)
{
	(void)sig;
	if (watched_group > 0)
		kill(-watched_group, SIGKILL);
	_exit(128 + SIGTERM);
}

FILE *
ax_popen_group(const char *cmd, pid_t *pid)
{
	int fd[2];
	if (pipe(fd) != 0)
		return NULL;
	pid_t parent = getpid();
	pid_t w = fork();
	if (w < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (w == 0) {   /* the watchdog */
		struct sigaction sa = { 0 };
		sa.sa_handler = watchdog_parent_died;
		sigaction(SIGTERM, &sa, NULL);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
			_exit(127);
		close(fd[0]);
		pid_t c = fork();
		if (c == 0) {
			setpgid(0, 0);
			if (fd[1] != STDOUT_FILENO) {
				dup2(fd[1], STDOUT_FILENO);
				close(fd[1]);
			}
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		close(fd[1]);
		if (c < 0)
			_exit(127);
		setpgid(c, c);   /* also here: the group exists before any kill names it */
		watched_group = c;
		int st = 0;
		while (waitpid(c, &st, 0) < 0 && errno == EINTR)
			;
		kill(-c, SIGKILL);   /* what the command left running */
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0));
	}
	close(fd[1]);
	*pid = w;
	FILE *f = fdopen(fd[0], "r");
	if (!f) {
		close(fd[0]);
		kill(w, SIGTERM);
		waitpid(w, NULL, 0);
	}
	return f;
}

int
ax_pclose_group(FILE *f, pid_t pid)
{
	fclose(f);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}
