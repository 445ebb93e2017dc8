// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* accept4() */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "httpd.h"
#include "runloop.h"
#include "util.h"

#define HTTPD_BACKLOG		128
/* Slowloris: a request head, or the drain of its answer, gets this long. */
#define HTTPD_REQUEST_TIMEOUT	10.0
#define HTTPD_WRITE_TIMEOUT	10.0
/*
 * After answering we read and drop what the client still sends for a
 * moment before closing: closing with unread input makes the kernel
 * send a RST, which can destroy the answer before the client reads it
 * (a 431 to a client still sending its huge header, a 405 to a POST).
 */
#define HTTPD_LINGER_TIMEOUT	2.0
#define HTTPD_LINGER_BYTES	(1 << 20)
/* After EMFILE and friends the listener stays readable: stop polling it. */
#define HTTPD_ACCEPT_PAUSE	0.1
/* Accepts per wake-up, so a connect flood cannot starve open connections. */
#define HTTPD_ACCEPT_BATCH	32

#define TEXT_PLAIN	"text/plain; charset=utf-8"
#define METRICS_TYPE	"text/plain; version=0.0.4; charset=utf-8"

static const char index_page[] =
	"schedscan: the Prometheus metrics are at /metrics\n";

/* Sent without a slot (over the limit, timed out), hence whole and static. */
#define BODY_503	"503 Service Unavailable\n"
#define BODY_408	"408 Request Timeout\n"
_Static_assert(sizeof(BODY_503) - 1 == 24, "503 Content-Length");
_Static_assert(sizeof(BODY_408) - 1 == 20, "408 Content-Length");

static const char response_503[] =
	"HTTP/1.1 503 Service Unavailable\r\n"
	"Content-Type: " TEXT_PLAIN "\r\n"
	"Content-Length: 24\r\n"
	"Connection: close\r\n"
	"Retry-After: 1\r\n"
	"\r\n"
	BODY_503;

static const char response_408[] =
	"HTTP/1.1 408 Request Timeout\r\n"
	"Content-Type: " TEXT_PLAIN "\r\n"
	"Content-Length: 20\r\n"
	"Connection: close\r\n"
	"\r\n"
	BODY_408;

enum conn_state {
	CONN_FREE,
	CONN_READING,
	CONN_WRITING,
	CONN_LINGERING,
};

struct conn {
	int fd;
	enum conn_state state;
	double deadline;		/* CLOCK_MONOTONIC seconds */
	size_t in_len;
	size_t discarded;		/* while lingering */
	/* The answer: head here, body borrowed (static) or owned (rendered). */
	char head[320];
	size_t head_len;
	const char *body;
	char *body_owned;
	size_t body_len;
	size_t sent;			/* over head, then body */
	char in[HTTPD_MAX_HEAD];
};

struct httpd {
	int listen_fd;
	int wake_fd;
	int port;
	char address[INET6_ADDRSTRLEN + 8];	/* "[v6]:port" */
	httpd_render_fn render;
	void *ctx;
	pthread_t thread;
	atomic_bool stop;
	atomic_ullong served;
	double accept_resume;		/* listener skipped in poll until then */
	struct conn conns[HTTPD_MAX_CONNECTIONS];
};

/* ---- request parsing ---- */

/* RFC 9110 token characters, for methods and header names. */
static bool is_tchar(unsigned char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c);
}

/* At p[*i]: 1 consumed a line end (CRLF or bare LF), 0 need more, -1 bad. */
static int line_end(const unsigned char *p, size_t n, size_t *i)
{
	if (p[*i] == '\n') {
		*i += 1;
		return 1;
	}
	if (p[*i] != '\r')
		return -1;
	if (*i + 1 == n)
		return 0;
	if (p[*i + 1] != '\n')
		return -1;
	*i += 2;
	return 1;
}

enum http_parse http_parse_request(const char *buf, size_t len,
				   struct http_request *req)
{
	static const char version[] = "HTTP/1.";
	const unsigned char *p = (const unsigned char *)buf;
	/* Bytes past the limit cannot be part of an acceptable head. */
	size_t n = len < HTTPD_MAX_HEAD ? len : HTTPD_MAX_HEAD;
	size_t i = 0, m = 0, t = 0, start;
	bool query = false, in_request_line = true;
	int r;

	memset(req, 0, sizeof(*req));

	/* Method SP: a short token, so a truncated method is never matched. */
	for (; i < n && p[i] != ' '; i++) {
		if (!is_tchar(p[i]) || m == sizeof(req->method) - 1)
			return HTTP_PARSE_BAD;
		req->method[m++] = (char)p[i];
	}
	if (i == n)
		goto need_more;
	if (!m)
		return HTTP_PARSE_BAD;
	i++;

	/* Origin-form target only: no "*", no absolute URIs (we are no proxy). */
	if (i < n && p[i] != '/')
		return HTTP_PARSE_BAD;
	for (; i < n && p[i] != ' '; i++) {
		if (p[i] < 0x21 || p[i] > 0x7e)
			return HTTP_PARSE_BAD;
		if (p[i] == '?' || p[i] == '#')
			query = true;
		if (query)
			continue;
		/* Refused rather than cut: a cut path could name another page. */
		if (t == sizeof(req->path) - 1)
			return HTTP_PARSE_URI_TOO_LONG;
		req->path[t++] = (char)p[i];
	}
	if (i == n)
		goto need_more;
	if (!t)
		return HTTP_PARSE_BAD;
	i++;

	/* HTTP/1.x only: HTTP/0.9 has no version, HTTP/2 never looks like this. */
	for (size_t k = 0; k < sizeof(version) - 1; k++, i++) {
		if (i == n)
			goto need_more;
		if (p[i] != (unsigned char)version[k])
			return HTTP_PARSE_BAD;
	}
	if (i == n)
		goto need_more;
	if (p[i] < '0' || p[i] > '9')
		return HTTP_PARSE_BAD;
	i++;
	if (i == n)
		goto need_more;
	r = line_end(p, n, &i);
	if (r < 0)
		return HTTP_PARSE_BAD;
	if (!r)
		goto need_more;
	in_request_line = false;

	/*
	 * Header fields are not used, but are still checked: a head we would
	 * not accept byte for byte is not worth answering as if it were fine.
	 */
	for (;;) {
		if (i == n)
			goto need_more;
		if (p[i] == '\r' || p[i] == '\n') {
			r = line_end(p, n, &i);
			if (r < 0)
				return HTTP_PARSE_BAD;
			if (!r)
				goto need_more;
			req->head_len = i;
			return HTTP_PARSE_OK;
		}
		/* No whitespace before the colon, no obsolete line folding. */
		for (start = i; i < n && p[i] != ':'; i++)
			if (!is_tchar(p[i]))
				return HTTP_PARSE_BAD;
		if (i == n)
			goto need_more;
		if (i == start)
			return HTTP_PARSE_BAD;
		for (i++; i < n && p[i] != '\r' && p[i] != '\n'; i++)
			if (p[i] != '\t' && (p[i] < 0x20 || p[i] == 0x7f))
				return HTTP_PARSE_BAD;
		if (i == n)
			goto need_more;
		r = line_end(p, n, &i);
		if (r < 0)
			return HTTP_PARSE_BAD;
		if (!r)
			goto need_more;
	}

need_more:
	if (len < HTTPD_MAX_HEAD)
		return HTTP_PARSE_INCOMPLETE;
	/*
	 * Method and version are short, so a request line that reaches the
	 * limit does so in its target: the URI is what is too long.
	 */
	return in_request_line ? HTTP_PARSE_URI_TOO_LONG
			       : HTTP_PARSE_HEADERS_TOO_LARGE;
}

/* ---- --listen ---- */

/* 0, -1 not a port, -2 out of range. Digits only: no sign, no spaces. */
static int parse_port(const char *s, int *port)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > 65535) {
			for (s++; *s; s++)
				if (*s < '0' || *s > '9')
					return -1;
			return -2;
		}
	}
	*port = (int)v;
	return 0;
}

int httpd_parse_listen(const char *text, struct sockaddr_storage *addr,
		       socklen_t *addrlen, char *err, size_t errlen)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)addr;
	struct sockaddr_in *sin = (struct sockaddr_in *)addr;
	char host[INET6_ADDRSTRLEN];
	const char *host_start, *port_text, *colon;
	size_t host_len;
	bool ipv6 = false;
	int port = 0, ret;

	memset(addr, 0, sizeof(*addr));
	if (!text || !*text)
		return errmsg(err, errlen,
			      "--listen takes ADDR:PORT, not an empty string");
	if (text[0] == '[') {
		const char *end = strchr(text, ']');

		if (!end || end[1] != ':')
			return errmsg(err, errlen,
				      "--listen takes [IPv6]:PORT, not '%s'",
				      text);
		ipv6 = true;
		host_start = text + 1;
		host_len = (size_t)(end - host_start);
		port_text = end + 2;
	} else {
		colon = strchr(text, ':');
		host_start = text;
		if (!colon) {
			host_len = 0;
			port_text = text;
		} else if (strchr(colon + 1, ':')) {
			return errmsg(err, errlen,
				      "--listen takes ADDR:PORT, not '%s' (an IPv6 address goes in brackets: [::1]:9100)",
				      text);
		} else {
			host_len = (size_t)(colon - text);
			port_text = colon + 1;
		}
	}

	ret = parse_port(port_text, &port);
	if (ret == -2)
		return errmsg(err, errlen,
			      "--listen: the port in '%s' is out of range (0-65535)",
			      text);
	if (ret)
		return errmsg(err, errlen, "--listen takes ADDR:PORT, not '%s'",
			      text);
	if (host_len >= sizeof(host))
		return errmsg(err, errlen,
			      "--listen: '%s' does not start with a numeric address",
			      text);
	memcpy(host, host_start, host_len);
	host[host_len] = '\0';

	if (ipv6) {
		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			return errmsg(err, errlen,
				      "--listen: '%s' is not an IPv6 address",
				      host);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*addrlen = sizeof(*sin6);
		return 0;
	}
	/* Exporters must not appear on every interface by accident. */
	if (!host_len || !strcmp(host, "localhost"))
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		return errmsg(err, errlen,
			      "--listen: '%s' is not a numeric IPv4 address",
			      host);
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	*addrlen = sizeof(*sin);
	return 0;
}

static void format_addr(const struct sockaddr_storage *addr, char *buf,
			size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (addr->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)addr;

		inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(s->sin6_port));
	} else {
		const struct sockaddr_in *s = (const struct sockaddr_in *)addr;

		inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(s->sin_port));
	}
}

/* ---- connections ---- */

/*
 * For connections we will not serve: one non-blocking try at the answer
 * (it fits any socket buffer), then drop what already arrived so that
 * close() sends a FIN rather than a RST that could eat the answer.
 */
static void refuse(int fd, const char *response, size_t len)
{
	char scratch[1024];
	int i;

	if (send(fd, response, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* Nothing to do: the client goes without an answer. */
	}
	shutdown(fd, SHUT_WR);
	for (i = 0; i < 8; i++)
		if (recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT) <= 0)
			break;
	close(fd);
}

/* Frees the slot; the socket is already closed or handed to refuse(). */
static void conn_release(struct conn *c)
{
	free(c->body_owned);
	c->body_owned = NULL;
	c->body = NULL;
	c->fd = -1;
	c->state = CONN_FREE;
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	conn_release(c);
}

static const char *reason_phrase(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	default:  return "Error";
	}
}

static const char *error_body(int status)
{
	switch (status) {
	case 400: return "400 Bad Request\n";
	case 404: return "404 Not Found\n";
	case 405: return "405 Method Not Allowed\n";
	case 414: return "414 URI Too Long\n";
	case 431: return "431 Request Header Fields Too Large\n";
	case 500: return "500 Internal Server Error\n";
	default:  return "error\n";
	}
}

/* 1 everything sent, 0 the socket is full, -1 the client is gone. */
static int conn_flush(struct conn *c)
{
	size_t total = c->head_len + c->body_len;

	while (c->sent < total) {
		struct iovec iov[2];
		struct msghdr msg;
		size_t cnt = 0;
		ssize_t n;

		if (c->sent < c->head_len) {
			iov[cnt].iov_base = c->head + c->sent;
			iov[cnt++].iov_len = c->head_len - c->sent;
			if (c->body_len) {
				iov[cnt].iov_base = (char *)c->body;
				iov[cnt++].iov_len = c->body_len;
			}
		} else {
			iov[cnt].iov_base = (char *)c->body +
					    (c->sent - c->head_len);
			iov[cnt++].iov_len = total - c->sent;
		}
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = cnt;
		/* MSG_NOSIGNAL: a client that hung up must not SIGPIPE the tool. */
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		c->sent += (size_t)n;
	}
	return 1;
}

static void conn_write(struct conn *c, double now)
{
	int r = conn_flush(c);

	if (r < 0) {
		conn_close(c);
		return;
	}
	if (!r)
		return;
	free(c->body_owned);
	c->body_owned = NULL;
	c->body = NULL;
	/* The FIN tells the client the answer is whole; see HTTPD_LINGER_*. */
	shutdown(c->fd, SHUT_WR);
	c->state = CONN_LINGERING;
	c->deadline = now + HTTPD_LINGER_TIMEOUT;
	c->discarded = 0;
}

/* Takes ownership of owned (the body, or NULL if body is static). */
static void conn_answer(struct conn *c, double now, int status,
			const char *extra, const char *type, const char *body,
			char *owned, size_t body_len, bool head_only)
{
	int n;

	n = snprintf(c->head, sizeof(c->head),
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "Connection: close\r\n"
		     "%s"
		     "\r\n",
		     status, reason_phrase(status), type, body_len, extra);
	if (n < 0 || (size_t)n >= sizeof(c->head)) {
		free(owned);
		conn_close(c);
		return;
	}
	c->head_len = (size_t)n;
	c->body_owned = owned;
	c->body = head_only ? NULL : body;
	c->body_len = head_only ? 0 : body_len;
	c->sent = 0;
	c->state = CONN_WRITING;
	c->deadline = now + HTTPD_WRITE_TIMEOUT;
	/* Most answers fit the socket buffer: skip a poll round. */
	conn_write(c, now);
}

static void conn_error(struct conn *c, double now, int status,
		       bool head_only)
{
	const char *body = error_body(status);
	const char *extra = status == 405 ? "Allow: GET, HEAD\r\n" : "";

	conn_answer(c, now, status, extra, TEXT_PLAIN, body, NULL,
		    strlen(body), head_only);
}

static void conn_route(struct httpd *h, struct conn *c, double now,
		       const struct http_request *req)
{
	bool head = !strcmp(req->method, "HEAD");
	char *body;
	size_t len = 0;

	if (!head && strcmp(req->method, "GET")) {
		conn_error(c, now, 405, false);
		return;
	}
	if (!strcmp(req->path, "/metrics")) {
		/* HEAD renders too: its Content-Length must be the GET's. */
		body = h->render(h->ctx, &len);
		if (!body) {
			conn_error(c, now, 500, head);
			return;
		}
		atomic_fetch_add(&h->served, 1);
		conn_answer(c, now, 200, "", METRICS_TYPE, body, body, len,
			    head);
	} else if (!strcmp(req->path, "/")) {
		atomic_fetch_add(&h->served, 1);
		conn_answer(c, now, 200, "", TEXT_PLAIN, index_page, NULL,
			    sizeof(index_page) - 1, head);
	} else {
		conn_error(c, now, 404, head);
	}
}

/*
 * Parsing rescans the whole head, so a client trickling bytes one at a
 * time would cost quadratic CPU: rescan only when the answer can have
 * changed. Early garbage is caught on the first read, a bad request line
 * when it ends, anything else when the blank line or the limit arrives.
 */
static bool worth_parsing(const struct conn *c, size_t old_len)
{
	size_t i = old_len >= 2 ? old_len - 2 : 0;

	if (!old_len || c->in_len == sizeof(c->in))
		return true;
	if (!memchr(c->in, '\n', old_len) &&
	    memchr(c->in + old_len, '\n', c->in_len - old_len))
		return true;
	for (; i < c->in_len; i++) {
		if (c->in[i] != '\n')
			continue;
		if (i + 1 < c->in_len && c->in[i + 1] == '\n')
			return true;
		if (i + 2 < c->in_len && c->in[i + 1] == '\r' &&
		    c->in[i + 2] == '\n')
			return true;
	}
	return false;
}

static void conn_read(struct httpd *h, struct conn *c, double now)
{
	struct http_request req;
	size_t old_len = c->in_len;
	ssize_t n;

	/* Never called with a full buffer: a full buffer always parses to an end. */
	n = recv(c->fd, c->in + old_len, sizeof(c->in) - old_len, 0);
	if (n < 0 && (errno == EINTR || errno == EAGAIN ||
		      errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->in_len += (size_t)n;
	if (!worth_parsing(c, old_len))
		return;
	switch (http_parse_request(c->in, c->in_len, &req)) {
	case HTTP_PARSE_INCOMPLETE:
		break;
	case HTTP_PARSE_OK:
		conn_route(h, c, now, &req);
		break;
	case HTTP_PARSE_BAD:
		conn_error(c, now, 400, false);
		break;
	case HTTP_PARSE_URI_TOO_LONG:
		conn_error(c, now, 414, false);
		break;
	case HTTP_PARSE_HEADERS_TOO_LARGE:
		conn_error(c, now, 431, false);
		break;
	}
}

static void conn_linger(struct conn *c)
{
	ssize_t n = recv(c->fd, c->in, sizeof(c->in), 0);

	if (n < 0 && (errno == EINTR || errno == EAGAIN ||
		      errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->discarded += (size_t)n;
	if (c->discarded > HTTPD_LINGER_BYTES)
		conn_close(c);
}

static void conn_event(struct httpd *h, struct conn *c, double now)
{
	switch (c->state) {
	case CONN_READING:
		conn_read(h, c, now);
		break;
	case CONN_WRITING:
		conn_write(c, now);
		break;
	case CONN_LINGERING:
		conn_linger(c);
		break;
	case CONN_FREE:
		break;
	}
}

static void accept_clients(struct httpd *h, double now)
{
	for (int i = 0; i < HTTPD_ACCEPT_BATCH; i++) {
		struct conn *c = NULL;
		int fd;

		fd = accept4(h->listen_fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			/*
			 * Linux hands a new connection's pending network
			 * error to accept(): that connection is gone, the
			 * next one may be fine.
			 */
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EPROTO || errno == ENETDOWN ||
			    errno == ENOPROTOOPT || errno == EHOSTDOWN ||
			    errno == ENONET || errno == EHOSTUNREACH ||
			    errno == EOPNOTSUPP || errno == ENETUNREACH)
				continue;
			/*
			 * EMFILE, ENFILE, ENOBUFS, ENOMEM or worse: the
			 * listener stays readable, so polling it again at
			 * once would spin a CPU until the shortage ends.
			 */
			h->accept_resume = now + HTTPD_ACCEPT_PAUSE;
			return;
		}
		for (int j = 0; j < HTTPD_MAX_CONNECTIONS; j++) {
			if (h->conns[j].state == CONN_FREE) {
				c = &h->conns[j];
				break;
			}
		}
		if (!c) {
			refuse(fd, response_503, sizeof(response_503) - 1);
			continue;
		}
		c->fd = fd;
		c->state = CONN_READING;
		c->deadline = now + HTTPD_REQUEST_TIMEOUT;
		c->in_len = 0;
	}
}

static void expire_conns(struct httpd *h, double now)
{
	for (int i = 0; i < HTTPD_MAX_CONNECTIONS; i++) {
		struct conn *c = &h->conns[i];

		if (c->state == CONN_FREE || now < c->deadline)
			continue;
		if (c->state == CONN_READING) {
			refuse(c->fd, response_408, sizeof(response_408) - 1);
			conn_release(c);
			continue;
		}
		if (c->state == CONN_WRITING) {
			/*
			 * The answer is cut short anyway: a reset frees the
			 * megabytes queued in the kernel for a client that
			 * does not read, instead of leaving them to an
			 * orphaned socket.
			 */
			struct linger rst = { .l_onoff = 1, .l_linger = 0 };

			setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &rst,
				   sizeof(rst));
		}
		conn_close(c);
	}
}

/* Milliseconds until the next deadline (or accept pause end), -1 if none. */
static int poll_timeout(const struct httpd *h, double now)
{
	double next = -1, ms;

	if (h->accept_resume > now)
		next = h->accept_resume;
	for (int i = 0; i < HTTPD_MAX_CONNECTIONS; i++) {
		const struct conn *c = &h->conns[i];

		if (c->state != CONN_FREE && (next < 0 || c->deadline < next))
			next = c->deadline;
	}
	if (next < 0)
		return -1;
	ms = (next - now) * 1000.0 + 1.0;	/* round up: never wake early */
	if (ms < 0)
		return 0;
	if (ms > 60000)
		return 60000;
	return (int)ms;
}

static void *serve(void *arg)
{
	struct httpd *h = arg;
	struct pollfd pfds[2 + HTTPD_MAX_CONNECTIONS];
	int slot[2 + HTTPD_MAX_CONNECTIONS];

	while (!atomic_load(&h->stop)) {
		double now = monotonic_seconds();
		bool listening = now >= h->accept_resume;
		int nfds = 0, ret;

		expire_conns(h, now);
		pfds[nfds].fd = h->wake_fd;
		pfds[nfds].events = POLLIN;
		slot[nfds++] = -1;
		if (listening) {
			pfds[nfds].fd = h->listen_fd;
			pfds[nfds].events = POLLIN;
			slot[nfds++] = -1;
		}
		for (int i = 0; i < HTTPD_MAX_CONNECTIONS; i++) {
			const struct conn *c = &h->conns[i];

			if (c->state == CONN_FREE)
				continue;
			pfds[nfds].fd = c->fd;
			pfds[nfds].events = c->state == CONN_WRITING ? POLLOUT
								     : POLLIN;
			slot[nfds++] = i;
		}
		ret = poll(pfds, (nfds_t)nfds, poll_timeout(h, now));
		if (ret < 0) {
			if (errno != EINTR)
				poll(NULL, 0, 100);	/* ENOMEM: do not spin */
			continue;
		}
		if (!ret)
			continue;
		now = monotonic_seconds();
		if (pfds[0].revents) {
			uint64_t count;

			if (read(h->wake_fd, &count, sizeof(count)) < 0) {
				/* Non-blocking: already drained. */
			}
		}
		for (int i = 0; i < nfds; i++)
			if (slot[i] >= 0 && pfds[i].revents)
				conn_event(h, &h->conns[slot[i]], now);
		/* Accept last: new slots are not in this round's pfds. */
		if (listening && pfds[1].revents)
			accept_clients(h, now);
	}
	return NULL;
}

/* ---- lifecycle ---- */

static void httpd_free(struct httpd *h)
{
	for (int i = 0; i < HTTPD_MAX_CONNECTIONS; i++)
		if (h->conns[i].state != CONN_FREE)
			conn_close(&h->conns[i]);
	if (h->listen_fd >= 0)
		close(h->listen_fd);
	if (h->wake_fd >= 0)
		close(h->wake_fd);
	free(h);
}

/* The reasons a user can act on, in words; strerror() for the rest. */
static const char *listen_failure_reason(int errnum)
{
	switch (errnum) {
	case EADDRINUSE:
		return "the address is already in use";
	case EADDRNOTAVAIL:
		return "the address is not one of this host's";
	case EACCES:
		return "permission denied (ports below 1024 need CAP_NET_BIND_SERVICE)";
	default:
		return strerror(errnum);
	}
}

int httpd_listen(const char *listen_text, char *err, size_t errlen)
{
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int fd, one = 1;

	if (httpd_parse_listen(listen_text, &addr, &addrlen, err, errlen))
		return -1;
	fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return errmsg(err, errlen, "--listen %s: cannot create a socket: %s",
			      listen_text, strerror(errno));
	/* A restarted tool must not wait out TIME_WAIT to get its port back. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))) {
		errmsg(err, errlen, "--listen %s: cannot set SO_REUSEADDR: %s",
		       listen_text, strerror(errno));
		goto fail;
	}
	if (bind(fd, (struct sockaddr *)&addr, addrlen)) {
		errmsg(err, errlen, "--listen %s: %s", listen_text,
		       listen_failure_reason(errno));
		goto fail;
	}
	if (listen(fd, HTTPD_BACKLOG)) {
		errmsg(err, errlen, "--listen %s: %s", listen_text,
		       listen_failure_reason(errno));
		goto fail;
	}
	return fd;

fail:
	close(fd);
	return -1;
}

struct httpd *httpd_start(int listen_fd, httpd_render_fn render, void *ctx,
			  char *err, size_t errlen)
{
	struct sockaddr_storage bound;
	socklen_t boundlen = sizeof(bound);
	struct httpd *h;
	int ret;

	if (listen_fd < 0 || !render) {
		errmsg(err, errlen,
		       "the HTTP server needs a listening socket and a render callback");
		if (listen_fd >= 0)
			close(listen_fd);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		errmsg(err, errlen, "out of memory for the HTTP server");
		close(listen_fd);
		return NULL;
	}
	h->listen_fd = listen_fd;
	h->wake_fd = -1;
	h->render = render;
	h->ctx = ctx;
	atomic_init(&h->stop, false);
	atomic_init(&h->served, 0);
	for (int i = 0; i < HTTPD_MAX_CONNECTIONS; i++)
		h->conns[i].fd = -1;

	if (getsockname(h->listen_fd, (struct sockaddr *)&bound, &boundlen)) {
		errmsg(err, errlen, "cannot read the HTTP server's address: %s",
		       strerror(errno));
		goto fail;
	}
	format_addr(&bound, h->address, sizeof(h->address));
	h->port = ntohs(bound.ss_family == AF_INET6 ?
			((struct sockaddr_in6 *)&bound)->sin6_port :
			((struct sockaddr_in *)&bound)->sin_port);
	h->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (h->wake_fd < 0) {
		errmsg(err, errlen, "cannot create the HTTP server's eventfd: %s",
		       strerror(errno));
		goto fail;
	}

	ret = run_start_thread(&h->thread, serve, h);
	if (ret) {
		errmsg(err, errlen, "cannot start the HTTP server thread: %s",
		       strerror(ret));
		goto fail;
	}
	return h;

fail:
	httpd_free(h);
	return NULL;
}

int httpd_port(const struct httpd *h)
{
	return h ? h->port : -1;
}

const char *httpd_address(const struct httpd *h)
{
	return h ? h->address : "";
}

unsigned long long httpd_requests_served(const struct httpd *h)
{
	return h ? atomic_load(&h->served) : 0;
}

void httpd_stop(struct httpd *h)
{
	uint64_t one = 1;

	if (!h)
		return;
	atomic_store(&h->stop, true);
	while (write(h->wake_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(h->thread, NULL);
	httpd_free(h);
}
