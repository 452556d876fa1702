"""Generates the API reference pages from the modules themselves.

Run by the mkdocs-gen-files plugin at every ``mkdocs build``: one page per public module
(``fr``, ``fr.nn``, ``fr.train``, ... and ``flowrt.testing``), one entry per name of the
module's ``__all__``, rendered by mkdocstrings from the docstring. A name added to an
``__all__`` appears with no edit here; a new public module of ``flowrt.__all__`` gets
its own page. tests/test_docs.py checks that every public name has an entry.
"""

from __future__ import annotations

import importlib
import inspect
import types
from collections.abc import Iterator

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
    "flowrt.ops.extra_math_ops": "Math",
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
    out = [("flowrt", "fr")]
    todo = [m for m in _submodules("flowrt") if m != "flowrt.testing"]
    while todo:
        module = todo.pop(0)
        out.append((module, "fr" + module[len("flowrt") :]))
        todo[:0] = _submodules(module)
    out.append(("flowrt.testing", "flowrt.testing"))
    return out


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


def render(module: str, title: str) -> str:
    """The markdown of ``module``'s reference page."""
    mod = importlib.import_module(module)
    names = public_names(module)
    doc = inspect.getdoc(mod) or ""
    summary = doc.split("\n\n")[0].replace("\n", " ")
    out = ["# %s\n\n" % title, "%s\n\n" % summary if summary else ""]
    if module == "flowrt":
        out.append(
            "`import flowrt as fr`. Modules: %s.\n\n"
            % ", ".join("[%s](%s)" % (t, page_path(m).split("/")[1]) for m, t in modules()[1:])
        )
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
    for module, title in modules():
        out.append(
            "- [%s](%s): %d names\n"
            % (title, page_path(module).split("/")[1], len(public_names(module)))
        )
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


if __name__ in ("__main__", "<run_path>"):
    import mkdocs_gen_files

    for path, text in pages().items():
        with mkdocs_gen_files.open(path, "w") as f:
            f.write(text)
