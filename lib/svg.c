// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "escape.h"
#include "svg.h"

/* Okabe & Ito, "Color Universal Design" (2008): distinguishable in every common colour blindness. */
static const char *const series_colours[] = {
	"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
};

/* viridis at 9 steps, light background first for "nothing". */
static const char *const share_colours[] = {
	"#f4f4f4", "#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962",
	"#addc30", "#fde725",
};

const char *svg_series_colour(size_t i)
{
	return series_colours[i % (sizeof(series_colours) / sizeof(series_colours[0]))];
}

const char *svg_share_colour(double share)
{
	int steps = (int)(sizeof(share_colours) / sizeof(share_colours[0])) - 1;
	int k;

	if (!(share > 0))
		return share_colours[0];
	k = 1 + (int)(share * steps);
	return share_colours[k > steps ? steps : k];
}

static void out(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct svg *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(s->out, fmt, ap) < 0)
		s->failed = true;
	va_end(ap);
}

/*
 * XML character data: the five markup characters as entities, and only
 * characters XML 1.0 allows: invalid UTF-8, control characters but tab
 * and newline, and the noncharacters U+FFFE/U+FFFF become U+FFFD (the
 * strings come from JSON records, which --compare reads from any file).
 */
static void escaped(struct svg *s, const char *text)
{
	size_t n = strlen(text);

	for (size_t i = 0; i < n;) {
		unsigned int cp;
		size_t len = utf8_sequence(text + i, n - i, &cp);

		switch (text[i]) {
		case '<': out(s, "&lt;"); break;
		case '>': out(s, "&gt;"); break;
		case '&': out(s, "&amp;"); break;
		case '"': out(s, "&quot;"); break;
		case '\'': out(s, "&apos;"); break;
		default:
			if (!len || (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0xfffe ||
			    cp == 0xffff)
				out(s, UTF8_REPLACEMENT);
			else
				out(s, "%.*s", (int)len, text + i);
		}
		i += len ? len : 1;
	}
}

void svg_begin(struct svg *s, FILE *f, int width, int height, const char *title)
{
	memset(s, 0, sizeof(*s));
	s->out = f;
	s->width = width;
	s->height = height;
	out(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	       "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
	       "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n<title>",
	    width, height, width, height);
	escaped(s, title);
	out(s, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
	    width, height);
}

int svg_end(struct svg *s)
{
	out(s, "</svg>\n");
	if (fflush(s->out))
		s->failed = true;
	return s->failed || ferror(s->out) ? -1 : 0;
}

void svg_text(struct svg *s, double x, double y, const char *anchor, int size, bool rotate,
	      const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	out(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"", x, y, size, anchor);
	if (rotate)
		out(s, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
	out(s, ">");
	escaped(s, text);
	out(s, "</text>\n");
}

void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
	      const char *cls, const char *tooltip)
{
	out(s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"", x, y,
	    w > 0 ? w : 0, h > 0 ? h : 0, fill);
	if (cls)
		out(s, " class=\"%s\"", cls);
	if (tooltip) {
		out(s, "><title>");
		escaped(s, tooltip);
		out(s, "</title></rect>\n");
	} else {
		out(s, "/>\n");
	}
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke)
{
	out(s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1\"/>\n",
	    x1, y1, x2, y2, stroke);
}

void svg_polyline(struct svg *s, const double *x, const double *y, size_t n,
		  const char *stroke, const char *tooltip)
{
	out(s, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", stroke);
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]))
			out(s, "%s%.2f,%.2f", i ? " " : "", x[i], y[i]);
	out(s, "\">");
	if (tooltip) {
		out(s, "<title>");
		escaped(s, tooltip);
		out(s, "</title>");
	}
	out(s, "</polyline>\n");
}

/* ------------------------------------------------------------------ charts */

#define AXIS_COLOUR "#333333"
#define GRID_COLOUR "#dddddd"
#define MARGIN_LEFT 64
#define MARGIN_BOTTOM 40
#define MARGIN_TOP 28

struct plot_area {
	double x, y, w, h;	/* inside the axes */
};

static struct plot_area frame(struct svg *s, const struct chart_box *box, const char *title,
			      const char *x_label, const char *y_label)
{
	struct plot_area a = {
		.x = box->x + MARGIN_LEFT,
		.y = box->y + MARGIN_TOP,
		.w = box->w - MARGIN_LEFT - 16,
		.h = box->h - MARGIN_TOP - MARGIN_BOTTOM,
	};

	svg_text(s, box->x + box->w / 2, box->y + 18, "middle", 14, false, "%s", title);
	svg_line(s, a.x, a.y + a.h, a.x + a.w, a.y + a.h, AXIS_COLOUR);
	svg_line(s, a.x, a.y, a.x, a.y + a.h, AXIS_COLOUR);
	if (x_label)
		svg_text(s, a.x + a.w / 2, a.y + a.h + 32, "middle", 11, false, "%s", x_label);
	if (y_label)
		svg_text(s, box->x + 14, a.y + a.h / 2, "middle", 11, true, "%s", y_label);
	return a;
}

/* A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten, at least max. */
static double nice_ceiling(double max)
{
	double p, m;

	if (!(max > 0))
		return 1;
	p = pow(10, floor(log10(max)));
	m = max / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void y_ticks(struct svg *s, const struct plot_area *a, double top, const char *unit)
{
	for (int i = 0; i <= 4; i++) {
		double v = top * i / 4, y = a->y + a->h - a->h * i / 4;

		if (i)
			svg_line(s, a->x, y, a->x + a->w, y, GRID_COLOUR);
		svg_text(s, a->x - 4, y + 4, "end", 10, false, "%g%s", v, unit && !strcmp(unit, "%") ? "%" : "");
	}
}

static void x_ticks(struct svg *s, const struct plot_area *a, size_t nx)
{
	size_t step = nx > 10 ? (nx + 9) / 10 : 1;

	for (size_t i = 0; i < nx; i += step)
		svg_text(s, a->x + a->w * ((double)i + 0.5) / (double)nx, a->y + a->h + 14, "middle", 10,
			 false, "%zu", i + 1);
}

void chart_heatmap(struct svg *s, const struct chart_box *box, const char *title,
		   const char *x_label, const char *y_label, size_t nx, size_t ny,
		   const double *share, const char *const *row_labels)
{
	struct plot_area a = frame(s, box, title, x_label, y_label);
	double cw = nx ? a.w / (double)nx : 0, ch = ny ? a.h / (double)ny : 0;

	for (size_t ix = 0; ix < nx; ix++)
		for (size_t iy = 0; iy < ny; iy++) {
			double v = share[ix * ny + iy];
			char tip[128];

			snprintf(tip, sizeof(tip), "interval %zu, %s: %.1f%%", ix + 1,
				 row_labels ? row_labels[iy] : "", 100 * v);
			svg_rect(s, a.x + cw * (double)ix, a.y + a.h - ch * (double)(iy + 1), cw, ch,
				 svg_share_colour(v), "cell", tip);
		}
	for (size_t iy = 0; iy < ny && row_labels; iy++)
		svg_text(s, a.x - 4, a.y + a.h - ch * ((double)iy + 0.5) + 4, "end", 10, false, "%s",
			 row_labels[iy]);
	x_ticks(s, &a, nx);
	/* The legend: what a colour means. */
	for (int k = 0; k <= 4; k++) {
		double x = box->x + box->w - 16 - 5 * 28 + k * 28;

		svg_rect(s, x, a.y + a.h + 20, 28, 8, svg_share_colour(k / 4.0), NULL, NULL);
		svg_text(s, x + 14, a.y + a.h + 38, "middle", 9, false, "%d%%", k * 25);
	}
}

void chart_matrix(struct svg *s, const struct chart_box *box, const char *title,
		  const char *x_label, const char *y_label, size_t nx, size_t ny,
		  const double *count, const char *const *col_labels,
		  const char *const *row_labels)
{
	struct plot_area a = frame(s, box, title, x_label, y_label);
	double total = 0, side, cw, ch;

	for (size_t i = 0; i < nx * ny; i++)
		total += count[i];
	/* Square cells, as large as the area allows. */
	cw = nx ? a.w / (double)nx : 0;
	ch = ny ? a.h / (double)ny : 0;
	side = cw < ch ? cw : ch;
	for (size_t ix = 0; ix < nx; ix++) {
		for (size_t iy = 0; iy < ny; iy++) {
			double v = count[ix * ny + iy], share = total > 0 ? v / total : 0;
			double x = a.x + side * (double)ix, y = a.y + side * (double)iy;
			char tip[160];

			snprintf(tip, sizeof(tip), "%s %s, %s %s: %.0f (%.1f%%)", y_label, row_labels[iy],
				 x_label, col_labels[ix], v, 100 * share);
			svg_rect(s, x, y, side, side, svg_share_colour(share), "cell", tip);
			/* A white halo keeps the label readable on every colour of the palette. */
			out(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
			       "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">%.0f (%.0f%%)</text>\n",
			    x + side / 2, y + side / 2 + 4, v, 100 * share);
		}
		svg_text(s, a.x + side * ((double)ix + 0.5), a.y + side * (double)ny + 14, "middle", 10,
			 false, "%s", col_labels[ix]);
	}
	for (size_t iy = 0; iy < ny; iy++)
		svg_text(s, a.x - 4, a.y + side * ((double)iy + 0.5) + 4, "end", 10, false, "%s",
			 row_labels[iy]);
}

void chart_lines(struct svg *s, const struct chart_box *box, const char *title,
		 const char *x_label, const char *y_unit, size_t nx,
		 const struct chart_series *series, size_t nr_series)
{
	struct plot_area a = frame(s, box, title, x_label, y_unit);
	double max = 0, top;
	double xs[4096], ys[4096];

	for (size_t k = 0; k < nr_series; k++)
		for (size_t i = 0; i < nx; i++)
			if (isfinite(series[k].values[i]) && series[k].values[i] > max)
				max = series[k].values[i];
	top = nice_ceiling(max);
	y_ticks(s, &a, top, y_unit);
	x_ticks(s, &a, nx);
	for (size_t k = 0; k < nr_series; k++) {
		size_t n = nx < 4096 ? nx : 4096;

		for (size_t i = 0; i < n; i++) {
			xs[i] = a.x + a.w * ((double)i + 0.5) / (double)nx;
			ys[i] = a.y + a.h - a.h * series[k].values[i] / top;
		}
		svg_polyline(s, xs, ys, n, svg_series_colour(k), series[k].name);
		svg_rect(s, a.x + 8 + 150 * (double)(k % 4), a.y + 4 + 14 * (double)(k / 4), 10, 10,
			 svg_series_colour(k), NULL, NULL);
		svg_text(s, a.x + 22 + 150 * (double)(k % 4), a.y + 13 + 14 * (double)(k / 4), "start",
			 10, false, "%s", series[k].name);
	}
}

void chart_bars(struct svg *s, const struct chart_box *box, const char *title,
		const char *y_unit, size_t nr_groups, const char *const *group_labels,
		size_t nr_series, const char *const *series_names, const double *values)
{
	struct plot_area a = frame(s, box, title, NULL, y_unit);
	double max = 0, top, gw = nr_groups ? a.w / (double)nr_groups : 0;
	double bw = nr_series ? gw * 0.8 / (double)nr_series : 0;

	for (size_t i = 0; i < nr_groups * nr_series; i++)
		if (isfinite(values[i]) && values[i] > max)
			max = values[i];
	top = nice_ceiling(max);
	y_ticks(s, &a, top, y_unit);
	for (size_t g = 0; g < nr_groups; g++) {
		for (size_t k = 0; k < nr_series; k++) {
			double v = values[k * nr_groups + g], h = isfinite(v) ? a.h * v / top : 0;
			char tip[160];

			snprintf(tip, sizeof(tip), "%s%s%s: %g", group_labels[g], nr_series > 1 ? ", " : "",
				 nr_series > 1 ? series_names[k] : "", v);
			svg_rect(s, a.x + gw * (double)g + gw * 0.1 + bw * (double)k, a.y + a.h - h, bw, h,
				 svg_series_colour(k), "bar", tip);
		}
		svg_text(s, a.x + gw * ((double)g + 0.5), a.y + a.h + 14, "middle", 10, false, "%s",
			 group_labels[g]);
	}
	for (size_t k = 0; k < nr_series && nr_series > 1; k++) {
		svg_rect(s, a.x + 8 + 150 * (double)k, a.y + 4, 10, 10, svg_series_colour(k), NULL, NULL);
		svg_text(s, a.x + 22 + 150 * (double)k, a.y + 13, "start", 10, false, "%s",
			 series_names[k]);
	}
}
