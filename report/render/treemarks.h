/* treemarks.h - the marks of the human report's PCIe tree: the findings the checks made on each row's part (pure). */
#pragma once

#include <stddef.h>

#include "report/checks/profile.h"
#include "report/render/treerow.h"

/*
 * The most marks a GPU NIC row carries: gpu-nics 1, pairing 1, links 3 (flapping or down, MTU,
 * IPv4), networks 1, aperture-devices 1.
 */
#define TREEMARKS_NIC_MAX 7

/**
 * treemarks_row() - append to @r the marks of part @on/@idx, "FAIL links: admin down": each finding
 * the checks recorded on it (struct mark), in the checks' order, while its check failed or
 * warned in @p, so the tree never contradicts the verdict. Host text goes through treerow_clean().
 */
void treemarks_row(const struct profile *p, enum mark_on on, size_t idx, struct treerow *r);
