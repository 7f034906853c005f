/* kubename.h - pure: whether a text is a Kubernetes object name that may go into a request path or a kubectl argument. */
#pragma once

#include <stdbool.h>

#define KUBENAME_MAX 253                /* a DNS subdomain (RFC 1123) */

/**
 * kubename_valid() - whether @name is a DNS subdomain (RFC 1123): 1..253 characters of
 * [a-z0-9.-], dot-separated labels of 1..63 characters that start and end with [a-z0-9].
 * Every Node name is one; nothing else is ever put into a request path, or handed to kubectl
 * (no name can then read as one of its options).
 */
bool kubename_valid(const char *name);
