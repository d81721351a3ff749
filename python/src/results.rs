//! Results the extension hands to Python as Python objects built here (frozen, every field a
//! read-only attribute, equal when their fields are, pickled by their fields), so their shapes
//! are declared once, in Rust, and in the stub (`docnav/_native.pyi`) the tests check against.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyDate, PyDict, PyIterator, PyList, PyString, PyTuple, PyType};
use pyo3::IntoPyObjectExt;

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
/// (The classes [`result_class!`] declares use it too.)
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

/// Declares a result class: a frozen pyclass whose fields are read-only attributes (nested
/// results are held as the Python objects they are, so reading `node.children` twice gives the
/// same nodes), built from its fields in order by its constructor (`= default` where given),
/// equal when its fields are, shown as `Name(field=…, …)` and pickled by its fields. Extra
/// methods and getters of the class follow the fields, in `methods { … }`.
macro_rules! result_class {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $field:ident : $ty:ty $(= $default:expr)? ),* $(,)?
        }
        methods { $($methods:tt)* }
    ) => {
        $(#[$meta])*
        #[pyclass(module = "docnav._native", frozen, get_all)]
        #[derive(Debug)]
        pub struct $name {
            $( $field: $ty, )*
        }

        impl $name {
            fn fields<'py>(&self, py: Python<'py>) -> PyResult<Fields<'py>> {
                Ok(vec![ $( (stringify!($field), (&self.$field).into_bound_py_any(py)?) ),* ])
            }
        }

        #[pymethods]
        impl $name {
            /// The object from its fields (what pickling calls; docnav builds them itself).
            #[new]
            #[pyo3(signature = ( $( $field $(= $default)? ),* ))]
            #[allow(clippy::too_many_arguments)]
            fn new($( $field: $ty ),*) -> $name {
                $name { $( $field ),* }
            }

            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
                reduce(slf, slf.get().fields(slf.py())?)
            }

            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                repr(stringify!($name), &self.fields(py)?)
            }

            fn __richcmp__(
                slf: &Bound<'_, Self>,
                other: &Bound<'_, PyAny>,
                op: CompareOp,
            ) -> PyResult<Py<PyAny>> {
                compare(slf, other, op, |a, py| a.fields(py))
            }

            $($methods)*
        }
    };
}

/// `slf == other` (or `!=`) by their fields (`fields` of each); `NotImplemented` for another
/// class or an ordering.
fn compare<'py, T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync>(
    slf: &Bound<'py, T>,
    other: &Bound<'py, PyAny>,
    op: CompareOp,
    fields: impl Fn(&T, Python<'py>) -> PyResult<Fields<'py>>,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let Ok(other) = other.cast::<T>() else {
        return Ok(py.NotImplemented());
    };
    let values = |f: Fields<'py>| PyTuple::new(py, f.into_iter().map(|(_, v)| v));
    let equal = values(fields(slf.get(), py)?)?.eq(values(fields(other.get(), py)?)?)?;
    match op {
        CompareOp::Eq => equal.into_py_any(py),
        CompareOp::Ne => (!equal).into_py_any(py),
        _ => Ok(py.NotImplemented()),
    }
}

/// `json` (the text of a value) read back by Python's `json.loads`: the dicts of the CLI's `--json`
/// output (a score keeps the digits the CLI prints), for the parts whose shape is a `TypedDict`.
fn json_dict(py: Python<'_>, json: serde_json::Result<String>) -> PyResult<Py<PyDict>> {
    let text = json.map_err(crate::errors::Error::from)?;
    let loaded = py.import("json")?.call_method1("loads", (text,))?;
    Ok(loaded.cast_into::<PyDict>()?.unbind())
}

/// `"page 3"`, `"pages 3–5"`, `"lines 40–88"`, `"paragraphs 2–4"` or `""` (pages, then lines,
/// then paragraphs).
fn location_of(lines: Span, pages: Span, paragraphs: Span) -> String {
    match (pages, lines, paragraphs) {
        (None, None, Some((a, b))) => format!("paragraphs {a}–{b}"),
        _ => location_label(range(lines), range(pages)),
    }
}

/// A Python `datetime.date` of `(year, month, day)`.
fn date(py: Python<'_>, d: Option<(u16, u8, u8)>) -> PyResult<Option<Py<PyDate>>> {
    d.map(|(y, m, day)| Ok(PyDate::new(py, i32::from(y), m, day)?.unbind()))
        .transpose()
}

result_class! {
    /// The releases a changelog covers: its newest and oldest version headings as written
    /// (`"v2.10.0"`, `"1.0"`) and how many version headings it has.
    Releases { newest: String, oldest: String, count: usize }
    methods {}
}

result_class! {
    /// The period a document covers, read from it when it was indexed (what routing matches a
    /// question's `FY2019`, `Q2 2023`, `version 4.x` on): `form` (`"10-K"`, `"10-Q"`, `"8-K"`,
    /// `"earnings release"`), `fiscal_year`, `quarter` 1–4, `end` the period's last day,
    /// `report` an 8-K's or a release's date, `releases` a changelog's range; each `None` when
    /// the document does not say.
    Period {
        form: Option<String>,
        fiscal_year: Option<u16>,
        quarter: Option<u8>,
        end: Option<Py<PyDate>>,
        report: Option<Py<PyDate>>,
        releases: Option<Py<Releases>>,
    }
    methods {}
}

impl Period {
    fn of(py: Python<'_>, p: &docnav::index::period::Period) -> PyResult<Period> {
        let releases = p
            .releases
            .as_ref()
            .map(|r| {
                Py::new(
                    py,
                    Releases {
                        newest: r.newest.clone(),
                        oldest: r.oldest.clone(),
                        count: r.count,
                    },
                )
            })
            .transpose()?;
        Ok(Period {
            form: p.form.clone(),
            fiscal_year: p.fiscal_year,
            quarter: p.quarter,
            end: date(py, p.end)?,
            report: date(py, p.report)?,
            releases,
        })
    }
}

result_class! {
    /// The light description of one document the Orchestrator reads (`docnav docs --json`):
    /// `format` (`"markdown"`, `"pdf"`, `"text"`, `"html"`, `"docx"`, `"epub"`), `bytes` the
    /// source size, `node_count` the tree's nodes with the root, `outline` depth 1–2 headings as
    /// `"2.1 Searching"`, `fingerprint` the source's sha256, `names` the names the document
    /// goes by (best first), `period` what it covers (`None` when it names no period).
    DocCard {
        doc_id: String,
        title: String,
        source: String,
        format: String,
        bytes: u64,
        node_count: u32,
        outline: Vec<String>,
        summary: String,
        top_terms: Vec<String>,
        fingerprint: String,
        names: Vec<String>,
        period: Option<Py<Period>>,
    }
    methods {}
}

impl DocCard {
    /// The Python object of the core's card.
    pub fn of(py: Python<'_>, c: &docnav::index::doccard::DocCard) -> PyResult<DocCard> {
        let format = serde_json::to_value(c.format)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let period = c
            .period
            .as_ref()
            .map(|p| Py::new(py, Period::of(py, p)?))
            .transpose()?;
        Ok(DocCard {
            doc_id: c.doc_id.clone(),
            title: c.title.clone(),
            source: c.source.clone(),
            format,
            bytes: c.bytes,
            node_count: c.node_count,
            outline: c.outline.clone(),
            summary: c.summary.clone(),
            top_terms: c.top_terms.clone(),
            fingerprint: c.fingerprint.clone(),
            names: c.names.clone(),
            period,
        })
    }
}

result_class! {
    /// A DocCard as ranked for a question (`Workspace.docs_for`, `docnav docs --for`): `rank`
    /// 1-based, `why` the one-line reason the CLI prints, `reasons` its parts as `docnav docs
    /// --for --json` gives them (`name`, `period`, `section`, `card`, each when it applies).
    RankedDoc {
        rank: usize,
        why: String,
        reasons: Py<PyDict>,
        card: Py<DocCard>,
    }
    methods {}
}

impl RankedDoc {
    /// The Python object of the core's ranked card.
    pub fn of(py: Python<'_>, r: &docnav::agent::routing::RankedCard) -> PyResult<RankedDoc> {
        Ok(RankedDoc {
            rank: r.rank,
            why: r.why.line(),
            reasons: json_dict(py, serde_json::to_string(&r.why))?,
            card: Py::new(py, DocCard::of(py, r.card.as_ref())?)?,
        })
    }
}

result_class! {
    /// A node of a document's heading tree (`docnav tree --json`): `structure` the dotted
    /// number (`"2.1"`; `""` for the root), `lines`/`pages`/`paragraphs` the node's own text
    /// (not its children's) as 1-based inclusive `(first, last)`, `token_count` its estimated
    /// tokens (chars / 4), `references` the structure numbers of the sections it refers to.
    Node {
        structure: String,
        title: String,
        lines: Span,
        pages: Span,
        token_count: u32,
        references: Vec<String>,
        children: Vec<Py<Node>> = Vec::new(),
        paragraphs: Span = None,
    }
    methods {
        /// This node and every node below it, in reading order.
        fn walk<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyIterator>> {
            let mut found = Vec::new();
            walk_into(slf.py(), slf.clone().unbind(), &mut found);
            PyList::new(slf.py(), found)?.as_any().try_iter()
        }

        /// The node numbered `structure` (`"2.1"`) in this subtree, or `None`.
        fn find(slf: &Bound<'_, Self>, structure: &str) -> Option<Py<Node>> {
            let mut found = Vec::new();
            walk_into(slf.py(), slf.clone().unbind(), &mut found);
            found.into_iter().find(|n| n.get().structure == structure)
        }
    }
}

/// `node` and its subtree in reading order, appended to `out`.
fn walk_into(py: Python<'_>, node: Py<Node>, out: &mut Vec<Py<Node>>) {
    let children: Vec<Py<Node>> = node
        .get()
        .children
        .iter()
        .map(|c| c.clone_ref(py))
        .collect();
    out.push(node);
    for child in children {
        walk_into(py, child, out);
    }
}

impl Node {
    /// The Python object of the core's outline node and its subtree.
    pub fn of(py: Python<'_>, n: &docnav::tree::outline::OutlineNode) -> PyResult<Node> {
        let children = n
            .children
            .iter()
            .map(|c| Py::new(py, Node::of(py, c)?))
            .collect::<PyResult<_>>()?;
        Ok(Node {
            structure: n.structure.clone(),
            title: n.title.clone(),
            lines: span(n.lines),
            pages: span(n.pages),
            token_count: n.token_count,
            references: n.references.clone(),
            children,
            paragraphs: span(n.paragraphs),
        })
    }
}

result_class! {
    /// One passage of evidence, verbatim, with its exact location: `path` the titles from the
    /// first level below the root down to the section (empty for a whole document), `score`
    /// the BM25 rerank score (0 for evidence a `Session` collected), `explain` the score's
    /// terms when computed.
    Evidence {
        doc_id: String,
        path: Vec<String>,
        structure: String,
        lines: Span,
        pages: Span,
        text: String,
        score: f64,
        explain: Option<Py<PyDict>> = None,
        paragraphs: Span = None,
    }
    methods {
        /// `doc_id › title › … › section`.
        #[getter]
        fn title_path(&self) -> String {
            std::iter::once(self.doc_id.as_str())
                .chain(self.path.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" › ")
        }

        /// `"lines 40–88"`, `"pages 3–5"`, `"page 3"`, `"paragraphs 2–4"` or `""`.
        #[getter]
        fn location(&self) -> String {
            location_of(self.lines, self.pages, self.paragraphs)
        }
    }
}

impl Evidence {
    /// The Python object of the core's evidence item.
    pub fn of(py: Python<'_>, e: &docnav::agent::evidence::Evidence) -> PyResult<Evidence> {
        Ok(Evidence {
            doc_id: e.doc_id.clone(),
            path: e.path.clone(),
            structure: e.structure.clone(),
            lines: span(e.lines),
            pages: span(e.pages),
            text: e.text.clone(),
            score: score(e.score),
            explain: e
                .explain
                .as_ref()
                .map(|x| json_dict(py, serde_json::to_string(x)))
                .transpose()?,
            paragraphs: span(e.paragraphs),
        })
    }
}

result_class! {
    /// Whether the evidence answers the question: `verdict` is `"sufficient"`,
    /// `"insufficient"` (`missing` says what) or `"absent"` (the documents do not cover it);
    /// `judged_by` is `"evaluate"`, `"check <worker>"` or `"analyze"`.
    Verdict { verdict: String, missing: String, judged_by: String }
    methods {}
}

result_class! {
    /// A Worker that failed (its document and task, and the error); the others' evidence stands.
    WorkerFailure { worker: String, doc_id: String, task: String, error: String }
    methods {}
}

result_class! {
    /// Commands (`steps`) and evidence items one Worker collected in its document.
    WorkerStats { doc_id: String, steps: u32, evidence: u32 }
    methods {}
}

result_class! {
    /// What a run cost: model calls, prompt and completion tokens (as the server reported
    /// them), wall time in ms, dispatch rounds, and one entry per Worker.
    AskStats {
        llm_calls: u32,
        prompt_tokens: u64,
        completion_tokens: u64,
        wall_ms: u64,
        rounds: u32,
        workers: Vec<Py<WorkerStats>>,
    }
    methods {}
}

/// Evidence numbers, which a constructor takes as a list of ints only (bytes, which iterate as
/// ints, are refused).
#[derive(Debug, Clone, PartialEq)]
pub struct Numbers(Vec<u32>);

impl<'a, 'py> FromPyObject<'a, 'py> for Numbers {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Numbers> {
        Ok(Numbers(obj.cast::<PyList>()?.extract()?))
    }
}

impl<'py> IntoPyObject<'py> for &Numbers {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.0.as_slice().into_bound_py_any(py)
    }
}

result_class! {
    /// One sentence of a written answer: the evidence numbers it cites (1-based ranks of
    /// `Answer.evidence`), whether every citation holds, and why not.
    AnswerSentence {
        text: String,
        citations: Numbers,
        supported: bool,
        problem: Option<String> = None,
    }
    methods {}
}

result_class! {
    /// The answer `ask(..., answer=True)` writes and docnav verifies: `text` as people read it,
    /// the verified `sentences`, and `missing` when the verdict is not sufficient.
    WrittenAnswer {
        text: String,
        sentences: Vec<Py<AnswerSentence>>,
        missing: Option<String> = None,
    }
    methods {
        /// Whether every sentence's citations hold.
        #[getter]
        fn supported(&self) -> bool {
            self.sentences.iter().all(|s| s.get().supported)
        }
    }
}

result_class! {
    /// The answer to a question: ranked evidence (best first), the final verdict, Workers that
    /// failed, the run's stats, the written answer (`answer=True`) and the trace file when one
    /// was recorded.
    Answer {
        question: String,
        evidence: Vec<Py<Evidence>>,
        verdict: Option<Py<Verdict>>,
        worker_errors: Vec<Py<WorkerFailure>>,
        stats: Py<AskStats>,
        trace: Option<String> = None,
        answer: Option<Py<WrittenAnswer>> = None,
    }
    methods {}
}

impl Answer {
    /// The Python object of the core's answer, recorded in `trace` when it was.
    pub fn of(
        py: Python<'_>,
        a: &docnav::agent::evidence::Answer,
        trace: Option<String>,
    ) -> PyResult<Answer> {
        let evidence = a
            .evidence
            .iter()
            .map(|e| Py::new(py, Evidence::of(py, e)?))
            .collect::<PyResult<_>>()?;
        let verdict = a
            .verdict
            .as_ref()
            .map(|v| {
                Py::new(
                    py,
                    Verdict {
                        verdict: v.verdict.as_str().to_string(),
                        missing: v.missing.clone(),
                        judged_by: v.judged_by.clone(),
                    },
                )
            })
            .transpose()?;
        let worker_errors = a
            .worker_errors
            .iter()
            .map(|w| {
                Py::new(
                    py,
                    WorkerFailure {
                        worker: w.worker.clone(),
                        doc_id: w.doc_id.clone(),
                        task: w.task.clone(),
                        error: w.error.clone(),
                    },
                )
            })
            .collect::<PyResult<_>>()?;
        let s = &a.stats;
        let workers = s
            .workers
            .iter()
            .map(|w| {
                Py::new(
                    py,
                    WorkerStats {
                        doc_id: w.doc_id.clone(),
                        steps: w.steps,
                        evidence: w.evidence,
                    },
                )
            })
            .collect::<PyResult<_>>()?;
        let stats = Py::new(
            py,
            AskStats {
                llm_calls: s.llm_calls,
                prompt_tokens: s.prompt_tokens,
                completion_tokens: s.completion_tokens,
                wall_ms: s.wall_ms,
                rounds: s.rounds,
                workers,
            },
        )?;
        let answer = a
            .answer
            .as_ref()
            .map(|w| -> PyResult<Py<WrittenAnswer>> {
                let sentences = w
                    .sentences
                    .iter()
                    .map(|s| {
                        Py::new(
                            py,
                            AnswerSentence {
                                text: s.text.clone(),
                                citations: Numbers(s.citations.clone()),
                                supported: s.supported,
                                problem: s.problem.clone(),
                            },
                        )
                    })
                    .collect::<PyResult<_>>()?;
                Py::new(
                    py,
                    WrittenAnswer {
                        text: w.text.clone(),
                        sentences,
                        missing: w.missing.clone(),
                    },
                )
            })
            .transpose()?;
        Ok(Answer {
            question: a.question.clone(),
            evidence,
            verdict,
            worker_errors,
            stats,
            trace,
            answer,
        })
    }
}

result_class! {
    /// The end of `docnav.replay`: `identical` when every recorded event was reproduced (a
    /// trace cut by a crash counts up to its cut, a failed run when it fails the same way);
    /// `status` is `identical`, `identical_to_cut`, `failed_the_same_way`, `diverged` or
    /// `failed`; `details` the rest of the verdict (for `diverged`: `actor`, `seq`, `step`,
    /// `expected`, `actual`, `diff`, `message`); `notes` what changed in the documents.
    ReplayReport {
        trace: String,
        identical: bool,
        status: String,
        details: Py<PyDict>,
        notes: Vec<String>,
    }
    methods {
        /// The one-paragraph report, as `docnav replay` prints it.
        #[getter]
        fn message(&self, py: Python<'_>) -> PyResult<String> {
            let details = self.details.bind(py);
            let get = |key: &str| -> PyResult<String> {
                Ok(match details.get_item(key)? {
                    Some(v) => v.str()?.to_cow()?.into_owned(),
                    None => "None".to_string(),
                })
            };
            Ok(match self.status.as_str() {
                "identical" => format!(
                    "replay identical: {} events, {} model replies from the trace, {} evidence",
                    get("events")?,
                    get("model_replies")?,
                    get("evidence")?
                ),
                "identical_to_cut" => format!(
                    "replayed up to the cut: {} events identical ({})",
                    get("events")?,
                    get("error")?
                ),
                "failed_the_same_way" => format!(
                    "replay identical: {} events; the recorded run failed the same way: {}",
                    get("events")?,
                    get("error")?
                ),
                "diverged" => match details.get_item("message")? {
                    Some(m) => m.str()?.to_cow()?.into_owned(),
                    None => "diverged".to_string(),
                },
                _ => format!("replay failed: {}", get("error")?),
            })
        }
    }
}

impl ReplayReport {
    /// The report of replaying the trace `trace` (its path as given): `verdict` (the core's,
    /// whose JSON is the status and its details) and the `notes` on the documents.
    pub fn of(
        py: Python<'_>,
        trace: String,
        verdict: &docnav::trace::replay::verdict::ReplayVerdict,
        notes: Vec<String>,
    ) -> PyResult<ReplayReport> {
        let details = json_dict(py, serde_json::to_string(verdict))?;
        let status = match details.bind(py).get_item("status")? {
            Some(s) => s.extract::<String>()?,
            None => String::new(),
        };
        details.bind(py).del_item("status")?;
        Ok(ReplayReport {
            trace,
            identical: verdict.is_success(),
            status,
            details,
            notes,
        })
    }
}
