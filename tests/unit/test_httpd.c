// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics HTTP server: the request parser byte for byte, --listen
 * parsing, and a live server on a loopback port 0 poked by well- and
 * badly-behaved clients. Client sockets have receive and send timeouts,
 * so a server that stalls fails a check instead of hanging the suite.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include "httpd.h"
#include "unit.h"
#include "util.h"

/* ---- parser ---- */

/*
 * Parses an exactly-sized heap copy, without a NUL after it, so that
 * ASan catches the parser reading one byte past len.
 */
static enum http_parse parse_n(const char *s, size_t len,
			       struct http_request *req)
{
	char *copy = malloc(len ? len : 1);
	enum http_parse ret;

	memcpy(copy, s, len);
	ret = http_parse_request(copy, len, req);
	free(copy);
	return ret;
}

static enum http_parse parse(const char *s, struct http_request *req)
{
	return parse_n(s, strlen(s), req);
}

static void test_parse_get_crlf(void)
{
	static const char head[] =
		"GET /metrics HTTP/1.1\r\n"
		"Host: localhost:9100\r\n"
		"User-Agent: Prometheus/2.45.0\r\n"
		"Accept: text/plain;version=0.0.4;q=1,*/*;q=0.1\r\n"
		"X-Prometheus-Scrape-Timeout-Seconds: 10\r\n"
		"\r\n";
	struct http_request req;

	CHECK_INT(parse(head, &req), HTTP_PARSE_OK);
	CHECK_STR(req.method, "GET");
	CHECK_STR(req.path, "/metrics");
	CHECK_U64(req.head_len, strlen(head));

	/* Bytes after the head (a body, a pipelined request) are not in it. */
	CHECK_INT(parse("HEAD / HTTP/1.0\r\n\r\nGET /x HTTP/1.1\r\n\r\n", &req),
		  HTTP_PARSE_OK);
	CHECK_STR(req.method, "HEAD");
	CHECK_STR(req.path, "/");
	CHECK_U64(req.head_len, strlen("HEAD / HTTP/1.0\r\n\r\n"));

	/* Tabs and obs-text are allowed in values, empty values too. */
	CHECK_INT(parse("GET / HTTP/1.1\r\nA:\tb c\xc3\xa9\r\nB:\r\n\r\n", &req),
		  HTTP_PARSE_OK);
	CHECK_INT(parse("OPTIONS / HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	CHECK_STR(req.method, "OPTIONS");
}

static void test_parse_bare_lf(void)
{
	struct http_request req;

	CHECK_INT(parse("GET /metrics HTTP/1.0\n\n", &req), HTTP_PARSE_OK);
	CHECK_STR(req.path, "/metrics");
	CHECK_U64(req.head_len, strlen("GET /metrics HTTP/1.0\n\n"));
	CHECK_INT(parse("GET /metrics HTTP/1.1\nHost: a\n\n", &req),
		  HTTP_PARSE_OK);
	CHECK_U64(req.head_len, strlen("GET /metrics HTTP/1.1\nHost: a\n\n"));
	/* Mixed endings still end at the first blank line. */
	CHECK_INT(parse("GET / HTTP/1.1\r\nHost: a\n\r\nrest", &req),
		  HTTP_PARSE_OK);
	CHECK_U64(req.head_len, strlen("GET / HTTP/1.1\r\nHost: a\n\r\n"));
}

static void test_parse_strips_query(void)
{
	struct http_request req;
	char line[600];

	CHECK_INT(parse("GET /metrics?x=1 HTTP/1.1\r\n\r\n", &req),
		  HTTP_PARSE_OK);
	CHECK_STR(req.path, "/metrics");
	CHECK_INT(parse("GET /?a=b&c=/metrics HTTP/1.1\r\n\r\n", &req),
		  HTTP_PARSE_OK);
	CHECK_STR(req.path, "/");
	CHECK_INT(parse("GET /metrics#frag HTTP/1.1\r\n\r\n", &req),
		  HTTP_PARSE_OK);
	CHECK_STR(req.path, "/metrics");
	/* A long query does not count against the path's size. */
	snprintf(line, sizeof(line), "GET /metrics?%0500d HTTP/1.1\r\n\r\n", 0);
	CHECK_INT(parse(line, &req), HTTP_PARSE_OK);
	CHECK_STR(req.path, "/metrics");
}

static void test_parse_incomplete(void)
{
	static const char head[] = "GET /metrics?a=1 HTTP/1.1\r\nHost: x\r\n\r\n";
	struct http_request req;

	/* Every strict prefix of a good head, the empty one included. */
	for (size_t len = 0; len < strlen(head); len++)
		if (parse_n(head, len, &req) != HTTP_PARSE_INCOMPLETE)
			UNIT_FAIL("prefix of %zu bytes is not incomplete", len);
	CHECK_INT(parse_n(head, strlen(head), &req), HTTP_PARSE_OK);
	CHECK_INT(parse_n("", 0, &req), HTTP_PARSE_INCOMPLETE);
	CHECK_INT(parse("GET /metrics HTTP/1.1\n", &req),
		  HTTP_PARSE_INCOMPLETE);
	CHECK_INT(parse("GET /metrics HTTP/1.1\r\n\r", &req),
		  HTTP_PARSE_INCOMPLETE);
}

/* "GET / HTTP/1.1\r\nX: aaa...\r\n\r\n", total bytes long. */
static char *head_of_size(size_t total)
{
	static const char start[] = "GET / HTTP/1.1\r\nX: ";
	char *buf = malloc(total + 1);

	memcpy(buf, start, strlen(start));
	memset(buf + strlen(start), 'a', total - strlen(start) - 4);
	memcpy(buf + total - 4, "\r\n\r\n", 4);
	buf[total] = '\0';
	return buf;
}

static void test_parse_size_limits(void)
{
	struct http_request req;
	char *buf;

	buf = head_of_size(HTTPD_MAX_HEAD);
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD, &req), HTTP_PARSE_OK);
	CHECK_U64(req.head_len, HTTPD_MAX_HEAD);
	/* The limit is on the head, not on what was read. */
	free(buf);
	buf = head_of_size(HTTPD_MAX_HEAD + 100);
	memcpy(buf + HTTPD_MAX_HEAD - 4, "\r\n\r\n", 4);
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD + 100, &req), HTTP_PARSE_OK);
	CHECK_U64(req.head_len, HTTPD_MAX_HEAD);
	free(buf);

	buf = head_of_size(HTTPD_MAX_HEAD + 1);
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD + 1, &req),
		  HTTP_PARSE_HEADERS_TOO_LARGE);
	/* Without its last byte it could still end in time... */
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD - 1, &req),
		  HTTP_PARSE_INCOMPLETE);
	/* ...but a full buffer without the blank line cannot. */
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD, &req),
		  HTTP_PARSE_HEADERS_TOO_LARGE);
	free(buf);

	buf = head_of_size(100000);
	CHECK_INT(parse_n(buf, 100000, &req), HTTP_PARSE_HEADERS_TOO_LARGE);
	free(buf);
}

/* "GET /?qqq... HTTP/1.1\r\n" of line_len bytes, then "X: aaa...". */
static char *long_request_line(size_t line_len, size_t total)
{
	static const char version[] = " HTTP/1.1\r\n";
	size_t query_end = line_len - strlen(version);
	char *buf = malloc(total);

	memset(buf, 'a', total);
	memcpy(buf, "GET /?", 6);
	memset(buf + 6, 'q', query_end - 6);
	memcpy(buf + query_end, version, strlen(version));
	if (line_len + 3 <= total)
		memcpy(buf + line_len, "X: ", 3);
	return buf;
}

/*
 * RFC 9112 3: a request target longer than the server parses gets 414;
 * RFC 6585 5: header fields too large get 431. What ran past the limit
 * decides which: the request line (its target) or the header fields.
 */
static void test_parse_uri_too_long(void)
{
	struct http_request req;
	char *buf;

	/* The request line never ends within the limit: its query is the cause. */
	buf = long_request_line(HTTPD_MAX_HEAD + 100, HTTPD_MAX_HEAD + 100);
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD, &req), HTTP_PARSE_URI_TOO_LONG);
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD + 100, &req),
		  HTTP_PARSE_URI_TOO_LONG);
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD - 1, &req),
		  HTTP_PARSE_INCOMPLETE);
	free(buf);

	/* The line ends in time, the header after it does not: 431. */
	buf = long_request_line(HTTPD_MAX_HEAD - 100, HTTPD_MAX_HEAD);
	CHECK_INT(parse_n(buf, HTTPD_MAX_HEAD, &req),
		  HTTP_PARSE_HEADERS_TOO_LARGE);
	free(buf);

	/*
	 * An 8000-byte path is refused as soon as it outgrows path[], before
	 * the line ends: the verdict does not wait for the rest.
	 */
	buf = malloc(8000);
	memcpy(buf, "GET /", 5);
	memset(buf + 5, 'a', 8000 - 5);
	CHECK_INT(parse_n(buf, 8000, &req), HTTP_PARSE_URI_TOO_LONG);
	/* "GET " and as long a path as path[] holds: could still end. */
	CHECK_INT(parse_n(buf, 4 + sizeof(req.path) - 1, &req),
		  HTTP_PARSE_INCOMPLETE);
	CHECK_INT(parse_n(buf, 4 + sizeof(req.path), &req),
		  HTTP_PARSE_URI_TOO_LONG);
	/* A bad byte in a path still within bounds is malformed, not long. */
	buf[100] = '\x01';
	CHECK_INT(parse_n(buf, 8000, &req), HTTP_PARSE_BAD);
	free(buf);
}

static void test_parse_garbage(void)
{
	static const char tls[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";
	struct http_request req;

	/* Refused at once, not after waiting for a blank line. */
	CHECK_INT(parse_n(tls, sizeof(tls) - 1, &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("hello world\r\n\r\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse(" GET / HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("\r\n\r\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("\n\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("GET\r\n\r\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\nno colon here\r\n\r\n", &req),
		  HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\nHost : a\r\n\r\n", &req),
		  HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\n: a\r\n\r\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", &req),
		  HTTP_PARSE_BAD);
	/* A bad request line is refused as soon as the line ends. */
	CHECK_INT(parse("GET metrics HTTP/1.1\r\n", &req), HTTP_PARSE_BAD);
}

static void test_parse_bad_versions(void)
{
	static const char *const lines[] = {
		"GET /metrics\r\n\r\n",
		"GET /metrics \r\n\r\n",
		"GET /metrics HTTP/2.0\r\n\r\n",
		"GET /metrics HTTP/2\r\n\r\n",
		"GET /metrics HTTP/1.\r\n\r\n",
		"GET /metrics HTTP/1.x\r\n\r\n",
		"GET /metrics HTTP/1.1x\r\n\r\n",
		"GET /metrics HTTP/1.10\r\n\r\n",
		"GET /metrics HTTP/11\r\n\r\n",
		"GET /metrics http/1.1\r\n\r\n",
		"GET /metrics HTTP/1.1 \r\n\r\n",
		"GET /metrics HTTP/0.9\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	};
	struct http_request req;

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		if (parse(lines[i], &req) != HTTP_PARSE_BAD)
			UNIT_FAIL("accepted \"%s\"", lines[i]);
	CHECK_INT(parse("GET / HTTP/1.0\r\n\r\n", &req), HTTP_PARSE_OK);
	CHECK_INT(parse("GET / HTTP/1.9\r\n\r\n", &req), HTTP_PARSE_OK);
}

static void test_parse_bad_targets(void)
{
	static const char *const lines[] = {
		"GET http://localhost:9100/metrics HTTP/1.1\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\n\r\n",
		"CONNECT localhost:9100 HTTP/1.1\r\n\r\n",
		"GET metrics HTTP/1.1\r\n\r\n",
		"GET  /metrics HTTP/1.1\r\n\r\n",
		"GET /metrics  HTTP/1.1\r\n\r\n",
		"GET ?x=1 HTTP/1.1\r\n\r\n",
		"GET /me\x7ftrics HTTP/1.1\r\n\r\n",
		"GET /m\xc3\xa9trics HTTP/1.1\r\n\r\n",
		"GET /met\trics HTTP/1.1\r\n\r\n",
	};
	struct http_request req;
	char line[400];

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		if (parse(lines[i], &req) != HTTP_PARSE_BAD)
			UNIT_FAIL("accepted \"%s\"", lines[i]);

	/* path[256]: 255 bytes fit, a longer path is refused (414), not cut. */
	snprintf(line, sizeof(line), "GET /%0254d HTTP/1.1\r\n\r\n", 0);
	CHECK_INT(parse(line, &req), HTTP_PARSE_OK);
	CHECK_U64(strlen(req.path), 255);
	snprintf(line, sizeof(line), "GET /%0255d HTTP/1.1\r\n\r\n", 0);
	CHECK_INT(parse(line, &req), HTTP_PARSE_URI_TOO_LONG);
}

static void test_parse_control_characters(void)
{
	static const char nul_target[] = "GET /met\0rics HTTP/1.1\r\n\r\n";
	static const char nul_header[] = "GET / HTTP/1.1\r\nA: b\0c\r\n\r\n";
	static const char nul_method[] = "G\0T / HTTP/1.1\r\n\r\n";
	struct http_request req;

	CHECK_INT(parse_n(nul_target, sizeof(nul_target) - 1, &req),
		  HTTP_PARSE_BAD);
	CHECK_INT(parse_n(nul_header, sizeof(nul_header) - 1, &req),
		  HTTP_PARSE_BAD);
	CHECK_INT(parse_n(nul_method, sizeof(nul_method) - 1, &req),
		  HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", &req),
		  HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\nA: b\x1b[2J\r\n\r\n", &req),
		  HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\nA: b\x7f\r\n\r\n", &req),
		  HTTP_PARSE_BAD);
	/* A CR must start a line end. */
	CHECK_INT(parse("GET / HTTP/1.1\rX\r\n\r\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", &req),
		  HTTP_PARSE_BAD);
	CHECK_INT(parse("GET / HTTP/1.1\r\n\r\r\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("GE\tT / HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_BAD);
}

static void test_parse_long_method(void)
{
	struct http_request req;

	CHECK_INT(parse("GETGETGET / HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_BAD);
	/* method[8]: "PROPFIND" would be cut to "PROPFIN". */
	CHECK_INT(parse("PROPFIND / HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("PATCHES / HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	CHECK_STR(req.method, "PATCHES");
	/* Known bad before any space or line end arrives. */
	CHECK_INT(parse("AAAAAAAAAAAAAAAA", &req), HTTP_PARSE_BAD);
	CHECK_INT(parse("AAAAAAA", &req), HTTP_PARSE_INCOMPLETE);
	CHECK_INT(parse(" / HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_BAD);
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Mutated good requests, checked against what must hold for any input:
 * an OK head is the shortest prefix that parses, every shorter prefix
 * is incomplete, and once BAD, more bytes never make it good.
 */
static void test_parse_fuzz_properties(void)
{
	static const char seed[] =
		"GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n";
	static const char alphabet[] = "\0\r\n :/?#\t\x7f\x80\xffGETHP1.a";
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	char buf[128];
	int failures = 0;

	for (int iter = 0; iter < 20000 && failures < 5; iter++) {
		struct http_request req, sub;
		size_t len = sizeof(seed) - 1;
		enum http_parse ret;
		int muts = 1 + (int)(rng_next(&s) % 3);

		memcpy(buf, seed, len);
		for (int m = 0; m < muts; m++) {
			size_t at = rng_next(&s) % (len + 1);
			char c = alphabet[rng_next(&s) % (sizeof(alphabet) - 1)];

			switch (rng_next(&s) % 3) {
			case 0:
				if (at < len)
					buf[at] = c;
				break;
			case 1:
				if (at < len) {
					memmove(buf + at, buf + at + 1,
						len - at - 1);
					len--;
				}
				break;
			default:
				if (len < sizeof(buf)) {
					memmove(buf + at + 1, buf + at,
						len - at);
					buf[at] = c;
					len++;
				}
				break;
			}
		}
		ret = parse_n(buf, len, &req);
		if (ret == HTTP_PARSE_URI_TOO_LONG ||
		    ret == HTTP_PARSE_HEADERS_TOO_LARGE) {
			UNIT_FAIL("iteration %d: %zu bytes too large", iter, len);
			failures++;
		}
		if (ret == HTTP_PARSE_OK) {
			if (req.head_len > len || req.path[0] != '/' ||
			    !req.method[0] ||
			    parse_n(buf, req.head_len, &sub) != HTTP_PARSE_OK ||
			    sub.head_len != req.head_len) {
				UNIT_FAIL("iteration %d: inconsistent OK", iter);
				failures++;
				continue;
			}
			for (size_t k = 0; k < req.head_len; k++) {
				if (parse_n(buf, k, &sub) != HTTP_PARSE_INCOMPLETE) {
					UNIT_FAIL("iteration %d: prefix %zu of an OK head is not incomplete",
						  iter, k);
					failures++;
					break;
				}
			}
		}
		if (ret == HTTP_PARSE_BAD) {
			for (size_t k = 0; k < len; k++) {
				if (parse_n(buf, k, &sub) != HTTP_PARSE_BAD)
					continue;
				for (size_t k2 = k; k2 <= len; k2++) {
					if (parse_n(buf, k2, &sub) != HTTP_PARSE_BAD) {
						UNIT_FAIL("iteration %d: BAD at %zu, not at %zu",
							  iter, k, k2);
						failures++;
						break;
					}
				}
				break;
			}
		}
	}
}

/* ---- --listen ---- */

static void check_listen_v4(const char *text, const char *ip, int port)
{
	struct sockaddr_storage ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&ss;
	socklen_t len = 0;
	char err[256] = "", got[INET_ADDRSTRLEN] = "";

	if (httpd_parse_listen(text, &ss, &len, err, sizeof(err))) {
		UNIT_FAIL("'%s' refused: %s", text, err);
		return;
	}
	CHECK_INT(ss.ss_family, AF_INET);
	CHECK_INT(len, sizeof(struct sockaddr_in));
	inet_ntop(AF_INET, &sin->sin_addr, got, sizeof(got));
	CHECK_STR(got, ip);
	CHECK_INT(ntohs(sin->sin_port), port);
}

static void test_listen_accepts(void)
{
	struct sockaddr_storage ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&ss;
	socklen_t len = 0;
	char err[256] = "";

	check_listen_v4("9100", "127.0.0.1", 9100);
	check_listen_v4("0.0.0.0:9100", "0.0.0.0", 9100);
	check_listen_v4(":0", "127.0.0.1", 0);
	check_listen_v4("0", "127.0.0.1", 0);
	check_listen_v4("65535", "127.0.0.1", 65535);
	check_listen_v4("10.1.2.3:80", "10.1.2.3", 80);
	check_listen_v4("localhost:9100", "127.0.0.1", 9100);

	CHECK_INT(httpd_parse_listen("[::1]:9100", &ss, &len, err, sizeof(err)),
		  0);
	CHECK_INT(ss.ss_family, AF_INET6);
	CHECK_INT(len, sizeof(struct sockaddr_in6));
	CHECK(!memcmp(&sin6->sin6_addr, &in6addr_loopback,
		      sizeof(in6addr_loopback)));
	CHECK_INT(ntohs(sin6->sin6_port), 9100);
	CHECK_INT(httpd_parse_listen("[::]:0", &ss, &len, err, sizeof(err)), 0);
	CHECK(!memcmp(&sin6->sin6_addr, &in6addr_any, sizeof(in6addr_any)));
}

static void test_listen_rejects(void)
{
	static const char *const bad[] = {
		"", "abc", "1:2:3", "65536", "127.0.0.1:", "-1", "+80", " 80",
		"80 ", "0x50", "99999999999999999999", "127.0.0.1:80x",
		"1.2.3:80", "256.0.0.1:80", "host.example:80", "::1:9100",
		"[::1]", "[::1]:", "[::1]9100", "[1.2.3.4]:80", "[::1:80",
		"127.0.0.1:65536", "127.0.0.1:-1",
	};
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		if (httpd_parse_listen(bad[i], &ss, &len, err, sizeof(err)) != -1)
			UNIT_FAIL("'%s' accepted", bad[i]);
		else if (!err[0])
			UNIT_FAIL("'%s' refused without a sentence", bad[i]);
		else if (!strstr(err, "--listen"))
			UNIT_FAIL("'%s': \"%s\" lacks --listen", bad[i], err);
	}
	httpd_parse_listen("abc", &ss, &len, err, sizeof(err));
	CHECK_STR(err, "--listen takes ADDR:PORT, not 'abc'");
	httpd_parse_listen("65536", &ss, &len, err, sizeof(err));
	CHECK_CONTAINS(err, "out of range");
	httpd_parse_listen("::1:9100", &ss, &len, err, sizeof(err));
	CHECK_CONTAINS(err, "brackets");
	/* err may be NULL. */
	CHECK_INT(httpd_parse_listen("x", &ss, &len, NULL, 0), -1);
}

/* ---- a live server ---- */

static const char test_body[] =
	"# HELP schedscan_test_value A value for the HTTP server test.\n"
	"# TYPE schedscan_test_value gauge\n"
	"schedscan_test_value{cpu=\"0\"} 42\n";

struct fake {
	atomic_bool fail;		/* render returns NULL */
	atomic_size_t big;		/* render this many 'x' instead */
	atomic_int calls;
};

static char *render_fake(void *ctx, size_t *len)
{
	struct fake *f = ctx;
	size_t big = atomic_load(&f->big);
	char *buf;

	atomic_fetch_add(&f->calls, 1);
	if (atomic_load(&f->fail))
		return NULL;
	if (big) {
		buf = malloc(big);
		if (buf)
			memset(buf, 'x', big);
		*len = big;
		return buf;
	}
	*len = strlen(test_body);
	buf = malloc(*len);
	if (buf)
		memcpy(buf, test_body, *len);
	return buf;
}

static void fake_init(struct fake *f)
{
	/*
	 * A deadlocked server would hang httpd_stop() for ever: kill the
	 * suite instead, with what it printed so far.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(30);
	atomic_init(&f->fail, false);
	atomic_init(&f->big, 0);
	atomic_init(&f->calls, 0);
}

static struct httpd *start_fake(struct fake *f)
{
	char err[256] = "";
	struct httpd *h;
	int fd;

	fake_init(f);
	fd = httpd_listen("127.0.0.1:0", err, sizeof(err));
	h = fd < 0 ? NULL : httpd_start(fd, render_fake, f, err, sizeof(err));
	if (!h)
		UNIT_FAIL("httpd_start: %s", err);
	else if (httpd_port(h) <= 0)
		UNIT_FAIL("httpd_port = %d", httpd_port(h));
	return h;
}

static int client_connect(int port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct timeval tv = { .tv_sec = 5 };
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		UNIT_FAIL("socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		UNIT_FAIL("connect to port %d: %s", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* false once the server has closed on us (EPIPE, ECONNRESET). */
static bool send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno != EPIPE && errno != ECONNRESET)
				UNIT_FAIL("send: %s", strerror(errno));
			return false;
		}
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

struct response {
	char *raw;		/* NUL-terminated */
	size_t len;
	int status;		/* -1: nothing usable came back */
	bool reset;		/* ended by ECONNRESET rather than EOF */
	const char *body;
	size_t body_len;
};

static void response_free(struct response *r)
{
	free(r->raw);
	memset(r, 0, sizeof(*r));
}

/* Reads to EOF. A timeout is a failure: the server stalled. */
static void read_response(int fd, struct response *r)
{
	size_t cap = 4096;
	char *end;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	r->raw = malloc(cap);
	for (;;) {
		ssize_t n;

		if (r->len + 1 == cap) {
			cap *= 2;
			r->raw = realloc(r->raw, cap);
		}
		n = recv(fd, r->raw + r->len, cap - r->len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ECONNRESET) {
			r->reset = true;
			break;
		}
		if (n < 0) {
			UNIT_FAIL("recv: %s (the server stalled?)",
				  strerror(errno));
			break;
		}
		if (!n)
			break;
		r->len += (size_t)n;
	}
	r->raw[r->len] = '\0';
	if (sscanf(r->raw, "HTTP/1.1 %d ", &r->status) != 1)
		r->status = -1;
	end = strstr(r->raw, "\r\n\r\n");
	if (end) {
		r->body = end + 4;
		r->body_len = r->len - (size_t)(r->body - r->raw);
	}
}

/* Every answer is framed: Content-Length, Connection: close. */
static void check_framing(const struct response *r, bool head)
{
	const char *cl = strstr(r->raw, "\r\nContent-Length: ");
	unsigned long long want;

	if (!r->body || !cl || cl > r->body) {
		UNIT_FAIL("unframed response: \"%s\"", r->raw);
		return;
	}
	CHECK(strstr(r->raw, "\r\nConnection: close\r\n") != NULL);
	want = strtoull(cl + strlen("\r\nContent-Length: "), NULL, 10);
	if (!head)
		CHECK_U64(r->body_len, want);
	else
		CHECK_U64(r->body_len, 0);
}

/* One request on a new connection; returns the status (or -1). */
static int request_n(int port, const char *req, size_t len,
		     struct response *r)
{
	int fd = client_connect(port);

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (fd < 0)
		return -1;
	send_all(fd, req, len);
	read_response(fd, r);
	close(fd);
	if (r->status > 0)
		check_framing(r, !strncmp(req, "HEAD ", 5));
	return r->status;
}

static int request(int port, const char *req, struct response *r)
{
	return request_n(port, req, strlen(req), r);
}

/* One request, only the status. */
static int status_of(int port, const char *req)
{
	struct response r;
	int status = request(port, req, &r);

	response_free(&r);
	return status;
}

/* Open descriptors: what the server holds must go with httpd_stop(). */
static int count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		return -1;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

static void wait_for_calls(struct fake *f, int calls)
{
	for (int i = 0; i < 5000 && atomic_load(&f->calls) < calls; i++)
		usleep(1000);
	CHECK_INT(atomic_load(&f->calls), calls);
}

static void test_live_get_metrics(void)
{
	struct fake f;
	struct httpd *h = start_fake(&f);
	struct response r;

	if (!h)
		return;
	CHECK_INT(request(httpd_port(h),
			  "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r), 200);
	CHECK(r.body && r.body_len == strlen(test_body) &&
	      !memcmp(r.body, test_body, r.body_len));
	CHECK_CONTAINS(r.raw, "\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n");
	CHECK(!r.reset);
	response_free(&r);
	CHECK_INT(atomic_load(&f.calls), 1);
	CHECK_U64(httpd_requests_served(h), 1);

	/* Query strings and HTTP/1.0 with bare LF are fine too. */
	CHECK_INT(request(httpd_port(h), "GET /metrics?debug=1 HTTP/1.0\n\n",
			  &r), 200);
	CHECK(r.body && r.body_len == strlen(test_body));
	response_free(&r);
	CHECK_U64(httpd_requests_served(h), 2);
	httpd_stop(h);
}

static void test_live_head_metrics(void)
{
	struct fake f;
	struct httpd *h = start_fake(&f);
	struct response r;
	char want[64];

	if (!h)
		return;
	CHECK_INT(request(httpd_port(h), "HEAD /metrics HTTP/1.1\r\n\r\n", &r),
		  200);
	snprintf(want, sizeof(want), "\r\nContent-Length: %zu\r\n",
		 strlen(test_body));
	CHECK_CONTAINS(r.raw, want);
	CHECK_CONTAINS(r.raw, "version=0.0.4");
	CHECK_U64(r.body_len, 0);
	response_free(&r);
	CHECK_INT(atomic_load(&f.calls), 1);
	CHECK_U64(httpd_requests_served(h), 1);
	httpd_stop(h);
}

static void test_live_index_page(void)
{
	struct fake f;
	struct httpd *h = start_fake(&f);
	struct response r;

	if (!h)
		return;
	CHECK_INT(request(httpd_port(h), "GET / HTTP/1.1\r\n\r\n", &r), 200);
	CHECK_CONTAINS(r.raw, "\r\nContent-Type: text/plain");
	CHECK_CONTAINS(r.body, "/metrics");
	response_free(&r);
	CHECK_INT(atomic_load(&f.calls), 0);
	httpd_stop(h);
}

static void test_live_error_statuses(void)
{
	static const char tls[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";
	struct fake f;
	struct httpd *h = start_fake(&f);
	struct response r;
	int port;

	if (!h)
		return;
	port = httpd_port(h);
	CHECK_INT(request(port, "POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
			  &r), 405);
	CHECK_CONTAINS(r.raw, "\r\nAllow: GET, HEAD\r\n");
	CHECK(!r.reset);	/* the unread body was drained, see 431 */
	response_free(&r);
	CHECK_INT(status_of(port, "DELETE / HTTP/1.1\r\n\r\n"), 405);
	CHECK_INT(status_of(port, "GET /nope HTTP/1.1\r\n\r\n"), 404);
	CHECK_INT(status_of(port, "GET /metrics/ HTTP/1.1\r\n\r\n"), 404);
	CHECK_INT(status_of(port, "HEAD /nope HTTP/1.1\r\n\r\n"), 404);
	CHECK_INT(status_of(port, "GET /metrics\r\n\r\n"), 400);
	CHECK_INT(status_of(port, "GET /metrics HTTP/2.0\r\n\r\n"), 400);
	CHECK_INT(status_of(port, "GET http://x/metrics HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(status_of(port, "hello\r\n\r\n"), 400);
	/*
	 * No blank line ever comes: answered at once, not after the request
	 * timeout (the client's 5 s receive timeout would fail first).
	 */
	CHECK_INT(request_n(port, tls, sizeof(tls) - 1, &r), 400);
	response_free(&r);
	CHECK_INT(atomic_load(&f.calls), 0);
	CHECK_U64(httpd_requests_served(h), 0);
	httpd_stop(h);
}

/*
 * Sends before, padding bytes of 'a', then after; false if the server
 * closed early.
 */
static bool send_padded(int fd, const char *before, size_t padding,
			const char *after)
{
	char chunk[4096];
	size_t sent = 0;

	memset(chunk, 'a', sizeof(chunk));
	if (!send_all(fd, before, strlen(before)))
		return false;
	while (sent < padding) {
		size_t n = padding - sent < sizeof(chunk) ?
			   padding - sent : sizeof(chunk);

		if (!send_all(fd, chunk, n))
			return false;
		sent += n;
	}
	return send_all(fd, after, strlen(after));
}

/* A head with one header of header_bytes. */
static bool send_big_header(int fd, size_t header_bytes)
{
	return send_padded(fd, "GET /metrics HTTP/1.1\r\nX-Big: ",
			   header_bytes, "\r\n\r\n");
}

/*
 * The client still sends after the early answer: the server drains it
 * (see 431), so the 414 arrives whole and the connection closes cleanly.
 */
static void check_uri_too_long(int port, const char *before, size_t padding)
{
	struct response r;
	int fd = client_connect(port);

	if (fd < 0)
		return;
	CHECK(send_padded(fd, before, padding,
			  " HTTP/1.1\r\nHost: x\r\nUser-Agent: curl\r\n\r\n"));
	read_response(fd, &r);
	CHECK_INT(r.status, 414);
	if (r.status == 414) {
		check_framing(&r, false);
		CHECK_CONTAINS(r.raw, "HTTP/1.1 414 URI Too Long\r\n");
		CHECK_STR(r.body, "414 URI Too Long\n");
	}
	CHECK(!r.reset);
	response_free(&r);
	close(fd);
}

static void test_live_uri_too_long_414(void)
{
	struct fake f;
	struct httpd *h = start_fake(&f);

	if (!h)
		return;
	/* Issue 32's 8000-byte URL, which got a 400. */
	check_uri_too_long(httpd_port(h), "GET /", 8000);
	/* A path one byte over path[], and a query past the head's limit. */
	check_uri_too_long(httpd_port(h), "GET /", 255);
	check_uri_too_long(httpd_port(h), "GET /metrics?q=", 100 * 1024);
	/* The longest path and a long query within the limit are fine. */
	CHECK_INT(status_of(httpd_port(h), "GET /metrics?q=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\r\n"),
		  200);
	CHECK_INT(atomic_load(&f.calls), 1);
	httpd_stop(h);
}

static void test_live_huge_header_431(void)
{
	struct fake f;
	struct httpd *h = start_fake(&f);
	struct response r;
	int fd;

	if (!h)
		return;
	/*
	 * The server drains what the client still sends after the 431, so
	 * the client can finish writing and gets a clean close, not a reset
	 * (which on a real network can destroy the answer in flight).
	 */
	fd = client_connect(httpd_port(h));
	if (fd >= 0) {
		CHECK(send_big_header(fd, 100 * 1024));
		read_response(fd, &r);
		CHECK_INT(r.status, 431);
		CHECK(!r.reset);
		response_free(&r);
		close(fd);
	}

	/* 10 MB: refused without being buffered; a reset is fine, a hang is not. */
	fd = client_connect(httpd_port(h));
	if (fd >= 0) {
		send_big_header(fd, 10 * 1024 * 1024);
		read_response(fd, &r);
		if (r.status != 431 && !r.reset)
			UNIT_FAIL("10 MB header: status %d", r.status);
		response_free(&r);
		close(fd);
	}
	CHECK_INT(atomic_load(&f.calls), 0);
	CHECK_INT(status_of(httpd_port(h), "GET /metrics HTTP/1.1\r\n\r\n"),
		  200);
	httpd_stop(h);
}

#define FLOOD 200

/*
 * The property that matters: more clients than slots get quick 503s,
 * the clients holding slots are still served, and the server takes new
 * requests afterwards.
 */
static void test_live_connection_flood(void)
{
	int fds_before = count_fds();
	struct fake f;
	struct httpd *h = start_fake(&f);
	int fds[FLOOD], flood = FLOOD, opened = 0, ok = 0, unavailable = 0;
	/* Both ends live in this process: the server's slots, some spare. */
	const int room = HTTPD_MAX_CONNECTIONS + 64;
	struct response r;
	struct rlimit lim;

	if (!h)
		return;
	if (!getrlimit(RLIMIT_NOFILE, &lim) &&
	    lim.rlim_cur < (rlim_t)(FLOOD + room)) {
		lim.rlim_cur = lim.rlim_max < (rlim_t)(FLOOD + room) ?
			       lim.rlim_max : (rlim_t)(FLOOD + room);
		setrlimit(RLIMIT_NOFILE, &lim);
		if (lim.rlim_cur < (rlim_t)(FLOOD + room))
			flood = (int)lim.rlim_cur - room;
		if (flood <= HTTPD_MAX_CONNECTIONS) {
			UNIT_FAIL("RLIMIT_NOFILE %llu is too low for the test",
				  (unsigned long long)lim.rlim_cur);
			httpd_stop(h);
			return;
		}
	}
	for (; opened < flood; opened++) {
		fds[opened] = client_connect(httpd_port(h));
		if (fds[opened] < 0)
			break;
	}
	CHECK_INT(opened, flood);
	/* Accepted in order: the first ones hold every slot, silently. */
	for (int i = HTTPD_MAX_CONNECTIONS; i < opened; i++) {
		read_response(fds[i], &r);
		if (r.status == 503) {
			unavailable++;
			check_framing(&r, false);
		} else {
			UNIT_FAIL("connection %d beyond the limit: status %d",
				  i, r.status);
		}
		response_free(&r);
	}
	for (int i = 0; i < opened && i < HTTPD_MAX_CONNECTIONS; i++) {
		struct pollfd pfd = { .fd = fds[i], .events = POLLIN };

		if (poll(&pfd, 1, 0) != 0)
			UNIT_FAIL("connection %d in a slot answered before asking", i);
		if (!send_all(fds[i], "GET /metrics HTTP/1.1\r\n\r\n", 26))
			continue;
		read_response(fds[i], &r);
		if (r.status == 200)
			ok++;
		else
			UNIT_FAIL("connection %d in a slot: status %d", i,
				  r.status);
		response_free(&r);
	}
	for (int i = 0; i < opened; i++)
		close(fds[i]);
	CHECK_INT(ok, HTTPD_MAX_CONNECTIONS);
	CHECK_INT(unavailable, flood - HTTPD_MAX_CONNECTIONS);
	CHECK_U64(httpd_requests_served(h), HTTPD_MAX_CONNECTIONS);

	CHECK_INT(status_of(httpd_port(h), "GET /metrics HTTP/1.1\r\n\r\n"),
		  200);
	CHECK_U64(httpd_requests_served(h), HTTPD_MAX_CONNECTIONS + 1);
	httpd_stop(h);
	CHECK_INT(count_fds(), fds_before);
}

static void test_live_render_failure_500(void)
{
	struct fake f;
	struct httpd *h = start_fake(&f);

	if (!h)
		return;
	atomic_store(&f.fail, true);
	CHECK_INT(status_of(httpd_port(h), "GET /metrics HTTP/1.1\r\n\r\n"),
		  500);
	CHECK_INT(status_of(httpd_port(h), "HEAD /metrics HTTP/1.1\r\n\r\n"),
		  500);
	CHECK_INT(atomic_load(&f.calls), 2);
	CHECK_U64(httpd_requests_served(h), 0);
	/* A failed render does not break the next one. */
	atomic_store(&f.fail, false);
	CHECK_INT(status_of(httpd_port(h), "GET /metrics HTTP/1.1\r\n\r\n"),
		  200);
	CHECK_U64(httpd_requests_served(h), 1);
	httpd_stop(h);
}

static void test_live_served_counts_only_200s(void)
{
	struct fake f;
	struct httpd *h = start_fake(&f);
	int port;

	if (!h)
		return;
	port = httpd_port(h);
	CHECK_INT(status_of(port, "GET /metrics HTTP/1.1\r\n\r\n"), 200);
	CHECK_INT(status_of(port, "HEAD /metrics HTTP/1.1\r\n\r\n"), 200);
	CHECK_INT(status_of(port, "GET / HTTP/1.1\r\n\r\n"), 200);
	CHECK_INT(status_of(port, "GET /nope HTTP/1.1\r\n\r\n"), 404);
	CHECK_INT(status_of(port, "PUT /metrics HTTP/1.1\r\n\r\n"), 405);
	CHECK_INT(status_of(port, "bad\r\n\r\n"), 400);
	atomic_store(&f.fail, true);
	CHECK_INT(status_of(port, "GET /metrics HTTP/1.1\r\n\r\n"), 500);
	CHECK_U64(httpd_requests_served(h), 3);
	/* A pipelined second request is not answered: one per connection. */
	atomic_store(&f.fail, false);
	CHECK_INT(status_of(port, "GET /metrics HTTP/1.1\r\n\r\nGET /metrics HTTP/1.1\r\n\r\n"),
		  200);
	CHECK_U64(httpd_requests_served(h), 4);
	CHECK_INT(atomic_load(&f.calls), 4);
	httpd_stop(h);
}

/* One byte per segment: the server must put the head together. */
static void trickle(int fd, const char *s)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (; *s; s++) {
		if (!send_all(fd, s, 1))
			return;
		usleep(500);
	}
}

static void test_live_trickled_requests(void)
{
	static const char *const reqs[] = {
		"GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /metrics HTTP/1.0\nHost: a\n\n",
		"GET /metrics HTTP/1.1\r\n\r\n",
	};
	struct fake f;
	struct httpd *h = start_fake(&f);
	struct response r;
	int fd;

	if (!h)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(reqs); i++) {
		fd = client_connect(httpd_port(h));
		if (fd < 0)
			continue;
		trickle(fd, reqs[i]);
		read_response(fd, &r);
		if (r.status != 200)
			UNIT_FAIL("trickled request %zu: status %d", i, r.status);
		response_free(&r);
		close(fd);
	}
	/* A bad request line is refused when it ends, without a blank line. */
	fd = client_connect(httpd_port(h));
	if (fd >= 0) {
		trickle(fd, "GET metrics HTTP/1.1\r\n");
		read_response(fd, &r);
		CHECK_INT(r.status, 400);
		response_free(&r);
		close(fd);
	}
	httpd_stop(h);
}

/* Asks for a big body and never reads it. */
static int stalled_reader(struct httpd *h, struct fake *f, int calls)
{
	int small = 4096, fd;

	atomic_store(&f->big, (size_t)32 << 20);
	fd = client_connect(httpd_port(h));
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	send_all(fd, "GET /metrics HTTP/1.1\r\n\r\n", 26);
	wait_for_calls(f, calls);
	atomic_store(&f->big, 0);
	return fd;
}

static void test_live_stalled_clients_do_not_block(void)
{
	int fds_before = count_fds();
	struct fake f;
	struct httpd *h = start_fake(&f);
	struct response r;
	int idle, partial, reader;

	if (!h)
		return;
	idle = client_connect(httpd_port(h));
	partial = client_connect(httpd_port(h));
	if (partial >= 0)
		send_all(partial, "GET /metrics HTTP/1.1\r\nHost:", 29);
	reader = stalled_reader(h, &f, 1);

	CHECK_INT(request(httpd_port(h), "GET /metrics HTTP/1.1\r\n\r\n", &r),
		  200);
	CHECK(r.body_len == strlen(test_body));
	response_free(&r);

	/* Stopping with all three still open: no hang, no leak (ASan). */
	httpd_stop(h);
	if (idle >= 0) {
		char c;

		/* The server's end is gone: EOF or a reset, not a timeout. */
		if (recv(idle, &c, 1, 0) < 0 && errno != ECONNRESET)
			UNIT_FAIL("idle client after stop: %s", strerror(errno));
		close(idle);
	}
	if (partial >= 0)
		close(partial);
	if (reader >= 0)
		close(reader);
	CHECK_INT(count_fds(), fds_before);
}

/*
 * The client half-closes, then resets while the server still has
 * megabytes to send: the server's next send fails with EPIPE, which
 * without MSG_NOSIGNAL would kill this whole process.
 */
static void test_live_client_hangup_no_sigpipe(void)
{
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	struct fake f;
	struct httpd *h = start_fake(&f);
	char buf[1024];
	int fd;

	if (!h)
		return;
	atomic_store(&f.big, (size_t)32 << 20);
	fd = client_connect(httpd_port(h));
	if (fd >= 0) {
		send_all(fd, "GET /metrics HTTP/1.1\r\n\r\n", 26);
		CHECK(recv(fd, buf, sizeof(buf), 0) > 0);
		shutdown(fd, SHUT_WR);
		usleep(20000);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
		close(fd);
	}
	wait_for_calls(&f, 1);
	atomic_store(&f.big, 0);
	usleep(50000);	/* let the server trip over the dead socket */
	CHECK_INT(status_of(httpd_port(h), "GET /metrics HTTP/1.1\r\n\r\n"),
		  200);
	httpd_stop(h);
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Out of file descriptors, the listener stays readable with a connection
 * nobody can accept: the server must back off rather than spin a CPU,
 * and pick the connection up once descriptors are back.
 */
static void test_live_emfile_does_not_spin(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct timeval tv = { .tv_sec = 5 };
	struct rlimit saved, tight;
	struct fake f;
	struct httpd *h = start_fake(&f);
	double cpu, wall;
	struct response r;
	int fd, lowest;

	if (!h)
		return;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	lowest = fd >= 0 ? dup(fd) : -1;
	if (fd < 0 || lowest < 0 || getrlimit(RLIMIT_NOFILE, &saved)) {
		UNIT_FAIL("setup: %s", strerror(errno));
		goto out;
	}
	close(lowest);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	sin.sin_port = htons((uint16_t)httpd_port(h));
	/* No new descriptor can be made, the accepted socket included. */
	tight = saved;
	tight.rlim_cur = (rlim_t)lowest;
	if (setrlimit(RLIMIT_NOFILE, &tight)) {
		UNIT_FAIL("setrlimit: %s", strerror(errno));
		goto out;
	}
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		UNIT_FAIL("connect: %s", strerror(errno));
	cpu = cpu_seconds();
	wall = wall_seconds();
	usleep(400000);
	cpu = cpu_seconds() - cpu;
	wall = wall_seconds() - wall;
	setrlimit(RLIMIT_NOFILE, &saved);
	if (cpu > wall / 2)
		UNIT_FAIL("%.3f s of CPU in %.3f s at EMFILE: spinning", cpu,
			  wall);
	send_all(fd, "GET /metrics HTTP/1.1\r\n\r\n", 26);
	read_response(fd, &r);
	CHECK_INT(r.status, 200);
	response_free(&r);
out:
	if (fd >= 0)
		close(fd);
	httpd_stop(h);
}

/*
 * Bind errors come from httpd_listen(), which the tools call while they
 * parse their options: one sentence, naming --listen's value and the
 * cause in words.
 */
static void test_listen_errors(void)
{
	struct fake f;
	struct httpd *h = start_fake(&f);
	char err[256] = "", text[64], want[128];

	CHECK_INT(httpd_listen("nope", err, sizeof(err)), -1);
	CHECK_STR(err, "--listen takes ADDR:PORT, not 'nope'");
	if (!h)
		return;
	snprintf(text, sizeof(text), "127.0.0.1:%d", httpd_port(h));
	snprintf(want, sizeof(want), "--listen %s: the address is already in use",
		 text);
	err[0] = '\0';
	CHECK_INT(httpd_listen(text, err, sizeof(err)), -1);
	CHECK_STR(err, want);
	/* TEST-NET-1 (RFC 5737): an address no host has. */
	err[0] = '\0';
	CHECK_INT(httpd_listen("192.0.2.1:9464", err, sizeof(err)), -1);
	CHECK_STR(err, "--listen 192.0.2.1:9464: the address is not one of this host's");
	CHECK_INT(status_of(httpd_port(h), "GET /metrics HTTP/1.1\r\n\r\n"),
		  200);
	httpd_stop(h);
	httpd_stop(NULL);
}

/*
 * The tools bind while parsing options and start serving seconds later,
 * after the BPF load: a client that connects in between waits in the
 * backlog and is answered, and the server says the port it got.
 */
static void test_listen_before_start(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	char err[256] = "", want[64];
	struct response r;
	struct fake f;
	struct httpd *h;
	int fd, client = -1, port;

	fake_init(&f);
	fd = httpd_listen("127.0.0.1:0", err, sizeof(err));
	if (fd < 0) {
		UNIT_FAIL("httpd_listen: %s", err);
		return;
	}
	/* Never inherited by a program the tool runs. */
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK(!getsockname(fd, (struct sockaddr *)&sin, &len));
	port = ntohs(sin.sin_port);
	CHECK(port > 0);
	client = client_connect(port);
	if (client >= 0)
		CHECK(send_all(client, "GET /metrics HTTP/1.1\r\n\r\n", 26));

	h = httpd_start(fd, render_fake, &f, err, sizeof(err));
	if (!h) {
		UNIT_FAIL("httpd_start: %s", err);
		if (client >= 0)
			close(client);
		return;
	}
	CHECK_INT(httpd_port(h), port);
	snprintf(want, sizeof(want), "127.0.0.1:%d", port);
	CHECK_STR(httpd_address(h), want);
	if (client >= 0) {
		read_response(client, &r);
		CHECK_INT(r.status, 200);
		response_free(&r);
		close(client);
	}
	httpd_stop(h);
	CHECK_STR(httpd_address(NULL), "");
}

static void test_address_ipv6(void)
{
	char err[256] = "", want[64];
	struct fake f;
	struct httpd *h;
	int fd;

	fake_init(&f);
	fd = httpd_listen("[::1]:0", err, sizeof(err));
	if (fd < 0) {
		printf("# no IPv6 loopback here (%s): skipped\n", err);
		return;
	}
	h = httpd_start(fd, render_fake, &f, err, sizeof(err));
	if (!h) {
		UNIT_FAIL("httpd_start: %s", err);
		return;
	}
	snprintf(want, sizeof(want), "[::1]:%d", httpd_port(h));
	CHECK_STR(httpd_address(h), want);
	httpd_stop(h);
}

/* httpd_start() owns the socket it is given, even when it fails. */
static void test_start_errors(void)
{
	char err[256] = "";
	int fd;

	CHECK(httpd_start(-1, render_fake, NULL, err, sizeof(err)) == NULL);
	CHECK(err[0] != '\0');
	fd = httpd_listen("127.0.0.1:0", err, sizeof(err));
	if (fd < 0) {
		UNIT_FAIL("httpd_listen: %s", err);
		return;
	}
	err[0] = '\0';
	CHECK(httpd_start(fd, NULL, NULL, err, sizeof(err)) == NULL);
	CHECK(err[0] != '\0');
	/* Closed: a failed start leaves no port open and never served. */
	CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
}

UNIT_MAIN(UNIT_TEST(test_parse_get_crlf),
	  UNIT_TEST(test_parse_bare_lf),
	  UNIT_TEST(test_parse_strips_query),
	  UNIT_TEST(test_parse_incomplete),
	  UNIT_TEST(test_parse_size_limits),
	  UNIT_TEST(test_parse_uri_too_long),
	  UNIT_TEST(test_parse_garbage),
	  UNIT_TEST(test_parse_bad_versions),
	  UNIT_TEST(test_parse_bad_targets),
	  UNIT_TEST(test_parse_control_characters),
	  UNIT_TEST(test_parse_long_method),
	  UNIT_TEST(test_parse_fuzz_properties),
	  UNIT_TEST(test_listen_accepts),
	  UNIT_TEST(test_listen_rejects),
	  UNIT_TEST(test_live_get_metrics),
	  UNIT_TEST(test_live_head_metrics),
	  UNIT_TEST(test_live_index_page),
	  UNIT_TEST(test_live_error_statuses),
	  UNIT_TEST(test_live_huge_header_431),
	  UNIT_TEST(test_live_uri_too_long_414),
	  UNIT_TEST(test_live_connection_flood),
	  UNIT_TEST(test_live_render_failure_500),
	  UNIT_TEST(test_live_served_counts_only_200s),
	  UNIT_TEST(test_live_trickled_requests),
	  UNIT_TEST(test_live_stalled_clients_do_not_block),
	  UNIT_TEST(test_live_client_hangup_no_sigpipe),
	  UNIT_TEST(test_live_emfile_does_not_spin),
	  UNIT_TEST(test_listen_errors),
	  UNIT_TEST(test_listen_before_start),
	  UNIT_TEST(test_address_ipv6),
	  UNIT_TEST(test_start_errors))
