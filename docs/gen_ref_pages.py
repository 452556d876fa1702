"""Generates the API reference pages from the modules themselves.

A MkDocs hook (``hooks:`` in mkdocs.yml), run at every ``mkdocs build``: ``on_files``
adds one page per public module (``fr``, ``fr.nn``, ``fr.train``, ... and
``flowrt.testing``), one entry per name of the module's ``__all__``, rendered by
mkdocstrings from the docstring; ``on_config`` puts every page in the navigation. A
name added to an ``__all__`` appears with no edit here; a new public module of
``flowrt.__all__`` gets its own page. tests/test_docs.py checks that every public name
has an entry and every page a place in the navigation.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flowrt._unsupported import UNSUPPORTED

# Sections of the top-level page, by the module that defines a name.
_SECTIONS = {
    "flowrt._core.graph": "Graphs, tensors and operations",
    "flowrt._core.shape": "Graphs, tensors and operations",
    "flowrt._core.registry": "Gradients",
    "flowrt.gradients": "Gradients",
    "flowrt.scopes": "Graphs, tensors and operations",
    "flowrt.session": "Sessions",
    "flowrt.session_options": "Sessions",
    "flowrt.dtypes": "Data types",
    "flowrt.variables": "Variables",
    "flowrt.var_scope": "Variables",
    "flowrt.init_ops": "Initializers",
    "flowrt.ops.data_flow_ops": "Queues",
    "flowrt.ops.io_ops": "Readers and parsing",
    "flowrt.ops.control_flow_ops": "Control flow",
    "flowrt.ops.tensor_array_ops": "Control flow",
    "flowrt.ops.functional_loops": "Control flow",
    "flowrt.ops.random_ops": "Random",
    "flowrt.ops.state_ops": "Variables",
    "flowrt.ops.math_ops": "Math",
    "flowrt.ops.cwise_math_ops": "Math",
    "flowrt.ops.scan_ops": "Math",
    "flowrt.ops.reduction_ops": "Math",
    "flowrt.ops.segment_ops": "Math",
    "flowrt.ops.matrix_ops": "Math",
    "flowrt.ops.linalg_ops": "Math",
    "flowrt.behavior": "TF1 and TF2 behaviour switches",
    "flowrt.logging": "TF1 and TF2 behaviour switches",
}
_DEFAULT_SECTION = "Arrays and other ops"


def _submodules(module: str) -> list[str]:
    """The public submodules of ``module``: those its ``__all__`` names (``fr.keras.layers``
    of ``fr.keras``); a module without ``__all__`` has none."""
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", [])
    return [
        module + "." + n
        for n in names
        if isinstance(getattr(mod, n, None), types.ModuleType)
        and getattr(mod, n).__name__ == module + "." + n
    ]


def modules() -> list[tuple[str, str]]:
    """``(import path, title)`` of every reference page, in order: ``fr``, each public
    module of ``flowrt.__all__`` followed by its own public submodules, and
    ``flowrt.testing``."""
    out = ["flowrt"]
    todo = [m for m in _submodules("flowrt") if m != "flowrt.testing"]
    while todo:
        module = todo.pop(0)
        out.append(module)
        todo[:0] = _submodules(module)
    out.append("flowrt.testing")
    return [(m, _title(m)) for m in out]


def page_path(module: str) -> str:
    """The page of ``module``, relative to docs/."""
    return "reference/%s.md" % module.replace(".", "_")


def public_names(module: str) -> list[str]:
    """The module's ``__all__`` (else its names without a leading underscore), without
    submodules (they have pages of their own)."""
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = sorted(n for n in vars(mod) if not n.startswith("_"))
    return [n for n in names if not isinstance(getattr(mod, n), types.ModuleType)]


def _documented(obj: object) -> bool:
    """Functions and classes get a mkdocstrings entry; other values a table row."""
    return inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj)


def _target(module: str, name: str) -> str:
    """Where the object is defined (mkdocstrings documents it there), when that path
    reaches it; else its public path."""
    obj = getattr(importlib.import_module(module), name)
    home, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
    if home and qual and "<" not in qual:
        found: object = importlib.import_module(home)
        for part in qual.split("."):
            found = getattr(found, part, None)
        if found is obj:
            return "%s.%s" % (home, qual)
    return "%s.%s" % (module, name)


def _entry(module: str, title: str, name: str) -> str:
    return (
        '::: %s\n    options:\n      heading: "%s.%s"\n      toc_label: "%s"\n'
        "      heading_level: 3\n      show_root_heading: true\n"
        % (_target(module, name), title, name, name)
    )


def _values_table(module: str, names: list[str]) -> Iterator[str]:
    mod = importlib.import_module(module)
    yield "| name | value |\n|---|---|\n"
    for n in names:
        yield "| `%s` | `%s` |\n" % (n, repr(getattr(mod, n)).replace("|", "\\|"))


def _title(module: str) -> str:
    return "flowrt.testing" if module == "flowrt.testing" else "fr" + module[len("flowrt") :]


def _summary(module: str) -> str:
    doc = inspect.getdoc(importlib.import_module(module)) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


def _link(module: str) -> str:
    return "[%s](%s)" % (_title(module), page_path(module).split("/")[1])


def _plugin_sections() -> str:
    """The fixtures and marks of the pytest plugin, from its source: each fixture's
    docstring and the fixtures it uses, and the ``MARKERS`` table. Read, not imported,
    so that building the docs needs neither pytest nor pytest-trio."""
    spec = importlib.util.find_spec("flowrt.testing.plugin")
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    out = ["## Fixtures\n\n", "Given to any test that names them as arguments.\n\n"]
    markers: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["MARKERS"]:
            markers = ast.literal_eval(node.value)
        decorators = [ast.unparse(d) for d in getattr(node, "decorator_list", ())]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            "pytest.fixture" in decorators or "trio_fixture" in decorators
        ):
            uses = ", ".join("`%s`" % a.arg for a in node.args.args)
            out.append("### `%s`\n\n" % node.name)
            out.append("*Fixture%s.*\n\n" % (", uses %s" % uses if uses else ""))
            out.append("%s\n\n" % ast.get_docstring(node))
    out += ["## Marks\n\n", "| mark | what it does |\n|---|---|\n"]
    out += ["| `@pytest.mark.%s` | %s |\n" % (m, d) for m, d in markers.items()]
    return "".join(out) + "\n"


def render(module: str, title: str) -> str:
    """The markdown of ``module``'s reference page."""
    mod = importlib.import_module(module)
    names = public_names(module)
    summary = _summary(module)
    out = ["# %s\n\n" % title, "%s\n\n" % summary if summary else ""]
    if module == "flowrt":
        out.append(
            "`import flowrt as fr`. Modules: %s.\n\n"
            % ", ".join(_link(m) for m, _ in modules()[1:])
        )
    elif _submodules(module):
        out.append("## Submodules\n\n")
        out += ["- %s: %s\n" % (_link(m), _summary(m)) for m in _submodules(module)]
        out.append("\n")
    if module == "flowrt.testing":
        out.append(_plugin_sections())
        out.append("## Helpers\n\n")
    documented = [n for n in names if _documented(getattr(mod, n))]
    values = [n for n in names if n not in documented]
    sections: dict[str, list[str]] = {}
    for n in documented:
        where = getattr(getattr(mod, n), "__module__", "") if module == "flowrt" else ""
        sections.setdefault(_SECTIONS.get(where, _DEFAULT_SECTION) if where else "", []).append(n)
    for section in sorted(sections, key=lambda s: (s == _DEFAULT_SECTION, s)):
        if section:
            out.append("## %s\n\n" % section)
        out += [_entry(module, title, n) + "\n" for n in sorted(sections[section], key=str.lower)]
    if values:
        out.append("## Constants and values\n\n")
        out += list(_values_table(module, values))
    return "".join(out)


def render_index() -> str:
    """The reference's front page: one line per module page."""
    out = [
        "# API reference\n\n",
        "Generated from the docstrings of every public name. Where flowrt behaves "
        "differently from TF1, the entry says so in a *Note (flowrt)*. What TF1 has and "
        "flowrt does not: [not supported](unsupported.md).\n\n",
    ]
    for module, _ in modules():
        counts = [
            "%d %s" % (n, what + "s" * (n != 1))
            for n, what in (
                (len(public_names(module)), "name"),
                (len(_submodules(module)) if module != "flowrt" else 0, "submodule"),
            )
            if n
        ]
        out.append("- %s: %s\n" % (_link(module), ", ".join(counts)))
    return "".join(out)


def render_unsupported() -> str:
    """The not-supported table, from ``flowrt._unsupported.UNSUPPORTED``."""
    out = [
        "# Not supported\n\n",
        "What TF1 has and flowrt does not, and what to use instead. The table is "
        "generated from the list in `flowrt/_unsupported.py`, which a test checks: "
        "an entry that becomes supported fails the test until it is removed. Using a "
        "listed top-level name (`fr.contrib`) raises an `AttributeError` saying so.\n\n",
        "| TF1 | instead |\n|---|---|\n",
    ]
    out += ["| `%s` | %s |\n" % (u.tf_name, u.instead) for u in UNSUPPORTED]
    return "".join(out)


def pages() -> dict[str, str]:
    """Every generated page: path relative to docs/ -> markdown."""
    out = {"reference/index.md": render_index(), "reference/unsupported.md": render_unsupported()}
    for module, title in modules():
        out[page_path(module)] = render(module, title)
    return out


def _nav_entry(module: str) -> dict[str, Any]:
    """A module's page, or, for a module with submodules, a section of its page and
    theirs."""
    subs = _submodules(module)
    if not subs:
        return {_title(module): page_path(module)}
    return {_title(module): [page_path(module), *(_nav_entry(m) for m in subs)]}


def nav() -> list[Any]:
    """The reference's navigation: its front page, every module's page (nested as the
    modules are) and the not-supported table."""
    top = [m for m in _submodules("flowrt") if m != "flowrt.testing"]
    return [
        "reference/index.md",
        {"fr": page_path("flowrt")},
        *(_nav_entry(m) for m in top),
        {"flowrt.testing": page_path("flowrt.testing")},
        {"Not supported": "reference/unsupported.md"},
    ]


def on_config(config: Any) -> Any:
    """MkDocs hook: the nav entry of ``reference/index.md`` becomes the whole reference."""
    for entry in config["nav"]:
        if isinstance(entry, dict) and list(entry.values()) in (
            ["reference/index.md"],
            [nav()],  # a config the hook has seen already
        ):
            entry[next(iter(entry))] = nav()
            return config
    raise ValueError("mkdocs.yml: the nav has no entry for reference/index.md")


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: adds the generated pages."""
    from mkdocs.structure.files import File

    for path, text in pages().items():
        files.append(File.generated(config, path, content=text))
    return files
