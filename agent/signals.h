/* signals.h - the daemon's signals: SIGTERM/SIGINT stop it (cancelling an API call in flight), SIGHUP re-observes. */
#pragma once

#include <stdbool.h>

#include "probes/kube/http.h"

/**
 * signals_setup() - handle SIGTERM, SIGINT and SIGHUP (SIGPIPE ignored); each signal makes
 * *@ret_fd readable, so that the loop's poll() wakes. SIGTERM or SIGINT during an API call
 * (signals_api()) cancels it on @http and, should it not return within 900 ms, ends the
 * process (exit 0: the annotations stay as they are either way).
 * Return: 0; -errno (signals_reset() undoes what was set up).
 */
int signals_setup(struct http_client *http, int *ret_fd);

/* Default dispositions again; the pipe closed. */
void signals_reset(void);

/* SIGTERM or SIGINT when one came (the loop stops), else 0. */
int signals_term(void);

/* Whether a SIGHUP came since the last call; also empties the pipe. */
bool signals_take_hup(void);

/* An API call starts (@in true) or has returned (false): what SIGTERM cancels. */
void signals_api(bool in);
