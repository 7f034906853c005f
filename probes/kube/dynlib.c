/* dynlib.c - the one loader of an optional shared library: dlopen'd on first use, its functions resolved into a table. */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "probes/kube/dynlib.h"
#include "probes/model/errmsg.h"

int dynlib_load(const char *soname, const char *package, const char *lib, const struct dynlib_sym *syms, size_t n,
		void *table, void **handle, char *err, size_t errlen)
{
	void *h;

	if (*handle)
		return 0;
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return errmsg_set(err, errlen, -ELIBACC, "cannot load %s (install %s): %s", soname, package, dlerror());
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			errmsg_set(err, errlen, 0, "%s has no %s: too old a %s", soname, syms[i].name, lib);
			dlclose(h);
			return -ELIBACC;
		}
		memcpy((char *)table + syms[i].offset, &f, sizeof(f));
	}
	*handle = h;
	return 0;
}
