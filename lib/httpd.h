/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny HTTP/1.1 server for Prometheus to scrape: GET /metrics and
 * nothing else. It runs beside the tracing on real hosts, so it is
 * built to never hurt the tool it lives in: one thread, non-blocking
 * sockets, a fixed connection limit, bounded buffers and timeouts, so a
 * slow, hostile or buggy client can cost at most a connection slot for
 * a few seconds, never memory, file descriptors, a signal or the tool.
 * No keep-alive, no bodies, no TLS: a scrape is one short request.
 */
#ifndef SCHEDSCAN_HTTPD_H
#define SCHEDSCAN_HTTPD_H

#include <stddef.h>
#include <sys/socket.h>

struct httpd;

/*
 * Renders the body of GET /metrics: returns a malloc()ed buffer of *len
 * bytes (the caller frees it), or NULL on failure (the server answers 500).
 * Called from the server thread; the callee does its own locking.
 */
typedef char *(*httpd_render_fn)(void *ctx, size_t *len);

/* A parsed request line: only what the server needs. */
struct http_request {
	char method[8];		/* "GET", "HEAD", ... (truncated methods are rejected) */
	char path[256];		/* without the query string (longer paths are rejected) */
	size_t head_len;	/* bytes up to and including the blank line */
};

enum http_parse {
	HTTP_PARSE_INCOMPLETE,	/* need more bytes (no CRLFCRLF / LFLF yet) */
	HTTP_PARSE_OK,
	HTTP_PARSE_BAD,		/* malformed: 400 */
	/*
	 * 414 (RFC 9112 3.2): a path longer than http_request.path holds, or
	 * a request line that does not end within HTTPD_MAX_HEAD.
	 */
	HTTP_PARSE_URI_TOO_LONG,
	/* 431 (RFC 6585 5): the header fields run past HTTPD_MAX_HEAD. */
	HTTP_PARSE_HEADERS_TOO_LARGE,
};
#define HTTPD_MAX_HEAD 8192
#define HTTPD_MAX_CONNECTIONS 64

/*
 * Pure function (no I/O, no allocation) so it can be unit-tested and
 * fuzzed. Looks at most at the first HTTPD_MAX_HEAD bytes, and says BAD
 * as soon as the bytes so far cannot start a valid head, so garbage is
 * refused without waiting for a blank line. *req is only meaningful on
 * HTTP_PARSE_OK.
 */
enum http_parse http_parse_request(const char *buf, size_t len,
				   struct http_request *req);

/*
 * "PORT", "ADDR:PORT", "[IPv6]:PORT" or ":PORT"; without an address the
 * server binds 127.0.0.1 (never all interfaces unless asked, e.g.
 * "0.0.0.0:9100"). Addresses are numeric (or "localhost"), so parsing
 * never waits on DNS. Port 0 = any free port. 0, or -1 with a sentence
 * in err (e.g. "--listen takes ADDR:PORT, not 'x'").
 */
int httpd_parse_listen(const char *text, struct sockaddr_storage *addr,
		       socklen_t *addrlen, char *err, size_t errlen);

/*
 * Creates, binds and listens on the socket for --listen TEXT (non-blocking,
 * close-on-exec), while the options are parsed: a port in use or an
 * address this host does not have is then a usage error, said before
 * anything is loaded, and clients that connect while the tool loads wait
 * in the backlog instead of being refused. The socket, or -1 with one
 * sentence in err ("--listen 127.0.0.1:9464: the address is already in use").
 */
int httpd_listen(const char *listen_text, char *err, size_t errlen);

/*
 * Serves on listen_fd (from httpd_listen()) in a thread of its own. Takes
 * the socket over: httpd_stop() closes it, and so does a failure. NULL
 * with a sentence in err.
 */
struct httpd *httpd_start(int listen_fd, httpd_render_fn render, void *ctx,
			  char *err, size_t errlen);
/* The bound port (useful with port 0). */
int httpd_port(const struct httpd *h);
/* Where it serves, port 0 resolved: "127.0.0.1:43117" or "[::1]:43117". */
const char *httpd_address(const struct httpd *h);
/* Requests answered 200 so far (for tests and a possible metric). */
unsigned long long httpd_requests_served(const struct httpd *h);
/* Stops the thread (wakes it via an eventfd), closes every socket, frees. NULL-safe. */
void httpd_stop(struct httpd *h);

#endif
