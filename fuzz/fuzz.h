/* fuzz.h - the one entry point every fuzz target exports, and the two drivers that call it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * fuzz_one() - feed one input to the parser(s) a target covers. Defined once per fuzz/fuzz_*.c.
 * Must never crash, leak or read out of bounds whatever @data holds; the return value is
 * ignored by both drivers (fuzz/libfuzzer.c for clang, fuzz/replay.c for make check).
 */
int fuzz_one(const uint8_t *data, size_t size);

/* libFuzzer's entry point (fuzz/libfuzzer.c). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated malloc'd copy of @data (the string parsers take char *); NULL on ENOMEM. */
char *fuzz_strndup(const uint8_t *data, size_t size);
