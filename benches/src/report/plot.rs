//! Log-log line plots in SVG, like the papers' figures (plotters, SVG backend only).

use crate::BenchError;
use plotters::prelude::*;

/// One line of a plot: `(x, y)` points joined in order, with markers.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// The points; non-positive or non-finite coordinates cannot be shown on log axes and are
    /// left out.
    pub points: Vec<(f64, f64)>,
    /// Draw the line dashed with triangle markers (used for peers, so they stand apart from our
    /// own series).
    pub dashed: bool,
    /// Palette index of the colour; by default the series' position in the plot. Give a peer's
    /// series the colour of the series it is compared with.
    pub color: Option<usize>,
}

impl Series {
    /// A solid series.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self { name: name.into(), points, dashed: false, color: None }
    }

    /// A dashed series (for peers and baselines).
    pub fn dashed(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self { name: name.into(), points, dashed: true, color: None }
    }

    /// Sets the palette index of the colour.
    #[must_use]
    pub fn with_color(mut self, index: usize) -> Self {
        self.color = Some(index);
        self
    }

    fn drawable(&self) -> Vec<(f64, f64)> {
        self.points
            .iter()
            .copied()
            .filter(|&(x, y)| x.is_finite() && y.is_finite() && x > 0.0 && y > 0.0)
            .collect()
    }
}

/// A figure with logarithmic x and y axes, written as `SUITE-NAME.svg`.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLogPlot {
    /// The file-name part after the suite name, e.g. `validation`.
    pub name: String,
    /// The caption.
    pub title: String,
    /// The x-axis label.
    pub x_label: String,
    /// The y-axis label.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Image size in pixels.
    pub size: (u32, u32),
}

/// Okabe–Ito colours, distinguishable with the common forms of colour blindness.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

impl LogLogPlot {
    /// An empty plot.
    pub fn new(
        name: impl Into<String>,
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: Vec::new(),
            size: (820, 560),
        }
    }

    /// Adds a series.
    #[must_use]
    pub fn with_series(mut self, series: Series) -> Self {
        self.series.push(series);
        self
    }

    /// The axis ranges, widened to whole decades: `((x_min, x_max), (y_min, y_max))`.
    /// `None` when no series has a drawable point.
    ///
    /// ```
    /// use collide_benches::report::{LogLogPlot, Series};
    /// let p = LogLogPlot::new("t", "T", "x", "y").with_series(Series::new("a", vec![(8.0, 2e-6), (131072.0, 0.03)]));
    /// assert_eq!(p.ranges(), Some(((1.0, 1e6), (1e-6, 0.1))));
    /// ```
    pub fn ranges(&self) -> Option<((f64, f64), (f64, f64))> {
        let points: Vec<(f64, f64)> = self.series.iter().flat_map(Series::drawable).collect();
        if points.is_empty() {
            return None;
        }
        let decades = |values: &mut dyn Iterator<Item = f64>| -> (f64, f64) {
            let (lo, hi) =
                values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
            let (a, mut b) = (lo.log10().floor(), hi.log10().ceil());
            if b <= a {
                b = a + 1.0;
            }
            (10f64.powf(a), 10f64.powf(b))
        };
        Some((decades(&mut points.iter().map(|p| p.0)), decades(&mut points.iter().map(|p| p.1))))
    }

    /// Draws the plot as an SVG document.
    ///
    /// # Errors
    /// If no series has a point that can be drawn on log axes, or plotters fails.
    pub fn render_svg(&self) -> Result<String, BenchError> {
        let err = |message: String| BenchError::Plot { name: self.name.clone(), message };
        let ((x0, x1), (y0, y1)) =
            self.ranges().ok_or_else(|| err("no positive finite points to draw".into()))?;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, self.size).into_drawing_area();
            root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
            // A hair wider than whole decades so rounding in plotters' tick computation does not
            // drop the first or last decade label.
            let widen = |(a, b): (f64, f64)| (a * (1.0 - 1e-9))..(b * (1.0 + 1e-9));
            let x_axis = widen((x0, x1)).log_scale();
            let y_axis = widen((y0, y1)).log_scale();
            let mut chart = ChartBuilder::on(&root)
                .caption(&self.title, ("sans-serif", 22))
                .margin(16)
                .x_label_area_size(48)
                .y_label_area_size(72)
                .build_cartesian_2d(x_axis, y_axis)
                .map_err(|e| err(e.to_string()))?;
            chart
                .configure_mesh()
                .x_desc(&self.x_label)
                .y_desc(&self.y_label)
                .x_label_formatter(&|v| tick(*v))
                .y_label_formatter(&|v| tick(*v))
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 16))
                .light_line_style(WHITE.mix(0.0))
                .draw()
                .map_err(|e| err(e.to_string()))?;
            for (i, series) in self.series.iter().enumerate() {
                let points = series.drawable();
                if points.is_empty() {
                    continue;
                }
                let color = PALETTE[series.color.unwrap_or(i) % PALETTE.len()];
                let line = color.stroke_width(2);
                if series.dashed {
                    chart
                        .draw_series(DashedLineSeries::new(points.clone(), 8, 5, line))
                        .map_err(|e| err(e.to_string()))?
                        .label(series.name.as_str())
                        .legend(move |(x, y)| {
                            EmptyElement::at((x, y))
                                + PathElement::new(vec![(0, 0), (8, 0)], line)
                                + PathElement::new(vec![(16, 0), (24, 0)], line)
                                + TriangleMarker::new((12, 0), 4, color.filled())
                        });
                    chart
                        .draw_series(points.iter().map(|&p| TriangleMarker::new(p, 5, color.filled())))
                        .map_err(|e| err(e.to_string()))?;
                } else {
                    chart
                        .draw_series(LineSeries::new(points.clone(), line))
                        .map_err(|e| err(e.to_string()))?
                        .label(series.name.as_str())
                        .legend(move |(x, y)| {
                            EmptyElement::at((x, y))
                                + PathElement::new(vec![(0, 0), (24, 0)], line)
                                + Circle::new((12, 0), 3, color.filled())
                        });
                    chart
                        .draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))
                        .map_err(|e| err(e.to_string()))?;
                }
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .label_font(("sans-serif", 14))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .draw()
                .map_err(|e| err(e.to_string()))?;
            root.present().map_err(|e| err(e.to_string()))?;
        }
        Ok(svg)
    }
}

/// Tick label: powers of ten as `1e-5` (or plainly from 0.001 to 1000), others in short form.
///
/// ```
/// use collide_benches::report::plot::tick;
/// assert_eq!(tick(1e-6), "1e-6");
/// assert_eq!(tick(0.01), "0.01");
/// assert_eq!(tick(1000.0), "1000");
/// assert_eq!(tick(10_000.0), "1e4");
/// assert_eq!(tick(1e6), "1e6");
/// assert_eq!(tick(3e-5), "3e-5");
/// ```
pub fn tick(v: f64) -> String {
    if v <= 0.0 || !v.is_finite() {
        return v.to_string();
    }
    let exponent = v.log10().floor();
    let mantissa = v / 10f64.powf(exponent);
    let mantissa = (mantissa * 100.0).round() / 100.0;
    let (mantissa, exponent) = if mantissa >= 10.0 { (1.0, exponent + 1.0) } else { (mantissa, exponent) };
    if (-3.0..=3.0).contains(&exponent) {
        let decimals = if exponent < 0.0 { (-exponent) as usize + 2 } else { 0 };
        let text = format!("{:.*}", decimals, mantissa * 10f64.powf(exponent));
        let text = if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            text
        };
        return text;
    }
    let m = format!("{mantissa:.2}");
    let m = m.trim_end_matches('0').trim_end_matches('.');
    format!("{m}e{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot() -> LogLogPlot {
        LogLogPlot::new("validation", "Validation time", "triangles", "seconds")
            .with_series(Series::new("octa_sphere", vec![(8.0, 1e-6), (512.0, 3e-5), (131_072.0, 9e-3)]))
            .with_series(Series::dashed(
                "octa_sphere (trimesh)",
                vec![(8.0, 5e-5), (512.0, 8e-5), (131_072.0, 3e-2)],
            ))
            .with_series(Series::new("foam", vec![(28_952.0, 2e-3), (0.0, 1.0), (f64::NAN, 1.0)]))
    }

    #[test]
    fn valid_svg_with_series_and_labels() {
        let svg = plot().render_svg().unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(root.attribute("width"), Some("820"));
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        for expected in [
            "Validation time",
            "triangles",
            "seconds",
            "octa_sphere",
            "octa_sphere (trimesh)",
            "foam",
            "1e-6",
        ] {
            assert!(texts.contains(&expected), "missing text {expected:?} in {texts:?}");
        }
        let lines =
            doc.descendants().filter(|n| n.has_tag_name("polyline") || n.has_tag_name("path")).count();
        assert!(lines >= 3, "expected drawn series, found {lines} line elements");
        let circles = doc.descendants().filter(|n| n.has_tag_name("circle")).count();
        assert!(circles >= 4, "expected point markers, found {circles}");
    }

    #[test]
    fn written_to_file() {
        let dir = tempfile::tempdir().unwrap();
        let run = crate::report::RunInfo::collect(dir.path(), "test", crate::report::Mode::Quick);
        let mut report = crate::report::Report::new("demo", "Demo", run);
        report.plots.push(plot());
        let written = report.write(dir.path()).unwrap();
        let path = dir.path().join("demo-validation.svg");
        assert!(written.contains(&path));
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.trim_start().starts_with("<svg") && text.trim_end().ends_with("</svg>"));
        roxmltree::Document::parse(&text).unwrap();
    }

    #[test]
    fn nothing_to_draw_is_an_error() {
        let p = LogLogPlot::new("empty", "E", "x", "y").with_series(Series::new("s", vec![(0.0, 1.0)]));
        assert!(p.ranges().is_none());
        assert!(matches!(p.render_svg(), Err(BenchError::Plot { .. })));
    }

    #[test]
    fn ticks() {
        assert_eq!(tick(1.0), "1");
        assert_eq!(tick(0.001), "0.001");
        assert_eq!(tick(1e-4), "1e-4");
        assert_eq!(tick(20_000.0), "2e4");
        assert_eq!(tick(500.0), "500");
        assert_eq!(tick(2e5), "2e5");
    }
}
