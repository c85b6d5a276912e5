"""MkDocs hooks (mkdocs.yml): repository files that the docs link to become part of the site.

The pages in docs/ link to files outside it with relative links (`../dialect/README.md`,
`../samples/gemm.py`) so that they work where the repository is browsed (GitHub). MkDocs only
serves files under docs/, so these files are added under `repo/` (`repo/dialect/README.md` is a
page, `repo/samples/gemm.py` a plain file), and every relative link of every page is rewritten
from its repository path to its place in the site.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files
from pymdownx.superfences import highlight_validator

ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = ["dialect/README.md", "dialect/tile.irdl.mlir", "benchmarks/README.md", "samples/*.py"]
LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")
# the tags of ```python blocks (docs/index.md, "Code blocks"; tests/test_docs.py runs them)
TAGS = {
    "fragment": "a fragment",
    "gpu": "needs an NVIDIA GPU",
    "continued": "continues the blocks above",
}


def _python_validator(language, inputs, options, attrs, md) -> bool:
    """Accept ```python fragment / gpu / continued; the tags become the block's title."""
    tags = [k for k in inputs if k in TAGS]
    if tags:
        options["title"] = "python: " + ", ".join(TAGS[k] for k in tags)
    rest = {k: v for k, v in inputs.items() if k not in TAGS}
    return highlight_validator(language, rest, options, attrs, md)


def _python_format(src, language, class_name, options, md, **kwargs) -> str:
    """Highlight as every other block is."""
    return md.preprocessors["fenced_code_block"].highlight(
        src=src, language=language, options=options, md=md, **kwargs
    )


def on_config(config):
    """Python blocks take the docs' tags (superfences rejects unknown options otherwise)."""
    fence = {
        "name": "python",
        "class": "highlight",
        "validator": _python_validator,
        "format": _python_format,
    }
    config.mdx_configs.setdefault("pymdownx.superfences", {})["custom_fences"] = [fence]
    return config


def on_files(files: Files, config) -> Files:
    """Add the repository files that the docs link to, under `repo/`."""
    for pattern in EXTERNAL:
        for path in sorted(ROOT.glob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            files.append(File.generated(config, f"repo/{rel}", abs_src_path=str(path)))
    return files


def _repo_path(src_uri: str) -> str:
    """The repository path of a site file."""
    return src_uri[len("repo/") :] if src_uri.startswith("repo/") else f"docs/{src_uri}"


def _site_path(repo_path: str) -> str:
    """The site path of a repository file."""
    return repo_path[len("docs/") :] if repo_path.startswith("docs/") else f"repo/{repo_path}"


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Rewrite relative links from repository paths to site paths."""
    here = posixpath.dirname(_repo_path(page.file.src_uri))
    site_here = posixpath.dirname(page.file.src_uri)

    def rewrite(m: re.Match) -> str:
        target = m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            return m.group(0)
        site = _site_path(posixpath.normpath(posixpath.join(here, target)))
        new = posixpath.relpath(site, site_here or ".")
        return f"{m.group(1)}{new}{m.group(3) or ''}{m.group(4)}"

    return LINK.sub(rewrite, markdown)
