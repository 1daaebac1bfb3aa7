"""The package's architecture holds: a small core, no import cycles, analyses below rules."""

import ast
from pathlib import Path
from typing import Dict, Set

import tffunc_lint

PACKAGE = Path(tffunc_lint.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> Dict[str, Set[str]]:
    """Every ``tffunc_lint`` module and the package modules it imports, wherever the import
    statement stands (module level, in a function or under ``TYPE_CHECKING``)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")
               if "fixtures" not in p.relative_to(PACKAGE).parts}
    graph: Dict[str, Set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                stem = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in modules
                           else stem for alias in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def find_cycle(graph: Dict[str, Set[str]]):
    """One import cycle as a list of modules, or None."""
    state: Dict[str, int] = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_find_cycle_detects_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_in_the_package():
    assert find_cycle(import_graph()) is None


def test_analyses_never_import_rules_doors_or_the_engine():
    above = ("tffunc_lint.rules", "tffunc_lint.rule", "tffunc_lint.engine",
             "tffunc_lint.runner", "tffunc_lint.doors", "tffunc_lint.config")
    for module, targets in import_graph().items():
        if module.startswith("tffunc_lint.analysis"):
            wrong = sorted(t for t in targets if t.startswith(above))
            assert not wrong, f"{module} imports {wrong}"


def test_the_core_stays_small():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 14, top
    assert (PACKAGE / "analysis" / "__init__.py").is_file()
