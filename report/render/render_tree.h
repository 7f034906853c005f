/* render_tree.h - the node as a tree: GPU PCIe switches by NUMA node, their GPUs and GPU NICs (pure). */
#pragma once

#include "probes/model/strbuf.h"
#include "report/checks/profile.h"
#include "report/render/treerow.h"

/**
 * render_tree() - append the human report's topology tree of @o, evaluated as @p, to @sb.
 *
 * One group per NUMA node (ascending, "numa unknown" last), in it each PCIe switch holding a GPU
 * (by the BDF of its upstream port), under it its GPUs and GPU NICs in BDF order: a GPU with the
 * NIC it is paired with, a NIC with its name, state, IPv4, aperture entry (TCPXO) and Network (when
 * the API named it). Then "outside the GPU switches": GPUs and GPU NICs in no GPU switch, aperture
 * entries that serve no NIC row, LLCM functions without an entry. A part that makes a check fail
 * or warn is marked on its own row ("FAIL links: admin down", treemarks.h), only while that check
 * failed or warned, so the tree never contradicts the verdict. Rows are laid out by treerow.h: host
 * and API text as visible ASCII ('?' for any other byte), every line at most RENDER_WIDTH
 * characters (a row wraps between its fields; a word too long for any line is cut with "…").
 * Nothing is appended when the PCI bus was not read or the profile has no GPU and no GPU NIC.
 *
 * Return: 0, or -ENOMEM (what was appended is then incomplete).
 */
int render_tree(const struct observation *o, const struct profile *p, struct strbuf *sb);
