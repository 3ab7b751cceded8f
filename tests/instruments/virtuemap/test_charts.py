"""The pentagon chart's geometry: tick labels off the axes (where the markers are), and a view box that holds
every axis label, however long."""

from __future__ import annotations

import math

from instruments.virtuemap.charts import CENTRE, CHAR_WIDTH_EM, LABEL_FONT, RadarSeries, radar_chart

NAMES = ["Practical Wisdom", "Justice", "Truthfulness", "Courage", "Temperance"]


def test_tick_labels_lie_between_the_first_and_the_last_axis_never_on_one():
    chart = radar_chart(axis_labels=NAMES, series=[RadarSeries("p", [90, 80, 70, 60, 50])])
    axis_angles = [math.atan2(end.y - start.y, end.x - start.x) for start, end in chart.axes]
    assert chart.ring_labels
    for _, point in chart.ring_labels:
        angle = math.atan2(point.y - CENTRE[1], point.x - CENTRE[0])
        gap = min(abs(math.remainder(angle - axis, 2 * math.pi)) for axis in axis_angles)
        assert gap > math.radians(20)


def test_the_view_box_widens_to_hold_long_axis_labels():
    long = ["An exceptionally long virtue name", *NAMES[1:]]
    chart = radar_chart(axis_labels=long, series=[RadarSeries("p", [50] * 5)])
    top = chart.labels[0]
    half = len(top.text) * LABEL_FONT * CHAR_WIDTH_EM / 2
    assert chart.min_x <= top.x - half and chart.min_x + chart.width >= top.x + half
    left = next(label for label in chart.labels if label.text == "Temperance")
    assert chart.min_x <= left.x - len(left.text) * LABEL_FONT * CHAR_WIDTH_EM


def test_chinese_axis_labels_are_given_a_whole_em_a_character():
    wide = "适度而不放纵的节制之德"  # 11 full-width characters: 11 ems, where 0.7 em a character would give 7.7
    chinese = ["实践智慧", "公正", "诚实", "勇气", wide]
    chart = radar_chart(axis_labels=chinese, series=[RadarSeries("p", [50] * 5)])
    left = next(label for label in chart.labels if label.text == wide)

    assert left.anchor == "end"
    assert chart.min_x <= left.x - len(wide) * LABEL_FONT
