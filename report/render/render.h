/* render.h - the report for people (text) and for scripts (JSON). */
#pragma once

#include <stdio.h>

#include "report/checks/profile.h"

#define RENDER_SCHEMA "fabric.aicr.run/v1"

/**
 * render_json() - the DESIGN.md JSON report, pretty-printed with a trailing newline.
 * Equal inputs give byte-identical output. Return: malloc'd text, or NULL on -ENOMEM.
 */
char *render_json(const struct observation *o, const struct profile *p);

/**
 * render_human() - the human report: the summary as the first line, the GPU<->NIC table,
 * then the checks, each failed or warned one with its cause and remedy.
 * Return: 0 or -errno from the stream.
 */
int render_human(const struct observation *o, const struct profile *p, FILE *out);

/* "10de:2330" into buf (10 bytes). */
void render_pci_id(uint16_t vendor, uint16_t device, char *buf, size_t len);
