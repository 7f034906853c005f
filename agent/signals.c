/* signals.c - the daemon's signals: SIGTERM/SIGINT stop it (cancelling an API call in flight), SIGHUP re-observes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/time.h>
#include <unistd.h>

#include "agent/signals.h"

#define SIGNALS_CANCEL_TICK_MS  20      /* SIGTERM during an API call: re-cancel this often */
#define SIGNALS_CANCEL_GIVEUP_MS 900    /* ... and leave at once after this long */

/* Set by the handlers; read by the loop. */
static volatile sig_atomic_t signals_term_sig, signals_hup, signals_in_api, signals_cancel_ticks;
static volatile int signals_fd = -1;
static int signals_pipe[2] = { -1, -1 };
static struct http_client *volatile signals_http;

/*
 * http_cancel() stops the call in flight, but a publisher function makes several calls in a
 * row and the flag is consumed by the first. So after SIGTERM during an API call, a timer
 * cancels again every tick (its signal also interrupts the poll() inside libcurl, so the
 * cancel is seen at once), and if the call still has not returned, the process leaves: the
 * annotations stay as they are either way.
 */
static void signals_on_alarm(int sig)
{
	int saved = errno;

	if (signals_http)
		http_cancel(signals_http);
	if (signals_in_api && ++signals_cancel_ticks * SIGNALS_CANCEL_TICK_MS >= SIGNALS_CANCEL_GIVEUP_MS)
		_exit(0);
	errno = saved;
}

static void signals_on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGHUP) {
		signals_hup = 1;
	} else {
		signals_term_sig = sig;
		if (signals_http)
			http_cancel(signals_http);
		if (signals_in_api) {
			struct itimerval tick = {
				.it_interval = { .tv_usec = SIGNALS_CANCEL_TICK_MS * 1000 },
				.it_value = { .tv_usec = SIGNALS_CANCEL_TICK_MS * 1000 },
			};

			setitimer(ITIMER_REAL, &tick, NULL);
		}
	}
	if (signals_fd >= 0)
		(void)!write(signals_fd, "s", 1);
	errno = saved;
}

int signals_setup(struct http_client *http, int *ret_fd)
{
	struct sigaction sa = { .sa_handler = signals_on_signal }, alarm_sa = { .sa_handler = signals_on_alarm };
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

	signals_term_sig = signals_hup = signals_in_api = signals_cancel_ticks = 0;
	if (pipe2(signals_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	signals_fd = signals_pipe[1];
	signals_http = http;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&alarm_sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	}
	if (sigaction(SIGALRM, &alarm_sa, NULL) < 0)
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	*ret_fd = signals_pipe[0];
	return 0;
}

void signals_reset(void)
{
	struct itimerval off = { 0 };

	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signals_fd = -1;
	signals_http = NULL;
	for (int i = 0; i < 2; i++) {
		if (signals_pipe[i] >= 0)
			close(signals_pipe[i]);
		signals_pipe[i] = -1;
	}
}

int signals_term(void)
{
	return signals_term_sig;
}

bool signals_take_hup(void)
{
	char buf[64];
	bool hup;

	while (signals_pipe[0] >= 0 && read(signals_pipe[0], buf, sizeof(buf)) > 0)
		;
	hup = signals_hup;
	signals_hup = 0;
	return hup;
}

void signals_api(bool in)
{
	signals_in_api = in;
}
