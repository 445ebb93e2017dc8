// SPDX-License-Identifier: GPL-2.0
/* The Prometheus endpoint's request parser and the --listen parser. */
#include "httpd.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage addr;
	struct http_request req;
	enum http_parse verdict;
	socklen_t len;
	char err[256], *text;

	/* Raw bytes, NULs included: that is what a socket hands the server. */
	verdict = http_parse_request((const char *)data, size, &req);
	FUZZ_ASSERT(verdict == HTTP_PARSE_INCOMPLETE || verdict == HTTP_PARSE_OK ||
		    verdict == HTTP_PARSE_BAD || verdict == HTTP_PARSE_URI_TOO_LONG ||
		    verdict == HTTP_PARSE_HEADERS_TOO_LARGE);
	if (size > HTTPD_MAX_HEAD)
		FUZZ_ASSERT(verdict != HTTP_PARSE_INCOMPLETE);
	text = fuzz_string(data, size > 256 ? 256 : size);
	if (httpd_parse_listen(text, &addr, &len, err, sizeof(err)))
		FUZZ_ASSERT_SENTENCE(err);
	else
		FUZZ_ASSERT(len > 0 && len <= sizeof(addr));
	free(text);
	return 0;
}
