"""Trace types of a call's arguments, as plain data, and what changed between two of them.

TensorFlow keys a ``tf.function``'s traces by the trace type of every bound argument
(``TensorSpec`` for a tensor, ``Literal`` for a hashable Python value, ``Weakref`` for any
other object, ``Tuple``/``List``/``Dict``/``NamedTuple`` for structures, a ``TypeSpec`` for
datasets, iterators and composite tensors). :func:`node` turns one into a small tuple that
outlives the trace, prints, compares and serialises to JSON; nothing here imports TensorFlow:
the trace types are read by duck typing.

A node is one of::

    ("tensor", kind, dtype, shape)     shape: tuple of int or None, or None for unknown rank
    ("value", type_name, repr)         a Python value compared by equality
    ("object", class_name, object_id, serial)  a Python object compared by identity
    ("seq", container, (node, ...))    tuple or list
    ("map", container, ((key, node), ...))
    ("spec", class_name, node)         a TypeSpec and the structure of its element_spec
    ("other", class_name, repr)
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

Node = Tuple[Any, ...]

# id() alone does not tell two objects apart: once the first is freed, CPython may give the
# next one the same address (``f(x, Config())`` twice in a row). Each object seen gets a
# serial number; an id whose earlier object is gone gets a new one.
_serials = itertools.count(1)
_seen: Dict[int, Tuple[Any, int]] = {}


def _identity(target: Any) -> int:
    key = id(target)
    known = _seen.get(key)
    if known is not None and known[0]() is target:
        return known[1]
    try:
        ref = weakref.ref(target, lambda _ref, key=key: _forget(key, _ref))
    except TypeError:  # not weakly referenceable: its id is all there is
        return key
    serial = next(_serials)
    _seen[key] = (ref, serial)
    return serial


def _forget(key: int, ref: Any) -> None:
    known = _seen.get(key)
    if known is not None and known[0] is ref:
        del _seen[key]


class Change(NamedTuple):
    """One difference between two traces of the same function."""

    path: str       # the argument, e.g. ``lr`` or ``batch['x']``
    kind: str       # python-value, shape, rank, dtype, new-object, structure, type, spec
    old: str
    new: str


def _dtype_name(dtype: Any) -> str:
    return getattr(dtype, "name", None) or str(dtype)


def _shape(shape: Any) -> Optional[Tuple[Optional[int], ...]]:
    rank = getattr(shape, "rank", None)
    if rank is None and not isinstance(shape, (tuple, list)):
        return None
    dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    return tuple(None if d is None else int(d) for d in dims)


def node(trace_type: Any) -> Node:
    """The plain-data view of one trace type (or of a nested structure of type specs)."""
    cls = type(trace_type).__name__
    if isinstance(trace_type, (tuple, list)):
        return ("seq", type(trace_type).__name__, tuple(node(c) for c in trace_type))
    if isinstance(trace_type, dict):
        return ("map", "dict", tuple((k, node(v)) for k, v in trace_type.items()))
    if cls == "Literal":
        value = trace_type.value
        return ("value", type(value).__name__, repr(value))
    if cls == "Weakref":
        ref = getattr(trace_type, "_ref", None)
        target = ref() if ref is not None else None
        if target is None:
            return ("object", "object", 0, 0)
        return ("object", type(target).__name__, id(target), _identity(target))
    if cls == "Tuple":
        return ("seq", "tuple", tuple(node(c) for c in trace_type.components))
    if cls == "List":
        return ("seq", "list", tuple(node(c) for c in trace_type.components_tuple.components))
    if cls in ("NamedTuple", "Attrs"):
        named = trace_type.named_attributes if cls == "Attrs" else trace_type
        return ("map", named.type_name,
                tuple(zip(named.attribute_names,
                          (node(c) for c in named.attributes.components))))
    if cls == "Dict":
        return ("map", "dict", tuple((k, node(v)) for k, v in trace_type.mapping.items()))
    if hasattr(trace_type, "shape") and hasattr(trace_type, "dtype") and cls in (
            "TensorSpec", "VariableSpec", "BoundedTensorSpec"):
        kind = "variable" if cls == "VariableSpec" else "tensor"
        return ("tensor", kind, _dtype_name(trace_type.dtype), _shape(trace_type.shape))
    element_spec = getattr(trace_type, "_element_spec", None)
    if element_spec is None:
        element_spec = getattr(trace_type, "element_spec", None)
    if element_spec is not None:
        return ("spec", cls, node(element_spec))
    if hasattr(trace_type, "shape") and hasattr(trace_type, "dtype"):  # ragged, sparse, ...
        return ("tensor", cls, _dtype_name(trace_type.dtype), _shape(trace_type.shape))
    return ("other", cls, repr(trace_type))


def shape_text(shape: Optional[Tuple[Optional[int], ...]]) -> str:
    if shape is None:
        return "unknown rank"
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"


def describe(n: Node) -> str:
    """A short human reading of a node: ``float32 (32, 128)``, ``Python float 0.001``."""
    tag = n[0]
    if tag == "tensor":
        prefix = "" if n[1] == "tensor" else f"{n[1]} "
        return f"{prefix}{n[2]} {shape_text(n[3])}"
    if tag == "value":
        return f"Python {n[1]} {n[2]}"
    if tag == "object":
        return f"{n[1]} object at {n[2]:#x}"
    if tag == "seq":
        inner = ", ".join(describe(c) for c in n[2])
        return f"[{inner}]" if n[1] == "list" else f"({inner}{',' if len(n[2]) == 1 else ''})"
    if tag == "map":
        inner = ", ".join(f"{k!r}: {describe(v)}" if n[1] == "dict" else f"{k}={describe(v)}"
                          for k, v in n[2])
        return "{" + inner + "}" if n[1] == "dict" else f"{n[1]}({inner})"
    if tag == "spec":
        return f"{n[1]}({describe(n[2])})"
    return n[2]


def _structure(n: Node) -> str:
    """The nesting of a node without its leaves: ``list of 3``, ``dict with keys a, b``."""
    if n[0] == "seq":
        return f"{n[1]} of {len(n[2])}"
    if n[0] == "map":
        keys = ", ".join(str(k) for k, _ in n[2])
        return f"{n[1]} with keys {keys}" if n[1] == "dict" else f"{n[1]}({keys})"
    return {"tensor": "tensor", "value": f"Python {n[1] if len(n) > 1 else ''}",
            "object": f"{n[1]} object"}.get(n[0], n[1])


def _index(path: str, key: Any) -> str:
    return f"{path}[{key!r}]"


def diff(old: Node, new: Node, path: str) -> List[Change]:
    """The leaves (or sub-structures) where ``new`` differs from ``old``, most specific first."""
    if old == new:
        return []
    if old[0] != new[0]:
        if {old[0], new[0]} <= {"seq", "map"}:
            return [Change(path, "structure", _structure(old), _structure(new))]
        return [Change(path, "type", describe(old), describe(new))]
    tag = old[0]
    if tag == "tensor":
        if old[2] != new[2]:
            return [Change(path, "dtype", describe(old), describe(new))]
        if old[3] is None or new[3] is None or len(old[3]) != len(new[3]):
            return [Change(path, "rank", describe(old), describe(new))]
        if old[3] != new[3]:
            return [Change(path, "shape", shape_text(old[3]), shape_text(new[3]))]
        return [Change(path, "type", describe(old), describe(new))]  # tensor vs variable
    if tag == "value":
        return [Change(path, "python-value", old[2] if old[1] == new[1] else describe(old),
                       new[2] if old[1] == new[1] else describe(new))]
    if tag == "object":
        if old[1] == new[1]:
            fresh = f"a new {new[1]} object at {new[2]:#x}"
            return [Change(path, "new-object", describe(old), fresh)]
        return [Change(path, "type", describe(old), describe(new))]
    if tag == "seq":
        if old[1] != new[1] or len(old[2]) != len(new[2]):
            return [Change(path, "structure", _structure(old), _structure(new))]
        return [c for i, (a, b) in enumerate(zip(old[2], new[2]))
                for c in diff(a, b, _index(path, i))]
    if tag == "map":
        if old[1] != new[1] or [k for k, _ in old[2]] != [k for k, _ in new[2]]:
            return [Change(path, "structure", _structure(old), _structure(new))]
        return [c for (k, a), (_, b) in zip(old[2], new[2])
                for c in diff(a, b, _index(path, k) if old[1] == "dict" else f"{path}.{k}")]
    if tag == "spec":
        if old[1] != new[1]:
            return [Change(path, "type", describe(old), describe(new))]
        return diff(old[2], new[2], f"{path}.element_spec")
    return [Change(path, "type", describe(old), describe(new))]


def from_json(value: Any) -> Any:
    """A node read back from JSON (lists to tuples)."""
    if isinstance(value, list):
        return tuple(from_json(v) for v in value)
    return value


# -- input signatures ---------------------------------------------------------------------

_SCALAR_DTYPES = {"float": "tf.float32", "int": "tf.int32"}


def merge_specs(nodes: List[Node]) -> Optional[str]:
    """A ``tf.TensorSpec`` expression (or nested list/dict of them) that accepts every node,
    with ``None`` for the dimensions that varied; ``None`` when no signature fits (objects,
    changing structures or dtypes, strings)."""
    first = nodes[0]
    if any(n[0] != first[0] for n in nodes):
        return None
    tag = first[0]
    if tag == "tensor":
        if any(n[1] != "tensor" or n[2] != first[2] for n in nodes):
            return None
        shapes = [n[3] for n in nodes]
        if any(s is None or len(s) != len(shapes[0]) for s in shapes):
            shape = "None"
        else:
            dims = ["None" if len({s[i] for s in shapes}) > 1 or shapes[0][i] is None
                    else str(shapes[0][i]) for i in range(len(shapes[0]))]
            shape = "[" + ", ".join(dims) + "]"
        return f"tf.TensorSpec(shape={shape}, dtype=tf.{first[2]})"
    if tag == "value":
        if any(n[1] != first[1] for n in nodes) or first[1] not in _SCALAR_DTYPES:
            return None
        return f"tf.TensorSpec(shape=[], dtype={_SCALAR_DTYPES[first[1]]})"
    if tag == "seq":
        if any(n[1] != first[1] or len(n[2]) != len(first[2]) for n in nodes):
            return None
        parts = [merge_specs([n[2][i] for n in nodes]) for i in range(len(first[2]))]
        if any(p is None for p in parts):
            return None
        inner = ", ".join(parts) + ("," if len(parts) == 1 and first[1] == "tuple" else "")
        return f"[{inner}]" if first[1] == "list" else f"({inner})"
    if tag == "map":
        keys = [k for k, _ in first[2]]
        if first[1] != "dict" or any([k for k, _ in n[2]] != keys for n in nodes):
            return None
        parts = [merge_specs([n[2][i][1] for n in nodes]) for i in range(len(keys))]
        if any(p is None for p in parts):
            return None
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts)) + "}"
    return None


def scalar_parameters(nodes: List[Node]) -> bool:
    """Whether these are Python numbers (the signature then asks for a tensor instead)."""
    return nodes[0][0] == "value" and nodes[0][1] in _SCALAR_DTYPES
