"""Small line charts drawn on the server as SVG: no script, no network, readable on a phone."""

from __future__ import annotations

import math

from markupsafe import Markup, escape

# Eight colours that stay apart for common colour-vision deficiencies (Okabe–Ito, darkened).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#8F7500", "#56B4E9", "#000000", "#E69F00")

WIDTH, HEIGHT = 360, 230
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 42  # left: a rating's "1000" clear of the turned axis title
CHAR_WIDTH, LABEL_GAP = 7.2, 6  # an x label's letter at 12.5 px, and the least space between two labels


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low``..``high``."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks = [round(start, 6)]
    while ticks[-1] < high:  # the top tick at or above the highest value: no line leaves the plot
        ticks.append(round(ticks[-1] + step, 6))
    return ticks


def _x_label_places(x_labels: list[str], x) -> list[tuple[int, float]]:
    """Which x labels to write and where their middles go: evenly thinned so none touch, the last
    always written and kept inside the chart ("2026-11" at the right edge is not cut off)."""
    width = max(len(text) for text in x_labels) * CHAR_WIDTH
    last = len(x_labels) - 1
    spacing = (x(last) - x(0)) / last if last else width
    every = max(1, math.ceil((width + LABEL_GAP) / spacing))
    chosen = list(range(0, last + 1, every))

    def centre(i: int) -> float:
        return min(max(x(i), LEFT), WIDTH - width / 2 - 1)

    if chosen[-1] != last:
        chosen.append(last)
    if len(chosen) > 2 and centre(last) - centre(chosen[-2]) < width + LABEL_GAP:
        del chosen[-2]  # the last label, moved in from the edge, would touch the one before it
    return [(i, centre(i)) for i in chosen]


def _number(value: float) -> str:
    return f"{value:g}"


def line_chart(
    series: list[tuple[str, list[float | None]]],
    x_labels: list[str],
    *,
    x_title: str,
    y_title: str,
    label: str,
) -> Markup:
    """An SVG line chart: one line per series over ``x_labels``, with labelled axes and a legend."""
    values = [v for _, points in series for v in points if v is not None]
    if not values or not x_labels:
        return Markup("")
    ticks = _ticks(min(0, min(values)), max(values))
    low, high = ticks[0], ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    steps = max(len(x_labels) - 1, 1)

    def x(i: int) -> float:
        return LEFT + (plot_w * i / steps if len(x_labels) > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h - (v - low) / (high - low) * plot_h

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}" '
        'xmlns="http://www.w3.org/2000/svg" font-size="11">',
        f"<title>{escape(label)}</title>",
    ]
    for t in ticks:
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}" class="grid"/>'
            f'<text x="{LEFT - 4}" y="{y(t) + 4:.1f}" text-anchor="end">{_number(t)}</text>'
        )
    for i, centre in _x_label_places(x_labels, x):
        parts.append(
            f'<text x="{centre:.1f}" y="{TOP + plot_h + 14}" text-anchor="middle">{escape(x_labels[i])}</text>'
        )
    parts.append(
        f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}" class="axis"/>'
        f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{TOP + plot_h}" y2="{TOP + plot_h}" class="axis"/>'
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}" text-anchor="middle" '
        f'class="axis-title">{escape(x_title)}</text>'
        f'<text transform="translate(9 {TOP + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle" '
        f'class="axis-title">{escape(y_title)}</text>'
    )
    parts.extend(_lines(series, x, y))
    parts.append("</svg>")
    legend = "".join(
        f'<li><span class="swatch c{i % len(PALETTE)}"></span>{escape(name)}</li>'
        for i, (name, _) in enumerate(series)
    )
    return Markup("".join(parts) + f'<ul class="legend">{legend}</ul>')


def _lines(series: list[tuple[str, list[float | None]]], x, y) -> list[str]:
    """One polyline per series (with dots while there are few points), at ``x(i)``, ``y(value)``."""
    parts = []
    dots = sum(len(p) for _, p in series) <= 120
    for index, (name, points) in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        tone = f"c{index % len(PALETTE)}"  # app.css swaps the colour in dark mode
        coords = [(x(i), y(v)) for i, v in enumerate(points) if v is not None]
        path = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in coords)
        parts.append(
            f'<polyline points="{path}" class="series {tone}" fill="none" stroke="{colour}" '
            f'stroke-width="2.5" stroke-linejoin="round"><title>{escape(name)}</title></polyline>'
        )
        if dots:
            parts.extend(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="2.8" class="dot {tone}" fill="{colour}"/>'
                for cx, cy in coords
            )
    return parts
