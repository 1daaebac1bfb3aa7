"""``tffunc-lint --verify``: check each rule's documented behaviour under real TensorFlow.

:mod:`.runner` (parent, never imports TensorFlow), :mod:`.worker` (imports it once per
process), :mod:`.recipe` (what recipes use) and :mod:`.recipes` (one per rule).
"""

#: Seconds one rule's recipe may take before its worker is stopped and the rule fails.
DEFAULT_TIMEOUT = 120.0
