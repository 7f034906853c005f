/* treemarks.h - the marks of the human report's PCIe tree: what fails or warns a check, on its row (pure). */
#pragma once

#include <stdbool.h>

#include "report/checks/profile.h"
#include "report/render/treerow.h"

/*
 * Each function appends to @r the marks of one row, "FAIL links: admin down", in the checks' order.
 * A mark is only added while the check it names failed or warned in @p, so the tree never
 * contradicts the verdict; its text mirrors that check's finding for the row's part. @o's PCI bus
 * was read (the tree is only drawn then). Host text in a mark goes through treerow_clean().
 */

/**
 * treemarks_mark() - add the mark "STATUS ID: TEXT" for check @id, when it failed or warned.
 */
void treemarks_mark(const struct profile *p, struct treerow *r, enum check_id id, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * treemarks_gpu() - a GPU row: no NIC in its switch (@in_switch), or in no switch at all.
 */
void treemarks_gpu(const struct profile *p, const struct profile_gpu *g, bool in_switch, struct treerow *r);

/*
 * The most marks treemarks_nic() adds: gpu-nics 1, pairing 1, links 3 (flapping or down, MTU,
 * IPv4), networks 1, aperture-devices 1.
 */
#define TREEMARKS_NIC_MAX 7

/**
 * treemarks_nic() - a GPU NIC row: its driver (gpu-nics), switch and GPUs served (pairing), link
 * (links), Network (networks) and, on TCPXO, aperture entry @e (the one the row names, or NULL).
 */
void treemarks_nic(const struct observation *o, const struct profile *p, const struct profile_nic *n,
		   const struct obs_aperture_entry *e, struct treerow *r);

/**
 * treemarks_entry() - an aperture entry no NIC row names: what is wrong with it, else which
 * address it serves that no row claims alone.
 */
void treemarks_entry(const struct observation *o, const struct profile *p, const struct obs_aperture_entry *e,
		     struct treerow *r);
