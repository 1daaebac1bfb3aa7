"""The analyses rules ask: one question per module, below the rules and never importing them.

Base analyses (no per-file context):

- ``names``: what a name as written means (``tf.function`` → ``tensorflow.function``),
  resolved through the module's imports, never through the text ``tf``.
- ``module_index``: one module's imports, functions, classes, entry points and call edges,
  built from its ``ast`` tree in one pass; picklable, joined across modules.
- ``guards``: what an ``if`` test says about the code it guards (eager only, still unset,
  a project predicate, a module flag that is never true).
- ``graph_context``: which functions run while TensorFlow traces, and why (the reason chain
  every finding carries), across the modules of one run.
- ``guarded_code``: whether the LibCST node being visited sits in an eager-only branch or in
  one-time set-up, from its ancestors.
- ``cst_walk``: a read-only walk over LibCST trees in source order.
- ``ast_walk``: walks over ``ast`` trees without expression contexts and operators.
- ``test_code``: whether a module or function is test code.
- ``timeline``: when module-level code may run each function, in statement order (each
  ``def`` its own object, the binding in force at each call, the calls that reach it).
- ``scoped_state``: whether a function sets state only for the span of a ``with`` block
  (a context manager that sets it back on exit).

Per-file analyses (computed once per file through ``FileContext.fact``):

- ``file_context``: the context a rule visits with (names, graph context, the traced function
  being visited, ``report``); the file-level analyses below receive it.
- ``container_provenance``: where a container used in traced code comes from (made by the
  call or outliving it) and whether the module binds it to a Python container.
- ``rebinding``: which globals, closure variables and attributes the program rebinds after a
  traced function may have read them, while its traces can still be reused; which objects
  the calls of a ``tf.function`` pass, and whether one changes between two of them.
- ``call_sites``: the call sites of the module's ``tf.function`` objects and what kind of
  Python value each argument is.
- ``state_use``: whether state that traced code sets lives past the trace that sets it
  (carried from call to call, or read outside the trace), or is scratch.
- ``tensor_taint``: which values of a traced function may be tensors.
- ``graph_effects``: what code adds to the graph that changes state on every call (a
  variable update, an attribute set to a tensor), following the class's own methods.
- ``trace_output``: what a message written while tracing shows (a tensor's value, static
  information, an announcement of tracing), for TFF101 and TFF105 alike.
- ``loop_kind``: which loops AutoGraph turns into graph loops.
- ``source_lines``: the lines that can hold a given name, so module scans skip the rest.
"""
