/* kubesrc_api.h - tcpxo-agent's cluster for the fleet commands: its own API client, made on first use. */
#pragma once

#include "agent/cli.h"
#include "agent/kubesrc.h"

/*
 * kubesrc_api_open() - @ret reads the cluster with the agent's API client (opt->api_server,
 * --token-file, --ca-file; in-cluster by default), made when a command first needs it: a command
 * whose inputs are all files never loads libcurl. Close with kubesrc_close().
 * Return: 0; -ENOMEM.
 */
int kubesrc_api_open(const struct cli_options *opt, struct kubesrc *ret);
