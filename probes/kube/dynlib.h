/* dynlib.h - the one loader of an optional shared library: dlopen'd on first use, its functions resolved into a table. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * DYNLIB_NOTE() - declare the dependency for packagers and image checks that read ELF notes
 * rather than NEEDED entries: the FDO "ELF dlopen metadata" note (section .note.dlopen, as
 * systemd writes them). All arguments are string literals; @ident names the object.
 */
#define DYNLIB_NOTE_JSON(feature, description, priority, soname) \
	"[{\"feature\":\"" feature "\",\"description\":\"" description "\",\"priority\":\"" priority \
	"\",\"soname\":[\"" soname "\"]}]"
#define DYNLIB_NOTE(ident, feature, description, priority, soname) \
	__attribute__((used, section(".note.dlopen"))) _Alignas(4) static const struct { \
		struct { \
			uint32_t n_namesz, n_descsz, n_type; \
		} nhdr; \
		char name[sizeof("FDO")]; \
		_Alignas(4) char json[sizeof(DYNLIB_NOTE_JSON(feature, description, priority, soname))]; \
	} ident = { \
		.nhdr = { .n_namesz = sizeof("FDO"), \
			  .n_descsz = sizeof(DYNLIB_NOTE_JSON(feature, description, priority, soname)), \
			  .n_type = 0x407c0c0a }, \
		.name = "FDO", \
		.json = DYNLIB_NOTE_JSON(feature, description, priority, soname), \
	}

/* One function to resolve: its symbol and where its pointer goes in the caller's table. */
struct dynlib_sym {
	const char *name;
	size_t offset;
};

/**
 * dynlib_load() - dlopen @soname (RTLD_NOW, RTLD_LOCAL) and write each of the @n @syms into
 * @table, once: *@handle holds the library, never closed (a library with atexit handlers, as
 * OpenSSL behind libcurl, is not safe to unload), and a later call with it set does nothing.
 * @package: the Debian package to install, @lib the library's name, both for the message.
 * Return: 0; -ELIBACC with @err saying what is missing (the library, or a function: too old).
 */
int dynlib_load(const char *soname, const char *package, const char *lib, const struct dynlib_sym *syms, size_t n,
		void *table, void **handle, char *err, size_t errlen);
