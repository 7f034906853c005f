/* yaml.h - the YAML adapter: YAML text (one or many documents) into the JSON adapter's trees (the only face of libyaml). */
#pragma once

#include <stddef.h>

#include "probes/model/json.h"

/*
 * Names here start with yaml_load, which libyaml does not define (its own are
 * yaml_parser_*, yaml_document_*, yaml_event_*, ...): the two never collide at link time.
 */

#define YAML_TEXT_MAX (64u << 20)       /* bytes of one text; `helm template` of a whole stack fits */
#define YAML_DOCS_MAX 10000             /* documents in one text */
#define YAML_ALIAS_NODES_MAX 100000     /* nodes created by expanding aliases, all documents together */
#define YAML_NODES_MAX 4000000          /* nodes of all documents together */
#define YAML_KEY_MAX 4096               /* bytes of one mapping key */

/*
 * YAML text into trees, so the readers of JSON serve YAML unchanged (`helm template` output, a
 * pod annotation). A document holding nothing (only comments, or a bare "---") is a JSON null.
 *
 * Plain scalars resolve as in YAML 1.2's core schema: null (~, null, empty), true/false,
 * integers (decimal, 0o octal, 0x hex), floats (.inf, .nan included: JSON has no such value and
 * prints them as null); everything else, and every quoted or block scalar, is a string. Keys
 * are scalars and become strings. Integers beyond 2^53 lose precision, as in any JSON reader.
 * Only the core tags (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq, and "!") are
 * accepted. "<<" is an ordinary key (YAML 1.2 has no merge keys).
 *
 * Refused (-EINVAL, named in the error with "line L, column C", 1-based): more than
 * YAML_TEXT_MAX bytes or YAML_DOCS_MAX documents;
 * text that is not UTF-8 (a UTF-16 byte order mark included) or holds control characters;
 * syntax errors; nesting deeper than JSON_MAX_DEPTH (aliases included); an alias to an
 * undefined anchor or to the node that contains it; more than YAML_ALIAS_NODES_MAX nodes made
 * by aliases (a "billion laughs" text) or YAML_NODES_MAX in all; a duplicate key in a mapping;
 * a key that is a mapping or a sequence, or longer than YAML_KEY_MAX; any other tag, or a core
 * tag on a value it does not describe (!!int "x").
 */

/*
 * A consumer of yaml_load_each(): takes @doc (frees it, or keeps it), the @index-th document of
 * the text (0-based), starting at 1-based @line. Return 0 to go on, or -errno after writing why
 * into @err (@errlen bytes) to stop the parse with that error.
 */
typedef int (*yaml_doc_fn)(void *ctx, struct json *doc, size_t index, size_t line, char *err, size_t errlen);

/**
 * yaml_load_each() - parse @len bytes of YAML (need not be NUL-terminated) and hand each document
 * to @fn as soon as it ends, so that one document's tree is held at a time whatever the text
 * holds (`helm template` of a whole stack). A text without any document hands none.
 * @doc_max: characters of one document, from its start to its end; a longer one is refused as
 *           soon as the parse passes the limit, before its tree grows further. 0: no limit.
 * The limits and refusals above apply (the node counts to the whole text).
 *
 * Return: the number of documents handed on; -EINVAL (named in @err with the position, or what
 * @fn said); -ENOMEM; another -errno from @fn.
 */
int yaml_load_each(const char *text, size_t len, size_t doc_max, yaml_doc_fn fn, void *ctx, char *err,
		   size_t errlen);

/**
 * yaml_load_one() - a text that must hold exactly one document (an annotation value).
 * @ret: written on success; free with json_free().
 *
 * Return: 0; -EINVAL as above, or for no document or more than one; -ENOMEM.
 */
int yaml_load_one(const char *text, size_t len, struct json **ret, char *err, size_t errlen);
