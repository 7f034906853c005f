/* rdma.h - the RDMA devices of <root>/sys/class/infiniband: PCI function, port 1, RoCE v2 GID, netdev. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/obs_host.h"

/*
 * rdma_scan() - read every RDMA device under @rootfd's sys/class/infiniband into @ret (no such
 * folder: present false, status ok). Return: 0 (a device it cannot read is reported in it, not
 * an error).
 */
int rdma_scan(int rootfd, struct obs_rdma *ret);

/*
 * Pure, exposed for tests. rdma_parse_state(): "4: ACTIVE\n" (the kernel's "%d: %s\n" of
 * ports/N/state and phys_state) into its number and name. Return: 0, or -EINVAL.
 */
int rdma_parse_state(const char *text, int *ret_num, char *name, size_t len);

/*
 * rdma_parse_gid(): a gids/N text, the kernel's %pI6 (eight groups of four hex digits, no
 * compression, "0000:...:ffff:0a00:0407\n"), into 16 bytes. Return: 0, or -EINVAL.
 */
int rdma_parse_gid(const char *text, uint8_t gid[16]);

/* rdma_gid_ipv4(): whether @gid is IPv4-mapped (::ffff:a.b.c.d); the address (network order) in *@ret. */
bool rdma_gid_ipv4(const uint8_t gid[16], uint32_t *ret);
