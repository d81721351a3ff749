//! Outline (bookmarks) reading, PDF 32000-1:2008 §12.3.3: the `/Outlines` → `/First`/`/Next`
//! tree in pre-order, each entry's destination resolved to a 1-based page through `/Dest` or a
//! `/A` GoTo action, explicit (`[page /XYZ …]`) or named (catalog `/Dests` dictionary or the
//! `/Names` → `/Dests` name tree, §7.9.6).

use std::collections::{HashMap, HashSet};

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::fonts::deref;

/// Outline entries beyond this are ignored (guards hostile files).
const MAX_ENTRIES: usize = 100_000;
/// Nesting deeper than this is ignored (guards hostile files and the stack).
const MAX_DEPTH: u32 = 64;

/// One outline entry.
#[derive(Debug, Clone, PartialEq)]
pub struct OutlineEntry {
    /// Outline depth, 1 = top.
    pub level: u32,
    /// Title with whitespace runs collapsed to one space.
    pub title: String,
    /// 1-based destination page; `None` when the destination cannot be resolved.
    pub page: Option<u32>,
    /// The destination's top edge on its page, in PDF user-space points from the bottom (the
    /// `top` of an `/XYZ`, `/FitH`, `/FitBH` or `/FitR` destination); `None` when the
    /// destination names no height (`/Fit`, a null `top`) or cannot be resolved.
    pub top: Option<f32>,
}

/// Read the outline; empty when the document has none. `page_numbers` maps page object ids to
/// 1-based page numbers. Never fails: unreadable parts are skipped.
pub fn read_outline(doc: &Document, page_numbers: &HashMap<ObjectId, u32>) -> Vec<OutlineEntry> {
    let Ok(catalog) = doc.catalog() else {
        return Vec::new();
    };
    let Some(root) = catalog
        .get(b"Outlines")
        .ok()
        .and_then(|o| deref(doc, o).as_dict().ok())
    else {
        return Vec::new();
    };
    let mut reader = Reader {
        doc,
        page_numbers,
        names: None,
        catalog,
        seen: HashSet::new(),
        out: Vec::new(),
    };
    if let Ok(first) = root.get(b"First") {
        reader.walk(first, 1);
    }
    reader.out
}

struct Reader<'a> {
    doc: &'a Document,
    page_numbers: &'a HashMap<ObjectId, u32>,
    /// Named destinations, built on first use.
    names: Option<HashMap<Vec<u8>, &'a Object>>,
    catalog: &'a Dictionary,
    seen: HashSet<ObjectId>,
    out: Vec<OutlineEntry>,
}

impl<'a> Reader<'a> {
    /// Visit `first` and its `/Next` siblings (and their children) at `level`.
    fn walk(&mut self, first: &'a Object, level: u32) {
        let mut current = Some(first);
        while let Some(obj) = current {
            if self.out.len() >= MAX_ENTRIES || level > MAX_DEPTH {
                return;
            }
            if let Ok(id) = obj.as_reference() {
                if !self.seen.insert(id) {
                    return; // cycle
                }
            }
            let Ok(item) = deref(self.doc, obj).as_dict() else {
                return;
            };
            let title = item
                .get(b"Title")
                .ok()
                .and_then(|t| lopdf::decode_text_string(deref(self.doc, t)).ok())
                .unwrap_or_default();
            let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
            let (page, top) = self.entry_page(item).unzip();
            self.out.push(OutlineEntry {
                level,
                title,
                page,
                top: top.flatten(),
            });
            if let Ok(child) = item.get(b"First") {
                self.walk(child, level + 1);
            }
            current = item.get(b"Next").ok();
        }
    }

    /// The entry's destination: its page and the top edge it names.
    fn entry_page(&mut self, item: &'a Dictionary) -> Option<(u32, Option<f32>)> {
        if let Ok(dest) = item.get(b"Dest") {
            return self.resolve(dest, 0);
        }
        let action = deref(self.doc, item.get(b"A").ok()?).as_dict().ok()?;
        if action.get(b"S").and_then(Object::as_name).ok()? != b"GoTo" {
            return None;
        }
        self.resolve(action.get(b"D").ok()?, 0)
    }

    fn resolve(&mut self, dest: &'a Object, hops: u32) -> Option<(u32, Option<f32>)> {
        if hops > 4 {
            return None;
        }
        match deref(self.doc, dest) {
            Object::Array(items) => {
                let page = match items.first()? {
                    Object::Reference(id) => self.page_numbers.get(id).copied(),
                    Object::Integer(n) => u32::try_from(*n).ok().map(|n| n + 1),
                    _ => None,
                }?;
                Some((page, destination_top(items)))
            }
            Object::Dictionary(d) => self.resolve(d.get(b"D").ok()?, hops + 1),
            Object::Name(name) | Object::String(name, _) => {
                let target = self.named(name)?;
                self.resolve(target, hops + 1)
            }
            _ => None,
        }
    }

    fn named(&mut self, name: &[u8]) -> Option<&'a Object> {
        if self.names.is_none() {
            let mut names = HashMap::new();
            let doc = self.doc;
            if let Ok(dests) = self.catalog.get(b"Dests") {
                if let Ok(d) = deref(doc, dests).as_dict() {
                    for (k, v) in d.iter() {
                        names.insert(k.clone(), v);
                    }
                }
            }
            if let Some(tree) = self
                .catalog
                .get(b"Names")
                .ok()
                .and_then(|n| deref(doc, n).as_dict().ok())
                .and_then(|n| n.get(b"Dests").ok())
            {
                let mut seen = HashSet::new();
                collect_name_tree(doc, tree, &mut names, &mut seen, 0);
            }
            self.names = Some(names);
        }
        self.names.as_ref()?.get(name).copied()
    }
}

/// The top edge an explicit destination `[page /XYZ left top zoom]` names (PDF 32000-1:2008
/// §12.3.2.2, Table 151): `top` of `/XYZ`, `/FitH`, `/FitBH` and `/FitR`; `None` for `/Fit`,
/// `/FitB`, `/FitV`, `/FitBV` and a null or missing value.
fn destination_top(items: &[Object]) -> Option<f32> {
    let index = match items.get(1)?.as_name().ok()? {
        b"XYZ" => 3,
        b"FitH" | b"FitBH" => 2,
        b"FitR" => 5,
        _ => return None,
    };
    match items.get(index)? {
        Object::Integer(n) => Some(*n as f32),
        Object::Real(r) => Some(*r),
        _ => None,
    }
}

/// Gather a name tree's `/Names` pairs, descending `/Kids` (§7.9.6).
fn collect_name_tree<'a>(
    doc: &'a Document,
    node: &'a Object,
    out: &mut HashMap<Vec<u8>, &'a Object>,
    seen: &mut HashSet<ObjectId>,
    depth: u32,
) {
    if depth > MAX_DEPTH || out.len() > 10 * MAX_ENTRIES {
        return;
    }
    if let Ok(id) = node.as_reference() {
        if !seen.insert(id) {
            return;
        }
    }
    let Ok(dict) = deref(doc, node).as_dict() else {
        return;
    };
    if let Ok(pairs) = dict.get(b"Names").and_then(|n| deref(doc, n).as_array()) {
        for pair in pairs.chunks(2) {
            if let [key, value] = pair {
                if let Ok(k) = deref(doc, key).as_str() {
                    out.insert(k.to_vec(), value);
                }
            }
        }
    }
    if let Ok(kids) = dict.get(b"Kids").and_then(|k| deref(doc, k).as_array()) {
        for kid in kids {
            collect_name_tree(doc, kid, out, seen, depth + 1);
        }
    }
}
