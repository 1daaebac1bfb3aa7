"""The reading of if-tests shared by call edges and findings (``guards``)."""

import ast

import pytest

from tffunc_lint.analysis import guards
from tffunc_lint.analysis.names import NameTable

NAMES = NameTable({"tf": "tensorflow", "np": "numpy", "keras": "keras", "torch": "torch"})


def reader(callee=None, aliases=None):
    return guards.GuardReader(NAMES.resolve, callee, aliases)


def expr(text):
    return ast.parse(text, mode="eval").body


@pytest.mark.parametrize("test, when_true, when_false", [
    ("tf.executing_eagerly()", True, guards.NEVER),
    ("not tf.executing_eagerly()", guards.NEVER, True),
    ("tf.inside_function()", guards.NEVER, True),
    ('hasattr(x, "numpy")', True, guards.NEVER),
    ('hasattr(x, "shape")', guards.NEVER, guards.NEVER),
    ("isinstance(x, np.ndarray)", True, guards.NEVER),
    ("isinstance(x, (np.ndarray, tf.Tensor))", guards.NEVER, guards.NEVER),
    ("isinstance(x, torch.Tensor)", True, guards.NEVER),
    ('"torch.Tensor" in str(type(x))', True, guards.NEVER),
    ('keras.config.backend() == "jax"', True, guards.NEVER),
    ('keras.config.backend() == "tensorflow"', guards.NEVER, True),
    ('keras.config.backend() != "tensorflow"', True, guards.NEVER),
    ('keras.config.backend() in ("jax", "torch")', True, guards.NEVER),
    ('keras.config.backend() in ("jax", "tensorflow")', guards.NEVER, True),
    ("tf.executing_eagerly() and flag", True, guards.NEVER),
    ("tf.executing_eagerly() or flag", guards.NEVER, guards.NEVER),
    ("not tf.executing_eagerly() or flag", guards.NEVER, True),
    ("flag", guards.NEVER, guards.NEVER),
    ("unknown.executing_eagerly()", True, guards.NEVER),
    ("tf.executing_eagerly() == True", True, guards.NEVER),
    ("tf.executing_eagerly() is False", guards.NEVER, True),
    ("tf.executing_eagerly() != True", guards.NEVER, True),
    ("tf.executing_eagerly() == 1", guards.NEVER, guards.NEVER),
])
def test_untraced_if(test, when_true, when_false):
    assert reader().untraced_if(expr(test), True) == when_true
    assert reader().untraced_if(expr(test), False) == when_false


def test_a_predicate_call_is_left_to_the_call_graph():
    found = reader(callee=lambda func: ast.unparse(func))
    assert found.untraced_if(expr("in_tf_function()"), True) == (("in_tf_function", "eager"),)
    assert found.untraced_if(expr("not in_tf_function()"), True) == (
        ("in_tf_function", "graph"),)
    assert found.untraced_if(expr("in_tf_function(x)"), True) == guards.NEVER


def test_aliases_are_read_and_cannot_loop():
    aliases = {"use_tf": expr("not tf.executing_eagerly() or flag"), "a": expr("b or c"),
               "b": expr("a and d")}
    found = reader(aliases=aliases)
    assert found.untraced_if(expr("use_tf"), False) is True
    assert found.untraced_if(expr("a"), True) == guards.NEVER


@pytest.mark.parametrize("source, polarity", [
    ("def f():\n    return not tf.executing_eagerly()", ("graph",)),
    ("def f():\n    if tf is None:\n        return False\n    return not tf.executing_eagerly()",
     ("graph",)),
    ("def f():\n    return tf.executing_eagerly()", ("eager",)),
    ('def f(self):\n    """Doc."""\n    if tf.inside_function():\n        return True\n'
     "    return self.flag", ("graph",)),
    ("def f():\n    return tf.executing_eagerly() or flag", None),
    ("def f():\n    if flag:\n        return tf.executing_eagerly()\n"
     "    return not tf.executing_eagerly()", None),
    ("def f():\n    pass", None),
])
def test_predicate_polarity(source, polarity):
    assert reader().predicate_polarity(ast.parse(source).body[0]) == polarity


def test_a_predicate_may_delegate():
    function = ast.parse("def f(self):\n    if helper():\n        return True\n"
                         "    return False").body[0]
    assert reader(callee=lambda func: "helper").predicate_polarity(function) == (
        "graph", "graph", "helper")


@pytest.mark.parametrize("test, targets", [
    ("self.table is None", {"self.table"}),
    ("not self.table", {"self.table"}),
    ('not hasattr(self, "table")', {"self.table"}),
    ('getattr(self, "cache", None) is None', {"self.cache"}),
    ("not cache[0]", {"cache"}),
    ("TABLE is None or force", {"TABLE"}),
    ("len(self.experts) == 0", {"self.experts"}),
    ("not len(self.experts)", {"self.experts"}),
    ("len(self.experts) < 1", {"self.experts"}),
    ("len(self.experts) > 0", set()),
    ("len(self.experts) == 3", set()),
    ("self.table is not None", set()),
    ("self.training", set()),
])
def test_init_targets(test, targets):
    assert guards.init_targets(expr(test)) == targets


@pytest.mark.parametrize("test, targets", [
    ("self.table is not None", {"self.table"}),
    ('hasattr(self, "table")', {"self.table"}),
    ("self.ready", {"self.ready"}),
    ("self.table is None", set()),
])
def test_initialised_targets(test, targets):
    assert guards.initialised_targets(expr(test)) == targets


@pytest.mark.parametrize("test, flags", [
    ("not self.initialized", {"self.initialized": False}),
    ("self.ready is False", {"self.ready": False}),
    ("self.ready == False", {"self.ready": False}),
    ("training and not self.initialized", {"self.initialized": False}),
    ("self.first_call", {"self.first_call": True}),
    ("self.first_call is True", {"self.first_call": True}),
    ('not getattr(self, "initialized", False)', {"self.initialized": False}),
    ('not hasattr(self, "initialized")', {"self.initialized": False}),
    ("self.v is None", {}),
    ("not initialized", {}),
    ("self.count == 0", {}),
])
def test_flag_tests(test, flags):
    assert guards.flag_tests(expr(test)) == flags


def test_excluded_by_an_earlier_exit():
    exit_test = expr("not tf.executing_eagerly() and tf.is_tensor(x)")
    assert reader().excluded(expr("tf.is_tensor(x)"), [exit_test])
    assert not reader().excluded(expr("tf.is_tensor(y)"), [exit_test])
    assert not reader().excluded(expr("tf.is_tensor(x)"), [expr("flag and tf.is_tensor(x)")])


@pytest.mark.parametrize("source, leaves", [
    ("return x", True),
    ("x = 1", False),
    ("if a:\n    return 1\nelse:\n    raise ValueError", True),
    ("if a:\n    return 1", False),
])
def test_exits(source, leaves):
    assert guards.exits(ast.parse(source).body) is leaves


@pytest.mark.parametrize("source, names", [
    ("def f(x):\n    clip = False\n    if x:\n        clip = None\n    return clip", {"clip"}),
    ("def f(x):\n    clip = False\n    if x:\n        clip = True\n    return clip", set()),
    ("def f(clip=False):\n    clip = False\n    return clip", set()),
    ("def f(x):\n    global debug\n    debug = 0\n    return debug", set()),
    ("def f(x):\n    a = b = 0\n    for a in x:\n        pass\n    return a, b", {"b"}),
    ("def f(x):\n    done = False\n    def g():\n        nonlocal done\n"
     "        done = True\n    return g", {"done"}),
])
def test_never_true_locals(source, names):
    """Names every binding of the function's own code sets false; a nested function's
    ``nonlocal`` rebinding is its own code, not the outer one's (left to the reader of the
    nested scope), so the outer name still counts."""
    assert guards.never_true_locals(ast.parse(source).body[0]) == names


def test_a_lambda_has_no_never_true_locals():
    assert guards.never_true_locals(expr("lambda x: f(x)")) == frozenset()


def test_a_name_never_true_makes_its_branch_dead():
    found = guards.GuardReader(NAMES.resolve, None, {}, frozenset({"clip"}))
    assert found.untraced_if(expr("clip == True"), True) is True
    assert found.untraced_if(expr("clip is not False"), True) is True
    assert found.untraced_if(expr("clip == False"), True) == guards.NEVER
