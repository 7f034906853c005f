/*
 * floor.c - the floor for bench/run.sh: a program that does nothing but is linked with the agent's
 * libraries (-DFLOOR_CURL: libcurl + OpenSSL too, and curl initialised), so the agent's figures can
 * be read against what merely loading those libraries costs. A measuring tool, not part of the agent:
 * it calls libcurl directly because it stands for "the libraries alone".
 */
#ifdef FLOOR_CURL
#include <curl/curl.h>
#endif

int main(void)
{
#ifdef FLOOR_CURL
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return 1;
	curl_global_cleanup();
#endif
	return 0;
}
