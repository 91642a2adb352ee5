#include "isolate.h"
#include "check.h"
#include "fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

void mg_verdict_died(struct mg_verdict *out, int signo)
{
	out->cls = MG_CRASH;
	out->warnings = 0;
	snprintf(out->detail, sizeof out->detail,
		 "the harness process died of %s (%s) on this case", mg_signal_name(signo),
		 strsignal(signo));
}

void mg_check_isolated(const struct mg_case *c, struct mg_verdict *out)
{
	struct mg_verdict *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	if (shared == MAP_FAILED) {
		perror("memgate: mmap");
		exit(3);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("memgate: fork");
		exit(3);
	}
	if (pid == 0) {
		mg_check(c, shared);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	if (WIFSIGNALED(status))
		mg_verdict_died(out, WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0) {
		out->cls = MG_CRASH;
		out->warnings = 0;
		snprintf(out->detail, sizeof out->detail,
			 "the harness process exited with status %d on this case",
			 WEXITSTATUS(status));
	} else
		*out = *shared;
	munmap(shared, sizeof *shared);
}
