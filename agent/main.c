/* main.c - tcpxo-agent entry point: parse the command line and dispatch. */
#include <stdio.h>

#include "agent/cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
