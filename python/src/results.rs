//! Results the extension hands to Python as Python objects built here (frozen, every field a
//! read-only attribute, equal when their fields are, pickled by their fields), so their shapes
//! are declared once, in Rust, and in the stub (`docnav/_native.pyi`) the tests check against.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple, PyType};

use docnav::agent::evidence::location_label;
use docnav::agent::search;
use docnav::workspace::indexer;

/// An inclusive 1-based `(first, last)` range, as Python sees it.
type Span = Option<(u32, u32)>;

fn span(range: Option<[u32; 2]>) -> Span {
    range.map(|[a, b]| (a, b))
}

fn range(span: Span) -> Option<[u32; 2]> {
    span.map(|(a, b)| [a, b])
}

/// `score` as the Python float with the shortest decimal digits that read back as it (what the
/// CLI's JSON prints), not the f32's exact binary value widened.
pub fn score(score: f32) -> f64 {
    score.to_string().parse().unwrap_or(f64::from(score))
}

/// A result's fields as `(name, value)`, in its constructor's order.
type Fields<'py> = Vec<(&'static str, Bound<'py, PyAny>)>;

/// What `__reduce__` returns: the class and its constructor's arguments.
type Reduced<'py> = (Bound<'py, PyType>, Bound<'py, PyTuple>);

/// `__reduce__` of `slf`, whose constructor takes `fields` in order.
fn reduce<'py, T: pyo3::PyClass>(
    slf: &Bound<'py, T>,
    fields: Fields<'py>,
) -> PyResult<Reduced<'py>> {
    let args = PyTuple::new(slf.py(), fields.into_iter().map(|(_, v)| v))?;
    Ok((slf.as_any().get_type(), args))
}

/// `Name(field=repr, …)`, a dataclass's repr, from `fields` as `(name, value)`.
fn repr(name: &str, fields: &[(&str, Bound<'_, PyAny>)]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for (field, value) in fields {
        parts.push(format!("{field}={}", value.repr()?.to_cow()?));
    }
    Ok(format!("{name}({})", parts.join(", ")))
}

/// One ranked section of `Workspace.search`.
///
/// `path` is what `cat` takes (`/doc_id/#2.1`); `titles` run from the document's first level
/// down to the section; `lines`/`pages` are 1-based inclusive `(first, last)` (Markdown, text
/// and HTML have lines, PDF pages; `None` otherwise); `score` is BM25 (Robertson & Zaragoza
/// 2009; k1 = 1.2, b = 0.75), higher is better; `text` is the section's verbatim text cut to the
/// budget at a line boundary, `text_chars` its whole length in chars; `snippet` about 240 chars
/// around the first query term, `highlights` the same snippet as `(text, is_query_term)` parts;
/// `source` the document's file (as its DocCard says; `""` when unknown).
#[pyclass(module = "docnav._native", frozen, get_all, eq)]
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    doc_id: String,
    path: String,
    titles: Vec<String>,
    structure: String,
    lines: Span,
    pages: Span,
    score: f64,
    text: String,
    text_chars: usize,
    snippet: String,
    highlights: Vec<(String, bool)>,
    source: String,
}

impl SearchHit {
    /// The hit `hit` of the core's search, from the document whose file is `source`.
    pub fn of(hit: search::SearchHit, source: String) -> SearchHit {
        let highlights: Vec<(String, bool)> =
            hit.snippet.into_iter().map(|p| (p.text, p.hit)).collect();
        SearchHit {
            doc_id: hit.doc_id,
            path: hit.path,
            titles: hit.titles,
            structure: hit.structure,
            lines: span(hit.lines),
            pages: span(hit.pages),
            score: score(hit.score),
            text: hit.text,
            text_chars: hit.text_chars,
            snippet: highlights.iter().map(|(t, _)| t.as_str()).collect(),
            highlights,
            source,
        }
    }

    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Fields<'py>> {
        Ok(vec![
            ("doc_id", PyString::new(py, &self.doc_id).into_any()),
            ("path", PyString::new(py, &self.path).into_any()),
            ("titles", self.titles.clone().into_pyobject(py)?.into_any()),
            ("structure", PyString::new(py, &self.structure).into_any()),
            ("lines", self.lines.into_pyobject(py)?.into_any()),
            ("pages", self.pages.into_pyobject(py)?.into_any()),
            ("score", self.score.into_pyobject(py)?.into_any()),
            ("text", PyString::new(py, &self.text).into_any()),
            ("text_chars", self.text_chars.into_pyobject(py)?.into_any()),
            ("snippet", PyString::new(py, &self.snippet).into_any()),
            (
                "highlights",
                self.highlights.clone().into_pyobject(py)?.into_any(),
            ),
            ("source", PyString::new(py, &self.source).into_any()),
        ])
    }
}

#[pymethods]
impl SearchHit {
    /// A hit from its fields (what pickling calls; searches build hits themselves).
    #[new]
    #[pyo3(signature = (
        doc_id, path, titles, structure, lines, pages, score, text, text_chars, snippet,
        highlights, source = String::new()
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        doc_id: String,
        path: String,
        titles: Vec<String>,
        structure: String,
        lines: Span,
        pages: Span,
        score: f64,
        text: String,
        text_chars: usize,
        snippet: String,
        highlights: Vec<(String, bool)>,
        source: String,
    ) -> SearchHit {
        SearchHit {
            doc_id,
            path,
            titles,
            structure,
            lines,
            pages,
            score,
            text,
            text_chars,
            snippet,
            highlights,
            source,
        }
    }

    /// `"ripgrep-faq › FAQ › Does ripgrep support …"`: the document id, then `titles`.
    #[getter]
    fn title_path(&self) -> String {
        std::iter::once(self.doc_id.as_str())
            .chain(self.titles.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" › ")
    }

    /// Whether `text` is cut (`text_chars` is more than its length in chars).
    #[getter]
    fn truncated(&self) -> bool {
        self.text_chars > self.text.chars().count()
    }

    /// `"lines 40–88"`, `"pages 3–5"`, `"page 3"` or `""` (pages win), as `Evidence.location`.
    #[getter]
    fn location(&self) -> String {
        location_label(range(self.lines), range(self.pages))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        reduce(slf, slf.get().fields(slf.py())?)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        repr("SearchHit", &self.fields(py)?)
    }
}

/// What `Workspace.index` did.
///
/// `indexed` documents built, `unchanged` skipped, `failed` inputs, `pruned` catalog entries
/// dropped, `duplicates` sources kept as aliases of a document with their text; `errors` and
/// `warnings` are one line each, naming the input (a failed file keeps its previous state; the
/// others are indexed); `notices` say what the run did beyond the inputs (an older workspace
/// rebuilt, a damaged search index repaired, a duplicate kept as an alias); `bytes_built` bytes
/// of source read and built; `elapsed_ms` the run's wall time in milliseconds.
#[pyclass(module = "docnav._native", frozen, get_all, eq)]
#[derive(Debug, Clone, PartialEq)]
pub struct IndexReport {
    indexed: usize,
    unchanged: usize,
    failed: usize,
    pruned: usize,
    duplicates: usize,
    errors: Vec<String>,
    warnings: Vec<String>,
    notices: Vec<String>,
    bytes_built: u64,
    elapsed_ms: f64,
}

impl IndexReport {
    /// The report of the core's index run.
    pub fn of(report: indexer::IndexReport) -> IndexReport {
        IndexReport {
            indexed: report.indexed,
            unchanged: report.unchanged,
            failed: report.failed,
            pruned: report.pruned,
            duplicates: report.duplicates,
            errors: report.errors,
            warnings: report.warnings.iter().map(ToString::to_string).collect(),
            notices: report.notices,
            bytes_built: report.bytes_built,
            elapsed_ms: report.elapsed.as_secs_f64() * 1000.0,
        }
    }

    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Fields<'py>> {
        Ok(vec![
            ("indexed", self.indexed.into_pyobject(py)?.into_any()),
            ("unchanged", self.unchanged.into_pyobject(py)?.into_any()),
            ("failed", self.failed.into_pyobject(py)?.into_any()),
            ("pruned", self.pruned.into_pyobject(py)?.into_any()),
            ("duplicates", self.duplicates.into_pyobject(py)?.into_any()),
            ("errors", self.errors.clone().into_pyobject(py)?.into_any()),
            (
                "warnings",
                self.warnings.clone().into_pyobject(py)?.into_any(),
            ),
            (
                "notices",
                self.notices.clone().into_pyobject(py)?.into_any(),
            ),
            (
                "bytes_built",
                self.bytes_built.into_pyobject(py)?.into_any(),
            ),
            ("elapsed_ms", self.elapsed_ms.into_pyobject(py)?.into_any()),
        ])
    }
}

#[pymethods]
impl IndexReport {
    /// A report from its fields (what pickling calls; `Workspace.index` builds reports itself).
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        indexed: usize,
        unchanged: usize,
        failed: usize,
        pruned: usize,
        duplicates: usize,
        errors: Vec<String>,
        warnings: Vec<String>,
        notices: Vec<String>,
        bytes_built: u64,
        elapsed_ms: f64,
    ) -> IndexReport {
        IndexReport {
            indexed,
            unchanged,
            failed,
            pruned,
            duplicates,
            errors,
            warnings,
            notices,
            bytes_built,
            elapsed_ms,
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        reduce(slf, slf.get().fields(slf.py())?)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        repr("IndexReport", &self.fields(py)?)
    }
}
