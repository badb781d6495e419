/*
 * proc.c — child processes that never outlive axonc: a worker or a bounded
 * solver query is killed when the process that forked it ends, whatever
 * ended it (SIGKILL included), so no orphan keeps running and holding memory.
 */
#include <signal.h>
#include <sys/prctl.h>
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
