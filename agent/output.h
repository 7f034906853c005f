/* output.h - a command's report on stdout: its JSON text or its human text, flushed; one message per failure; fds 0-2 made safe. */
#pragma once

/*
 * @prog starts the messages (opt->prog_name: "tcpxo-agent", "kubectl-fabric"); @who names the
 * command after it ("" for --once, "workloads: ", "runtime: ").
 */

/**
 * output_json() - put @text (a rendered JSON report; NULL when rendering ran out of memory) on
 * stdout, and free it.
 * Return: 0; -ENOMEM (said on stderr) when @text is NULL.
 */
int output_json(const char *prog, const char *who, char *text);

/**
 * output_flush() - flush what the report wrote to stdout, and check that no write of it failed.
 * Return: 0; -EIO (said on stderr).
 */
int output_flush(const char *prog, const char *who);

/**
 * output_guard_fds() - at start: a closed stdin, stdout or stderr would be taken by the next
 * open() (a sysfs file, a socket, a pipe to kubectl) and the report written into it; put
 * /dev/null there instead, so that the caller can refuse to report into the void.
 * Return: 1 when stdout was closed; 0; -1 when /dev/null cannot be opened.
 */
int output_guard_fds(void);
