/* libfuzzer.c - the libFuzzer driver: LLVMFuzzerTestOneInput -> fuzz_one (clang builds only). */
#include <string.h>

#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_one(data, size);
	return 0;
}

