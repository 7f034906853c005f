/* fuzz_imageref.c - image references and version tags: parse, digest, normalise, compare. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/imageref.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), *second;
	char ver[IMAGEREF_VERSION_MAX], ver2[IMAGEREF_VERSION_MAX], digest[IMAGEREF_DIGEST_MAX];
	struct imageref ref;

	if (!s)
		return 0;
	if (imageref_parse(s, &ref) == 0) {
		imageref_basename(&ref);
		if (ref.tag[0] && imageref_version_normalize(ref.tag, ver, sizeof(ver)) == 0 &&
		    !imageref_version_equal(ref.tag, ref.tag))
			abort();        /* a tag that normalises must equal itself */
	}
	imageref_digest_of(s, digest, sizeof(digest));
	if (imageref_version_normalize(s, ver, sizeof(ver)) == 0) {
		/* Normalising is idempotent. */
		if (imageref_version_normalize(ver, ver2, sizeof(ver2)) < 0 || strcmp(ver, ver2) != 0)
			abort();
	}
	imageref_version_normalize(s, ver, 1);  /* the smallest buffer must be refused, not overrun */
	/* Two tags: the input split at its first newline; cmp must be antisymmetric. */
	second = strchr(s, '\n');
	if (second) {
		*second++ = '\0';
		if (imageref_version_cmp(s, second) != -imageref_version_cmp(second, s))
			abort();
		imageref_version_equal(s, second);
	}
	free(s);
	return 0;
}
