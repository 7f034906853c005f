/* kubefacts.c - what the node checks read from the pod list: releases, the installer, container states. */
#include <string.h>

#include "report/checks/kubefacts.h"

const struct releases *kubefacts_releases(const struct obs_kube *k)
{
	return k->releases ? k->releases : releases_builtin();
}

const char *kubefacts_version_of(const struct obs_kube *k, const struct kube_container *ct)
{
	const struct releases *t = kubefacts_releases(k);
	enum releases_component comp = ct->role == KUBE_IMAGE_INSTALLER ? RELEASES_INSTALLER : RELEASES_DAEMON;
	const char *v;

	if ((v = releases_tag_by_digest(t, comp, ct->image_id_digest)))
		return v;
	if ((v = releases_tag_by_digest(t, comp, ct->digest)))
		return v;
	return ct->tag;
}
