/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small writer of self-contained SVG 1.1 (no script, no external
 * reference) and the three charts the tools draw with it: a heatmap
 * (a histogram over time), lines over time and grouped bars. Colours are
 * colour-blind safe: Okabe and Ito's eight for series, viridis steps for
 * heatmap shares. Every chart element a test may count carries a class:
 * "cell" (heatmap), "bar" (bars), "series" (one polyline per line).
 */
#ifndef SCHEDSCAN_SVG_H
#define SCHEDSCAN_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct svg {
	FILE *out;
	int width, height;
	bool failed;		/* a write failed: svg_end() says so */
};

/* Okabe-Ito series colours, by index (wraps). */
const char *svg_series_colour(size_t i);
/* A viridis step for a share in [0, 1] (0: the lightest background step). */
const char *svg_share_colour(double share);

void svg_begin(struct svg *s, FILE *out, int width, int height, const char *title);
/* 0, or -1 if anything failed to be written. */
int svg_end(struct svg *s);
/* Text is XML-escaped. anchor: "start", "middle" or "end". */
void svg_text(struct svg *s, double x, double y, const char *anchor, int size, bool rotate,
	      const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
	      const char *cls, const char *tooltip);
void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke);
void svg_polyline(struct svg *s, const double *x, const double *y, size_t n,
		  const char *stroke, const char *tooltip);

/* A chart's place on the page. */
struct chart_box {
	double x, y, w, h;
};

/*
 * A histogram over time: nx columns (intervals), ny rows (buckets, row 0
 * at the bottom), share[ix * ny + iy] in [0, 1] of column ix's samples.
 * Draws nx * ny cells.
 */
void chart_heatmap(struct svg *s, const struct chart_box *box, const char *title,
		   const char *x_label, const char *y_label, size_t nx, size_t ny,
		   const double *share, const char *const *row_labels);

/*
 * A matrix of counts, such as CPU node x memory node: nx columns, ny rows
 * (row 0 at the top), count[ix * ny + iy]; each cell coloured by its share
 * of the total and labelled with the count and the share. Draws nx * ny
 * cells.
 */
void chart_matrix(struct svg *s, const struct chart_box *box, const char *title,
		  const char *x_label, const char *y_label, size_t nx, size_t ny,
		  const double *count, const char *const *col_labels,
		  const char *const *row_labels);

struct chart_series {
	const char *name;
	const double *values;	/* NAN: no value (a gap) */
};

/* Lines over nx points (intervals), y from 0 to the largest value. */
void chart_lines(struct svg *s, const struct chart_box *box, const char *title,
		 const char *x_label, const char *y_unit, size_t nx,
		 const struct chart_series *series, size_t nr_series);

/*
 * Grouped bars: nr_groups categories, nr_series bars in each (e.g. A and
 * B), value[series][group] read as values[series * nr_groups + group].
 * Draws nr_groups * nr_series bars.
 */
void chart_bars(struct svg *s, const struct chart_box *box, const char *title,
		const char *y_unit, size_t nr_groups, const char *const *group_labels,
		size_t nr_series, const char *const *series_names, const double *values);

#endif
