//! Named pipelines: the shipped `passes/pipelines/*.xpl` files (embedded with
//! `include_str!`) and pipeline files on disk.
//!
//! A name containing `/` or ending in `.xpl` is a file path (relative to the current
//! directory at top level, to the including file's directory inside `use`). A bare name
//! is first looked up as `NAME.xpl` next to the including file (when it is a file on
//! disk), then among the shipped pipelines.

use super::ast::Source;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The shipped pipelines: `(name, text)`, sorted by name.
pub static SHIPPED: &[(&str, &str)] = &[
    ("O0", include_str!("../../pipelines/O0.xpl")),
    ("basic-opt", include_str!("../../pipelines/basic-opt.xpl")),
    ("cleanup", include_str!("../../pipelines/cleanup.xpl")),
    (
        "metal4-air-lowering",
        include_str!("../../pipelines/metal4-air-lowering.xpl"),
    ),
    (
        "post-inline-cleanup",
        include_str!("../../pipelines/post-inline-cleanup.xpl"),
    ),
    (
        "post-restructure-cleanup",
        include_str!("../../pipelines/post-restructure-cleanup.xpl"),
    ),
    (
        "pre-autodiff",
        include_str!("../../pipelines/pre-autodiff.xpl"),
    ),
    (
        "spirv-final",
        include_str!("../../pipelines/spirv-final.xpl"),
    ),
    (
        "spirv-legalize",
        include_str!("../../pipelines/spirv-legalize.xpl"),
    ),
    (
        "spirv-post-restructure",
        include_str!("../../pipelines/spirv-post-restructure.xpl"),
    ),
    (
        "spirv-structured-opt",
        include_str!("../../pipelines/spirv-structured-opt.xpl"),
    ),
    ("ssa-opt", include_str!("../../pipelines/ssa-opt.xpl")),
];

/// Where named pipelines come from.
#[derive(Clone, Debug, Default)]
pub struct Library {
    shipped: Vec<(String, String)>,
}

impl Library {
    /// The shipped pipelines.
    pub fn shipped() -> Self {
        Self {
            shipped: SHIPPED
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
        }
    }

    /// Names of the shipped pipelines, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.shipped.iter().map(|(n, _)| n.clone()).collect();
        v.sort();
        v
    }

    /// The text of shipped pipeline `name`.
    pub fn shipped_text(&self, name: &str) -> Option<&str> {
        self.shipped
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// Resolves `name` as used from the source named `from` (`None` at top level):
    /// returns the pipeline's name (a file's stem) and its source.
    pub fn resolve(&self, name: &str, from: Option<&str>) -> Option<(String, Rc<Source>)> {
        let base: Option<PathBuf> = from
            .filter(|f| !f.starts_with('<') && !f.starts_with("passes/pipelines/"))
            .and_then(|f| Path::new(f).parent().map(Path::to_path_buf));
        if is_path(name) {
            let p = match &base {
                Some(b) if Path::new(name).is_relative() => b.join(name),
                _ => PathBuf::from(name),
            };
            return read(&p);
        }
        if let Some(b) = &base {
            let p = b.join(format!("{name}.xpl"));
            if p.is_file() {
                return read(&p);
            }
        }
        self.shipped_text(name).map(|t| {
            (
                name.to_string(),
                Rc::new(Source {
                    name: format!("passes/pipelines/{name}.xpl"),
                    text: t.to_string(),
                }),
            )
        })
    }
}

/// Whether `name` names a file rather than a library pipeline.
pub fn is_path(name: &str) -> bool {
    name.contains('/') || name.ends_with(".xpl")
}

fn read(p: &Path) -> Option<(String, Rc<Source>)> {
    let text = std::fs::read_to_string(p).ok()?;
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Some((
        stem,
        Rc::new(Source {
            name: p.display().to_string(),
            text,
        }),
    ))
}
